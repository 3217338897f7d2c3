"""The tray at login: the XDG autostart entry (valid per desktop-file-validate, its Exec
decoded by the spec's rules runs the very command with the baked-in data dir), the
LaunchAgent plist (written on any OS with platform="darwin" under the test's HOME), the
Windows Run value; enable twice changes nothing, disable removes exactly the entry; and
`memoryd setup autostart` through the real CLI, audited."""

from __future__ import annotations

import configparser
import json
import os
import plistlib
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from memoryd.agents import autostart
from tests.core.sensitive.support import one_line_error

Cli = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture(autouse=True)
def xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """$XDG_CONFIG_HOME of the test, so no developer's ~/.config is read or written."""
    conf = tmp_path / "xdg-config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(conf))
    return conf


def _entry(path: Path) -> dict[str, str]:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(path.read_text(encoding="utf-8"))
    return dict(parser["Desktop Entry"])


def decode_exec(value: str) -> list[str]:
    """The freedesktop Desktop Entry spec's reading of an Exec value, in the order GLib
    applies it: string escapes (\\\\ \\s \\n \\t \\r), then field codes anywhere (%% is a
    literal %; this entry has no other), then words split on spaces outside double quotes,
    where \\" \\` \\$ \\\\ stand for the character."""
    text, i = "", 0
    while i < len(value):
        c = value[i]
        if c == "\\" and i + 1 < len(value):
            escapes = {"s": " ", "n": "\n", "t": "\t", "r": "\r", "\\": "\\"}
            text += escapes.get(value[i + 1], "\\" + value[i + 1])
            i += 2
        else:
            text += c
            i += 1
    assert "%" not in text.replace("%%", ""), f"a field code in {value!r}"
    text = text.replace("%%", "%")
    words: list[str] = []
    word: str | None = None
    i, quoted = 0, False
    while i < len(text):
        c = text[i]
        if quoted:
            if c == "\\" and text[i + 1] in '"`$\\':
                word = (word or "") + text[i + 1]
                i += 2
                continue
            if c == '"':
                quoted = False
            else:
                word = (word or "") + c
        elif c == '"':
            quoted, word = True, word or ""
        elif c == " ":
            if word is not None:
                words.append(word)
            word = None
        else:
            word = (word or "") + c
        i += 1
    assert not quoted, value
    if word is not None:
        words.append(word)
    return words


def test_linux_entry_is_valid_names_this_tray_and_bakes_in_the_data_dir(xdg: Path) -> None:
    path = autostart.enable("linux")
    assert path == xdg / "autostart" / "memoryd-tray.desktop"
    entry = _entry(path)
    assert entry["Type"] == "Application"
    assert entry["Name"] == "memoryd"
    assert entry["X-GNOME-Autostart-enabled"] == "true"
    assert entry["Comment"] and "Hidden" not in entry
    assert Path(entry["Icon"]).is_file() and entry["Icon"].endswith("memoryd.svg")
    argv = decode_exec(entry["Exec"])
    # conftest points MEMORYD_HOME / MEMORYD_CONFIG at the test's own: a login session would
    # not have them, so the entry carries them.
    assert argv == [
        "env",
        f"MEMORYD_HOME={os.environ['MEMORYD_HOME']}",
        f"MEMORYD_CONFIG={os.environ['MEMORYD_CONFIG']}",
        *autostart.tray_argv("linux"),
    ]
    tray = Path(argv[-1]) if len(autostart.tray_argv("linux")) == 1 else None
    if tray is not None:  # the console script of this install, not one found by chance
        assert tray.is_absolute() and tray.name == "memoryd-tray" and os.access(tray, os.X_OK)
    assert autostart.enabled("linux")
    validate = shutil.which("desktop-file-validate")
    if validate:
        res = subprocess.run([validate, str(path)], capture_output=True, text=True, check=False)
        assert res.returncode == 0 and not res.stdout.strip(), res.stdout + res.stderr


def test_enable_twice_changes_nothing_and_disable_removes_exactly_it(xdg: Path) -> None:
    neighbour = xdg / "autostart" / "someone-else.desktop"
    neighbour.parent.mkdir(parents=True)
    neighbour.write_text("[Desktop Entry]\nType=Application\nName=x\nExec=x\n")
    path = autostart.enable("linux")
    first = path.stat()
    assert autostart.enable("linux") == path
    again = path.stat()
    assert (again.st_ino, again.st_mtime_ns) == (first.st_ino, first.st_mtime_ns)  # not rewritten
    assert autostart.disable("linux") == path
    assert not path.exists() and not autostart.enabled("linux")
    assert autostart.disable("linux") is None
    assert neighbour.read_text() == "[Desktop Entry]\nType=Application\nName=x\nExec=x\n"


def test_without_env_vars_the_entry_is_the_bare_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMORYD_HOME")
    monkeypatch.delenv("MEMORYD_CONFIG")
    assert decode_exec(_entry(autostart.enable("linux"))["Exec"]) == autostart.tray_argv("linux")
    plist = plistlib.loads(autostart.enable("darwin").read_bytes())
    assert "EnvironmentVariables" not in plist


