"""Real delivery peers for tests: an SMTP server on loopback (aiosmtpd) and a
notification daemon (dunst on Xvfb, on a private session bus). Registered as a pytest
plugin in tests/conftest.py so the mailer, notifier and digest tests share them."""

from __future__ import annotations

import email
import email.policy
import errno
import shutil
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller

from tests import desktop_session as ds
from tests.desktop_session import Desktop


@dataclass
class Mailbox:
    """An aiosmtpd handler that keeps what it received and refuses addresses starting with `nobody`."""

    received: list[tuple[str, list[str], EmailMessage]] = field(default_factory=list)

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, options: Any) -> str:
        if address.startswith("nobody"):
            return "550 5.1.1 no such user here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        msg = email.message_from_bytes(envelope.original_content, policy=email.policy.default)
        assert isinstance(msg, EmailMessage)
        self.received.append((envelope.mail_from, list(envelope.rcpt_tos), msg))
        return "250 OK"


def free_port() -> int:
    """A loopback port free a moment ago. Tests run in parallel (pytest-xdist), so another
    process may take it before it is used: bind it at once, or retry as smtp_server does."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def closed_port() -> Iterator[int]:
    """A loopback port where nothing listens, for as long as the block runs: it stays bound
    (never listening, so a connection is refused) and no other test's server can take it."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        yield int(s.getsockname()[1])


@dataclass
class Server:
    port: int
    box: Mailbox


@pytest.fixture
def smtp_server() -> Iterator[Any]:
    """Start aiosmtpd on loopback with the given SMTP options; stopped after the test."""
    started: list[Controller] = []

    def start(**kwargs: Any) -> Server:
        box = Mailbox()
        for attempt in range(5):
            ctl = Controller(box, hostname="127.0.0.1", port=free_port(), **kwargs)
            try:
                ctl.start()
                break
            except OSError as exc:  # a parallel test took the port meanwhile: another one
                ctl.loop.close()
                if exc.errno != errno.EADDRINUSE or attempt == 4:
                    raise
        started.append(ctl)
        return Server(ctl.port, box)

    yield start
    for ctl in started:
        ctl.stop()


# Where a skipped test sends people: the one list of system packages (.ci/run installs it).
SYSTEM_PACKAGES = "the system packages in README.md, Tests (.ci/apt-packages.txt)"


def _need(*tools: str) -> None:
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)}: install {SYSTEM_PACKAGES}")


@pytest.fixture
def session_bus(tmp_path: Path) -> Iterator[str]:
    """A private session bus with no service activation: nothing on it unless the test starts it."""
    _need("dbus-daemon")
    proc, address = ds.start_bus(tmp_path)
    try:
        yield address
    finally:
        ds.stop(proc)


@pytest.fixture
def xvfb() -> Iterator[str]:
    """A fresh Xvfb display (its name, e.g. ":7"), for programs that need a real X server."""
    _need("Xvfb")
    proc, display = ds.start_xvfb()
    try:
        yield display
    finally:
        ds.stop(proc)


@contextmanager
def _desktop(xvfb: str, session_bus: str, work: Path, *, wm: bool) -> Iterator[Desktop]:
    env = Desktop(xvfb, session_bus, work / "shown.bin").env()
    manager = ds.start_openbox(env) if wm else None  # first, as in a login session
    daemon, record = ds.start_dunst(env, work)
    host = ds.start_trayer(env)
    try:
        ds.wait_for_owner(session_bus, "org.freedesktop.Notifications")
        yield Desktop(xvfb, session_bus, record)
    finally:
        ds.stop(host)
        ds.stop(daemon)
        if manager is not None:
            ds.stop(manager)


@pytest.fixture
def desktop(xvfb: str, session_bus: str, tmp_path: Path) -> Iterator[Desktop]:
    """Xvfb + a private session bus (what dbus-run-session starts) + dunst + trayer, the
    tray host: every piece a Debian package `.ci/run` installs."""
    _need("dunst", "trayer")
    with _desktop(xvfb, session_bus, tmp_path, wm=False) as desk:
        yield desk


@pytest.fixture
def wm_desktop(xvfb: str, session_bus: str, tmp_path: Path) -> Iterator[Desktop]:
    """The `desktop` with a window manager (openbox), and xdotool, xprop and xwininfo for
    a test that clicks and looks as a person does."""
    _need("dunst", "trayer", "openbox", "xdotool", "xprop", "xwininfo")
    with _desktop(xvfb, session_bus, tmp_path, wm=True) as desk:
        yield desk


@pytest.fixture
def dunst(xvfb: str, session_bus: str, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """dunst on a fresh Xvfb display, recording every notification it shows through a script rule."""
    _need("dunst")
    daemon, record = ds.start_dunst(Desktop(xvfb, session_bus, tmp_path).env(), tmp_path)
    try:
        ds.wait_for_owner(session_bus, "org.freedesktop.Notifications")
        yield session_bus, record
    finally:
        ds.stop(daemon)


def shown(record: Path, timeout: float = 10) -> list[tuple[str, str, str]]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if record.exists():
            fields = record.read_bytes().decode().split("\0")[:-1]
            if len(fields) >= 3:
                return [tuple(fields[i : i + 3]) for i in range(0, len(fields) - 2, 3)]  # type: ignore[misc]
        time.sleep(0.05)
    pytest.fail("dunst never showed the notification")
