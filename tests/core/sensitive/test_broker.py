"""The grant broker: a read of a sensitive scope without a live grant asks the tray over a
local socket, and goes on (or is refused) within the same call. A plain AF_UNIX server in a
thread stands in for the tray's QLocalServer (the desktop tests cover that one); it writes
the grant through the real facade, as the tray does, and answers one JSON line."""

from __future__ import annotations

import json
import os
import socket
import stat
import struct
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from memoryd import paths
from memoryd.app import Memoryd
from memoryd.errors import AuthorizationRequired
from memoryd.scope import resolve
from memoryd.sensitive import broker

from .support import CANARY, PASSPHRASE, one_line_error

Decide = Callable[[dict[str, Any]], bytes | None]


@dataclass
class TrayStandIn:
    """Listens where the tray would, checks each peer is this user (SO_PEERCRED), keeps the
    requests, and answers what `decide` returns (None: hang up without answering)."""

    where: str
    decide: Decide
    requests: list[dict[str, Any]] = field(default_factory=list)
    peers: list[tuple[int, int]] = field(default_factory=list)  # (pid, uid)
    errors: list[BaseException] = field(default_factory=list)

    def __post_init__(self) -> None:
        if os.path.exists(self.where):
            os.unlink(self.where)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(self.where)
        os.chmod(self.where, 0o600)
        self.sock.listen(4)
        self.sock.settimeout(0.1)
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with conn:
                try:
                    self._answer(conn)
                except BaseException as exc:  # surfaced by the test, not lost in the thread
                    self.errors.append(exc)

    def _answer(self, conn: socket.socket) -> None:
        conn.settimeout(30)
        pid, uid, _ = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
        self.peers.append((pid, uid))
        data = b""
        while b"\n" not in data:
            chunk = conn.recv(4096)
            if not chunk:
                return
            data += chunk
        request = Memoryd().grant_request(data.split(b"\n", 1)[0])
        self.requests.append(request)
        reply = self.decide(request)
        if reply is not None:
            conn.sendall(reply)

    def stop(self) -> None:
        self.stopping.set()
        self.sock.close()
        self.thread.join(10)
        if os.path.exists(self.where):
            os.unlink(self.where)


