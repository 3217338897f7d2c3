"""`memoryd-tray` as a real process: starts offscreen, one instance per data folder, quits on signals."""

from __future__ import annotations

import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

READY = "memoryd-tray ready"


def _script() -> str:
    beside = Path(sys.executable).with_name("memoryd-tray")
    found = str(beside) if beside.is_file() else shutil.which("memoryd-tray")
    assert found, "memoryd-tray is not installed; run `pip install -e .`"
    return found


class Tray:
    """A running memoryd-tray whose stderr is read line by line in the background."""

    def __init__(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [_script()], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.put(line)

    def wait_for(self, text: str, timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.1)
            except queue.Empty:
                if self.proc.poll() is not None and self.lines.empty():
                    break
                continue
            self.seen.append(line)
            if text in line:
                return line
        raise AssertionError(f"{text!r} not seen; stderr so far:\n{''.join(self.seen)}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def _cpu_ticks(pid: int) -> int:
    """User and system clock ticks the process has used (/proc/PID/stat, fields 14-15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def _idle(pid: int, quiet: float = 0.5, timeout: float = 20.0) -> None:
    """Wait until the process has used no CPU for `quiet` seconds: its start-up work done."""
    deadline = time.monotonic() + timeout
    last, since = _cpu_ticks(pid), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.1)
        now = _cpu_ticks(pid)
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return
    raise AssertionError(f"the tray (pid {pid}) kept busy for {timeout} s")


@pytest.fixture
def env(home: Path) -> dict[str, str]:
    out = dict(os.environ)
    out["QT_QPA_PLATFORM"] = "offscreen"
    out.pop("LANG", None)
    out["LC_ALL"] = "C.UTF-8"  # English messages, whatever the machine's locale
    return out


@pytest.fixture
def running(env: dict[str, str]) -> Iterator[Tray]:
    tray = Tray(env)
    try:
        tray.wait_for(READY)
        yield tray
    finally:
        tray.stop()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_quits_cleanly_on_a_signal(running: Tray, home: Path, sig: signal.Signals) -> None:
    assert "(window)" in running.seen[-1]  # offscreen has no tray: the status window is the fallback
    assert (home / "tray.lock").is_file()

    running.proc.send_signal(sig)

    assert running.proc.wait(timeout=15) == 0  # generous: CI runs this on a loaded 2-core machine
    assert not (home / "tray.lock").exists()  # released, so the next start needs no stale-lock check
    log = (home / "logs" / "tray.log").read_text(encoding="utf-8")
    assert "quitting" in log and "memoryd-tray quit" in log


def test_a_crash_leaves_its_stack_in_the_log(running: Tray, home: Path) -> None:
    """A segfault inside Qt kills the process before any Python handler runs; the log the
    user sends us must still say where it was. Tried: SIGSEGV sent to the running tray,
    once it is idle: a signal in the middle of its first refresh lands in a chain of
    imports deeper than the 100 frames faulthandler prints, and main.py is cut off the
    dump (a clean-clone CI run saw exactly that)."""
    _idle(running.proc.pid)
    running.proc.send_signal(signal.SIGSEGV)

    assert running.proc.wait(timeout=15) == -signal.SIGSEGV
    log = (home / "logs" / "tray.log").read_text(encoding="utf-8")
    assert "Fatal Python error: Segmentation fault" in log
    assert "most recent call first" in log and "memoryd_desktop/main.py" in log


def test_second_instance_exits(running: Tray, env: dict[str, str], home: Path) -> None:
    second = subprocess.run([_script()], env=env, capture_output=True, text=True, timeout=30)

    assert second.returncode == 1
    assert f"already running for {home} (pid {running.proc.pid})" in second.stderr
    assert running.proc.poll() is None  # the first one is untouched
    # ...and shows its window: the launcher reaches the app even if no tray icon is seen
    running.wait_for("started again from a launcher: showing the window")


def test_the_system_locale_picks_the_translation(env: dict[str, str]) -> None:
    env.pop("LC_ALL", None)
    env.pop("LC_MESSAGES", None)
    env["LANG"] = "zh_CN.UTF-8"
    tray = Tray(env)
    try:
        tray.wait_for(READY)
        assert any("translation zh_CN loaded for locale zh_CN" in line for line in tray.seen)
        tray.proc.terminate()
        assert tray.proc.wait(timeout=5) == 0
    finally:
        tray.stop()


def test_the_shipped_launcher_entry_is_valid() -> None:
    """resources/memoryd-tray.desktop, for packagers' application menus: starting it again
    while the tray runs brings up the running tray's window (main._show_running)."""
    from memoryd_desktop import assets

    entry = assets.resources_dir() / "memoryd-tray.desktop"
    text = entry.read_text(encoding="utf-8")
    assert "Exec=memoryd-tray\n" in text and "Type=Application\n" in text
    tool = shutil.which("desktop-file-validate")
    if tool is None:
        return  # the content checks above still ran; .ci/run installs desktop-file-utils
    out = subprocess.run([tool, str(entry)], capture_output=True, text=True, check=False)
    assert out.returncode == 0 and "error" not in out.stdout.lower(), out.stdout + out.stderr
