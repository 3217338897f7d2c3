"""The Sensitive projects window: which projects are encrypted, who may read them now, and the
three things a user does about it: grant, revoke, unmark.

Grants from here are the user's own decision, so they go through the same GrantDialog a
CLI or MCP request gets (duration, task name, the passphrase of a passphrase project) and
core's `grant` as actor "tray", which audits them like any other. A failed grant (a wrong
passphrase) keeps the dialog open with the reason. Unmarking decrypts every memory of the
project, so it asks first, and needs a live grant (core's gate checks that too).
"""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt, Signal, Slot
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from memoryd.app import Memoryd
from memoryd_desktop import assets, window_keys
from memoryd_desktop.grant_dialog import GrantDialog, project_name, sealed_folder
from memoryd_desktop.ops import Ops
from memoryd_desktop.project_text import plain_tip, withheld
from memoryd_desktop.texts import describe, local_time

log = logging.getLogger("memoryd.tray")

translate = QCoreApplication.translate  # the bare name lupdate recognises
ACTOR = "tray"
HASH_ROLE = Qt.ItemDataRole.UserRole


def shown(scope: dict[str, Any]) -> str:
    """A sensitive project's name: its folder's, or where core cannot open the sealed
    folder here (a passphrase project without a grant), "sensitive project" and its hash."""
    return project_name(str(scope["root"])) if scope["root"] else withheld(str(scope["scope_hash"]))


def folder(scope: dict[str, Any]) -> str:
    """The folder in messages; the project's name where it is sealed."""
    return str(scope["root"]) if scope["root"] else shown(scope)


def key_label(key_source: str) -> str:
    labels = {
        "random": translate("ScopesWindow", "Key in the OS keyring"),
        "passphrase": translate("ScopesWindow", "Passphrase"),
    }
    return labels.get(key_source, key_source)


def grant_label(grant: dict[str, Any]) -> str:
    """One live grant in words: how long, and until when."""
    duration = grant.get("duration")
    until = local_time(grant.get("expires_at"))
    if duration == "once":
        return translate("ScopesWindow", "once, until {time}").format(time=until)
    if duration == "session":
        return translate("ScopesWindow", "session, until {time}").format(time=until)
    if duration == "task":
        return translate("ScopesWindow", "task \u201c{task}\u201d, until revoked").format(
            task=grant.get("task") or ""
        )
    return str(duration)


def scored_label(scope: dict[str, Any]) -> str:
    """Where the project's sessions are scored: here, or the LLM the person allowed."""
    if scope.get("llm"):
        return str(scope["llm"])
    return translate("ScopesWindow", "Here (rules)")


def access_label(scope: dict[str, Any]) -> str:
    grants = scope.get("grants") or []
    if not grants:
        return translate("ScopesWindow", "Locked")
    return "; ".join(grant_label(g) for g in grants)