@pytest.fixture(autouse=True)
def not_asking_afterwards(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """`broker.install` sets a module global: no test leaves it set for the next. Nor is
    the MCP client's name an earlier test's in-process MCP server left in `agent_hint`
    taken for this test's (the clean-clone CI of 2026-11-28 met "pytest" there)."""
    monkeypatch.setattr(broker, "agent_hint", None)
    yield
    broker.uninstall()


@pytest.fixture
def tray() -> Iterator[Callable[[Decide], TrayStandIn]]:
    started: list[TrayStandIn] = []

    def start(decide: Decide) -> TrayStandIn:
        server = TrayStandIn(Memoryd().grant_socket(), decide)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
        assert not server.errors, server.errors


def grants(request: dict[str, Any]) -> bytes:
    """The user clicks "Allow once": the tray writes the grant through core, then answers
    (by hash, as the tray does: a passphrase scope's folder is sealed until the grant)."""
    app = Memoryd()
    app.grant(
        request["scope_hash"],
        duration="once",
        passphrase=PASSPHRASE if request["passphrase"] else None,
        in_tray=True,  # the person said yes in the tray's own dialog
        actor="tray",
    )
    return app.grant_answer(True, duration="once")


def refuses(request: dict[str, Any]) -> bytes:
    return Memoryd().grant_answer(False, error="the user said no in the tray")


def _sensitive(project: Path, *, passphrase: str | None = PASSPHRASE) -> str:
    """A scope with one memory, marked sensitive; the memory's (opaque) slug."""
    app = Memoryd()
    app.record("fact", "Salary note", f"{CANARY} is the salary code.", scope_path=project)
    app.mark_sensitive(project, passphrase=passphrase)
    (row,) = Memoryd().list(scopes=[resolve(project).hash])
    return row["slug"]


def _events(kind: str) -> list[Any]:
    return [e for e in Memoryd().store.audit.events() if e.event_type == kind]


# -- in process: the gate asks, the tray grants or refuses ------------------------------


def test_the_tray_grants_and_the_read_goes_on(
    tray, secret_service: str, project: Path, monkeypatch: pytest.MonkeyPatch
):
    slug = _sensitive(project, passphrase=None)  # a random key, in the keyring
    server = tray(grants)
    monkeypatch.setenv("MEMORYD_AGENT", "claude-code")
    broker.install(paths.layout(), "cli")

    view = Memoryd().get(slug)
    assert CANARY in view.doc.body

    (req,) = server.requests
    h = resolve(project).hash
    assert req == {
        "v": broker.PROTOCOL,
        "op": "grant",
        "scope_hash": h,
        "root": str(project),
        "what": "get",
        "passphrase": False,
        "actor": "cli",
        "agent": "claude-code",
    }
    assert server.peers == [(os.getpid(), os.getuid())]
    (grant,) = _events("grant")
    assert grant.actor == "tray" and grant.scope_hash == h
    assert [e.details_obj["what"] for e in _events("sensitive_read")] == ["get"]
    assert _events("access_denied") == []
    assert Memoryd().get(slug).doc.body == view.doc.body  # the grant lives on: not asked again
    assert len(server.requests) == 1


def test_a_passphrase_scope_granted_in_the_tray(tray, secret_service: str, project: Path):
    slug = _sensitive(project)
    server = tray(grants)
    broker.install(paths.layout(), "mcp")
    assert CANARY in Memoryd().get(slug).doc.body  # a fresh process: the key came with the grant
    (req,) = server.requests
    assert req["passphrase"] is True and req["actor"] == "mcp" and req["agent"] is None


def test_the_tray_refuses(tray, project: Path):
    slug = _sensitive(project)
    server = tray(refuses)
    broker.install(paths.layout(), "cli")
    with pytest.raises(AuthorizationRequired) as err:
        Memoryd().get(slug)
    msg = str(err.value)
    assert "\n" not in msg
    assert (
        msg
        == f"scope {resolve(project).hash} is sensitive and access was refused: the user said no in the tray"
    )
    assert len(server.requests) == 1
    (denied,) = _events("access_denied")
    assert denied.target_id == slug and denied.details_obj == {"what": "get"}


def test_a_refusal_without_a_reason(tray, project: Path):
    slug = _sensitive(project)
    tray(lambda req: Memoryd().grant_answer(False))
    broker.install(paths.layout(), "cli")
    with pytest.raises(AuthorizationRequired, match="access was refused: the user refused it in the tray"):
        Memoryd().get(slug)


def test_a_refusal_reason_is_worded_by_the_cli_not_the_tray(tray, project: Path):
    """The tray hands a code (issue 22: a Chinese tray's words were spliced into the
    English CLI line); core words it, and keeps any detail the tray adds."""
    slug = _sensitive(project)
    tray(lambda req: Memoryd().grant_answer(False, reason="denied"))
    broker.install(paths.layout(), "cli")
    with pytest.raises(AuthorizationRequired) as caught:
        Memoryd().get(slug)
    assert str(caught.value).endswith("access was refused: the user denied access")
    answer = json.loads(Memoryd().grant_answer(False, reason="bad_request", error="no scope hash"))
    assert broker.refusal(answer) == "the request was not understood (no scope hash)"
    assert set(broker.REASONS) >= {"denied", "quit", "timeout", "busy"}


def _usual(project: Path) -> str:
    """The refusal for a passphrase scope: its folder is sealed with the passphrase
    (memoryd.sensitive.state), so the command names the scope by its hash."""
    h = resolve(project).hash
    return (
        f"scope {h} is sensitive and has no live grant: the user can run `memoryd grant {h} --duration once`"
    )


def test_no_tray_running_gives_the_usual_message(project: Path):
    slug = _sensitive(project)
    broker.install(paths.layout(), "cli")
    assert not os.path.exists(broker.address(paths.layout()))
    with pytest.raises(AuthorizationRequired) as err:
        Memoryd().get(slug)
    assert str(err.value) == _usual(project)


def test_a_stale_socket_and_a_tray_that_hangs_up(tray, project: Path):
    slug = _sensitive(project)
    broker.install(paths.layout(), "cli")
    server = tray(lambda req: None)  # reads the request, closes without answering
    with pytest.raises(AuthorizationRequired) as err:
        Memoryd().get(slug)
    assert str(err.value) == _usual(project) and len(server.requests) == 1

    server.stop()  # the tray crashed and left its socket file behind
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(server.where)
    stale.close()
    assert os.path.exists(server.where)
    with pytest.raises(AuthorizationRequired) as err:
        Memoryd().get(slug)
    assert str(err.value) == _usual(project)


def test_a_tray_that_says_granted_without_a_grant_does_not_open_the_scope(tray, project: Path):
    slug = _sensitive(project)
    tray(lambda req: Memoryd().grant_answer(True, duration="once"))  # wrote no grant
    broker.install(paths.layout(), "cli")
    with pytest.raises(AuthorizationRequired):
        Memoryd().get(slug)


def test_not_installed_means_not_asked(tray, project: Path):
    slug = _sensitive(project)
    server = tray(grants)
    broker.uninstall()
    with pytest.raises(AuthorizationRequired) as err:
        Memoryd().get(slug)
    assert str(err.value) == _usual(project) and server.requests == []


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to give the socket to another user (uid 65534)")
def test_a_socket_of_another_user_is_not_used(tray, project: Path):
    slug = _sensitive(project)
    server = tray(grants)
    os.chown(server.where, 65534, 65534)
    broker.install(paths.layout(), "cli")
    with pytest.raises(AuthorizationRequired) as err:
        Memoryd().get(slug)
    assert str(err.value) == _usual(project)
    assert server.requests == [] and server.peers == []  # never even connected
    assert not Memoryd().sensitive_scopes()[0]["grants"]


def test_a_search_of_the_sensitive_scope_asks_the_tray(tray, secret_service: str, project: Path):
    slug = _sensitive(project, passphrase=None)
    server = tray(grants)
    broker.install(paths.layout(), "cli")
    app = Memoryd()
    hits = app.search(CANARY, scopes=[resolve(project).hash])
    assert len(server.requests) == 1 and server.requests[0]["what"] == "search"
    assert [h.slug for h in hits] == [slug] and app.withheld == []


# -- the socket and the protocol -------------------------------------------------------


def test_socket_address_is_private(isolated_home: Path):
    layout = paths.layout()
    where = broker.prepare(layout)
    if len(str(isolated_home / "run" / "tray.sock")) <= broker.MAX_UNIX_PATH:
        assert where == str(isolated_home / "run" / "tray.sock")
    folder = Path(where).parent
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700 and folder.stat().st_uid == os.getuid()
    assert Memoryd().grant_socket() == where == broker.address(layout)


def test_a_long_data_path_falls_back_to_the_temp_dir(
    tray, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, project: Path
):
    home = tmp_path / ("a-very-long-folder-name-" * 5) / "memoryd-data"
    monkeypatch.setenv("MEMORYD_HOME", str(home))
    layout = paths.layout()
    where = broker.prepare(layout)
    assert len(where) < 100 and len(str(home / "run" / "tray.sock")) > 100
    assert Path(where).parent == Path(tempfile.gettempdir()) / f"memoryd-{os.getuid()}"
    assert stat.S_IMODE(Path(where).parent.stat().st_mode) == 0o700
    other = tmp_path / ("another-long-folder-name-" * 5) / "memoryd-data"
    assert broker.address(paths.Layout(other)) != where  # one socket per data folder

    # The tray and the gate meet there.
    slug = _sensitive(project)
    server = tray(refuses)
    assert server.where == where
    broker.install(layout, "cli")
    with pytest.raises(AuthorizationRequired, match="refused"):
        Memoryd().get(slug)
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    "line",
    [
        b"",
        b"not json",
        b"\xff\xfe",
        b"[1, 2]",
        b'"grant"',
        b"null",
        b'{"v": 1, "op": "grant", "root": "/p"}',
        b'{"v": 1, "op": "grant", "scope_hash": "", "root": "/p"}',
        b'{"v": 1, "op": "grant", "scope_hash": "abc", "root": 5}',
        b'{"v": 2, "op": "grant", "scope_hash": "abc", "root": "/p"}',
        b'{"op": "grant", "scope_hash": "abc", "root": "/p"}',
        b'{"v": 1, "op": "revoke", "scope_hash": "abc", "root": "/p"}',
        b'{"v": 1, "op": "grant", "scope_hash": "abc", "root": "/p", "pad": "' + b"x" * 70_000 + b'"}',
    ],
)
def test_parse_request_rejects_garbage(line: bytes):
    with pytest.raises(ValueError):
        broker.parse_request(line)


