"""The tray's end of the grant socket: the CLI or the MCP server asks, the user answers.

A caller that meets a sensitive project without a grant connects to the address core names
(`facade.grant_socket()`), sends one JSON line, and waits. We show a GrantDialog naming
the project, who asks and what for; Allow writes the grant through core (`facade.grant`,
off the GUI thread, with the passphrase when the project has one) and answers
{"granted": true}; Deny or closing the dialog answers false. A wrong passphrase keeps the
dialog open with the error, so the user can try again.

Only the same user may ask: QLocalServer's UserAccessOption makes the socket private,
core keeps it in a 0700 folder, and on Linux the peer's uid is checked (SO_PEERCRED).
"""

from __future__ import annotations

import logging
import os
import socket
import struct
import sys
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QByteArray, QCoreApplication, QObject, Qt, QTimer, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket
from PySide6.QtWidgets import QAbstractButton, QDialog, QMessageBox

from memoryd.app import Memoryd
from memoryd.errors import KeyUnavailable, MemorydError
from memoryd_desktop.ops import Ops

if TYPE_CHECKING:
    from memoryd_desktop.grant_dialog import GrantDialog

log = logging.getLogger("memoryd.tray")
translate = QCoreApplication.translate
MAX_REQUEST = 64 * 1024
MAX_PENDING = 4  # prompts open at once; more callers are refused, not stacked on screen
REQUEST_MS = 10_000  # a caller must send its request line within this


def peer_creds(conn: QLocalSocket) -> tuple[int, int] | None:
    """The connecting process's (pid, uid) from the kernel (Linux), None where the
    platform cannot tell: what the caller says about itself is not trusted."""
    if not sys.platform.startswith("linux"):
        return None
    fd = int(conn.socketDescriptor())
    if fd < 0:
        return None
    sock = socket.socket(fileno=os.dup(fd))
    try:
        creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    finally:
        sock.close()
    pid, uid, _gid = struct.unpack("3i", creds)
    return pid, uid


def actor_text(actor: str) -> str:
    """The kind of program asking (core's actor), in the user's words."""
    return {
        "cli": translate("GrantServer", "the memoryd command"),
        "mcp": translate("GrantServer", "the MCP server"),
        "hook": translate("GrantServer", "a capture hook"),
        "tray": translate("GrantServer", "this app"),
    }.get(actor, actor)


def who(request: dict[str, Any]) -> str:
    """ "the memoryd command", "the MCP server (claude-code), process 1234": who asks, as
    the prompt says it; the agent as it names itself."""
    actor = actor_text(str(request.get("actor") or "cli"))
    agent = request.get("agent")
    text = translate("GrantServer", "{actor} ({agent})").format(actor=actor, agent=agent) if agent else actor
    pid = request.get("peer_pid")
    return translate("GrantServer", "{who}, process {pid}").format(who=text, pid=pid) if pid else text


def grant_error(exc: BaseException, passphrase: bool) -> str:
    """Why the grant failed, for the dialog: a passphrase that does not open the project in
    the user's language (core's own words are English: they reach the log)."""
    if passphrase and isinstance(exc, KeyUnavailable):
        return translate("GrantServer", "This passphrase does not open the project. Type it again.")
    return str(exc) if isinstance(exc, MemorydError) else f"{type(exc).__name__}: {exc}"


