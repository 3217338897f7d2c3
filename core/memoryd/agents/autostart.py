"""Start the tray app at login: an XDG autostart entry on Linux, a LaunchAgent on macOS,
a Run value in the Windows registry (ECOSYSTEM-FACTS 5.5).

The entry names the tray of this very install (the `memoryd-tray` script beside the
running Python), so a venv that is never activated still starts the right one, and a
non-default MEMORYD_HOME / MEMORYD_CONFIG is written into it: a login session does not
carry the shell's environment. Everything here is the user's own files (or HKCU); nothing
needs privileges, and `disable` removes exactly what `enable` wrote."""

from __future__ import annotations

import os
import plistlib
import shutil
import sys
from pathlib import Path

from memoryd import atomic
from memoryd.errors import UsageError

DESKTOP_FILE = "memoryd-tray.desktop"
LAUNCHD_LABEL = "dev.memoryd.tray"
RUN_KEY = r"Software\Microsoft\Windows\CurrentVersion\Run"
RUN_VALUE = "memoryd"
ENV_VARS = ("MEMORYD_HOME", "MEMORYD_CONFIG")
COMMENT = "Local long-term memory for AI agents: the tray app"


def _platform(platform: str | None) -> str:
    """ "linux", "darwin" or "win32" (other Unixes follow the XDG spec like Linux)."""
    name = platform or sys.platform
    if name.startswith("win"):
        return "win32"
    if name == "darwin":
        return "darwin"
    return "linux"


def config_home() -> Path:
    """$XDG_CONFIG_HOME when set to an absolute path (the spec ignores relative ones), else
    ~/.config."""
    env = os.environ.get("XDG_CONFIG_HOME", "")
    return Path(env) if env and os.path.isabs(env) else Path.home() / ".config"


def where(platform: str | None = None) -> Path:
    """The file (or, on Windows, the registry value) that starts the tray at login."""
    plat = _platform(platform)
    if plat == "linux":
        return config_home() / "autostart" / DESKTOP_FILE
    if plat == "darwin":
        return Path.home() / "Library" / "LaunchAgents" / f"{LAUNCHD_LABEL}.plist"
    return Path("HKEY_CURRENT_USER\\" + RUN_KEY + "\\" + RUN_VALUE)


def tray_argv(platform: str | None = None) -> list[str]:
    """The tray of this install, absolute: the console script beside the interpreter, else
    one on PATH, else this interpreter running the module."""
    exe = "memoryd-tray.exe" if _platform(platform) == "win32" else "memoryd-tray"
    beside = Path(sys.executable).parent / exe
    if beside.is_file():
        return [str(beside)]
    found = shutil.which("memoryd-tray")
    if found:
        return [os.path.abspath(found)]
    return [sys.executable, "-m", "memoryd_desktop.main"]


def baked_env() -> dict[str, str]:
    """The data dir and config file this process uses, when they are not the defaults."""
    out = {}
    for name in ENV_VARS:
        value = os.environ.get(name)
        if value:
            out[name] = os.path.abspath(os.path.expanduser(value))
    return out


def _icon() -> str:
    from memoryd import bundled

    try:
        return str(bundled.find(Path("icons") / "memoryd.svg"))
    except FileNotFoundError:
        return "memoryd"  # a theme icon name: a missing icon must not stop the entry


# -- Linux: the freedesktop desktop entry -------------------------------------------------
_EXEC_RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")


def exec_quote(arg: str) -> str:
    """One argument of a desktop entry's Exec key: double-quoted when it holds a reserved
    character, with ", `, $ and \\ escaped inside the quotes; then the string-value escape
    of backslashes, and %% for a literal % (else a field code)."""
    if arg and not (set(arg) & _EXEC_RESERVED):
        quoted = arg
    else:
        inner = "".join("\\" + c if c in '"`$\\' else c for c in arg)
        quoted = f'"{inner}"'
    return quoted.replace("\\", "\\\\").replace("%", "%%")


def _value(text: str) -> str:
    """A desktop entry string value: no raw line breaks, backslashes escaped."""
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")


def exec_line(argv: list[str], env: dict[str, str]) -> str:
    words = (["env", *(f"{k}={v}" for k, v in env.items())] if env else []) + argv
    return " ".join(exec_quote(w) for w in words)


