"""The digest window over a real temp store: promotions made by the real hook, worker and
rules analyser (no API key), duplicates and fading memories made by the facade, a pending
supersede judged by the real anthropic SDK against a recorded answer. Every action is
checked where it lands: memory files, the promotion queue and the audit log."""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QKeyEvent, QTextDocument
from PySide6.QtWidgets import QApplication, QMessageBox, QPushButton, QWidget
from pytestqt.qtbot import QtBot

from memoryd import clock, paths
from memoryd.app import Memoryd
from memoryd.config import Config, LLMConfig
from memoryd.errors import MemorydError
from memoryd.store import dura_mean
from memoryd_desktop.digest_window import DigestWindow, Tab
from memoryd_desktop.ops import Ops
from memoryd_desktop.texts import local_time
from memoryd_desktop.tray_state import Action
from memoryd_desktop.windows import Windows
from tests.core.governance.sessions import REMEMBER, ROUTINE, capture
from tests.core.llm.replay import Recorded, Replay, recorded

WAIT_MS = 15_000
# What users say, and the rules' DURA means for them (promote threshold 0.6).
PNPM = REMEMBER  # preference, mean 0.725
POSTGRES = ("We decided to use Postgres for the job queue instead of SQLite.", "OK, switched.")  # 0.655
MIGRATION = (
    "Careful: never run the migration on prod without a backup, it broke before.",
    "Noted.",
)  # warning, 0.725
TABS = ("I prefer tabs over spaces in this project.", "OK.")  # preference, 0.63
T0 = datetime(2026, 3, 2, 9, 0, 0, tzinfo=clock.UTC)


# -- helpers ------------------------------------------------------------------------------
def _promotions(
    cli: Callable[..., Any], project: Path, tmp_path: Path, *exchanges: tuple[str, str]
) -> list[int]:
    """Sessions through the real hook CLI, then what the worker does: drain, analyse."""
    for i, exchange in enumerate(exchanges):
        capture(cli, project, tmp_path, f"digest-{i}", [exchange], drain=False)
    app = Memoryd()
    assert len(app.drain_spool(wait=True).captured) == len(exchanges)
    app.analyze_pending(actor="worker")
    pending = [p["id"] for p in app.promotions(status="pending")]
    assert len(pending) == len(exchanges)
    return pending


@pytest.fixture
def opened(qtbot: QtBot, facade: Memoryd) -> Iterator[Callable[[], DigestWindow]]:
    """Open the window the way the controller will: construct, load, show."""
    windows: list[DigestWindow] = []

    def open_window() -> DigestWindow:
        window = DigestWindow(facade, Ops(on_error=lambda exc: pytest.fail(f"unrouted error: {exc}")))
        qtbot.addWidget(window)
        with qtbot.waitSignal(window.loaded, timeout=WAIT_MS):
            window.load()
        window.show()
        windows.append(window)
        return window

    yield open_window
    for window in windows:
        assert window.ops.wait(WAIT_MS)


def _after(qtbot: QtBot, window: DigestWindow, act: Callable[[], object]) -> None:
    """Do something that ends in a reload, and wait for the reloaded view."""
    with qtbot.waitSignal(window.loaded, timeout=WAIT_MS):
        act()
    assert not window.busy


def _click(qtbot: QtBot, button: QPushButton) -> None:
    assert button.isEnabled() and button.isVisible()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def _type(widget: QWidget, text: str) -> None:
    """Type like a keyboard or input method would (QTest's key clicks take ASCII only)."""
    for char in text:
        QApplication.sendEvent(
            widget, QKeyEvent(QEvent.Type.KeyPress, 0, Qt.KeyboardModifier.NoModifier, char)
        )


def _ids(window: DigestWindow) -> list[int]:
    return [p.id for p in window.views[Tab.PROMOTIONS].rows.rows]


