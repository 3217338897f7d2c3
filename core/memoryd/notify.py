"""Native desktop notifications without Qt, for `memoryd digest --notify`.

Linux and the BSDs speak the freedesktop notification protocol on the D-Bus session bus with
jeepney, pure Python and already installed there as a dependency of keyring: no external tool
to be missing, and the daemon's reply (or D-Bus error) tells us honestly whether it was shown.
macOS goes through osascript, Windows through plyer when it is installed.
"""

from __future__ import annotations

import html
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Mapping
from typing import Any

from memoryd.errors import DeliveryError

APP_NAME = "memoryd"
MORE = "Run `memoryd digest` for more."
MAX_LINES = 8
MAX_CHARS = 400

_BUS_NAME = "org.freedesktop.Notifications"
_OBJECT_PATH = "/org/freedesktop/Notifications"


def shorten(body: str, max_lines: int = MAX_LINES, max_chars: int = MAX_CHARS) -> str:
    """Notification bubbles show a few lines at best: keep the head and point at the full digest."""
    lines = [line.rstrip() for line in body.strip().splitlines() if line.strip()]
    kept: list[str] = []
    room = max_chars
    for line in lines[:max_lines]:
        if len(line) > room:
            if room > 20:  # a stub of a few characters says nothing
                kept.append(line[: room - 1].rstrip() + "…")
            return "\n".join([*kept, MORE])
        kept.append(line)
        room -= len(line) + 1
    return "\n".join([*kept, MORE] if len(kept) < len(lines) else kept)


def notify(
    title: str,
    body: str,
    *,
    timeout_seconds: float = 5.0,
    platform: str | None = None,
    env: Mapping[str, str] | None = None,
) -> str:
    """Show one notification; returns a one-line report of who accepted it, or raises DeliveryError."""
    platform = platform or sys.platform
    env = os.environ if env is None else env
    title = " ".join(title.split()) or APP_NAME
    if platform == "darwin":
        return _notify_macos(title, shorten(body), timeout_seconds)
    if platform == "win32":
        return _notify_windows(title[:63], shorten(body, max_chars=200))  # balloon tips cap at 64 / 256
    return _notify_dbus(title, shorten(body), timeout_seconds, env)


def session_bus_address(env: Mapping[str, str]) -> str:
    """Like libdbus and GDBus: $DBUS_SESSION_BUS_ADDRESS, else the systemd user bus socket."""
    address = env.get("DBUS_SESSION_BUS_ADDRESS", "").strip()
    if address:
        return address
    runtime = env.get("XDG_RUNTIME_DIR", "")
    if runtime:
        socket_path = os.path.join(runtime, "bus")
        try:
            if stat.S_ISSOCK(os.stat(socket_path).st_mode):
                return f"unix:path={socket_path}"
        except OSError:
            pass
    raise DeliveryError(
        "no desktop notification: no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set; "
        "not run inside a desktop session?)"
    )


def _notify_dbus(title: str, text: str, timeout: float, env: Mapping[str, str]) -> str:
    address = session_bus_address(env)
    try:
        from jeepney import DBusAddress, new_method_call
        from jeepney.io.blocking import open_dbus_connection
        from jeepney.wrappers import DBusErrorResponse, unwrap_msg
    except ImportError:
        raise DeliveryError("no desktop notification: the jeepney package is not installed") from None
    target = DBusAddress(_OBJECT_PATH, bus_name=_BUS_NAME, interface=_BUS_NAME)

    def call(conn: Any, method: str, signature: str | None = None, args: tuple[Any, ...] = ()) -> Any:
        reply = conn.send_and_get_reply(new_method_call(target, method, signature, args), timeout=timeout)
        return unwrap_msg(reply)

    try:
        with open_dbus_connection(bus=address, auth_timeout=timeout) as conn:
            name, _vendor, version, _spec = call(conn, "GetServerInformation")
            (caps,) = call(conn, "GetCapabilities")
            # A server advertising body-markup parses <, > and & in the body as markup.
            shown = html.escape(text, quote=False) if "body-markup" in caps else text
            hints = {"urgency": ("y", 1)}  # normal
            args = (APP_NAME, 0, "", title, shown, [], hints, -1)
            (nid,) = call(conn, "Notify", "susssasa{sv}i", args)
    except DBusErrorResponse as exc:
        if exc.name in (
            "org.freedesktop.DBus.Error.ServiceUnknown",
            "org.freedesktop.DBus.Error.NameHasNoOwner",
        ):
            problem = "no notification daemon is running on the session bus"
        else:
            detail = exc.data[0] if exc.data and isinstance(exc.data[0], str) else ""
            problem = f"the session bus answered {exc.name} {detail}"
    except TimeoutError:
        problem = f"the session bus or notification daemon did not answer within {timeout:g} s"
    except OSError as exc:  # stale address: socket gone, connection refused, permission denied
        problem = f"cannot reach the D-Bus session bus at {address} ({exc.strerror or type(exc).__name__})"
    except Exception as exc:  # unsupported transport, authentication or protocol errors from jeepney
        problem = f"D-Bus session bus at {address} unusable: {type(exc).__name__}: {exc}"
    else:
        return f"notification {nid} shown by {name} {version}".rstrip()
    raise DeliveryError(" ".join(f"no desktop notification: {problem}".split()))


def applescript_string(value: str) -> str:
    """An AppleScript string literal: only backslash and double quote are special inside quotes."""
    value = value.replace("\\", "\\\\").replace('"', '\\"')
    value = value.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\\n").replace("\t", "\\t")
    return '"' + "".join(c for c in value if c >= " ") + '"'


def _notify_macos(title: str, text: str, timeout: float) -> str:
    osascript = shutil.which("osascript")
    if not osascript:
        raise DeliveryError("no desktop notification: osascript not found")
    script = f"display notification {applescript_string(text)} with title {applescript_string(title)}"
    try:
        proc = subprocess.run(
            [osascript, "-e", script], capture_output=True, text=True, timeout=timeout + 10, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise DeliveryError(f"no desktop notification: osascript failed ({type(exc).__name__})") from None
    if proc.returncode != 0:
        reason = " ".join(proc.stderr.split()) or f"exit status {proc.returncode}"
        raise DeliveryError(f"no desktop notification: osascript: {reason}")
    # osascript cannot tell whether the user muted notifications for it; say what we know.
    return "notification handed to macOS Notification Center"


def _notify_windows(title: str, text: str) -> str:
    try:
        from plyer import notification  # type: ignore[import-not-found]
    except ImportError:
        raise DeliveryError("no desktop notification: install plyer for notifications on Windows") from None
    try:
        notification.notify(title=title, message=text, app_name=APP_NAME)
    except Exception as exc:
        raise DeliveryError(f"no desktop notification: plyer: {type(exc).__name__}: {exc}") from None
    return "notification handed to Windows via plyer"
