"""The keys every tray window answers (issue 22 item 12), pressed for real (QTest key
clicks through Qt's shortcut map) on the windows the tray opens, over a real store:
Ctrl+F to the search field, Esc and Ctrl+W to close, Ctrl+Enter to approve from the
review's editor."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from memoryd.app import Memoryd
from memoryd_desktop.browser_window import BrowserWindow
from memoryd_desktop.digest_window import DigestWindow, Tab
from memoryd_desktop.ops import Ops
from memoryd_desktop.status_window import StatusWindow
from memoryd_desktop.tray_state import Action
from memoryd_desktop.windows import Windows
from tests.desktop.test_digest_window import PNPM, _promotions

WAIT_MS = 15_000
CTRL = Qt.KeyboardModifier.ControlModifier
READY = {  # the signal each window sends once it shows what it read
    Action.SEARCH: "results_shown",
    Action.DIGEST: "loaded",
    Action.IDENTITY: "loaded",
    Action.SCOPES: "loaded",
    Action.SETTINGS: "loaded",
}


@pytest.fixture
def windows(qtbot: QtBot, facade: Memoryd) -> Iterator[Windows]:
    facade.record("fact", "Release", "Tag, build the wheel, upload it.")
    errors: list[BaseException] = []
    made = Windows(facade, Ops(on_error=errors.append))
    yield made
    assert made.ops.wait(WAIT_MS)
    qtbot.waitUntil(lambda: not made.ops.busy, timeout=WAIT_MS)
    made.close_all()
    for window in made.made.values():
        window.deleteLater()
    assert errors == []


def open_window(qtbot: QtBot, windows: Windows, action: Action) -> QWidget:
    """Open a window as the tray does and wait until it is read and is the active window."""
    window = windows.get(action)
    with qtbot.waitSignal(getattr(window, READY[action]), timeout=WAIT_MS):
        windows.open(action)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=WAIT_MS)
    return window


def press(qtbot: QtBot, window: QWidget, key: Qt.Key, modifier: Qt.KeyboardModifier = CTRL) -> None:
    """A key press where the user's cursor is (the focused widget, else the window)."""
    qtbot.keyClick(window.focusWidget() or window, key, modifier)


def test_ctrl_f_puts_the_cursor_in_the_browser_search(qtbot: QtBot, windows: Windows) -> None:
    browser = open_window(qtbot, windows, Action.SEARCH)
    assert isinstance(browser, BrowserWindow)
    with qtbot.waitSignal(browser.results_shown, timeout=WAIT_MS):
        browser.search_edit.setText("wheel")
    browser.table.setFocus()
    assert not browser.search_edit.hasFocus()
    press(qtbot, browser, Qt.Key.Key_F)
    assert browser.search_edit.hasFocus()
    assert browser.search_edit.selectedText() == "wheel"  # typing replaces the last search


@pytest.mark.parametrize("action", list(READY), ids=[a.value for a in READY])
@pytest.mark.parametrize("key", ["Esc", "Ctrl+W"])
def test_esc_and_ctrl_w_close_every_window(qtbot: QtBot, windows: Windows, action: Action, key: str) -> None:
    window = open_window(qtbot, windows, action)
    if key == "Esc":
        press(qtbot, window, Qt.Key.Key_Escape, Qt.KeyboardModifier.NoModifier)
    else:
        press(qtbot, window, Qt.Key.Key_W)
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=WAIT_MS)


def test_esc_in_a_dialog_closes_the_dialog_not_the_window(qtbot: QtBot, windows: Windows) -> None:
    browser = open_window(qtbot, windows, Action.SEARCH)
    assert isinstance(browser, BrowserWindow)
    dialog = browser.open_record()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog, timeout=WAIT_MS)
    dialog.title_edit.setFocus()
    press(qtbot, dialog, Qt.Key.Key_Escape, Qt.KeyboardModifier.NoModifier)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=WAIT_MS)
    assert browser.isVisible()

    browser.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is browser, timeout=WAIT_MS)
    press(qtbot, browser, Qt.Key.Key_Escape, Qt.KeyboardModifier.NoModifier)
    qtbot.waitUntil(lambda: not browser.isVisible(), timeout=WAIT_MS)


def test_esc_never_quits_from_the_status_window(qtbot: QtBot) -> None:
    """Without a tray, closing the status window quits the app: Esc must not do that by
    accident (Ctrl+W, like the close button, still may). With a tray it just closes."""
    window = StatusWindow()
    qtbot.addWidget(window)
    quits: list[object] = []
    window.triggered.connect(quits.append)
    window.show()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=WAIT_MS)
    assert window.quit_on_close
    press(qtbot, window, Qt.Key.Key_Escape, Qt.KeyboardModifier.NoModifier)
    assert window.isVisible() and quits == []
    press(qtbot, window, Qt.Key.Key_W)
    assert not window.isVisible() and quits == [Action.QUIT]

    window.quit_on_close = False  # a tray icon keeps the app reachable
    quits.clear()
    window.show()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=WAIT_MS)
    press(qtbot, window, Qt.Key.Key_Escape, Qt.KeyboardModifier.NoModifier)
    assert not window.isVisible() and quits == []


def test_ctrl_enter_in_the_review_editor_approves_the_edited_text(
    qtbot: QtBot, facade: Memoryd, windows: Windows, cli, project: Path, tmp_path: Path
) -> None:
    (pid,) = _promotions(cli, project, tmp_path, PNPM)
    review = open_window(qtbot, windows, Action.DIGEST)
    assert isinstance(review, DigestWindow)
    editor = review.editor
    assert review.current(Tab.PROMOTIONS).id == pid and editor.pid == pid

    # Ctrl+Enter in the list approves nothing: it is the editor's key.
    review.views[Tab.PROMOTIONS].setFocus()
    press(qtbot, review, Qt.Key.Key_Return)
    qtbot.wait(200)
    assert not review.busy and [p["id"] for p in facade.promotions(status="pending")] == [pid]

    editor.title.setFocus()
    editor.title.selectAll()
    qtbot.keyClicks(editor.title, "Use pnpm only")
    editor.body.setFocus()
    editor.body.selectAll()
    qtbot.keyClicks(editor.body, "Always pnpm: npm rewrites the lockfile.")
    qtbot.keyClick(editor.body, Qt.Key.Key_Return)  # Enter alone is a new line in the body
    qtbot.keyClicks(editor.body, "Edited in the review.")
    assert facade.audit_events(event_type="promote") == []
    with qtbot.waitSignal(review.loaded, timeout=WAIT_MS):
        press(qtbot, review, Qt.Key.Key_Return)

    (event,) = facade.audit_events(event_type="promote")
    doc = facade.get(str(event.target_id), count_recall=False).doc
    assert doc.meta.title == "Use pnpm only"
    assert doc.body == "Always pnpm: npm rewrites the lockfile.\nEdited in the review.\n"
    assert facade.promotions(status="pending") == []