# -- 1-3, 6, 7: promotions ----------------------------------------------------------------
def test_a_approves_the_selected_promotion(qtbot: QtBot, facade: Memoryd, opened, cli, project, tmp_path):
    (pid,) = _promotions(cli, project, tmp_path, PNPM)
    window = opened()
    view = window.views[Tab.PROMOTIONS]
    assert (
        window.tabs.currentIndex() == Tab.PROMOTIONS
        and window.tabs.tabText(Tab.PROMOTIONS) == "Promotions (1)"
    )
    p = window.current(Tab.PROMOTIONS)
    assert p.id == pid and window.editor.pid == pid
    # The source in words: the session's day and its project, the session's name on hover.
    assert re.fullmatch(
        r"From the session of \d{1,2} [A-Z][a-z]{2} \d{4} in proj", window.editor.session.text()
    )
    assert window.editor.session.toolTip() == p.session_slug
    assert view.rows.data(view.rows.index(0, 3)) == "proj"  # the Project column
    s = facade.promotions(status="pending")[0]["dura_score"]  # shown as stored
    mean = dura_mean(s)
    assert mean is not None and mean >= 0.6
    line = f"DURA  D {s['D']:.2f}  U {s['U']:.2f}  R {s['R']:.2f}  A {s['A']:.2f}   mean {mean:.2f}"
    assert window.editor.dura.text() == line
    assert window.editor.reasoning.toPlainText().startswith("Scored by the rules")  # worded from values
    assert window.editor.type.currentData() == "preference"
    changes: list[Any] = []
    window.changed.connect(changes.append)

    _after(qtbot, window, lambda: qtbot.keyClick(view, Qt.Key.Key_A))

    (event,) = facade.audit_events(event_type="promote")
    assert [c.created for c in changes] == [(event.target_id,)]
    assert event.actor == "tray" and event.details_obj["promotion"] == pid
    memory = facade.get(str(event.target_id), count_recall=False)
    assert memory.path.exists() and memory.doc.meta.promoted_from == p.session_slug
    assert memory.doc.meta.title == p.title and memory.doc.meta.type.value == "preference"
    assert [r["id"] for r in facade.promotions(status="approved")] == [pid]
    assert view.rows.rowCount() == 0 and window.tabs.tabText(Tab.PROMOTIONS) == "Promotions (0)"
    assert window.status.text() == f"Approved “{p.title}” as Preference."
    assert window.panes[Tab.PROMOTIONS].currentIndex() == 0  # the empty-state page


def test_reject_button_rejects(qtbot: QtBot, facade: Memoryd, opened, cli, project, tmp_path):
    (pid,) = _promotions(cli, project, tmp_path, POSTGRES)
    window = opened()
    assert window.editor.type.currentData() == "decision"

    _after(qtbot, window, lambda: _click(qtbot, window.editor.reject))

    (event,) = facade.audit_events(event_type="reject")
    assert (event.actor, event.target_id) == ("tray", str(pid))
    (row,) = facade.promotions(status="rejected")
    assert row["id"] == pid and facade.promotions(status="pending") == []
    assert facade.audit_events(event_type="promote") == []
    assert _ids(window) == []


def test_undo_after_a_reject_brings_the_proposal_back(
    qtbot: QtBot, facade: Memoryd, opened, cli, project, tmp_path
):
    (pid,) = _promotions(cli, project, tmp_path, POSTGRES)
    window = opened()
    assert not window.undo_button.isEnabled()
    title = window.current(Tab.PROMOTIONS).title
    _after(qtbot, window, lambda: _click(qtbot, window.editor.reject))
    assert _ids(window) == [] and window.undo_button.isEnabled()

    _after(qtbot, window, lambda: _click(qtbot, window.undo_button))

    assert _ids(window) == [pid]
    assert [r["id"] for r in facade.promotions(status="pending")] == [pid]
    (event,) = facade.audit_events(event_type="undo")
    assert (event.actor, event.target_id, event.details_obj["undid"]) == ("tray", str(pid), "reject")
    assert window.status.text() == f"Undone: “{title}” is no longer rejected and waits for review."
    assert not window.undo_button.isEnabled()
    assert facade.audit_verify().ok


def test_ctrl_z_in_a_text_field_undoes_typing_not_the_review(
    qtbot: QtBot, facade: Memoryd, opened, cli, project, tmp_path
):
    first, _second = _promotions(cli, project, tmp_path, POSTGRES, MIGRATION)
    window = opened()
    window.views[Tab.PROMOTIONS].select_row(_ids(window).index(first))
    _after(qtbot, window, lambda: _click(qtbot, window.editor.reject))
    assert window.undoable is not None
    title = window.editor.title
    before = title.text()
    title.setFocus()
    title.end(False)
    _type(title, "!")
    assert title.text() == before + "!"
    qtbot.keyClick(title, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert title.text() == before
    assert facade.audit_events(event_type="undo") == [] and not window.busy


def test_ctrl_z_undoes_an_approval(qtbot: QtBot, facade: Memoryd, opened, cli, project, tmp_path):
    (pid,) = _promotions(cli, project, tmp_path, PNPM)
    window = opened()
    view = window.views[Tab.PROMOTIONS]
    _after(qtbot, window, lambda: qtbot.keyClick(view, Qt.Key.Key_A))
    (promoted,) = facade.audit_events(event_type="promote")
    _after(qtbot, window, lambda: qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier))
    assert _ids(window) == [pid]
    with pytest.raises(MemorydError):
        facade.get(str(promoted.target_id), count_recall=False)
    (event,) = facade.audit_events(event_type="undo")
    assert event.details_obj["undid"] == "approve" and event.details_obj["slug"] == promoted.target_id


