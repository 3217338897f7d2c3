"""A small real desktop as plain processes: Xvfb, a private session bus (what
dbus-run-session starts), dunst recording what it shows, trayer as the tray host, and
openbox as the window manager where a test clicks as a person does.

The pytest fixtures in tests/delivery.py and the tray benchmark (bench/tray.py, which
runs without pytest) start the same programs the same way through these functions.
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
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


class StartError(RuntimeError):
    """A program of the desktop did not come up."""


def read_line(stream: int, timeout: float, what: str) -> str:
    """One line from a pipe, or StartError instead of hanging when the program never writes it."""
    data = b""
    deadline = time.monotonic() + timeout
    while not data.endswith(b"\n"):
        ready, _, _ = select.select([stream], [], [], max(deadline - time.monotonic(), 0))
        chunk = os.read(stream, 1024) if ready else b""
        if not chunk:
            raise StartError(f"{what} did not start")
        data += chunk
    return data.decode().strip()


def stop(proc: subprocess.Popen[bytes], timeout: float = 5) -> int:
    """Terminate, then kill if it lingers; the exit code (-9 when killed)."""
    proc.terminate()
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return -9


def start_xvfb() -> tuple[subprocess.Popen[bytes], str]:
    """Xvfb on a free display; (process, ":N")."""
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_fd), "-nolisten", "tcp", "-screen", "0", "1280x800x24"],
        pass_fds=(write_fd,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write_fd)
    try:
        return proc, ":" + read_line(read_fd, 20, "Xvfb")
    except StartError:
        stop(proc)
        raise
    finally:
        os.close(read_fd)


def start_bus(work: Path) -> tuple[subprocess.Popen[bytes], str]:
    """A session bus with no service activation: nothing on it unless started; (process, address)."""
    config = work / "bus.conf"
    config.write_text(BUS_CONFIG.format(tmpdir=tempfile.gettempdir()))
    proc = subprocess.Popen(
        ["dbus-daemon", f"--config-file={config}", "--nofork", "--print-address"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdout is not None
    try:
        return proc, read_line(proc.stdout.fileno(), 10, "dbus-daemon")
    except StartError:
        stop(proc)
        raise


def start_dunst(env: dict[str, str], work: Path) -> tuple[subprocess.Popen[bytes], Path]:
    """dunst recording every notification it shows (NUL-separated app, summary, body) through
    a script rule; (process, the record file)."""
    record = work / "shown.bin"
    script = work / "record.sh"
    script.write_text(f'#!/bin/sh\nprintf \'%s\\0%s\\0%s\\0\' "$1" "$2" "$3" >> \'{record}\'\n')
    script.chmod(0o755)
    dunstrc = work / "dunstrc"
    # Bottom left, away from trayer's icons at the top right, so a click on the icon never
    # lands on a notification; a middle click runs the notification's default action.
    dunstrc.write_text(
        "[global]\n    markup = full\n    origin = bottom-left\n    offset = 10x10\n"
        "    mouse_middle_click = do_action, close_current\n"
        f'[record]\n    summary = "*"\n    script = "{script}"\n'
    )
    daemon = subprocess.Popen(
        ["dunst", "-config", str(dunstrc)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    return daemon, record


def start_trayer(env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        ["trayer", "--edge", "top", "--align", "right", "--widthtype", "request", "--height", "28"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def start_openbox(env: dict[str, str], timeout: float = 10) -> subprocess.Popen[bytes]:
    """openbox as the window manager, once it has taken the display (it sets the root's
    _NET_SUPPORTING_WM_CHECK), or StartError."""
    proc = subprocess.Popen(
        ["openbox", "--sm-disable"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        check = ["xprop", "-root", "_NET_SUPPORTING_WM_CHECK"]
        if "window id" in subprocess.run(check, env=env, capture_output=True, text=True, timeout=10).stdout:
            return proc
        time.sleep(0.05)
    stop(proc)
    raise StartError("openbox did not take the display")


def wait_for_owner(address: str, name: str, timeout: float = 10, *, owned: bool = True) -> None:
    """Until some program owns `name` on the bus (dunst, gnome-keyring), or with `owned`
    false until none does (a daemon stopped has left it), or StartError."""
    from jeepney.bus_messages import message_bus
    from jeepney.io.blocking import open_dbus_connection

    deadline = time.monotonic() + timeout
    with open_dbus_connection(bus=address) as conn:
        while time.monotonic() < deadline:
            if bool(conn.send_and_get_reply(message_bus.NameHasOwner(name), timeout=5).body[0]) == owned:
                return
            time.sleep(0.05)
    raise StartError(f"nothing took {name} on the test bus" if owned else f"{name} still owned on the bus")


def wait_for_tray(env: dict[str, str], timeout: float = 30) -> None:
    """Until Qt sees a system tray on the display (trayer owns the selection), or StartError."""
    code = "from PySide6.QtWidgets import QApplication, QSystemTrayIcon as T; a = QApplication([]); "
    code += "raise SystemExit(0 if T.isSystemTrayAvailable() else 1)"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if subprocess.run([sys.executable, "-c", code], env=env, timeout=20).returncode == 0:
            return
        time.sleep(0.2)
    raise StartError("trayer never owned the system tray")


@dataclass
class Desktop:
    """What a program needs to run on it: the display, the bus, and dunst's record."""

    display: str
    bus: str
    shown: Path

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY", "XDG_RUNTIME_DIR")}
        env.update(DISPLAY=self.display, DBUS_SESSION_BUS_ADDRESS=self.bus, QT_QPA_PLATFORM="xcb")
        return env
