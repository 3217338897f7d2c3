"""TrayState from a real temp store: what the facade says is what the menu shows."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from memoryd.app import Memoryd
from memoryd.capture import spool
from memoryd_desktop import tray_state
from memoryd_desktop.tray_state import Action, Kind, TrayState


def _texts(state: TrayState) -> list[str]:
    return [item.text for item in state.items() if item.kind is not Kind.SEPARATOR]


def _action(state: TrayState, action: Action) -> tray_state.Item:
    return next(item for item in state.items() if item.action is action)


def test_state_counts_recorded_memories(facade: Memoryd) -> None:
    facade.record("fact", "Postgres port", "The dev database listens on 5433.")
    facade.record("fact", "CI runner", "CI runs on Debian 12.")
    facade.record("preference", "Tabs", "Use 4 spaces, never tabs.")

    state = tray_state.load(facade)

    assert state.loaded
    assert state.home == facade.layout.home
    assert state.total == 3
    assert state.by_type == (("fact", 2), ("preference", 1))
    assert state.spool_pending == 0
    texts = _texts(state)
    assert texts[:4] == ["Promotions waiting: 0", "Memories: 3", "Facts: 2", "Preferences: 1"]
    assert "Captures waiting: 0" in texts
    assert not _action(state, Action.DRAIN).enabled  # nothing to process
    assert not state.pending


def test_state_counts_spooled_captures(facade: Memoryd) -> None:
    for sid in ("s-1", "s-2"):
        spool.put(facade.layout.spool, "claude-code", {"session_id": sid, "cwd": "."}, "2026-11-22T08:00:00Z")

    state = tray_state.load(facade)

    assert state.spool_pending == 2
    assert state.pending
    assert _action(state, Action.DRAIN).enabled
    assert state.tooltip().splitlines() == [
        "memoryd",
        "Promotions waiting: 0",
        "Memories: 0",
        "Captures waiting: 2",
    ]


def test_forgotten_memories_are_counted_apart(facade: Memoryd) -> None:
    doc, _ = facade.record("warning", "Flaky test", "test_sync flakes on CI under load.")
    facade.forget(doc.meta.slug)

    state = tray_state.load(facade)

    assert state.forgotten == 1
    assert "Forgotten: 1" in _texts(state)


def test_state_before_first_answer_and_while_draining(facade: Memoryd) -> None:
    blank = TrayState(home=facade.layout.home)
    assert _texts(blank)[0] == "Reading memories…"
    assert [i.action for i in blank.items() if i.kind is Kind.ACTION] == [
        Action.DIGEST,
        Action.SEARCH,
        Action.SCOPES,
        Action.IDENTITY,
        Action.CONSOLIDATE,
        Action.SYNC,
        Action.PAUSE,
        Action.DRAIN,
        Action.SETTINGS,
        Action.OPEN_FOLDER,
        Action.QUIT,
    ]

    busy = TrayState(home=facade.layout.home, loaded=True, spool_pending=4, draining=True)
    drain = _action(busy, Action.DRAIN)
    assert drain.text == "Processing captures…"
    assert not drain.enabled


def test_while_consolidating_the_action_waits_and_the_last_line_shows(facade: Memoryd) -> None:
    state = tray_state.load(facade)
    assert _action(state, Action.CONSOLIDATE).text == "Consolidate now"
    assert _action(state, Action.CONSOLIDATE).enabled

    line = "analyze: 1 analysed, 0 queued for promotion, 0 deferred, 0 tokens (0.2 s)"
    busy = replace(state, consolidating=True, consolidation_line=line)
    item = _action(busy, Action.CONSOLIDATE)
    assert (item.text, item.enabled) == ("Consolidating…", False)
    assert f"Consolidation: {line}" in _texts(busy)
    assert busy.tooltip().splitlines()[-1] == f"Consolidation: {line}"  # the tray's hover text too
    assert f"Consolidation: {line}" not in _texts(replace(busy, consolidating=False))


def test_read_error_is_a_line_not_a_crash() -> None:
    state = TrayState(home=Path("/nowhere"), error="index.db is locked")
    assert "Could not read memoryd: index.db is locked" in _texts(state)


def test_waiting_promotions_badge_the_icon_and_pause_shows(facade: Memoryd) -> None:
    facade.pause_capture(True)
    state = tray_state.from_stats({**facade.stats(), "promotions_pending": 3})
    assert state.pending  # the badge: promotions wait even with an empty spool
    assert _texts(state)[:2] == ["Capture is paused", "Promotions waiting: 3"]  # the pause first
    assert state.tooltip().splitlines()[:2] == ["memoryd", "Capture is paused"]
    assert _action(state, Action.PAUSE).text == "Resume capture"
    facade.pause_capture(False)
    assert _action(tray_state.load(facade), Action.PAUSE).text == "Pause capture"


def test_sync_needs_a_folder_and_waits_while_one_runs(facade: Memoryd, tmp_path: Path) -> None:
    state = tray_state.load(facade)
    assert state.sync_folder == ""
    item = _action(state, Action.SYNC)
    assert not item.enabled and "Settings → Sync" in item.text and "Settings → Sync" in item.tooltip

    facade.update_config({"sync.folder": str(tmp_path)})
    state = tray_state.load(facade)
    assert state.sync_folder == str(tmp_path)
    assert (_action(state, Action.SYNC).text, _action(state, Action.SYNC).enabled) == ("Sync now", True)
    busy = replace(state, syncing=True)
    assert (_action(busy, Action.SYNC).text, _action(busy, Action.SYNC).enabled) == ("Syncing…", False)
    assert f"Syncing with {tmp_path}…" in busy.tooltip().splitlines()
