"""Real delivery peers for tests: an SMTP server on loopback (aiosmtpd) and a
notification daemon (dunst on Xvfb, on a private session bus). Registered as a pytest
plugin in tests/conftest.py so the mailer, notifier and digest tests share them."""

from __future__ import annotations

import email
import email.policy
import os
import select
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller


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
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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
        ctl = Controller(box, hostname="127.0.0.1", port=free_port(), **kwargs)
        ctl.start()
        started.append(ctl)
        return Server(ctl.port, box)

    yield start
    for ctl in started:
        ctl.stop()


_BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:tmpdir={tmpdir}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""


def _need(*tools: str, debian: str = "xvfb dbus dunst") -> None:
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (Debian: apt-get install {debian})")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _read_line(stream: int, timeout: float, what: str) -> str:
    """One line from a pipe, or fail instead of hanging when the program never writes it."""
    data = b""
    deadline = time.monotonic() + timeout
    while not data.endswith(b"\n"):
        ready, _, _ = select.select([stream], [], [], max(deadline - time.monotonic(), 0))
        chunk = os.read(stream, 1024) if ready else b""
        if not chunk:
            pytest.fail(f"{what} did not start")
        data += chunk
    return data.decode().strip()


@pytest.fixture
def session_bus(tmp_path: Path) -> Iterator[str]:
    """A private session bus with no service activation: nothing on it unless the test starts it."""
    _need("dbus-daemon")
    config = tmp_path / "bus.conf"
    config.write_text(_BUS_CONFIG.format(tmpdir=tempfile.gettempdir()))
    proc = subprocess.Popen(
        ["dbus-daemon", f"--config-file={config}", "--nofork", "--print-address"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert proc.stdout is not None
        yield _read_line(proc.stdout.fileno(), 10, "dbus-daemon")
    finally:
        _stop(proc)


def _wait_for_owner(address: str, name: str, timeout: float = 10) -> None:
    from jeepney.bus_messages import message_bus
    from jeepney.io.blocking import open_dbus_connection

    deadline = time.monotonic() + timeout
    with open_dbus_connection(bus=address) as conn:
        while time.monotonic() < deadline:
            reply = conn.send_and_get_reply(message_bus.NameHasOwner(name), timeout=5)
            if reply.body[0]:
                return
            time.sleep(0.05)
    pytest.fail(f"nothing took {name} on the test bus")


@pytest.fixture
def xvfb() -> Iterator[str]:
    """A fresh Xvfb display (its name, e.g. ":7"), for programs that need a real X server."""
    _need("Xvfb")
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_fd), "-nolisten", "tcp", "-screen", "0", "1280x800x24"],
        pass_fds=(write_fd,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write_fd)
    try:
        yield ":" + _read_line(read_fd, 20, "Xvfb")
    finally:
        os.close(read_fd)
        _stop(proc)


@dataclass
class Desktop:
    """A small real desktop: X display, session bus, notification daemon, tray host."""

    display: str
    bus: str
    shown: Path  # what dunst showed (see `shown()`)

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY", "XDG_RUNTIME_DIR")}
        env.update(DISPLAY=self.display, DBUS_SESSION_BUS_ADDRESS=self.bus, QT_QPA_PLATFORM="xcb")
        return env


def _start_dunst(env: dict[str, str], tmp_path: Path) -> tuple[subprocess.Popen[bytes], Path]:
    record = tmp_path / "shown.bin"
    script = tmp_path / "record.sh"
    script.write_text(f'#!/bin/sh\nprintf \'%s\\0%s\\0%s\\0\' "$1" "$2" "$3" >> \'{record}\'\n')
    script.chmod(0o755)
    dunstrc = tmp_path / "dunstrc"
    dunstrc.write_text(f'[global]\n    markup = full\n[record]\n    summary = "*"\n    script = "{script}"\n')
    daemon = subprocess.Popen(
        ["dunst", "-config", str(dunstrc)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    return daemon, record


@pytest.fixture
def desktop(xvfb: str, session_bus: str, tmp_path: Path) -> Iterator[Desktop]:
    """Xvfb + a private session bus (what dbus-run-session starts) + dunst + trayer, the
    tray host: every piece a Debian package `.ci/run` installs."""
    _need("dunst", "trayer", debian="xvfb dbus-x11 dunst trayer")
    env = Desktop(xvfb, session_bus, tmp_path / "shown.bin").env()
    daemon, record = _start_dunst(env, tmp_path)
    host = subprocess.Popen(
        ["trayer", "--edge", "top", "--align", "right", "--widthtype", "request", "--height", "28"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_for_owner(session_bus, "org.freedesktop.Notifications")
        yield Desktop(xvfb, session_bus, record)
    finally:
        _stop(host)
        _stop(daemon)


@pytest.fixture
def dunst(xvfb: str, session_bus: str, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """dunst on a fresh Xvfb display, recording every notification it shows through a script rule."""
    _need("dunst")
    daemon, record = _start_dunst(Desktop(xvfb, session_bus, tmp_path).env(), tmp_path)
    try:
        _wait_for_owner(session_bus, "org.freedesktop.Notifications")
        yield session_bus, record
    finally:
        _stop(daemon)


def shown(record: Path, timeout: float = 10) -> list[tuple[str, str, str]]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if record.exists():
            fields = record.read_bytes().decode().split("\0")[:-1]
            if len(fields) >= 3:
                return [tuple(fields[i : i + 3]) for i in range(0, len(fields) - 2, 3)]  # type: ignore[misc]
        time.sleep(0.05)
    pytest.fail("dunst never showed the notification")
