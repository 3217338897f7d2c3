"""GrantWatch over a real data folder: a grant made through core is noticed, and the expiry
timer is armed to its end; other processes opening the store are not a grant change."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from memoryd.app import Memoryd
from memoryd_desktop import live
from memoryd_desktop.live import GrantWatch
from memoryd_desktop.ops import Ops

PASSPHRASE = "correct horse battery staple"
NOW = datetime(2026, 11, 27, 12, 0, 0, tzinfo=UTC)


def test_the_next_expiry_is_the_soonest_one_ahead() -> None:
    grants = [
        {"expires_at": "2026-11-27T20:00:00Z"},
        {"expires_at": None},  # a task grant: until revoked
        {"expires_at": "2026-11-27T12:01:30Z"},
        {"expires_at": "2026-11-27T11:59:00Z"},  # already past
        {"expires_at": "not a time"},
    ]
    assert live.next_expiry(grants, NOW) == datetime(2026, 11, 27, 12, 1, 30, tzinfo=UTC)
    assert live.next_expiry([{"expires_at": None}], NOW) is None
    assert live.wait_ms(NOW + timedelta(seconds=90), NOW) == 90_000 + live.PAST_EXPIRY_MS
    assert live.wait_ms(NOW + timedelta(days=30), NOW) == live.LONGEST_WAIT_MS


@pytest.fixture
def ops(qtbot: QtBot) -> Iterator[Ops]:
    errors: list[BaseException] = []
    ops = Ops(on_error=errors.append)
    yield ops
    qtbot.waitUntil(lambda: not ops.busy, timeout=10_000)
    assert errors == []


def test_a_grant_is_noticed_and_timed(qtbot: QtBot, facade: Memoryd, ops: Ops, tmp_path: Path) -> None:
    project = tmp_path / "payroll"
    project.mkdir()
    facade.mark_sensitive(project, passphrase=PASSPHRASE)
    assert facade.layout.grants.is_dir()  # core made it with the store, empty
    assert facade.layout.grants.stat().st_mode & 0o777 == 0o700
    watch = GrantWatch(facade, ops)
    watch.start()
    assert watch.watcher.directories() == [str(facade.layout.grants)]
    with qtbot.waitSignal(watch.changed, timeout=5_000):
        facade.grant(project, duration="once", passphrase=PASSPHRASE, in_tray=True)
    assert watch.watcher.directories() == [str(facade.layout.grants)]
    qtbot.waitUntil(watch.expiry.isActive, timeout=5_000)
    assert 80_000 < watch.expiry.remainingTime() <= 90_000 + live.PAST_EXPIRY_MS  # "once": 90 s
    watch.stop()
    assert not watch.expiry.isActive() and watch.watcher.directories() == []


@pytest.mark.parametrize("store_made", [False, True], ids=["fresh-home", "store-made"])
def test_other_processes_writing_the_data_folder_are_not_a_grant_change(
    qtbot: QtBot, facade: Memoryd, ops: Ops, tmp_path: Path, cli: Any, store_made: bool
) -> None:
    """Hooks, MCP and the CLI open the store (-wal, -shm, the index) all day; only a grant
    or revoke may make the open windows read again, never granted anything or not."""
    project = tmp_path / "payroll"
    project.mkdir()
    if store_made:
        facade.record("fact", "warm up", "the store exists before the tray starts")
    watch = GrantWatch(facade, ops)
    seen: list[None] = []
    watch.changed.connect(lambda: seen.append(None))
    watch.start()
    qtbot.waitUntil(lambda: not ops.busy, timeout=10_000)
    result = cli("list")
    assert result.returncode == 0, result.stderr
    facade.mark_sensitive(project, passphrase=PASSPHRASE)
    qtbot.wait(3 * live.SETTLE_MS)
    assert seen == []
    assert watch.watcher.directories() == [str(facade.layout.grants)]
    with qtbot.waitSignal(watch.changed, timeout=5_000):
        facade.grant(project, duration="once", passphrase=PASSPHRASE, in_tray=True)
    watch.stop()