class ScopesWindow(QWidget):
    """One row per sensitive project. Signals for whoever waits on them: `loaded(scopes)`
    after each load is shown, `changed(action, root)` after a grant, revoke or unmark
    succeeded ("grant", "revoke", "unmark", "llm"), `failed(text)` on any error."""

    loaded = Signal(list)
    changed = Signal(str, str)
    failed = Signal(str)

    def __init__(self, facade: Memoryd, ops: Ops, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.facade = facade
        self.ops = ops
        self.scopes: list[dict[str, Any]] = []
        self.grant_dialog: GrantDialog | None = None  # open while the user decides
        self.confirm: QMessageBox | None = None  # the unmark question, while open
        self.unmark_yes: QPushButton | None = None  # its Unmark button
        self._loading = False
        self._stale = False
        self._acting = False
        self.setWindowTitle(translate("ScopesWindow", "Sensitive projects"))
        self.setWindowIcon(assets.icon())
        self.resize(760, 380)

        intro = QLabel(
            translate(
                "ScopesWindow",
                "The memories of these projects are encrypted. Agents and the command line read them "
                "only while a grant is live.",
            )
        )
        intro.setWordWrap(True)
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(
            [
                translate("Projects", "Project"),
                translate("ScopesWindow", "Path"),
                translate("ScopesWindow", "Protection"),
                translate("ScopesWindow", "Marked"),
                translate("ScopesWindow", "Access"),
                translate("ScopesWindow", "Sessions scored"),
            ]
        )
        self.tree.setRootIsDecorated(False)
        self.tree.header().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.itemSelectionChanged.connect(self._update_buttons)
        self.empty = QLabel(translate("ScopesWindow", "No project is marked sensitive."))
        self.empty.hide()

        self.notice = QLabel()
        self.notice.setWordWrap(True)
        self.notice.setTextFormat(Qt.TextFormat.PlainText)
        self.notice.hide()

        self.grant_button = QPushButton(translate("ScopesWindow", "Grant…"))
        self.grant_button.clicked.connect(self.grant_selected)
        self.revoke_button = QPushButton(translate("ScopesWindow", "Revoke"))
        self.revoke_button.setToolTip(translate("ScopesWindow", "End every live grant of this project."))
        self.revoke_button.clicked.connect(self.revoke_selected)
        self.unmark_button = QPushButton(translate("ScopesWindow", "Unmark…"))
        self.unmark_button.clicked.connect(self.unmark_selected)
        self.llm_button = QPushButton()
        self.llm_button.clicked.connect(self.llm_selected)
        self.llm_confirm: QMessageBox | None = None  # "send to the LLM?", while open
        self.llm_yes: QPushButton | None = None
        self.reload_button = QPushButton(translate("ScopesWindow", "Refresh"))
        self.reload_button.clicked.connect(self.load)
        row = QHBoxLayout()
        row.addWidget(self.grant_button)
        row.addWidget(self.revoke_button)
        row.addWidget(self.unmark_button)
        row.addWidget(self.llm_button)
        row.addStretch(1)
        row.addWidget(self.reload_button)

        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.empty)
        layout.addWidget(self.notice)
        layout.addLayout(row)
        self._update_buttons()
        window_keys.install(self)

    # -- loading ----------------------------------------------------------------------
    @Slot()
    def load(self) -> None:
        """Read the scopes again (the tray calls this each time it opens the window)."""
        if self._loading:
            self._stale = True
            return
        self._loading = True
        facade = self.facade
        self.ops.run(facade.sensitive_scopes, self._loaded, self._load_failed)

    def _loaded(self, scopes: list[dict[str, Any]]) -> None:
        self._loading = False
        if self._stale:
            self._stale = False
            self.load()
            return
        keep = self.selected()
        self.scopes = scopes
        self.tree.blockSignals(True)
        self.tree.clear()
        for scope in scopes:
            item = QTreeWidgetItem(
                [
                    shown(scope),
                    str(scope["root"] or sealed_folder()),
                    key_label(str(scope.get("key_source") or "")),
                    local_time(scope.get("marked_at")),
                    access_label(scope),
                    scored_label(scope),
                ]
            )
            item.setData(0, HASH_ROLE, scope["scope_hash"])
            item.setToolTip(0, plain_tip(str(scope["root"] or scope["scope_hash"])))
            item.setToolTip(1, str(scope["scope_hash"]))
            self.tree.addTopLevelItem(item)
            if keep is not None and keep["scope_hash"] == scope["scope_hash"]:
                item.setSelected(True)
        if keep is None and scopes:
            self.tree.topLevelItem(0).setSelected(True)
        self.tree.blockSignals(False)
        self.empty.setVisible(not scopes)
        self._update_buttons()
        self.loaded.emit(scopes)

    def _load_failed(self, exc: BaseException) -> None:
        self._loading = False
        self._stale = False
        self.show_error(exc)

    # -- selection --------------------------------------------------------------------
    def selected(self) -> dict[str, Any] | None:
        items = self.tree.selectedItems()
        if not items:
            return None
        wanted = items[0].data(0, HASH_ROLE)
        return next((s for s in self.scopes if s["scope_hash"] == wanted), None)

    def select(self, root: str) -> bool:
        """Select a scope by its folder (for callers that name one, e.g. a "grant needed")."""
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            if item.text(1) == root:
                self.tree.setCurrentItem(item)
                item.setSelected(True)
                return True
        return False

    def _update_buttons(self) -> None:
        scope = self.selected()
        free = scope is not None and not self._acting and self.grant_dialog is None
        live = bool(scope and scope.get("grants"))
        self.grant_button.setEnabled(free)
        self.revoke_button.setEnabled(free and live)
        self.unmark_button.setEnabled(free and live)
        self.unmark_button.setToolTip(
            translate("ScopesWindow", "Decrypt this project's memories and stop protecting it.")
            if live
            else translate("ScopesWindow", "Grant access first: unmarking reads every memory to decrypt it.")
        )
        sent = bool(scope and scope.get("llm"))
        self.llm_button.setText(
            translate("ScopesWindow", "Keep sessions here")
            if sent
            else translate("ScopesWindow", "Score with the LLM…")
        )
        self.llm_button.setToolTip(
            translate("ScopesWindow", "Stop sending this project's sessions to the LLM provider.")
            if sent
            else translate(
                "ScopesWindow",
                "Send this project's sessions to the LLM provider for scoring (they leave this computer).",
            )
        )
        self.llm_button.setEnabled(scope is not None and not self._acting and self.llm_confirm is None)

    def _busy(self, busy: bool) -> None:
        self._acting = busy
        self._update_buttons()

    # -- grant ------------------------------------------------------------------------
    @Slot()
    def grant_selected(self) -> GrantDialog | None:
        """Open the grant dialog for the selected scope; the grant runs when it is allowed."""
        scope = self.selected()
        if scope is None or self.grant_dialog is not None:
            return self.grant_dialog
        dialog = GrantDialog(
            scope["root"],
            str(scope["scope_hash"]),
            translate("ScopesWindow", "memoryd tray (you)"),
            scope.get("key_source") == "passphrase",
            what=translate("ScopesWindow", "let agents and the command line read its memories"),
            parent=self,
        )
        dialog.finished.connect(lambda _code: self._dialog_closed(dialog))
        self.grant_dialog = dialog
        self._update_buttons()
        dialog.open()
        return dialog

    def _dialog_closed(self, dialog: GrantDialog) -> None:
        choice = dialog.result_choice()
        if choice is None:  # denied or closed: nothing to do
            self._drop_dialog(dialog)
            return
        duration, task, passphrase = choice
        scope_hash = dialog.scope_hash
        facade = self.facade
        self._busy(True)

        def grant() -> Any:
            # by hash: the scope core recorded, whatever folder path is there now
            # the person chose in the tray's own dialog: that is the confirmation (no PIN)
            return facade.grant(
                scope_hash, duration=duration, task=task, passphrase=passphrase, in_tray=True, actor=ACTOR
            )

        self.ops.run(
            grant,
            lambda result: self._granted(dialog, result),
            lambda exc: self._grant_failed(dialog, exc),
        )

    def _granted(self, dialog: GrantDialog, result: tuple[Any, list[str]]) -> None:
        root = dialog.root or dialog.project
        self._busy(False)
        dialog.forget_passphrase()
        self._drop_dialog(dialog)
        grant, warnings = result
        text = translate("ScopesWindow", "Access granted to {root}: {grant}.").format(
            root=root, grant=grant_label(grant.as_dict())
        )
        for warning in warnings:
            text += " " + translate("ScopesWindow", "Note: {warning}.").format(
                warning=str(warning).rstrip(".")
            )
        self.notify(text)
        self.changed.emit("grant", root)
        self.load()

    def _grant_failed(self, dialog: GrantDialog, exc: BaseException) -> None:
        self._busy(False)
        text = describe(exc)
        self.show_error(text)
        dialog.show_error(text)  # asks again; Deny closes it

    def _drop_dialog(self, dialog: GrantDialog) -> None:
        if self.grant_dialog is dialog:
            self.grant_dialog = None
        dialog.deleteLater()
        self._update_buttons()

    # -- revoke -----------------------------------------------------------------------
    @Slot()
    def revoke_selected(self) -> None:
        """End every live grant of the selected scope (tasks included)."""
        scope = self.selected()
        if scope is None or self._acting:
            return
        root, scope_hash = folder(scope), str(scope["scope_hash"])
        facade = self.facade
        self._busy(True)
        self.ops.run(
            lambda: facade.revoke(scope_hash, actor=ACTOR),
            lambda count: self._revoked(root, count),
            self._action_failed,
        )

    def _revoked(self, root: str, count: int) -> None:
        self._busy(False)
        self.notify(
            translate("ScopesWindow", "Grants revoked for {root}: {count}.").format(root=root, count=count)
        )
        self.changed.emit("revoke", root)
        self.load()

    # -- the LLM ----------------------------------------------------------------------
    @Slot()
    def llm_selected(self) -> QMessageBox | None:
        """Sent to the LLM: keep it here at once (nothing leaves). Kept here: ask first,
        naming the provider and URL core would send to; the person's yes here is the
        confirmation (memoryd.sensitive.llm_access)."""
        scope = self.selected()
        if scope is None or self._acting or self.llm_confirm is not None:
            return self.llm_confirm
        root, scope_hash = folder(scope), str(scope["scope_hash"])
        facade = self.facade
        if scope.get("llm"):
            self._busy(True)
            self.ops.run(
                lambda: facade.withdraw_llm(scope_hash, actor=ACTOR),
                lambda _gone: self._llm_done(root, None),
                self._action_failed,
            )
            return None
        where = facade.llm_endpoint()
        if where is None:
            self.show_error(
                translate(
                    "ScopesWindow", "No LLM provider is configured: sessions are scored here by the rules."
                )
            )
            return None
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle(translate("GrantServer", "Send a sensitive project to the LLM?"))
        box.setTextFormat(Qt.TextFormat.PlainText)  # a folder name is never markup
        box.setText(
            translate("ScopesWindow", "Send the sessions of {root} to {endpoint}?").format(
                root=root, endpoint=where
            )
        )
        box.setInformativeText(
            translate(
                "ScopesWindow",
                "Their text will leave this computer each time a session there is captured. If the "
                "provider or its URL changes, they are kept here again.",
            )
        )
        self.llm_yes = box.addButton(translate("GrantServer", "Allow"), QMessageBox.ButtonRole.AcceptRole)
        cancel = box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(cancel)
        box.setEscapeButton(cancel)
        box.finished.connect(lambda _code: self._llm_confirmed(box, root, scope_hash, where))
        self.llm_confirm = box
        self._update_buttons()
        box.open()
        return box

    def _llm_confirmed(self, box: QMessageBox, root: str, scope_hash: str, shown: str) -> None:
        yes = box.clickedButton() is self.llm_yes
        self.llm_confirm = None
        box.deleteLater()
        self._update_buttons()
        if not yes:
            return
        facade = self.facade
        self._busy(True)
        self.ops.run(
            lambda: facade.allow_llm(scope_hash, in_tray=True, expected=shown, actor=ACTOR),
            lambda consent: self._llm_done(root, consent["endpoint"]),
            self._action_failed,
        )

    def _llm_done(self, root: str, endpoint: str | None) -> None:
        self._busy(False)
        if endpoint:
            text = translate("ScopesWindow", "Sessions of {root} are scored by {endpoint}.").format(
                root=root, endpoint=endpoint
            )
        else:
            text = translate("ScopesWindow", "Sessions of {root} are scored here by the rules.").format(
                root=root
            )
        self.notify(text)
        self.changed.emit("llm", root)
        self.load()

    # -- unmark -----------------------------------------------------------------------
    @Slot()
    def unmark_selected(self) -> QMessageBox | None:
        """Ask first; on yes, decrypt the scope and stop treating it as sensitive."""
        scope = self.selected()
        if scope is None or self._acting or self.confirm is not None:
            return self.confirm
        root = folder(scope)
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle(translate("ScopesWindow", "Unmark a sensitive project"))
        box.setTextFormat(Qt.TextFormat.PlainText)  # a folder name is never markup
        box.setText(translate("ScopesWindow", "Stop protecting {root}?").format(root=root))
        box.setInformativeText(
            translate(
                "ScopesWindow",
                "Its memories are decrypted and stored as plain files again, and its key is deleted. "
                "Agents can then read them without a grant.",
            )
        )
        self.unmark_yes = box.addButton(
            translate("ScopesWindow", "Unmark"), QMessageBox.ButtonRole.DestructiveRole
        )
        cancel = box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(cancel)
        box.setEscapeButton(cancel)
        box.finished.connect(lambda _code: self._confirmed(box, root, str(scope["scope_hash"])))
        self.confirm = box
        box.open()
        return box

    def _confirmed(self, box: QMessageBox, root: str, scope_hash: str) -> None:
        yes = box.clickedButton() is self.unmark_yes
        self.confirm = None
        box.deleteLater()
        if not yes:
            return
        facade = self.facade
        self._busy(True)
        self.notify(translate("ScopesWindow", "Decrypting {root}…").format(root=root))
        self.ops.run(
            lambda: facade.unmark_sensitive(scope_hash, actor=ACTOR),
            lambda count: self._unmarked(root, count),
            self._action_failed,
        )

    def _unmarked(self, root: str, count: int) -> None:
        self._busy(False)
        self.notify(
            translate("ScopesWindow", "{root} is no longer sensitive; memories decrypted: {count}.").format(
                root=root, count=count
            )
        )
        self.changed.emit("unmark", root)
        self.load()

    def _action_failed(self, exc: BaseException) -> None:
        self._busy(False)
        self.show_error(exc)
        self.load()

    # -- messages ---------------------------------------------------------------------
    def notify(self, text: str, error: bool = False) -> None:
        self.notice.setText(text)
        self.notice.setStyleSheet("color: #b3261e;" if error else "")
        self.notice.show()

    def show_error(self, exc: BaseException | str) -> None:
        text = exc if isinstance(exc, str) else describe(exc)
        log.error("scopes window: %s", text)
        self.notify(text, error=True)
        self.failed.emit(text)