def test_edit_then_approve_saves_the_edits(qtbot: QtBot, facade: Memoryd, opened, cli, project, tmp_path):
    (pid,) = _promotions(cli, project, tmp_path, PNPM)
    window = opened()
    editor = window.editor
    editor.type.setCurrentIndex(editor.type.findData("decision"))
    editor.title.selectAll()
    qtbot.keyClicks(editor.title, "Use pnpm, always; never npm")  # "a" and "r" typed here are text
    editor.triggers.selectAll()
    _type(editor.triggers, "pnpm, lockfile，包管理, pnpm")
    editor.body.selectAll()
    qtbot.keyClicks(editor.body, "Always pnpm: npm rewrites the lockfile.")
    assert editor.dirty and [r["id"] for r in facade.promotions(status="pending")] == [pid]
    _after(qtbot, window, window.load)  # a refresh while editing keeps the edits
    assert editor.title.text() == "Use pnpm, always; never npm" and editor.dirty

    _after(qtbot, window, lambda: _click(qtbot, editor.approve))

    (event,) = facade.audit_events(event_type="promote")
    meta = facade.get(str(event.target_id), count_recall=False).doc
    assert meta.meta.title == "Use pnpm, always; never npm"
    assert meta.meta.type.value == "decision"
    assert meta.meta.triggers == ["pnpm", "lockfile", "包管理"]
    assert meta.body == "Always pnpm: npm rewrites the lockfile.\n"
    assert event.target_id.startswith(f"promoted-{pid}-use-pnpm-always-never-npm-")
    # What core lists afterwards is the type chosen here (issue 21), the proposal's kept.
    (row,) = facade.promotions(status="approved")
    assert row["type"] == row["decided_type"] == "decision" != row["proposed_type"]


def test_approve_all_takes_only_those_at_or_above_the_threshold(
    qtbot: QtBot, facade: Memoryd, opened, cli, project, tmp_path
):
    _promotions(cli, project, tmp_path, PNPM, POSTGRES, MIGRATION, TABS)
    window = opened()
    means = {p.id: p.mean for p in window.digest.pending_promotions}
    # The rules' scores change as they are tuned: a cut between the two lower means and
    # the two higher ones, to the threshold box's two decimals.
    low, high_ = sorted(means.values())[1:3]
    cut = (math.floor(low * 100) + 1) / 100
    assert len(means) == 4 and min(means.values()) >= 0.6 and low < cut <= high_
    assert window.threshold.value() == facade.config.governance.promote_threshold == 0.6
    assert window.approve_all_button.text() == "Approve all (4)"
    window.threshold.setValue(cut)
    assert window.approve_all_button.text() == "Approve all (2)"

    # It asks first, and No is the default: Enter alone approves nothing.
    _click(qtbot, window.approve_all_button)
    box = window.confirm_box
    assert box is not None and box.text() == f"Approve 2 promotions with a DURA mean of at least {cut:.2f}?"
    assert box.defaultButton() is box.button(QMessageBox.StandardButton.No)
    assert box.escapeButton() is box.button(QMessageBox.StandardButton.No)
    with qtbot.assertNotEmitted(window.loaded, wait=200):
        qtbot.keyClick(box, Qt.Key.Key_Return)
    assert window.confirm_box is None and facade.audit_events(event_type="promote") == []

    _click(qtbot, window.approve_all_button)
    box = window.confirm_box
    assert box is not None
    _after(qtbot, window, lambda: _click(qtbot, box.button(QMessageBox.StandardButton.Yes)))

    high = sorted(pid for pid, mean in means.items() if mean >= cut)
    assert sorted(r["id"] for r in facade.promotions(status="approved")) == high
    assert sorted(e.details_obj["promotion"] for e in facade.audit_events(event_type="promote")) == high
    assert {e.actor for e in facade.audit_events(event_type="promote")} == {"tray"}
    assert sorted(_ids(window)) == sorted(pid for pid, mean in means.items() if mean < cut)
    assert window.status.text() == "Approved 2 promotions."
    assert window.approve_all_button.text() == "Approve all (0)" and not window.approve_all_button.isEnabled()