def test_exec_quoting_round_trips_and_runs(tmp_path: Path) -> None:
    """Reserved characters, a space, %, quotes and backslashes survive the spec's decoding,
    and the decoded command really runs with the environment it names."""
    odd = "a b$c%d\"e\\f`g'h"
    script = "import os, sys; print(os.environ['MEMORYD_HOME']); print(sys.argv[1])"
    argv = [sys.executable, "-c", script, odd]
    home = str(tmp_path / "data dir with 100% $HOME")
    line = autostart.exec_line(argv, {"MEMORYD_HOME": home})
    assert "\n" not in line
    words = decode_exec(line)
    assert words == ["env", f"MEMORYD_HOME={home}", *argv]
    out = subprocess.run(words, capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == [home, odd]


def test_a_hidden_entry_is_not_enabled(xdg: Path) -> None:
    path = autostart.enable("linux")
    path.write_text(path.read_text().replace("Terminal=false", "Hidden=true"))
    assert not autostart.enabled("linux")
    path.write_text("[Desktop Entry]\nX-GNOME-Autostart-enabled=false\n")
    assert not autostart.enabled("linux")


def test_macos_launch_agent_under_home(monkeypatch: pytest.MonkeyPatch) -> None:
    home = Path(os.environ["HOME"])
    path = autostart.enable("darwin")
    assert path == home / "Library" / "LaunchAgents" / "dev.memoryd.tray.plist"
    plist = plistlib.loads(path.read_bytes())
    assert plist["Label"] == "dev.memoryd.tray"
    assert plist["ProgramArguments"] == autostart.tray_argv("darwin")
    assert plist["RunAtLoad"] is True
    assert "KeepAlive" not in plist  # a tray the user quits stays quit
    assert plist["EnvironmentVariables"] == {
        "MEMORYD_HOME": os.environ["MEMORYD_HOME"],
        "MEMORYD_CONFIG": os.environ["MEMORYD_CONFIG"],
    }
    assert autostart.enabled("darwin") and not autostart.enabled("linux")
    first = path.stat()
    autostart.enable("darwin")
    assert path.stat().st_mtime_ns == first.st_mtime_ns
    assert autostart.disable("darwin") == path and not path.exists()
    assert autostart.disable("darwin") is None and not autostart.enabled("darwin")


def test_windows_run_value_quotes_each_word() -> None:
    value = autostart.run_value([r"C:\Program Files\memoryd\Scripts\memoryd-tray.exe"])
    assert value == r'"C:\Program Files\memoryd\Scripts\memoryd-tray.exe"'
    assert str(autostart.where("win32")).endswith(r"CurrentVersion\Run\memoryd")
    if sys.platform != "win32":
        assert not autostart.enabled("win32")  # never an error: the tray asks at start


@pytest.mark.skipif(sys.platform != "win32", reason="the Run key exists only on Windows")
def test_windows_run_key() -> None:  # pragma: no cover - Windows only
    import winreg

    try:
        autostart.enable()
        with winreg.OpenKey(winreg.HKEY_CURRENT_USER, autostart.RUN_KEY) as key:
            value, kind = winreg.QueryValueEx(key, autostart.RUN_VALUE)
        assert kind == winreg.REG_SZ and value == autostart.run_value()
        assert autostart.enabled()
    finally:
        autostart.disable()
    assert not autostart.enabled()


def test_setup_autostart_cli(cli: Cli, xdg: Path) -> None:
    env = {"XDG_CONFIG_HOME": str(xdg)}
    path = xdg / "autostart" / "memoryd-tray.desktop"
    dry = cli("setup", "autostart", "--dry-run", env=env)
    assert dry.returncode == 0, dry.stderr
    assert f"would write  {path}" in dry.stdout and "Exec=" in dry.stdout and not path.exists()

    on = cli("setup", "autostart", env=env)
    assert on.returncode == 0 and str(path) in on.stdout, on.stderr
    assert _entry(path)["Name"] == "memoryd"
    assert cli("setup", "autostart", env=env).returncode == 0
    off = cli("setup", "autostart", "--uninstall", "--json", env=env)
    assert off.returncode == 0 and json.loads(off.stdout)["enabled"] is False and not path.exists()

    events = json.loads(cli("audit", "--json").stdout)
    changes = [json.loads(e["details"]) for e in events if e["event_type"] == "settings"]
    assert changes == [{"autostart": True}, {"autostart": True}, {"autostart": False}]


@pytest.mark.parametrize(
    ("args", "word"),
    [
        (("setup", "autostart", "--project"), "--project"),
        (("setup", "autostart", "--force"), "--force"),
        (("setup", "autostart", "--kind", "cron"), "--kind"),
        (("setup", "codex", "--kind", "cron"), "--kind"),
    ],
)
def test_setup_refusals_are_one_line(cli: Cli, args: tuple[str, ...], word: str) -> None:
    one_line_error(cli(*args), 2, word)
