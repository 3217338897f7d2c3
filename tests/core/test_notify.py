"""Notifications reach a real daemon (dunst on Xvfb, on a private session bus), or fail in one line."""

from __future__ import annotations

import html
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memoryd.errors import DeliveryError
from memoryd.notify import MORE, applescript_string, notify, shorten

TITLE = "memoryd digest: 3 条新记忆"
BODY = "\n".join(
    [
        "3 new memories, 1 expiring soon",
        "",
        "* 用户偏好使用中文回复 & <short> answers",
        *(f"* memory number {i} with some words" for i in range(20)),
    ]
)

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


def _need(*tools: str) -> None:
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (Debian: apt-get install xvfb dbus dunst)")


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
def dunst(session_bus: str, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """dunst on a fresh Xvfb display, recording every notification it shows through a script rule."""
    _need("Xvfb", "dunst")
    record = tmp_path / "shown.bin"
    script = tmp_path / "record.sh"
    # dunst runs the script with appname, summary, body, icon, urgency; NUL-separated keeps newlines.
    script.write_text(f'#!/bin/sh\nprintf \'%s\\0%s\\0%s\\0\' "$1" "$2" "$3" >> \'{record}\'\n')
    script.chmod(0o755)
    dunstrc = tmp_path / "dunstrc"
    dunstrc.write_text(f'[global]\n    markup = full\n[record]\n    summary = "*"\n    script = "{script}"\n')

    read_fd, write_fd = os.pipe()
    xvfb = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_fd), "-nolisten", "tcp", "-screen", "0", "800x600x24"],
        pass_fds=(write_fd,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write_fd)
    try:
        display = ":" + _read_line(read_fd, 20, "Xvfb")
        env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY", "XDG_RUNTIME_DIR")}
        env.update(DISPLAY=display, DBUS_SESSION_BUS_ADDRESS=session_bus)
        daemon = subprocess.Popen(
            ["dunst", "-config", str(dunstrc)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            _wait_for_owner(session_bus, "org.freedesktop.Notifications")
            yield session_bus, record
        finally:
            _stop(daemon)
    finally:
        os.close(read_fd)
        _stop(xvfb)


def _shown(record: Path, timeout: float = 10) -> list[tuple[str, str, str]]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if record.exists():
            fields = record.read_bytes().decode().split("\0")[:-1]
            if len(fields) >= 3:
                return [tuple(fields[i : i + 3]) for i in range(0, len(fields) - 2, 3)]  # type: ignore[misc]
        time.sleep(0.05)
    pytest.fail("dunst never showed the notification")


# -- a real daemon --------------------------------------------------------------------------------


def test_dunst_shows_the_notification(dunst: tuple[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    address, record = dunst
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", address)

    report = notify(TITLE, BODY, platform="linux")

    assert report.startswith("notification ") and " shown by dunst " in report
    [(app, summary, body)] = _shown(record)
    assert (app, summary) == ("memoryd", TITLE)
    # dunst advertises body-markup, so <, > and & go over escaped and come out as typed.
    assert body == html.escape(shorten(BODY), quote=False)
    assert "用户偏好使用中文回复 &amp; &lt;short&gt; answers" in body
    assert body.endswith(MORE)


def test_bus_without_a_notification_daemon(session_bus: str) -> None:
    with pytest.raises(DeliveryError) as exc:
        notify(TITLE, BODY, platform="linux", env={"DBUS_SESSION_BUS_ADDRESS": session_bus})
    message = str(exc.value)
    assert message == "no desktop notification: no notification daemon is running on the session bus"


# -- failures without any desktop -----------------------------------------------------------------


def test_no_session_bus(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)

    with pytest.raises(DeliveryError) as exc:
        notify(TITLE, BODY, platform="linux")

    message = str(exc.value)
    assert "\n" not in message and "DBUS_SESSION_BUS_ADDRESS is not set" in message


def test_falls_back_to_the_systemd_user_bus_socket(tmp_path: Path) -> None:
    """No $DBUS_SESSION_BUS_ADDRESS but $XDG_RUNTIME_DIR/bus: used, as libdbus does (here a dead one)."""
    import socket

    path = tmp_path / "bus"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))  # a socket file nobody listens on
        with pytest.raises(DeliveryError) as exc:
            notify(TITLE, BODY, platform="linux", env={"XDG_RUNTIME_DIR": str(tmp_path)})
    message = str(exc.value)
    assert "\n" not in message and f"cannot reach the D-Bus session bus at unix:path={path}" in message


def test_stale_bus_address(tmp_path: Path) -> None:
    env = {"DBUS_SESSION_BUS_ADDRESS": f"unix:path={tmp_path}/gone"}
    with pytest.raises(DeliveryError) as exc:
        notify(TITLE, BODY, platform="linux", env=env)
    assert str(exc.value).startswith("no desktop notification: cannot reach the D-Bus session bus")


def test_unsupported_bus_address() -> None:
    with pytest.raises(DeliveryError) as exc:
        notify(TITLE, BODY, platform="linux", env={"DBUS_SESSION_BUS_ADDRESS": "tcp:host=localhost,port=1"})
    assert "\n" not in str(exc.value) and "unusable" in str(exc.value)


# -- macOS and Windows, as far as Linux can check them ---------------------------------------------


def _fake_osascript(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, status: int = 0) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    argv = tmp_path / "argv.bin"
    tool = bin_dir / "osascript"
    tool.write_text(
        f"#!/bin/sh\nprintf '%s\\0' \"$@\" > '{argv}'\n"
        f"[ {status} -eq 0 ] || echo 'execution error: Not authorized (-1743)' >&2\nexit {status}\n"
    )
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return argv


def test_macos_escapes_the_applescript(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    argv = _fake_osascript(tmp_path, monkeypatch)

    report = notify('say "hi" \\ 中文', 'line one\nline "two" \\ end', platform="darwin")

    assert report == "notification handed to macOS Notification Center"
    assert argv.read_bytes().decode().split("\0")[:-1] == [
        "-e",
        'display notification "line one\\nline \\"two\\" \\\\ end" with title "say \\"hi\\" \\\\ 中文"',
    ]


def test_macos_failure_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_osascript(tmp_path, monkeypatch, status=1)
    with pytest.raises(DeliveryError) as exc:
        notify(TITLE, BODY, platform="darwin")
    assert str(exc.value) == "no desktop notification: osascript: execution error: Not authorized (-1743)"


def test_applescript_string_drops_control_characters() -> None:
    assert applescript_string("a\tb\x07c\r\nd") == '"a\\tbc\\nd"'


def test_windows_without_plyer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "plyer", None)  # import plyer -> ImportError
    with pytest.raises(DeliveryError) as exc:
        notify(TITLE, BODY, platform="win32")
    assert "plyer" in str(exc.value) and "\n" not in str(exc.value)


# -- the text -------------------------------------------------------------------------------------


def test_shorten_keeps_the_head_and_points_at_the_digest() -> None:
    assert shorten("one\n\ntwo\n") == "one\ntwo"
    many = shorten("\n".join(f"line {i}" for i in range(30)), max_lines=3)
    assert many == f"line 0\nline 1\nline 2\n{MORE}"
    long = shorten("x" * 1000, max_chars=100)
    assert long == "x" * 99 + "…\n" + MORE