def test_j_and_k_move_the_selection(qtbot: QtBot, opened, cli, project, tmp_path):
    _promotions(cli, project, tmp_path, PNPM, POSTGRES, MIGRATION)
    window = opened()
    view = window.views[Tab.PROMOTIONS]
    rows = view.rows.rows
    seen = []
    for key in (Qt.Key.Key_J, Qt.Key.Key_J, Qt.Key.Key_J, Qt.Key.Key_K):
        qtbot.keyClick(view, key)
        seen.append(view.current_row())
        assert window.editor.pid == rows[view.current_row()].id  # the pane follows
    assert seen == [1, 2, 2, 1]
    qtbot.keyClicks(window.editor.title, "jk")  # typing in the editor does not move the list
    assert view.current_row() == 1


def test_a_failed_action_is_shown_in_the_status_line(
    qtbot: QtBot, facade: Memoryd, opened, cli, project, tmp_path
):
    """Approved elsewhere (the CLI) while the window was open: rejecting here is refused,
    the refusal is shown, nothing crashes, and the reload drops the row."""
    (pid,) = _promotions(cli, project, tmp_path, PNPM)
    window = opened()
    assert cli("promote", str(pid)).returncode == 0
    with qtbot.waitSignal(window.failed, timeout=WAIT_MS) as failed:
        qtbot.keyClick(window.views[Tab.PROMOTIONS], Qt.Key.Key_R)
    qtbot.waitUntil(lambda: not window.busy, timeout=WAIT_MS)
    assert failed.args[0].startswith(f"promotion {pid} is already approved")
    assert "already approved" in window.status.text() and "b3261e" in window.status.styleSheet()
    assert _ids(window) == [] and facade.audit_events(event_type="reject") == []


# -- 4: duplicates ------------------------------------------------------------------------
def test_merge_into_left(qtbot: QtBot, facade: Memoryd, opened, project: Path):
    body = "Staging lives on db-2."
    keep = facade.record("fact", "Staging on db-2", body, triggers=["staging"], scope_path=project)[0]
    dup = facade.record("fact", "db-2 is staging", body, triggers=["db-2"], scope_path=project)[0]
    window = opened()
    window.show_tab(Tab.DUPLICATES)
    assert window.tabs.tabText(Tab.DUPLICATES) == "Duplicates (1)"
    pair = window.current(Tab.DUPLICATES)
    assert {pair.left.slug, pair.right.slug} == {keep.meta.slug, dup.meta.slug}
    qtbot.waitUntil(lambda: window.right.body.toPlainText() == body + "\n", timeout=WAIT_MS)
    assert window.left.body.toPlainText() == body + "\n"
    assert window.left.title.text() == pair.left.title and window.right.title.text() == pair.right.title
    assert "Recalled 0 times" in window.left.meta.text()  # the side-by-side read is no recall

    _click(qtbot, window.merge_left)
    box = window.merge_box  # asked first, Cancel the default
    assert box is not None and box.defaultButton() is box.button(QMessageBox.StandardButton.Cancel)
    assert box.text() == f"Merge “{pair.right.title}” into “{pair.left.title}”?"
    merge = next(b for b in box.buttons() if b.text() == "Merge")
    _after(qtbot, window, lambda: qtbot.mouseClick(merge, Qt.MouseButton.LeftButton))

    slugs = [r["slug"] for r in facade.list(scopes=None)]
    assert slugs == [pair.left.slug]
    with pytest.raises(MemorydError):
        facade.get(pair.right.slug, count_recall=False)
    (event,) = facade.audit_events(event_type="merge")
    assert (event.actor, event.target_id, event.details_obj["into"]) == (
        "tray",
        pair.right.slug,
        pair.left.slug,
    )
    kept = facade.get(pair.left.slug, count_recall=False).doc.meta
    assert set(kept.triggers) == {"staging", "db-2"}
    assert window.views[Tab.DUPLICATES].rows.rowCount() == 0
    assert window.status.text() == f"Merged “{pair.right.title}” into “{pair.left.title}”."


