"""The Identity window over a real store: the current profile rendered, versions compared
side by side (the known added and removed lines marked), rewrite and monthly report
buttons as actor "tray"."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QItemSelectionModel, QLocale, QTranslator
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from memoryd.app import Memoryd
from memoryd_desktop import i18n
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


@pytest.fixture
def chinese(qapp: QApplication) -> Iterator[list[QTranslator]]:
    """zh_CN for one test, then English again."""
    installed = i18n.install(qapp, QLocale("zh_CN"))
    yield installed
    for translator in installed:
        qapp.removeTranslator(translator)


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

    with qtbot.waitSignals([window.loaded, window.report_shown], timeout=10_000):
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


def _a_month_of_changes(facade: Memoryd, monkeypatch: pytest.MonkeyPatch) -> None:
    """October: tabs, React, npm. November: React gives way to Solid, npm to pnpm, a new
    preference and a warning; one version in each month."""
    _at(monkeypatch, "2026-10-10T09:00:00Z")
    facade.record("preference", "Tabs over spaces", "The user indents with tabs.")
    react, _ = facade.record("preference", "Prefers React", "Front ends in React.")
    npm, _ = facade.record("decision", "Use npm", "The web app installs with npm.")
    assert facade.rewrite_identity().version == 1
    _at(monkeypatch, "2026-11-08T09:00:00Z")
    facade.record("preference", "Short answers", "The user wants short, direct answers.")
    solid, _ = facade.record("preference", "Prefers Solid", "Front ends in Solid now.")
    pnpm, _ = facade.record("decision", "Use pnpm", "The web app installs with pnpm.")
    facade.record("warning", "Never force-push main", "It rewrote shared history once.")
    facade.link_supersede(solid.meta.slug, react.meta.slug)
    facade.link_supersede(pnpm.meta.slug, npm.meta.slug)
    assert facade.rewrite_identity().version == 2
    _at(monkeypatch, "2026-11-30T20:00:00Z")


def test_the_monthly_report_says_what_changed_in_words(
    qtbot: QtBot, facade: Memoryd, ops: Ops, monkeypatch: pytest.MonkeyPatch, errors: list[BaseException]
) -> None:
    _a_month_of_changes(facade, monkeypatch)
    window = _opened(qtbot, facade, ops)

    with qtbot.waitSignal(window.report_shown, timeout=20_000) as shown:
        window.report_button.click()
    assert shown.args == ["2026-11"]
    words = window.report_words.toPlainText()
    assert "1 new version(s) of your profile this month." in words
    assert "Preferences added\n“Prefers Solid”\n“Short answers”" in words
    assert "Preferences dropped\n“Prefers React”, replaced by “Prefers Solid”" in words
    assert "Decisions superseded\n“Use npm” → “Use pnpm”" in words
    assert "Decisions added\n“Use pnpm”" in words and "Warnings added\n“Never force-push main”" in words
    assert "No longer mentioned" in words and "React" in words
    assert "---" not in words and "@@" not in words  # no unified diff in the words

    # The raw report, diff included, behind a toggle.
    assert window.report_view.isHidden()
    assert window.raw_toggle.text() == "Show the report file and its diff"
    window.raw_toggle.click()
    assert not window.report_view.isHidden() and window.raw_toggle.text() == "Hide the report file"
    raw = window.report_view.toPlainText()
    assert "--- before the month" in raw and "+- Short answers: The user wants short, direct answers." in raw
    window.raw_toggle.click()
    assert window.report_view.isHidden()
    assert errors == []


def test_the_words_are_chinese_under_the_chinese_catalogue(
    qtbot: QtBot,
    facade: Memoryd,
    ops: Ops,
    monkeypatch: pytest.MonkeyPatch,
    errors: list[BaseException],
    chinese: list[QTranslator],
) -> None:
    _a_month_of_changes(facade, monkeypatch)
    facade.monthly_report()
    window = _opened(qtbot, facade, ops)
    qtbot.waitUntil(lambda: "偏好" in window.report_words.toPlainText(), timeout=20_000)
    words = window.report_words.toPlainText()
    assert "本月你的画像有 1 个新版本。" in words
    assert "新增的偏好\n“Prefers Solid”" in words
    assert "不再采用的偏好\n“Prefers React”，已被“Prefers Solid”取代" in words
    assert "被取代的决定\n“Use npm” → “Use pnpm”" in words
    assert window.raw_toggle.text() == "显示报告文件及其差异"
    assert errors == []


PASSPHRASE = "correct horse battery staple"


def test_versions_and_a_report_hidden_by_a_sensitive_project_are_explained_and_a_grant_shows_them(
    qtbot: QtBot,
    facade: Memoryd,
    ops: Ops,
    monkeypatch: pytest.MonkeyPatch,
    errors: list[BaseException],
    tmp_path: Path,
) -> None:
    secret = tmp_path / "payroll"
    secret.mkdir()
    _at(monkeypatch, "2026-11-08T09:00:00Z")
    facade.record("preference", "Payroll in euros", "Payroll runs in euros.", scope_path=secret)
    facade.record("preference", "Tabs over spaces", "The user indents with tabs.")
    assert facade.rewrite_identity().version == 1
    _at(monkeypatch, "2026-11-15T09:00:00Z")
    facade.record("preference", "Short answers", "The user wants short, direct answers.")
    assert facade.rewrite_identity().version == 2
    facade.monthly_report()
    facade.mark_sensitive(secret, passphrase=PASSPHRASE)  # v1, v2 and the report withheld; v3

    window = _opened(qtbot, facade, ops)
    assert [
        window.versions_list.topLevelItem(i).text(0) for i in range(window.versions_list.topLevelItemCount())
    ] == ["v3"]
    assert window.diff_info.text() == "Only one version so far: nothing to compare."
    assert not window.withheld_info.isHidden()
    # a sensitive project's name is sealed too: without a grant it shows as its short hash
    assert window.withheld_info.text() == (
        "2 version(s) and 1 monthly report(s) draw on sensitive projects "
        f"(sensitive project {facade.scope(secret).hash}) and are hidden. "
        "Grant access to those projects to see them."
    )
    assert window.report_periods() == []

    # A live grant, through core's grant path: the same window shows them again.
    facade.grant(secret, duration="session", passphrase=PASSPHRASE)
    with qtbot.waitSignal(window.loaded, timeout=10_000):
        window.load()
    qtbot.waitUntil(lambda: not ops.busy, timeout=10_000)
    assert window.withheld_info.isHidden() and window.withheld_info.text() == ""
    assert [window.versions_list.topLevelItem(i).text(0) for i in range(3)] == ["v3", "v2", "v1"]
    assert window.versions_list.topLevelItem(2).toolTip(0) == "shown under a grant on a sensitive project"
    assert window.versions_list.topLevelItem(0).toolTip(0) == ""
    assert window.report_periods() == ["2026-11"]
    assert "(shown under a grant on a sensitive project)" in window.report_info.text()
    with qtbot.waitSignal(window.diff_shown, timeout=10_000) as shown:
        window.older_box.setCurrentIndex(window.older_box.findData(1))
        window.newer_box.setCurrentIndex(window.newer_box.findData(2))
    assert shown.args == [1, 2]
    assert SHORT in window.diff.added_lines()
    reads = facade.audit_events(event_type="sensitive_read")
    assert reads and reads[-1].actor == "tray" and reads[-1].details_obj["what"] == "profile"

    facade.revoke(secret)
    with qtbot.waitSignal(window.loaded, timeout=10_000):
        window.load()
    assert window.withheld_info.text().startswith("2 version(s) and 1 monthly report(s)")
    assert window.report_periods() == []
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


PNG_1PX = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6300010000000500010d0a2db40000000049454e44ae426082"
)


def _images(doc: QTextDocument) -> list[str]:
    """The image elements a document holds: each one is a resource Qt would ask for."""
    found = []
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            if fmt.isImageFormat():
                found.append(fmt.toImageFormat().name())
            it += 1
        block = block.next()
    return found


def test_a_hostile_profile_and_report_show_as_text_and_read_no_file(
    qtbot: QtBot,
    facade: Memoryd,
    ops: Ops,
    monkeypatch: pytest.MonkeyPatch,
    errors: list[BaseException],
    tmp_path: Path,
) -> None:
    """The profile and the report quote memories, which agents wrote: markup in them is
    text, and an image pointing at a local file is never read."""
    secret = tmp_path / "secret.png"
    secret.write_bytes(PNG_1PX)
    _at(monkeypatch, "2026-11-08T09:00:00Z")
    facade.record("preference", "Tabs over spaces", "The user indents with tabs.")
    facade.rewrite_identity()
    _at(monkeypatch, "2026-11-15T09:00:00Z")
    facade.record(
        "preference",
        f'<b>Likes</b> <img src="{secret}"> <script>alert(1)</script>',
        f"![local]({secret})",
    )
    facade.rewrite_identity()
    facade.monthly_report("2026-11")

    window = _opened(qtbot, facade, ops)
    window.tabs.setCurrentIndex(2)
    window.raw_toggle.click()
    assert "[image: local]" in window.current_view.toPlainText()
    for view in (window.current_view, window.report_view):
        view.viewport().grab()  # lay out and paint what is shown
        doc = view.document()
        text = doc.toPlainText()
        assert "<script>alert(1)</script>" in text and f'<img src="{secret}">' in text, text
        assert "<b>Likes</b>" in text
        # an image is its name in words; in the report's diff (a code block) it stays as typed
        assert "[image: local]" in text or f"![local]({secret})" in text
        assert _images(doc) == []  # nothing for Qt to fetch (QTextDocument.resource() would read a file)
        assert "<img" not in doc.toHtml().replace("&lt;img", "")
    assert errors == []


def test_align_keeps_rows_level() -> None:
    rows = align(["a", "b", "c"], ["a", "B", "c", "d"])
    assert [(left.mark, right.mark) for left, right in rows] == [
        (Mark.SAME, Mark.SAME),
        (Mark.REMOVED, Mark.ADDED),
        (Mark.SAME, Mark.SAME),
        (Mark.FILLER, Mark.ADDED),
    ]
    assert rows[1][0].spans == ((0, 1),) and rows[1][1].spans == ((0, 1),)