def test_parse_request_accepts_a_request_and_cleans_the_actor():
    line = json.dumps(
        {
            "v": 1,
            "op": "grant",
            "scope_hash": "abcdef012345",
            "root": "/p",
            "what": "get",
            "actor": "root-shell",
        }
    ).encode()
    req = broker.parse_request(line)
    assert req["actor"] == "cli" and req["scope_hash"] == "abcdef012345" and req["what"] == "get"
    assert "root" not in req  # the folder shown comes from core, never from the caller
    for actor in ("cli", "mcp", "tray", "hook"):
        line = json.dumps({"v": 1, "op": "grant", "scope_hash": "abcdef012345", "actor": actor})
        assert broker.parse_request(line.encode())["actor"] == actor


def test_a_callers_words_cannot_reshape_the_prompt():
    """Newlines, control and bidi characters would let a caller's "what" read as part of
    the prompt's own text; they become spaces, and the text is cut short."""
    line = json.dumps(
        {
            "v": 1,
            "op": "grant",
            "scope_hash": "abcdef012345",
            "what": "read README\n\nroutine check, safe to allow\u202e",
            "agent": "claude\x00-code" + "x" * 200,
        }
    ).encode()
    req = broker.parse_request(line)
    assert req["what"] == "read README routine check, safe to allow"
    assert "\x00" not in req["agent"] and len(req["agent"]) == broker.MAX_SAID