def test_merge_cancelled_merges_nothing_and_undo_brings_a_merge_back(
    qtbot: QtBot, facade: Memoryd, opened, project: Path, home: Path
):
    body = "Staging lives on db-2."
    facade.record("fact", "Staging on db-2", body, triggers=["staging"], scope_path=project)
    facade.record("fact", "db-2 is staging", body, triggers=["db-2"], scope_path=project)
    files = {p: p.read_bytes() for p in home.glob("scopes/*/facts/*.md")}
    window = opened()
    window.show_tab(Tab.DUPLICATES)
    pair = window.current(Tab.DUPLICATES)
    box = window.merge_current("right")
    assert box is not None
    box.button(QMessageBox.StandardButton.Cancel).click()
    qtbot.waitUntil(lambda: window.merge_box is None, timeout=WAIT_MS)
    assert facade.audit_events(event_type="merge") == [] and len(facade.list(scopes=None)) == 2
    assert not window.undo_button.isEnabled()

    box = window.merge_current("right")
    merge = next(b for b in box.buttons() if b.text() == "Merge")
    _after(qtbot, window, lambda: qtbot.mouseClick(merge, Qt.MouseButton.LeftButton))
    assert [r["slug"] for r in facade.list(scopes=None)] == [pair.right.slug]
    assert window.undo_button.isEnabled()

    window.activateWindow()  # back from the question, as after a real click on Merge
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=WAIT_MS)
    _after(
        qtbot,
        window,
        lambda: qtbot.keyClick(
            window.views[Tab.DUPLICATES], Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier
        ),
    )
    assert {p: p.read_bytes() for p in home.glob("scopes/*/facts/*.md")} == files
    (event,) = facade.audit_events(event_type="undo")
    assert event.actor == "tray" and event.details_obj["undid"] == "merge"
    assert window.views[Tab.DUPLICATES].rows.rowCount() == 1 and not window.undo_button.isEnabled()
    assert window.status.text() == f"Undone: “{pair.left.title}” is back, and the merge is taken back."
    assert facade.audit_verify().ok


def test_not_duplicates_hides_the_group_and_undo_shows_it_again(
    qtbot: QtBot, facade: Memoryd, opened, project: Path
):
    body = "Lint with ruff."
    facade.record("fact", "Linting", body, scope_path=project)
    facade.record("fact", "Ruff", body, scope_path=project)
    window = opened()
    window.show_tab(Tab.DUPLICATES)
    _after(qtbot, window, lambda: _click(qtbot, window.pair_pane.not_duplicates))
    assert window.views[Tab.DUPLICATES].rows.rowCount() == 0
    assert window.status.text() == "Marked 2 memories as not duplicates."
    assert facade.digest().duplicates == []
    (event,) = facade.audit_events(event_type="not_duplicates")
    assert event.actor == "tray"

    _after(qtbot, window, lambda: _click(qtbot, window.undo_button))
    assert window.views[Tab.DUPLICATES].rows.rowCount() == 1
    assert len(facade.digest().duplicates) == 1


def test_duplicates_across_projects_are_not_merged_here(
    facade: Memoryd, opened, project: Path, tmp_path: Path
):
    other = tmp_path / "other"
    other.mkdir()
    facade.record("fact", "Staging on db-2", "Staging lives on db-2.", scope_path=project)
    facade.record("fact", "Staging host", "Staging lives on db-2.", scope_path=other)
    window = opened()
    window.show_tab(Tab.DUPLICATES)
    pair = window.current(Tab.DUPLICATES)
    assert pair.left.scope_hash != pair.right.scope_hash
    assert not window.merge_left.isEnabled() and not window.merge_right.isEnabled()
    assert window.pair_note.isVisible() and "memoryd merge --force" in window.pair_note.text()


