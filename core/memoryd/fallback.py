"""Seed 003's fallback trigger: a consolidation that has not succeeded for `fallback_hours`
is set off in the background by the next CLI or tray start.

Checked at every CLI start, so it imports nothing heavy: one row read straight from
index.db (read-only, so no index is created or migrated where none is) and a try of the
consolidation's lock. The run itself (memoryd.consolidate) takes the lock and checks again,
so two starts at the same moment still make one run.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from memoryd import clock
from memoryd.paths import FILE_MODE, Layout

# A failed or killed attempt is not started again by the fallback for this long, so a run
# that fails at every try does not start with every command.
RETRY_GAP = timedelta(hours=1)


def lock_path(layout: Layout) -> str:
    return str(layout.home / "consolidate.lock")


def running(layout: Layout) -> bool:
    """Whether a consolidation holds the lock now (without waiting for it)."""
    from filelock import FileLock, Timeout

    if not layout.home.exists():
        return False
    lock = FileLock(lock_path(layout), mode=FILE_MODE)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        return True
    lock.release()
    return False


def _overdue(st: dict[str, Any], hours: int, now: datetime) -> bool:
    """No success for `hours` (since memoryd first looked, on a new install), and no
    attempt within RETRY_GAP."""
    if hours <= 0:
        return False
    ref = st.get("last_success") or st.get("since")
    if ref is None or now - clock.parse_ts(ref) < timedelta(hours=hours):
        return False
    last = st.get("last_run")
    return last is None or now - clock.parse_ts(last) >= RETRY_GAP


def overdue(layout: Layout, hours: int) -> bool:
    """An index older than migration 012 is not overdue until the next command that opens
    the store migrates it."""
    path = layout.index_db
    if not path.exists():
        return False
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1)
        try:
            con.row_factory = sqlite3.Row
            row = con.execute("SELECT since, last_run, last_success FROM consolidation_state").fetchone()
        finally:
            con.close()
    except sqlite3.Error:
        return False
    return row is not None and _overdue(dict(row), hours, clock.now())


def fallback(layout: Layout, hours: int, spawn: Callable[[], None]) -> bool:
    """When overdue and no run holds the lock, `spawn` one. True when one was set off."""
    if os.environ.get("MEMORYD_NO_FALLBACK"):
        return False
    try:
        if not overdue(layout, hours) or running(layout):
            return False
    except (OSError, ValueError):
        return False  # a damaged index or clock is doctor's business, not a reason to fail `search`
    spawn()
    return True


def spawn_consolidation() -> None:
    from memoryd.capture.hook import spawn_detached

    spawn_detached(["memoryd", "consolidate", "--fallback"])
