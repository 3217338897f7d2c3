"""The Identity window over a real store: the current profile rendered, versions compared
side by side (the known added and removed lines marked), rewrite and monthly report
buttons as actor "tray"."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QItemSelectionModel
from pytestqt.qtbot import QtBot

from memoryd.app import Memoryd
from memoryd_desktop.identity_window import IdentityWindow
from memoryd_desktop.ops import Ops
from memoryd_desktop.side_by_side import Mark, align

TABS = "- Tabs over spaces: The user indents with tabs."
SHORT = "- Short answers: The user wants short, direct answers."
WARNING = "- Never force-push main: It rewrote shared history once."


@pytest.fixture
def errors() -> list[BaseException]:
    return []


@pytest.fixture
def ops(qtbot: QtBot, errors: list[BaseException]) -> Iterator[Ops]:
    ops = Ops(on_error=errors.append)
    yield ops
    qtbot.waitUntil(lambda: not ops.busy, timeout=10_000)


def _at(monkeypatch: pytest.MonkeyPatch, when: str) -> None:
    monkeypatch.setenv("MEMORYD_NOW", when)


def _three_versions(facade: Memoryd, monkeypatch: pytest.MonkeyPatch) -> None:
    """v1: one preference; v2 adds a second (the summary line changes); v3 adds a warning."""
    _at(monkeypatch, "2026-11-08T09:00:00Z")
    facade.record("preference", "Tabs over spaces", "The user indents with tabs.")
    assert facade.rewrite_identity().version == 1
    _at(monkeypatch, "2026-11-15T09:00:00Z")
    facade.record("preference", "Short answers", "The user wants short, direct answers.")
    assert facade.rewrite_identity().version == 2
    _at(monkeypatch, "2026-11-22T09:00:00Z")
    facade.record("warning", "Never force-push main", "It rewrote shared history once.")
    assert facade.rewrite_identity().version == 3


def _opened(qtbot: QtBot, facade: Memoryd, ops: Ops) -> IdentityWindow:
    window = IdentityWindow(facade, ops)
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.loaded, timeout=10_000):
        window.load()
    window.show()
    qtbot.waitUntil(lambda: not ops.busy, timeout=10_000)  # the first diff's texts
    return window


def test_the_current_profile_renders(
    qtbot: QtBot, facade: Memoryd, ops: Ops, monkeypatch: pytest.MonkeyPatch, errors: list[BaseException]
) -> None:
    _three_versions(facade, monkeypatch)

    window = _opened(qtbot, facade, ops)

    assert window.current_info.text().startswith("Version 3, written 2026-11-22")
    shown = window.current_view.toPlainText()
    assert "Identity profile" in shown and "Short answers" in shown and "Never force-push main" in shown
    assert "## " not in shown  # rendered, not the Markdown source
    assert [window.versions_list.topLevelItem(i).text(0) for i in range(3)] == ["v3", "v2", "v1"]
    assert errors == []


def test_two_picked_versions_are_compared_side_by_side(
    qtbot: QtBot, facade: Memoryd, ops: Ops, monkeypatch: pytest.MonkeyPatch, errors: list[BaseException]
) -> None:
    _three_versions(facade, monkeypatch)
    window = _opened(qtbot, facade, ops)
    assert window.shown_pair == (2, 3)  # the latest change, by default
    assert window.diff.added_lines() == ["", "## Warnings", WARNING]

    # The two boxes: v1 against v2, where the summary line was rewritten.
    with qtbot.waitSignal(window.diff_shown, timeout=10_000) as shown:
        window.older_box.setCurrentIndex(window.older_box.findData(1))
        window.newer_box.setCurrentIndex(window.newer_box.findData(2))
    assert shown.args == [1, 2]
    assert window.diff.added_lines() == ["- Prefers: Short answers; Tabs over spaces", SHORT]
    assert window.diff.removed_lines() == ["- Prefers: Tabs over spaces"]
    assert TABS in window.diff.unchanged_lines()
    assert window.diff_info.text() == "2 line(s) added, 1 removed."
    left = window.diff.left.toPlainText().splitlines()
    right = window.diff.right.toPlainText().splitlines()
    assert len(left) == len(right)  # rows stay level: a filler faces the added line
    assert left.index(TABS) == right.index(TABS)

    # Two rows of the list, picked newest first (as ctrl-clicks would): the older goes left.
    def pick(row: int) -> None:
        window.versions_list.selectionModel().select(
            window.versions_list.model().index(row, 0),
            QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows,
        )

    window.versions_list.clearSelection()
    with qtbot.waitSignal(window.diff_shown, timeout=10_000) as shown:
        pick(0)  # v3 alone: compared with the version before it
    assert shown.args == [2, 3]
    with qtbot.waitSignal(window.diff_shown, timeout=10_000) as shown:
        pick(2)  # and v1
    assert shown.args == [1, 3]
    assert window.diff.left_title.text().startswith("v1 · 2026-11-08")
    assert window.diff.right_title.text().startswith("v3 · 2026-11-22")
    assert SHORT in window.diff.added_lines() and WARNING in window.diff.added_lines()
    assert window.diff.removed_lines() == ["- Prefers: Tabs over spaces"]
    assert (window.older_box.currentData(), window.newer_box.currentData()) == (1, 3)
    assert errors == []


def test_rewrite_now_writes_a_version_as_the_tray(
    qtbot: QtBot, facade: Memoryd, ops: Ops, errors: list[BaseException]
) -> None:
    window = _opened(qtbot, facade, ops)
    assert window.current_info.text().startswith("No identity profile yet.")
    assert window.diff_info.text() == "No versions yet."

    facade.record("preference", "Short answers", "The user wants short, direct answers.")
    with qtbot.waitSignal(window.loaded, timeout=10_000):
        window.rewrite_button.click()

    assert window.current_info.text().startswith("Version 1, written ")
    assert "Short answers" in window.current_view.toPlainText()
    assert window.notice.text() == "Version 1 written: first version."
    assert window.diff_info.text() == "Only one version so far: nothing to compare."
    (event,) = facade.audit_events(event_type="profile_rewrite")
    assert event.actor == "tray" and event.details_obj["trigger"] == "manual"

    with qtbot.waitSignal(window.loaded, timeout=10_000):
        window.rewrite_button.click()  # nothing changed since
    assert window.notice.text() == "Nothing new: the profile stays at version 1."
    assert [v["version_num"] for v in facade.profile_versions()] == [1]

    facade.record("preference", "Tabs over spaces", "The user indents with tabs.")
    with qtbot.waitSignal(window.diff_shown, timeout=10_000) as shown:
        window.rewrite_button.click()
    assert shown.args == [1, 2]  # the change just made
    assert TABS in window.diff.added_lines()
    assert errors == []


def test_the_reports_tab_lists_a_generated_report(
    qtbot: QtBot, facade: Memoryd, ops: Ops, monkeypatch: pytest.MonkeyPatch, errors: list[BaseException]
) -> None:
    _three_versions(facade, monkeypatch)
    window = _opened(qtbot, facade, ops)
    assert window.report_periods() == []

    with qtbot.waitSignal(window.loaded, timeout=10_000):
        window.report_button.click()

    assert window.report_periods() == ["2026-11"]
    assert window.tabs.currentIndex() == 2
    shown = window.report_view.toPlainText()
    assert "Identity profile: changes in 2026-11" in shown and "3 version(s) this month" in shown
    assert window.report_info.text().startswith("2026-11, generated 2026-11-22")
    assert "Versions: 3." in window.report_info.text()
    (event,) = facade.audit_events(event_type="profile_report")
    assert event.actor == "tray"
    assert errors == []


def test_a_failing_read_is_reported_in_the_window(
    qtbot: QtBot, facade: Memoryd, ops: Ops, monkeypatch: pytest.MonkeyPatch, errors: list[BaseException]
) -> None:
    def broken() -> list[dict[str, object]]:
        raise OSError("disk on fire")

    monkeypatch.setattr(facade, "monthly_reports", broken)
    window = IdentityWindow(facade, ops)
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.failed, timeout=10_000) as failed:
        window.load()
    assert failed.args == ["OSError: disk on fire"]
    assert window.notice.text() == "OSError: disk on fire" and not window.notice.isHidden()
    assert errors == []  # handled by the window, not the app-wide error path


def test_align_keeps_rows_level() -> None:
    rows = align(["a", "b", "c"], ["a", "B", "c", "d"])
    assert [(left.mark, right.mark) for left, right in rows] == [
        (Mark.SAME, Mark.SAME),
        (Mark.REMOVED, Mark.ADDED),
        (Mark.SAME, Mark.SAME),
        (Mark.FILLER, Mark.ADDED),
    ]
    assert rows[1][0].spans == ((0, 1),) and rows[1][1].spans == ((0, 1),)