def pin_question(request: dict[str, Any]) -> tuple[QMessageBox, QAbstractButton]:
    """The question `memoryd grant-pin set` puts to the person, and its Allow button; Deny
    is the default."""
    box = QMessageBox(
        QMessageBox.Icon.Warning,
        translate("GrantServer", "Set the grant PIN?"),
        translate(
            "GrantServer",
            "A request to set the grant PIN comes from {who}. Whoever knows it can let agents read "
            "your sensitive projects without this app. Allow only if you are setting it yourself "
            "right now.",
        ).format(who=who(request)),
    )
    box.setTextFormat(Qt.TextFormat.PlainText)  # the agent's name is never markup
    allow = box.addButton(translate("GrantServer", "Allow"), QMessageBox.ButtonRole.AcceptRole)
    deny = box.addButton(translate("GrantServer", "Deny"), QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(deny)
    return box, allow


def llm_question(request: dict[str, Any]) -> tuple[QMessageBox, QAbstractButton]:
    """The question `memoryd allow-llm` puts to the person, and its Allow button; Deny is
    the default. The project and the provider are core's record, never the caller's."""
    from memoryd.visible import clean
    from memoryd_desktop.project_text import withheld

    project = clean(str(request.get("root") or "")) or withheld(str(request["scope_hash"]))
    box = QMessageBox(
        QMessageBox.Icon.Warning,
        translate("GrantServer", "Send a sensitive project to the LLM?"),
        translate(
            "GrantServer",
            "{who} asks to let {endpoint} score the sessions of the sensitive project {project}. "
            "Their text will leave this computer each time a session there is captured. Allow "
            "only if you asked for this yourself right now.",
        ).format(who=who(request), endpoint=clean(str(request.get("endpoint") or "")), project=project),
    )
    box.setTextFormat(Qt.TextFormat.PlainText)  # the agent's name and a URL are never markup
    allow = box.addButton(translate("GrantServer", "Allow"), QMessageBox.ButtonRole.AcceptRole)
    deny = box.addButton(translate("GrantServer", "Deny"), QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(deny)
    return box, allow


class _Pending(QObject):
    """One open request: its connection, its dialog, and the bytes read so far."""

    def __init__(self, conn: QLocalSocket, parent: QObject) -> None:
        super().__init__(parent)
        self.conn = conn
        self.buffer = b""
        self.peer_pid: int | None = None
        self.request: dict[str, Any] | None = None
        self.dialog: GrantDialog | None = None
        self.box: QMessageBox | None = None  # `memoryd grant-pin set` asking for the person's yes
        self.answered = False


class GrantServer(QObject):
    """Listens while the tray runs; `asked(dict)` when a prompt opens, `answered(dict, bool)`
    when it was answered (for tests and the log)."""

    asked = Signal(object)
    answered = Signal(object, bool)
    show_wanted = Signal()  # a second launch of memoryd-tray (from the app menu) asks
    listening = Signal(str)

    def __init__(self, facade: Memoryd, ops: Ops, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.facade = facade
        # Grants get their own worker: an Allow must not wait behind a long identity
        # rewrite or reindex on the app's queue while the caller's patience runs out.
        del ops
        self.ops = Ops(on_error=lambda exc: log.error("grant failed: %s", exc), parent=self)
        self.server = QLocalServer(self)
        self.server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self.server.newConnection.connect(self._accept)
        self.address = ""
        self.pending: list[_Pending] = []

    def start(self) -> bool:
        """Listen at core's address; a stale socket of a crashed tray is removed first
        (the tray's single-instance lock says no live tray owns it)."""
        try:
            self.address = self.facade.grant_socket()
        except OSError as exc:
            log.error("grant prompts disabled: %s", exc)
            return False
        QLocalServer.removeServer(self.address)
        if not self.server.listen(self.address):
            log.error(
                "grant prompts disabled: cannot listen at %s: %s", self.address, self.server.errorString()
            )
            return False
        log.info("grant prompts: listening at %s", self.address)
        self.listening.emit(self.address)
        return True

    def stop(self) -> None:
        for item in list(self.pending):
            self._answer(item, False, reason="quit")
        self.server.close()

    def _accept(self) -> None:
        while self.server.hasPendingConnections():
            conn = self.server.nextPendingConnection()
            creds = peer_creds(conn)
            if creds is not None and creds[1] != os.getuid():
                log.warning("grant request from uid %s refused: not this user", creds[1])
                conn.abort()
                conn.deleteLater()
                continue
            conn.setReadBufferSize(MAX_REQUEST)  # Qt stops reading a peer that floods us
            item = _Pending(conn, self)
            item.peer_pid = creds[0] if creds else None
            self.pending.append(item)
            conn.readyRead.connect(lambda item=item: self._read(item))
            conn.disconnected.connect(lambda item=item: self._gone(item))
            QTimer.singleShot(REQUEST_MS, item, lambda item=item: self._too_slow(item))

    def _too_slow(self, item: _Pending) -> None:
        if item.request is None and not item.answered:
            self._answer(item, False, reason="timeout")

    def _read(self, item: _Pending) -> None:
        if item.request is not None or item.answered:
            item.conn.readAll()  # one request per connection: anything more is dropped
            return
        item.buffer += bytes(item.conn.readAll().data())
        if b"\n" not in item.buffer:
            if len(item.buffer) > MAX_REQUEST:
                self._answer(item, False, reason="too_long")
            return
        line = item.buffer.split(b"\n", 1)[0]
        item.buffer = b""
        try:
            item.request = self.facade.grant_request(line)
        except Exception as exc:  # whatever a peer sends, it gets an answer, never a trace
            log.warning("bad grant request: %s", exc)
            self._answer(item, False, str(exc), reason="bad_request")
            return
        item.request["peer_pid"] = item.peer_pid
        prompts = sum(p.dialog is not None or p.box is not None for p in self.pending)
        if item.request.get("op") in ("grant", "pin", "llm") and prompts >= MAX_PENDING:
            self._answer(item, False, reason="busy")
            return
        if item.request.get("op") == "show":
            self.show_wanted.emit()
            self._answer(item, True)
            return
        if item.request.get("op") == "pin":
            self._confirm_pin(item)
            return
        if item.request.get("op") == "llm":
            self._confirm_llm(item)
            return
        self._prompt(item)

    def _confirm_llm(self, item: _Pending) -> None:
        """`memoryd allow-llm`: a sensitive project's text would leave the machine, so the
        person confirms here and the consent is written by this app (as grants are)."""
        req = item.request
        assert req is not None
        box, allow = llm_question(req)
        item.box = box

        def decided(_code: int) -> None:
            if box.clickedButton() is not allow:
                self._answer(item, False, reason="denied")
                return
            if item.conn.state() != QLocalSocket.LocalSocketState.ConnectedState:
                self._gone(item)  # the caller stopped waiting: allow nothing
                return
            self.ops.run(
                lambda: self.facade.allow_llm(
                    req["scope_hash"], in_tray=True, expected=req["endpoint"], actor="tray"
                ),
                lambda _result: self._answer(item, True),
                lambda exc: self._answer(item, False, grant_error(exc, False), reason="denied"),
            )

        box.finished.connect(decided)
        box.show()
        box.raise_()
        box.activateWindow()
        self.asked.emit(req)

    def _confirm_pin(self, item: _Pending) -> None:
        """`memoryd grant-pin set` while random-key scopes have no PIN: a PIN set by whoever
        runs a command could grant those scopes, so the person confirms here."""
        req = item.request
        assert req is not None
        box, allow = pin_question(req)
        item.box = box
        box.finished.connect(
            lambda _code, item=item: self._answer(
                item,
                box.clickedButton() is allow,
                reason=None if box.clickedButton() is allow else "denied",
            )
        )
        box.show()
        box.raise_()
        box.activateWindow()
        self.asked.emit(req)

    def _prompt(self, item: _Pending) -> None:
        from memoryd_desktop.grant_dialog import GrantDialog  # made on the first request

        req = item.request
        assert req is not None
        dialog = GrantDialog(
            req["root"], req["scope_hash"], who(req), bool(req.get("passphrase")), what=req.get("what")
        )
        dialog.as_prompt()
        item.dialog = dialog
        dialog.accepted.connect(lambda item=item: self._allow(item))
        dialog.rejected.connect(lambda item=item: self._answer(item, False, reason="denied"))
        dialog.show()
        dialog.raise_()
        dialog.activateWindow()
        self.asked.emit(req)

    def _allow(self, item: _Pending) -> None:
        dialog, req = item.dialog, item.request
        assert dialog is not None and req is not None
        choice = dialog.result_choice()
        if choice is None:
            self._answer(item, False, reason="denied")
            return
        duration, task, passphrase = choice
        facade = self.facade

        if item.conn.state() != QLocalSocket.LocalSocketState.ConnectedState:
            self._gone(item)  # the caller stopped waiting: grant nothing
            return

        def grant() -> Any:
            # by hash: the scope core recorded, whatever folder path is there now
            # the person chose in the tray's own dialog: that is the confirmation (no PIN)
            return facade.grant(
                req["scope_hash"],
                duration=duration,
                task=task,
                passphrase=passphrase,
                in_tray=True,
                actor="tray",
            )

        def failed(exc: BaseException) -> None:
            text = grant_error(exc, bool(req.get("passphrase")))
            if item.answered:
                return
            # e.g. a wrong passphrase: the dialog says so and asks again; the caller waits
            log.info("grant failed: %s", exc)
            dialog.show_error(text)

        def granted(_result: Any) -> None:
            dialog.forget_passphrase()
            self._answer(item, True, duration=duration)

        self.ops.run(grant, granted, failed)

    def _answer(
        self,
        item: _Pending,
        granted: bool,
        error: str | None = None,
        duration: str | None = None,
        reason: str | None = None,
    ) -> None:
        """Answer the caller; a no carries a `reason` code (broker.REASONS) the CLI words
        in its own language, never this app's words."""
        if item.answered:
            return
        item.answered = True
        if item.conn.state() == QLocalSocket.LocalSocketState.ConnectedState:
            item.conn.write(
                QByteArray(self.facade.grant_answer(granted, duration=duration, error=error, reason=reason))
            )
            item.conn.flush()
            item.conn.disconnectFromServer()
        if item.dialog is not None:
            item.dialog.forget_passphrase()
            if item.dialog.isVisible():
                item.dialog.done(QDialog.DialogCode.Rejected if not granted else QDialog.DialogCode.Accepted)
        if item.box is not None and item.box.isVisible():
            item.box.close()
        if item in self.pending:
            self.pending.remove(item)
        if (item.request or {}).get("op") != "show":
            self.answered.emit(item.request or {}, granted)
        item.conn.deleteLater()
        item.deleteLater()

    def _gone(self, item: _Pending) -> None:
        """The caller stopped waiting (Ctrl+C, a timeout): close its prompt."""
        if not item.answered:
            item.answered = True
            if item.dialog is not None:
                item.dialog.forget_passphrase()
                item.dialog.close()
            if item.box is not None:
                item.box.close()
            if item in self.pending:
                self.pending.remove(item)
            item.conn.deleteLater()
            item.deleteLater()
