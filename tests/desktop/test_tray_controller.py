"""The controller over a real temp store: no-tray fallback window, actions, errors, late tray,
the nightly consolidation by hand, and the overdue one a start sets off."""

from __future__ import annotations

import re
import sqlite3
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import QLocale, Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from memoryd import paths
from memoryd.app import Memoryd
from memoryd.capture import spool
from memoryd.errors import StorageError
from memoryd_desktop import i18n
from memoryd_desktop.controller import SYNC_MS, Controller
from memoryd_desktop.grant_dialog import GrantDialog
from memoryd_desktop.status_window import StatusWindow
from memoryd_desktop.tray_state import Action, TrayState
from memoryd_desktop.windows import WINDOWS

NOW = "2026-11-22T08:00:00Z"


def _started(qtbot: QtBot, facade: Memoryd, tray: bool = False) -> Controller:
    controller = Controller(facade, tray_available=lambda: tray, background=False)
    with qtbot.waitSignal(controller.changed, timeout=10_000, check_params_cb=lambda s: s.loaded):
        controller.start()
    if controller.window is not None:
        qtbot.addWidget(controller.window)
    return controller


def test_without_a_tray_the_status_window_shows_the_facts(qtbot: QtBot, facade: Memoryd) -> None:
    facade.record("playbook", "Release", "Tag, build the wheel, upload.")

    controller = _started(qtbot, facade, tray=False)

    assert controller.tray is None
    window = controller.window
    assert window is not None and window.isVisible()
    assert window.quit_on_close
    assert window.fact_texts() == [
        "Promotions waiting: 0",
        "Memories: 1",
        "Playbooks: 1",
        "Captures waiting: 0",
    ]
    assert window.home_label.text() == f"Data folder: {facade.layout.home}"
    assert window.buttons[Action.OPEN_FOLDER].text() == "Open data folder"
    assert not window.buttons[Action.DRAIN].isEnabled()
    controller.shutdown()


def test_process_captures_button_drains_the_spool(qtbot: QtBot, facade: Memoryd) -> None:
    spool.put(
        facade.layout.spool,
        "claude-code",
        {"session_id": "abc", "cwd": ".", "last_assistant_message": "Done."},
        NOW,
    )
    spool.put(facade.layout.spool, "claude-code", {"no": "session id"}, NOW)
    controller = _started(qtbot, facade)
    window = controller.window
    assert window is not None
    button = window.buttons[Action.DRAIN]
    assert controller.state.spool_pending == 2 and button.isEnabled()

    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert controller.state.draining and not button.isEnabled()
    qtbot.waitUntil(lambda: controller.state.loaded and controller.state.spool_pending == 0, timeout=10_000)
    qtbot.waitUntil(lambda: not controller.ops.busy, timeout=10_000)

    assert controller.state.by_type == (("session", 1),)
    assert not controller.state.draining
    assert window.notice.isVisible()
    assert window.notice.text() == "Captures processed: 1. Set aside as unusable: 1."
    assert list(facade.layout.spool_rejected.glob("*.json"))
    controller.shutdown()


def test_unreadable_store_is_reported_in_the_window(qtbot: QtBot, tmp_path: Path) -> None:
    not_a_folder = tmp_path / "home-is-a-file"
    not_a_folder.write_text("oops")
    facade = Memoryd(layout=paths.Layout(not_a_folder))
    controller = Controller(facade, tray_available=lambda: False, background=False)
    with qtbot.waitSignal(controller.changed, timeout=10_000, check_params_cb=lambda s: s.error is not None):
        controller.start()
    window = controller.window
    assert window is not None
    qtbot.addWidget(window)
    assert window.fact_texts()[0] == "Reading memories…"
    assert window.fact_texts()[-1].startswith("Could not read memoryd: ")
    controller.shutdown()


def test_a_late_tray_host_gets_the_icon(qtbot: QtBot, facade: Memoryd) -> None:
    available = [False]
    controller = Controller(facade, tray_available=lambda: available[0], background=False)
    controller.start()
    assert controller.window is not None and controller.tray is None
    qtbot.addWidget(controller.window)

    available[0] = True
    with qtbot.waitSignal(controller.changed, timeout=10_000):
        controller.tick()

    assert controller.tray is not None and controller.tray.icon.isVisible()
    assert not controller.window.quit_on_close  # the icon now keeps the app reachable
    assert "Quit" in [a.text() for a in controller.tray.menu.actions()]
    controller.shutdown()


