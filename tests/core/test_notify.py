"""Notifications reach a real daemon (dunst on Xvfb, on a private session bus), or fail in one line."""

from __future__ import annotations

import html
import os
import sys
from pathlib import Path

import pytest

from memoryd.errors import DeliveryError
from memoryd.notify import MORE, applescript_string, notify, shorten
from tests.delivery import shown

TITLE = "memoryd digest: 3 条新记忆"
BODY = "\n".join(
    [
        "3 new memories, 1 expiring soon",
        "",
        "* 用户偏好使用中文回复 & <short> answers",
        *(f"* memory number {i} with some words" for i in range(20)),
    ]
)

# -- a real daemon --------------------------------------------------------------------------------


def test_dunst_shows_the_notification(dunst: tuple[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    address, record = dunst
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", address)

    report = notify(TITLE, BODY, platform="linux")

    assert report.startswith("notification ") and " shown by dunst " in report
    [(app, summary, body)] = shown(record)
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
