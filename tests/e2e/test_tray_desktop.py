"""`memoryd-tray` on a real desktop: Xvfb, a private session bus (what dbus-run-session
gives a login), dunst as the notification daemon and trayer as the tray host, all Debian
packages `.ci/run` installs. The app runs as its own process, as a user starts it.

The scheduler's catch-up: the app is closed over Monday 09:00 (MEMORYD_NOW pins core's
clock; the APScheduler timers run on real time, so only the catch-up can fire here) and
started on Tuesday: exactly one digest notification reaches dunst, a third start sends
none, and clicking the notification (dunstctl action) opens the digest window.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memoryd.app import Memoryd
from tests.core.governance.sessions import REMEMBER, capture
from tests.delivery import Desktop
from tests.desktop_session import wait_for_tray

MONDAY_EARLY = "2026-11-16T08:00:00Z"  # a Monday, before the 09:00 digest
TUESDAY = "2026-11-17T10:00:00Z"
TITLE = "memoryd weekly digest"


def _log(home: Path) -> str:
    path = home / "logs" / "tray.log"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def _wait(what: str, check, timeout: float = 30) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.1)
    pytest.fail(f"timed out waiting for {what}")


def _start(desktop: Desktop, now: str) -> subprocess.Popen[bytes]:
    env = {**desktop.env(), "MEMORYD_NOW": now, "TZ": "UTC", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
    return subprocess.Popen(
        [sys.executable, "-m", "memoryd_desktop.main"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _quit(proc: subprocess.Popen[bytes]) -> int:
    proc.send_signal(signal.SIGTERM)
    return proc.wait(timeout=20)


def _digest_notes(desktop: Desktop) -> list[tuple[str, str, str]]:
    if not desktop.shown.exists():
        return []
    fields = desktop.shown.read_bytes().decode().split("\0")[:-1]
    notes = [tuple(fields[i : i + 3]) for i in range(0, len(fields) - 2, 3)]
    return [n for n in notes if n[1] == TITLE]  # type: ignore[misc]


def _dunstctl(desktop: Desktop, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["dunstctl", *args], env=desktop.env(), capture_output=True, text=True, timeout=10)


def test_tray_icon_catch_up_digest_notification_and_click(
    desktop: Desktop, cli, project: Path, tmp_path: Path
) -> None:
    home = Path(os.environ["MEMORYD_HOME"])
    capture(cli, project, tmp_path, "week-1", [REMEMBER])
    Memoryd().analyze_pending()
    pending = len(Memoryd().promotions(status="pending"))
    assert pending >= 1
    wait_for_tray(desktop.env())  # trayer owns the tray selection

    # Monday 08:00: the first start; the tray icon shows in trayer; nothing is due yet.
    first = _start(desktop, MONDAY_EARLY)
    _wait("the tray to be ready", lambda: "memoryd-tray ready (tray)" in _log(home))
    _wait("the catch-up check", lambda: "catch-up: nothing due" in _log(home))
    assert _quit(first) == 0
    assert _digest_notes(desktop) == []

    # Tuesday 10:00: Monday's digest was missed while the app was closed: it runs once.
    second = _start(desktop, TUESDAY)
    _wait("the digest notification", lambda: _digest_notes(desktop), timeout=60)
    time.sleep(3)  # a second notification would arrive by now (the catch-up runs at start)
    notes = _digest_notes(desktop)
    assert len(notes) == 1
    _app, _title, body = notes[0]
    # only the kinds that wait are named (nothing else waits in this store)
    assert body == f"Waiting in the weekly digest: promotions ({pending}).", body

    # A click on the notification (its default action) opens the digest window.
    assert _dunstctl(desktop, "count", "displayed").stdout.strip() == "1"
    _dunstctl(desktop, "action", "0")
    _wait("the digest window", lambda: "window digest opened" in _log(home), timeout=20)
    _dunstctl(desktop, "close-all")  # closed notifications are what `dunstctl history` lists

    def summaries() -> list[str]:
        history = json.loads(_dunstctl(desktop, "history").stdout)
        return [n["summary"]["data"] for group in history["data"] for n in group]

    _wait("dunst's history", lambda: TITLE in summaries(), timeout=10)
    assert summaries().count(TITLE) == 1
    assert _quit(second) == 0

    # A third start the same Tuesday: the slot is taken, no second notification.
    third = _start(desktop, TUESDAY)
    _wait("the third start", lambda: _log(home).count("memoryd-tray ready (tray)") == 3)
    _wait("its catch-up check", lambda: _log(home).count("catch-up: nothing due") == 2)
    assert _quit(third) == 0
    assert len(_digest_notes(desktop)) == 1
    ledger = json.loads((home / "schedule.json").read_text())
    assert ledger["jobs"]["digest"]["last_slot"] == "2026-11-16T09:00:00Z"
    assert ledger["jobs"]["digest"]["runner"] == "tray"