def test_closing_the_only_window_asks_to_quit(qtbot: QtBot, home: Path) -> None:
    window = StatusWindow()
    qtbot.addWidget(window)
    window.show_state(TrayState(home=home))
    window.show()
    with qtbot.waitSignal(window.triggered, timeout=1000) as blocker:
        window.close()
    assert blocker.args == [Action.QUIT]

    window.quit_on_close = False
    window.show()
    with qtbot.assertNotEmitted(window.triggered):
        window.close()
    assert not window.isVisible()


PHASES = ["capture", "analyze", "dedupe", "decay", "identity", "snapshots", "exports"]
NAMES = ["capture", "analysis", "duplicates", "decay", "identity profile", "snapshots", "exports"]


def _consolidation(qtbot: QtBot, facade: Memoryd) -> tuple[Controller, list[TrayState]]:
    """A real consolidation of one capture, from the tray; every state it went through."""
    facade.record("fact", "Postgres port", "The dev database listens on 5433.")
    spool.put(
        facade.layout.spool,
        "claude-code",
        {"session_id": "abc", "cwd": ".", "last_assistant_message": "Done."},
        NOW,
    )
    controller = _started(qtbot, facade)
    states: list[TrayState] = []
    controller.changed.connect(states.append)
    assert controller.consolidate() is not None
    qtbot.waitUntil(lambda: not controller.state.consolidating, timeout=60_000)
    qtbot.waitUntil(lambda: not controller.ops.busy, timeout=10_000)
    return controller, states


def _lines(states: list[TrayState]) -> list[str]:
    return [st.consolidation_line for st in states if st.consolidating and st.consolidation_line]


def test_consolidate_now_runs_off_the_gui_thread_with_its_lines_then_the_summary(
    qtbot: QtBot, facade: Memoryd
) -> None:
    facade.record("fact", "Postgres port", "The dev database listens on 5433.")
    spool.put(
        facade.layout.spool,
        "claude-code",
        {"session_id": "abc", "cwd": ".", "last_assistant_message": "Done."},
        NOW,
    )
    assert facade.consolidation_state()["last_success"] is None
    controller = _started(qtbot, facade)
    window = controller.window
    assert window is not None
    button = window.buttons[Action.CONSOLIDATE]
    assert (button.text(), button.isEnabled()) == ("Consolidate now", True)
    states: list[TrayState] = []
    controller.changed.connect(states.append)

    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert controller.state.consolidating and controller.consolidation is not None
    assert (button.text(), button.isEnabled()) == ("Consolidating…", False)
    assert controller.consolidate() is None  # a second click while it runs starts nothing
    qtbot.waitUntil(lambda: not controller.state.consolidating, timeout=60_000)
    qtbot.waitUntil(lambda: not controller.ops.busy, timeout=10_000)

    # each phase reached the menu (and the window's facts) as it started and as it ended,
    # in order, worded by the tray from core's values, and the run's summary last
    lines = list(dict.fromkeys(_lines(states)))
    assert [line for line in lines if line.endswith("…")] == [f"{name}…" for name in NAMES]
    assert any(f"Consolidation: {line}" in [i.text for i in st.facts()] for st in states for line in lines)
    assert lines[1].startswith("capture: 1 captures processed (") and lines[1].endswith(" s)"), lines
    assert "decay: nothing to do (" in "\n".join(lines)
    assert lines[-1].startswith("1 captures processed, 1 sessions analysed")
    # core's counts, worded by the tray: only what happened (no "0 decayed" list of zeros)
    assert window.notice.text().startswith("Consolidation done: 1 captures processed, 1 sessions analysed")
    assert " 0 " not in window.notice.text()
    assert controller.consolidation is None and controller.state.consolidation_line == ""
    assert (button.text(), button.isEnabled()) == ("Consolidate now", True)

    state = facade.consolidation_state()
    assert state["last_success"] is not None and state["last_error"] is None and state["run_id"] is None
    assert state["recent_runs"][0]["finished"] == len(PHASES)
    [event] = facade.audit_events(event_type="consolidate")
    assert event.actor == "consolidate" and event.details_obj["trigger"] == "tray"
    assert event.details_obj["ok"] is True and event.details_obj["captured"] == 1
    assert controller.state.by_type == (("fact", 1), ("session", 1))  # refreshed after the run
    controller.shutdown()