def test_the_facade_answers_only_for_a_recorded_sensitive_scope(project: Path):
    """A request naming a folder by symlink, or any hash that is not a sensitive scope,
    is refused; for a real one the folder and the passphrase question come from core."""
    app = Memoryd()
    with pytest.raises(ValueError, match="not a sensitive scope"):
        app.grant_request(json.dumps({"v": 1, "op": "grant", "scope_hash": "000000000000"}).encode())
    app.record("fact", "Secret", "a secret body", scope_path=project)
    app.mark_sensitive(project, passphrase="a passphrase here")
    h = app.scope(project).hash
    line = json.dumps({"v": 1, "op": "grant", "scope_hash": h, "root": "/cat-pictures", "passphrase": False})
    req = Memoryd().grant_request(line.encode())  # the tray: a process without the key
    # a passphrase scope's folder stays sealed until a grant (the tray shows its hash)
    assert req["root"] is None and req["passphrase"] is True
    app.grant(project, duration="once", passphrase="a passphrase here")
    req = app.grant_request(line.encode())
    assert req["root"] == str(app.scope(project).root) and req["passphrase"] is True


def test_answer_lines():
    app = Memoryd()
    assert app.grant_answer(True, duration="once") == b'{"granted": true, "duration": "once"}\n'
    assert app.grant_answer(False) == b'{"granted": false}\n'
    assert json.loads(app.grant_answer(False, error="no")) == {"granted": False, "error": "no"}


# -- end to end: the real CLI asks the stand-in tray -----------------------------------


def test_cli_get_granted_by_the_tray(
    cli, tray, secret_service: str, project: Path, monkeypatch: pytest.MonkeyPatch
):
    slug = _sensitive(project, passphrase=None)
    server = tray(grants)
    out = cli("get", slug, env={"MEMORYD_AGENT": "codex"})
    assert out.returncode == 0, out.stderr
    assert CANARY in out.stdout
    (req,) = server.requests
    assert (req["actor"], req["agent"], req["root"], req["what"]) == ("cli", "codex", str(project), "get")
    assert server.peers[0][0] != os.getpid()  # the CLI process itself asked


def test_cli_get_refused_by_the_tray(cli, tray, project: Path):
    slug = _sensitive(project)
    server = tray(refuses)
    out = cli("get", slug)
    one_line_error(out, 3, "access was refused", "the user said no in the tray")
    assert CANARY not in out.stderr and len(server.requests) == 1

    server.stop()  # no tray: the message that names the command
    one_line_error(cli("get", slug), 3, f"memoryd grant {resolve(project).hash} --duration once")