# -- 5: fading memories -------------------------------------------------------------------
def test_keep_counts_a_recall(
    qtbot: QtBot, facade: Memoryd, opened, cli, project, tmp_path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("MEMORYD_NOW", clock.iso(T0))
    slug = capture(cli, project, tmp_path, "fading-1", [ROUTINE])
    later = T0 + timedelta(days=85)  # sessions dim after 90 idle days: due in 5, within the 7 warned
    monkeypatch.setenv("MEMORYD_NOW", clock.iso(later))
    window = opened()
    window.show_tab(Tab.EXPIRING)
    view = window.views[Tab.EXPIRING]
    reminder = window.current(Tab.EXPIRING)
    assert (reminder.slug, reminder.state, reminder.next_state, reminder.idle_days) == (
        slug,
        "alive",
        "dim",
        85,
    )
    assert window.reminder.text().endswith("turns dim on 2026-05-31, idle for 85 days.")

    _after(qtbot, window, lambda: qtbot.keyClick(view, Qt.Key.Key_A))

    meta = facade.get(str(slug), count_recall=False).doc.meta
    assert meta.last_recalled_at == later and meta.recall_count == 1
    assert view.rows.rowCount() == 0 and window.status.text().startswith("Kept “")
    assert facade.audit_events(event_type="promote") == []


# -- supersedes to confirm ----------------------------------------------------------------
REACT = ("Prefer React for the frontend framework", "Use React for the frontend framework of the web app.")
SOLID = (
    "Prefer Solid for the frontend framework",
    "We switched from React to Solid for the frontend framework: smaller bundles.",
)


def _llm_facade(replay: Replay) -> Memoryd:
    llm = LLMConfig(provider="anthropic", model="claude-haiku-4-5-20251001")
    return Memoryd(
        config=Config(llm=llm),
        llm_env={"ANTHROPIC_API_KEY": "sk-test-0123456789"},
        llm_transport=replay.transport,
    )


def test_a_confirms_a_supersede_that_waits_for_the_user(
    qtbot: QtBot, facade: Memoryd, opened, project: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("MEMORYD_NOW", "2026-05-01T09:00:00Z")
    react = _llm_facade(Replay(recorded("anthropic", "kg_extract_react"))).record(
        "preference", *REACT, scope_path=project
    )[0]
    monkeypatch.setenv("MEMORYD_NOW", "2026-11-01T09:00:00Z")
    judge = recorded("anthropic", "kg_judge_review")  # confidence 0.7: between review and auto
    judge = Recorded(
        judge.status, judge.headers, judge.content.replace(b"{{old_slug}}", react.meta.slug.encode())
    )
    solid = _llm_facade(Replay(recorded("anthropic", "kg_extract_solid"), judge)).record(
        "preference", *SOLID, scope_path=project
    )[0]
    window = opened()
    window.show_tab(Tab.SUPERSEDES)
    waiting = window.current(Tab.SUPERSEDES)
    assert (waiting.new_slug, waiting.old_slug, waiting.confidence) == (solid.meta.slug, react.meta.slug, 0.7)
    assert window.supersede.text().startswith(f"Does “{SOLID[0]}” replace “{REACT[0]}”? Confidence 0.70")

    _after(qtbot, window, lambda: qtbot.keyClick(window.views[Tab.SUPERSEDES], Qt.Key.Key_A))

    assert facade.pending_supersedes() == []
    assert facade.get(react.meta.slug, count_recall=False).doc.meta.superseded_by == solid.meta.slug
    assert window.views[Tab.SUPERSEDES].rows.rowCount() == 0
    assert [s.old_slug for s in window.digest.trends.recent_supersedes] == [react.meta.slug]
    assert window.trend_lists["supersedes"].item(0).text() == f"{REACT[0]} → {SOLID[0]}"


def test_an_unreadable_store_is_reported_in_the_status_line(qtbot: QtBot, tmp_path: Path):
    not_a_folder = tmp_path / "home-is-a-file"
    not_a_folder.write_text("oops")
    window = DigestWindow(Memoryd(layout=paths.Layout(not_a_folder)), Ops(on_error=pytest.fail))
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.failed, timeout=WAIT_MS) as failed:
        window.load()
    assert window.status.text() == failed.args[0] != "" and "b3261e" in window.status.styleSheet()
    assert window.digest is None and not window.busy
    assert window.tabs.tabText(Tab.PROMOTIONS) == "Promotions (0)"
    assert window.ops.wait(WAIT_MS)


# -- sync conflicts -----------------------------------------------------------------------
def _conflict(facade: Memoryd, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """One memory changed here and on another device between two syncs: the other device's
    later change is in use here, this device's kept as a copy. Returns its slug."""
    folder = tmp_path / "shared"
    folder.mkdir()
    other = Memoryd(layout=paths.Layout(tmp_path / "other-device"))
    slug = facade.record("fact", "Postgres port", "The dev database listens on 5433.")[0].meta.slug
    facade.sync(folder)
    other.sync(folder)
    monkeypatch.setenv("MEMORYD_NOW", "2030-01-01T10:00:00Z")
    facade.update(slug, body="Here it listens on 5434.")
    monkeypatch.setenv("MEMORYD_NOW", "2030-01-01T11:00:00Z")
    other.update(slug, body="There it listens on 5435.")
    monkeypatch.delenv("MEMORYD_NOW")
    facade.sync(folder)
    other.sync(folder)
    facade.sync(folder)
    return slug


def test_a_sync_conflict_is_listed_and_use_this_copy_takes_it(
    qtbot: QtBot, facade: Memoryd, opened, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    slug = _conflict(facade, tmp_path, monkeypatch)
    assert facade.get(slug, count_recall=False).doc.body == "There it listens on 5435.\n"
    window = opened()
    window.show_conflicts()
    assert window.tabs.currentIndex() == Tab.CONFLICTS
    assert window.tabs.tabText(Tab.CONFLICTS) == "Sync conflicts (1)"
    conflict = window.current(Tab.CONFLICTS)
    (copy,) = conflict.copies
    pane = window.conflict_pane
    assert conflict.slug == slug and pane.slug.text() == slug and pane.title.text() == "Postgres port"
    assert pane.kept.text() == f"“Postgres port”, changed {local_time('2030-01-01T11:00:00Z')}"
    assert [line.text() for line in pane.copy_lines] == [
        f"“Postgres port”, changed {local_time('2030-01-01T10:00:00Z')}"
    ]

    _click(qtbot, pane.show_versions)  # read-only, side by side: in use left, the copy right
    qtbot.waitUntil(lambda: window.versions_dialog is not None and window.versions_dialog.isVisible())
    diff = window.versions_dialog.diff
    assert diff.left.isReadOnly() and diff.right.isReadOnly()
    # as a person reads a memory, not its file: the times are in the panes' titles
    assert diff.removed_lines() == ["There it listens on 5435."]
    assert diff.added_lines() == ["Here it listens on 5434."]
    assert diff.unchanged_lines()[:4] == ["Postgres port", "Type: Fact", "Triggers: none", "Tags: none"]
    window.versions_dialog.close()

    _after(qtbot, window, lambda: _click(qtbot, pane.copy_buttons[0]))

    assert facade.get(slug, count_recall=False).doc.body == "Here it listens on 5434.\n"
    assert facade.sync_conflicts() == []
    (event,) = facade.audit_events(event_type="sync_resolve")
    assert (event.actor, event.target_id) == ("tray", slug)
    assert window.tabs.tabText(Tab.CONFLICTS) == "Sync conflicts (0)"
    assert window.panes[Tab.CONFLICTS].currentIndex() == 0  # the empty-state page
    assert window.status.text() == f"“Postgres port” now uses the copy changed {local_time(copy.updated_at)}."


# -- speed --------------------------------------------------------------------------------
def test_500_pending_promotions_open_fast(
    qtbot: QtBot, facade: Memoryd, cli, project, tmp_path, monkeypatch: pytest.MonkeyPatch
):
    """The view's share of opening on a long queue: 500 rows are one model reset. The
    digest itself is real; its one promotion is repeated (500 analysed sessions would take
    the unit tests ~15 s; the benchmark builds them for real)."""
    _promotions(cli, project, tmp_path, PNPM)
    real = facade.digest()
    (p,) = real.pending_promotions
    many = real.model_copy(
        update={
            "pending_promotions": [
                p.model_copy(update={"id": 10_000 + i, "title": f"{p.title} #{i}"}) for i in range(500)
            ]
        }
    )
    monkeypatch.setattr(facade, "digest", lambda: many)

    started = time.perf_counter()
    window = DigestWindow(facade, Ops(on_error=lambda exc: pytest.fail(str(exc))))
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.loaded, timeout=WAIT_MS):
        window.load()
    window.show()
    qtbot.waitExposed(window)
    opened_s = time.perf_counter() - started

    view = window.views[Tab.PROMOTIONS]
    assert view.rows.rowCount() == 500 and window.tabs.tabText(Tab.PROMOTIONS) == "Promotions (500)"
    assert window.editor.pid == 10_000
    qtbot.keyClick(view, Qt.Key.Key_K)
    qtbot.keyClick(view, Qt.Key.Key_J)
    assert window.editor.pid == 10_001
    assert opened_s < 0.3, f"opening with 500 promotions took {opened_s * 1000:.0f} ms"
    assert window.ops.wait(WAIT_MS)


def test_grab_png_saves_a_screenshot(opened, tmp_path: Path, cli, project):
    _promotions(cli, project, tmp_path, PNPM)
    window = opened()
    assert (window.width(), window.height()) == (1100, 700)
    out = tmp_path / "digest.png"
    assert window.grab_png(out) and out.stat().st_size > 1000


# -- regressions --------------------------------------------------------------------------
PASSPHRASE = "correct horse battery staple"


def test_a_sealed_duplicate_pair_is_read_only_on_its_tab_and_opens_no_window(
    qtbot: QtBot, facade: Memoryd, project: Path
):
    """A sensitive scope without a grant: opening the digest on Promotions reads no pair and
    opens no other window; on the Duplicates tab the missing grant is shown with Grant…,
    and only that click opens Sensitive projects. Once granted, a reload clears the error."""
    body = "Payroll runs on the 25th."
    facade.record("fact", "Payroll day", body, scope_path=project)
    facade.record("fact", "Pay day is the 25th", body, scope_path=project)
    facade.mark_sensitive(project, passphrase=PASSPHRASE)
    assert facade.grants() == []

    windows = Windows(facade, Ops(on_error=lambda exc: pytest.fail(f"unrouted error: {exc}")))
    opened: list[Action] = []
    windows.opened.connect(lambda action, _window: opened.append(action))
    window = windows.get(Action.DIGEST)
    assert isinstance(window, DigestWindow)
    qtbot.addWidget(window)
    try:
        with qtbot.assertNotEmitted(window.failed), qtbot.assertNotEmitted(window.grant_needed):
            with qtbot.waitSignal(window.loaded, timeout=WAIT_MS):
                windows.open(Action.DIGEST)
            assert window.ops.wait(WAIT_MS)
            qtbot.waitUntil(lambda: not window.ops.busy, timeout=WAIT_MS)
        assert window.tabs.currentIndex() == Tab.PROMOTIONS
        assert window.tabs.tabText(Tab.DUPLICATES) == "Duplicates (1)"
        assert opened == [Action.DIGEST] and Action.SCOPES not in windows.made
        assert window.status.text() == "" and not window.grant_button.isVisible()

        with (
            qtbot.assertNotEmitted(window.grant_needed),
            qtbot.waitSignal(window.failed, timeout=WAIT_MS) as failed,
        ):
            window.show_tab(Tab.DUPLICATES)  # looking at the pair reads it
        assert failed.args[0].endswith("is a sensitive project: grant access to read it.")
        assert window.status.text() == failed.args[0]
        assert window.grant_button.isVisible()
        assert opened == [Action.DIGEST]

        qtbot.mouseClick(window.grant_button, Qt.MouseButton.LeftButton)
        assert opened == [Action.DIGEST, Action.SCOPES]
        assert windows.made[Action.SCOPES].isVisible()

        facade.grant(project, duration="session", passphrase=PASSPHRASE)
        with qtbot.waitSignal(window.pair_shown, timeout=WAIT_MS):
            window.load()
        assert window.left.body.toPlainText() == body + "\n"
        assert window.status.text() == "" and not window.grant_button.isVisible()
    finally:
        assert windows.ops.wait(WAIT_MS)
        qtbot.waitUntil(lambda: not windows.ops.busy, timeout=WAIT_MS)
        windows.close_all()


def test_a_long_reasoning_scrolls_and_keeps_the_body_editor_tall(
    qtbot: QtBot, facade: Memoryd, cli, project, tmp_path, monkeypatch: pytest.MonkeyPatch
):
    _promotions(cli, project, tmp_path, PNPM)
    real = facade.digest()
    (p,) = real.pending_promotions
    reasoning = "这是一个很长的理由，没有空格" * 800  # 11,200 characters, no space to wrap at
    long = real.model_copy(update={"pending_promotions": [p.model_copy(update={"reasoning": reasoning})]})
    monkeypatch.setattr(facade, "digest", lambda: long)

    window = DigestWindow(facade, Ops(on_error=lambda exc: pytest.fail(str(exc))))
    qtbot.addWidget(window)
    window.resize(1100, 700)
    with qtbot.waitSignal(window.loaded, timeout=WAIT_MS):
        window.load()
    window.show()
    qtbot.waitExposed(window)
    editor = window.editor
    assert editor.reasoning.toPlainText() == reasoning and editor.reasoning.isReadOnly()
    qtbot.waitUntil(lambda: editor.reasoning.verticalScrollBar().maximum() > 0, timeout=WAIT_MS)
    assert editor.reasoning.height() <= 6 * editor.reasoning.fontMetrics().lineSpacing() + 20
    assert editor.body.height() >= 150, editor.body.height()
    assert editor.approve.isVisible() and window.size().toTuple() == (1100, 700)
    assert window.ops.wait(WAIT_MS)


def test_a_project_named_like_html_reads_as_its_name_on_hover(
    qtbot: QtBot, facade: Memoryd, opened, cli, tmp_path
):
    """The Project column's tooltip ("From the session of … in {project}") shows a
    folder called `<img src=x>` as written, not as rich text."""
    folder = tmp_path / "<img src=x>"
    folder.mkdir()
    _promotions(cli, folder, tmp_path, PNPM)
    window = opened()
    view = window.views[Tab.PROMOTIONS]
    assert view.rows.data(view.rows.index(0, 3)) == "<img src=x>"
    tip = view.rows.data(view.rows.index(0, 3), Qt.ItemDataRole.ToolTipRole)
    assert "<img" not in tip, tip
    doc = QTextDocument()
    doc.setHtml(tip)
    assert doc.toPlainText().endswith(" in <img src=x>"), doc.toPlainText()