def test_the_consolidations_steps_are_chinese_in_zh_cn(
    qtbot: QtBot, facade: Memoryd, qapp: QApplication
) -> None:
    """Issue 22 item 5: the menu showed core's English lines ("Consolidation: capture: 1
    captured (0.1 s)") in the Chinese tray; it words core's values now."""
    installed = i18n.install(qapp, QLocale("zh_CN"))
    try:
        controller, states = _consolidation(qtbot, facade)
        lines = list(dict.fromkeys(_lines(states)))
        assert lines[:2] == ["捕获…", lines[1]] and lines[1].startswith("捕获：处理了 1 条捕获（"), lines
        assert lines[1].endswith(" 秒）")
        assert any(line.startswith("去重：无事可做（") for line in lines), lines
        assert lines[-1].startswith("处理了 1 条捕获，分析了 1 次会话"), lines
        facts = [i.text for st in states for i in st.facts()]
        assert "整理：捕获…" in facts
        english = [line for line in lines if re.search(r"[A-Za-z]{3,}", line.replace("LLM", ""))]
        assert english == []
        controller.shutdown()
    finally:
        for translator in installed:
            qapp.removeTranslator(translator)


def test_a_scheduled_consolidation_that_failed_is_worded_from_its_values(
    qtbot: QtBot, home: Path, tmp_path: Path, qapp: QApplication
) -> None:
    """The tray's timer runs the nightly job; a phase that failed reached the user as core's
    English line ("consolidation: 0 captured, ...; failed: exports: ..."). Now the
    counts and the phase are the tray's words; the error itself stays core's sentence."""
    project, out = tmp_path / "webshop", tmp_path / "export"
    project.mkdir()
    out.write_text("a file where the export folder should be\n")  # the exports phase fails
    (tmp_path / "config.toml").write_text(f'[[exports.markdown]]\nscope = "{project}"\nout = "{out}"\n')
    facade = Memoryd()
    facade.record("preference", "Tabs over spaces", "The user indents with tabs.", scope_path=project)
    controller = _started(qtbot, facade)
    run = facade.run_job("consolidate", runner="tray", force=True, notification=False)
    assert run is not None and not run.ok and run.consolidation is not None
    installed = i18n.install(qapp, QLocale("zh_CN"))
    try:
        controller._job_ran("consolidate", run)
        assert controller.window is not None
        text = controller.window.notice.text()
        assert text.startswith("整理已结束，但有错误：") and "失败：导出：" in text, text
        assert "consolidation:" not in text and "captured" not in text
        controller._job_failed("monthly-report", "disk full")
        assert controller.window.notice.text() == "计划任务 月度报告 失败：disk full"
    finally:
        for translator in installed:
            qapp.removeTranslator(translator)
        controller.shutdown()