def desktop_entry(argv: list[str] | None = None, env: dict[str, str] | None = None) -> str:
    argv = argv or tray_argv("linux")
    env = baked_env() if env is None else env
    return (
        "[Desktop Entry]\n"
        "Type=Application\n"
        "Version=1.0\n"
        "Name=memoryd\n"
        f"Comment={_value(COMMENT)}\n"
        f"Exec={exec_line(argv, env)}\n"
        f"Icon={_value(_icon())}\n"
        "Terminal=false\n"
        "Categories=Utility;\n"
        "X-GNOME-Autostart-enabled=true\n"
    )


def _desktop_enabled(text: str) -> bool:
    """The spec's switches off: Hidden=true, and GNOME's X-GNOME-Autostart-enabled=false."""
    for raw in text.splitlines():
        key, _, value = raw.partition("=")
        key, value = key.strip(), value.strip().lower()
        if key == "Hidden" and value == "true":
            return False
        if key == "X-GNOME-Autostart-enabled" and value == "false":
            return False
    return True


# -- macOS: the LaunchAgent ----------------------------------------------------------------
def launch_agent(argv: list[str] | None = None, env: dict[str, str] | None = None) -> bytes:
    """RunAtLoad and no KeepAlive: started at login, and it stays quit when the user quits."""
    env = baked_env() if env is None else env
    plist: dict[str, object] = {
        "Label": LAUNCHD_LABEL,
        "ProgramArguments": argv or tray_argv("darwin"),
        "RunAtLoad": True,
        "LimitLoadToSessionType": "Aqua",  # the GUI login, not an ssh session
        "ProcessType": "Interactive",
    }
    if env:
        plist["EnvironmentVariables"] = env
    return plistlib.dumps(plist, fmt=plistlib.FMT_XML, sort_keys=True)


# -- Windows: the Run value ----------------------------------------------------------------
def run_value(argv: list[str] | None = None) -> str:
    """The Run value: each word quoted, so a path with spaces is one word. The registry
    holds no environment: MEMORYD_HOME must be a user variable there."""
    return " ".join(f'"{w}"' for w in (argv or tray_argv("win32")))


def _registry_get() -> str | None:
    import winreg

    try:
        with winreg.OpenKey(winreg.HKEY_CURRENT_USER, RUN_KEY) as key:
            value, _ = winreg.QueryValueEx(key, RUN_VALUE)
    except OSError:
        return None
    return str(value)


def _registry_set(value: str | None) -> None:
    import winreg

    access = winreg.KEY_SET_VALUE
    with winreg.CreateKeyEx(winreg.HKEY_CURRENT_USER, RUN_KEY, 0, access) as key:
        if value is None:
            winreg.DeleteValue(key, RUN_VALUE)
        else:
            winreg.SetValueEx(key, RUN_VALUE, 0, winreg.REG_SZ, value)


def _need_windows() -> None:
    if sys.platform != "win32":
        raise UsageError("the Windows Run key can only be changed on Windows")


# -- the API -------------------------------------------------------------------------------
def entry(platform: str | None = None) -> str:
    """What `enable` writes (for --dry-run): the desktop entry, the plist, the Run value."""
    plat = _platform(platform)
    if plat == "linux":
        return desktop_entry()
    if plat == "darwin":
        return launch_agent().decode("utf-8")
    return run_value()


def enabled(platform: str | None = None) -> bool:
    """Whether the tray starts at login; False (never an error) when that cannot be read."""
    plat = _platform(platform)
    try:
        if plat == "win32":
            return sys.platform == "win32" and _registry_get() is not None
        path = where(plat)
        if not path.is_file():
            return False
        return plat != "linux" or _desktop_enabled(path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return False


def enable(platform: str | None = None) -> Path:
    """Write the entry (atomically; nothing when it is already so) and return where."""
    plat = _platform(platform)
    path = where(plat)
    if plat == "win32":
        _need_windows()
        value = run_value()
        if _registry_get() != value:
            _registry_set(value)
        return path
    data = desktop_entry().encode("utf-8") if plat == "linux" else launch_agent()
    try:
        same = path.read_bytes() == data
    except OSError:
        same = False
    if not same:
        try:
            atomic.write_bytes(path, data)
        except OSError as exc:
            raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    return path


def disable(platform: str | None = None) -> Path | None:
    """Remove the entry; where it was, or None when there was none."""
    plat = _platform(platform)
    path = where(plat)
    if plat == "win32":
        _need_windows()
        if _registry_get() is None:
            return None
        _registry_set(None)
        return path
    try:
        path.unlink()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UsageError(f"cannot remove {path}: {exc.strerror or exc}") from None
    return path