def test_a_failed_consolidation_reaches_the_one_error_path(
    qtbot: QtBot, facade: Memoryd, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(**_kwargs: object) -> None:
        raise StorageError("index.db is locked by another program")

    monkeypatch.setattr(facade, "consolidate", broken)
    controller = _started(qtbot, facade)
    assert controller.consolidate() is not None
    qtbot.waitUntil(lambda: not controller.state.consolidating, timeout=10_000)
    assert controller.window is not None
    assert controller.window.notice.text() == "index.db is locked by another program"
    assert controller.window.buttons[Action.CONSOLIDATE].isEnabled()
    controller.shutdown()


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_a_tray_start_sets_off_an_overdue_consolidation_once(
    qtbot: QtBot, facade: Memoryd, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No success for three days: the start asks core once (off the GUI thread), core runs
    it as a detached process of its own, and the tray says so; later ticks and a second
    start ask nothing / find nothing overdue."""
    monkeypatch.setattr(facade, "timers_installed", lambda: [])  # the tray would run the jobs
    monkeypatch.delenv("MEMORYD_NO_FALLBACK", raising=False)  # the test conftest's guard: this is the test
    facade.record("fact", "Postgres port", "The dev database listens on 5433.")
    assert not facade.consolidation_state()["overdue"]  # a new install is not overdue
    three_days_ago = _iso(datetime.now(UTC) - timedelta(days=3))
    db = sqlite3.connect(facade.layout.index_db)  # the test may; the desktop never does
    with db:
        db.execute(
            "UPDATE consolidation_state SET since = ?, last_run = ?, last_success = ? WHERE id = 1",
            (three_days_ago, three_days_ago, three_days_ago),
        )
    db.close()
    assert facade.consolidation_state()["overdue"]

    asked: list[bool] = []
    real = facade.consolidation_fallback

    def fallback() -> bool:
        asked.append(real())
        return asked[-1]

    monkeypatch.setattr(facade, "consolidation_fallback", fallback)
    controller = Controller(facade, tray_available=lambda: False, background=True)
    controller.start()
    assert controller.window is not None
    qtbot.addWidget(controller.window)
    qtbot.waitUntil(lambda: bool(asked), timeout=10_000)
    assert asked == [True]
    qtbot.waitUntil(lambda: controller.window is not None and controller.window.notice.isVisible())
    assert controller.window.notice.text() == (
        "The nightly consolidation is overdue: it runs in the background now."
    )

    def finished() -> bool:
        st = facade.consolidation_state()
        return st["last_success"] != three_days_ago and not st["running"]

    qtbot.waitUntil(finished, timeout=90_000)  # the detached run, in its own process
    state = facade.consolidation_state()
    assert not state["overdue"] and state["last_error"] is None and state["run_id"] is None
    [event] = facade.audit_events(event_type="consolidate")
    assert event.details_obj["trigger"] == "fallback" and event.details_obj["ok"] is True
    controller.tick()
    controller.check_overdue_consolidation()
    qtbot.waitUntil(lambda: not controller.ops.busy, timeout=10_000)
    assert asked == [True]  # once per start
    assert controller.shutdown()

    again = Controller(facade, tray_available=lambda: False, background=True)
    again.start()
    assert again.window is not None
    qtbot.addWidget(again.window)
    qtbot.waitUntil(lambda: len(asked) == 2, timeout=10_000)
    qtbot.waitUntil(lambda: not again.ops.busy, timeout=10_000)
    assert asked == [True, False] and not again.window.notice.isVisible()
    assert len(facade.audit_events(event_type="consolidate")) == 1
    assert again.shutdown()


# -- sync ---------------------------------------------------------------------------------
def _other_device(tmp_path: Path, folder: Path) -> Memoryd:
    """A second data folder that already synced one memory through `folder`."""
    other = Memoryd(layout=paths.Layout(tmp_path / "other-device"))
    other.record("fact", "CI runner", "CI runs on Debian 12.")
    other.sync(folder)
    return other


def test_sync_now_runs_off_the_gui_thread_and_says_what_it_did(
    qtbot: QtBot, facade: Memoryd, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    _other_device(tmp_path, folder)
    facade.record("fact", "Postgres port", "The dev database listens on 5433.")
    facade.update_config({"sync.folder": str(folder)})
    threads: list[threading.Thread] = []
    real = facade.sync

    def sync(*args: object, **kwargs: object) -> object:
        threads.append(threading.current_thread())
        return real(*args, **kwargs)

    monkeypatch.setattr(facade, "sync", sync)
    controller = _started(qtbot, facade)
    window = controller.window
    assert window is not None
    button = window.buttons[Action.SYNC]
    assert (button.text(), button.isEnabled(), button.toolTip()) == ("Sync now", True, f"Sync with {folder}")

    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert controller.state.syncing and (button.text(), button.isEnabled()) == ("Syncing…", False)
    assert not controller.sync()  # never two at once
    qtbot.waitUntil(lambda: not controller.state.syncing, timeout=10_000)
    qtbot.waitUntil(lambda: not controller.ops.busy, timeout=10_000)

    assert len(threads) == 1 and threads[0] is not threading.main_thread()
    assert window.notice.text() == "Synced with 1 device: 1 sent, 1 received."
    assert controller.state.total == 2 and button.isEnabled()  # the other device's memory arrived
    [event] = facade.audit_events(event_type="sync")
    assert event.actor == "tray" and event.details_obj["devices"] == 1
    controller.shutdown()


def test_sync_now_is_disabled_without_a_folder_and_no_timer_runs(qtbot: QtBot, facade: Memoryd) -> None:
    controller = Controller(facade, tray_available=lambda: False, background=False, auto_sync=True)
    with qtbot.waitSignal(controller.changed, timeout=10_000, check_params_cb=lambda s: s.loaded):
        controller.start()
    assert controller.window is not None
    qtbot.addWidget(controller.window)
    button = controller.window.buttons[Action.SYNC]
    assert not button.isEnabled() and "Settings → Sync" in button.toolTip()
    assert not controller.sync()
    assert not controller.sync_timer.isActive()
    controller.shutdown()


def test_with_a_folder_it_syncs_by_itself_quietly_then_every_15_minutes(
    qtbot: QtBot, facade: Memoryd, tmp_path: Path
) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    facade.update_config({"sync.folder": str(folder)})
    controller = Controller(
        facade, tray_available=lambda: False, background=False, auto_sync=True, first_sync_ms=50
    )
    controller.start()
    assert controller.window is not None
    qtbot.addWidget(controller.window)
    qtbot.waitUntil(lambda: controller.sync_timer.isActive(), timeout=10_000)
    qtbot.waitUntil(lambda: bool(facade.audit_events(event_type="sync")), timeout=10_000)
    qtbot.waitUntil(lambda: not controller.state.syncing and not controller.ops.busy, timeout=10_000)

    assert controller.sync_timer.interval() == SYNC_MS == 15 * 60_000
    assert not controller.window.notice.isVisible()  # a quiet success
    [event] = facade.audit_events(event_type="sync")
    assert event.actor == "tray"

    missing = tmp_path / "unplugged"  # a folder on a drive that is gone: said once, not every 15 min
    facade.update_config({"sync.folder": str(missing)})
    qtbot.waitUntil(lambda: not controller.ops.busy, timeout=10_000)
    with qtbot.waitSignal(controller.changed, timeout=10_000, check_params_cb=lambda s: s.loaded):
        controller.refresh()
    notice = controller.window.notice
    assert controller.sync(auto=True)
    qtbot.waitUntil(lambda: not controller.state.syncing, timeout=10_000)
    assert notice.isVisible()
    assert notice.text().startswith(f"Sync failed: sync folder {missing} does not exist")
    notice.hide()
    assert controller.sync(auto=True)
    qtbot.waitUntil(lambda: not controller.state.syncing, timeout=10_000)
    assert not notice.isVisible()
    qtbot.waitUntil(lambda: not controller.ops.busy, timeout=10_000)  # the refresh after it too

    facade.update_config({"sync.folder": None})  # Settings emptied the folder
    with qtbot.waitSignal(controller.changed, timeout=10_000, check_params_cb=lambda s: s.loaded):
        controller.refresh()
    assert controller.state.sync_folder == "" and not controller.sync_timer.isActive()
    controller.shutdown()


def test_window_titles_name_the_window_and_leave_the_app_name_to_qt(
    qtbot: QtBot, qapp: QApplication, facade: Memoryd
) -> None:
    """Qt appends " — memoryd" (the application display name main() sets) to every title on
    X11 and Windows: a title that also said "memoryd" showed it twice (issue 22)."""
    qapp.setApplicationDisplayName("memoryd")
    try:
        controller = Controller(facade, tray_available=lambda: False, background=False)
        titles = {}
        for action in sorted(WINDOWS):
            window = controller.windows.get(action)
            qtbot.addWidget(window)
            titles[action.value] = window.windowTitle()
        grant = GrantDialog("/srv/payroll", "0123456789ab", "cli", False)
        qtbot.addWidget(grant)
        titles["grant"] = grant.windowTitle()
        assert titles == {
            "digest": "Weekly review",
            "identity": "Identity profile",
            "scopes": "Sensitive projects",
            "search": "Memories",
            "settings": "Settings",
            "grant": "Allow access to a sensitive project",
        }
        status = StatusWindow()  # titled just "memoryd": Qt then adds nothing
        qtbot.addWidget(status)
        assert status.windowTitle() == qapp.applicationDisplayName()
    finally:
        qapp.setApplicationDisplayName("")
