"""Screenshots of every tray window, in one language, on a real X display.

Run by tests/e2e/test_tray_screenshots.py in its own process (the test process's Qt is
offscreen, and a QApplication's platform is chosen once):

    python -m tests.e2e.window_shots OUT_DIR en|zh_CN

It starts the app's real controller over the current MEMORYD_HOME, opens each window the
way the tray menu does, waits until the window has its data, and saves QWidget.grab() as
PNG (the browser twice: as opened, and with a search and one memory shown); the tray menu
is shot popped up under the icon, and the whole screen once (the icon in trayer). Prints one
line per file.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QEventLoop, QPoint, QTimer
from PySide6.QtWidgets import QApplication, QDialog, QWidget

from memoryd.app import Memoryd
from memoryd_desktop import assets, i18n
from memoryd_desktop.controller import Controller
from memoryd_desktop.main import locale_for
from memoryd_desktop.tray_state import Action
from tests.e2e import widget_texts

SIZE = (1100, 720)
SEARCH, SHOWN = "sqlite", "Use SQLite for the cache"  # a seeded memory (tests/e2e/demo.py)


def settle(ms: int) -> None:
    """Let queued signals, background answers and paints run for `ms`."""
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def wait_until(check, timeout: float = 20.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        settle(50)
    return False


def shoot(widget: QWidget, path: Path) -> None:
    widget.grab().save(str(path))
    widget_texts.dump(widget, path.with_suffix(".texts.json"))
    print(path)


def shoot_memory(controller: Controller, path: Path) -> None:
    """The browser as a person uses it: a search typed, its hits marked in the results, and
    one memory opened, rendered from its Markdown (the demo's SQLite decision)."""
    browser = controller.windows.get(Action.SEARCH)
    controller.windows.open(Action.SEARCH)
    wait_until(lambda: not controller.ops.busy)
    shown: list[str] = []
    browser.detail_shown.connect(shown.append)
    browser.search_edit.setText(SEARCH)  # as typed: the search runs on the window's timer

    def found() -> str | None:
        return next((str(r["slug"]) for r in browser.model.rows if r["title"] == SHOWN), None)

    assert wait_until(lambda: bool(browser.terms) and found() is not None), "the search never found it"
    slug = found()
    assert slug is not None
    browser.select(slug)
    assert wait_until(lambda: slug in shown), f"{slug} was never shown"
    body = browser.detail.body
    assert body.marks > 0 and "**" not in body.toPlainText(), "the body is not rendered and marked"
    wait_until(lambda: not controller.ops.busy)
    settle(300)
    shoot(browser, path)
    # Left as a person leaves it before the dialogs' shots: no search, nothing chosen.
    browser.search_edit.clear()
    assert wait_until(lambda: not browser.terms and found() is not None), "the search was not cleared"
    wait_until(lambda: not controller.ops.busy)
    browser.select()
    wait_until(lambda: not controller.ops.busy)
    browser.hide()


def main(argv: list[str]) -> int:
    out, language = Path(argv[0]), argv[1]
    out.mkdir(parents=True, exist_ok=True)
    app = QApplication(["memoryd-shots"])
    app.setWindowIcon(assets.icon())
    translators = i18n.install(app, locale_for(language))
    assert translators, f"translation for {language} not loaded"
    controller = Controller(Memoryd(), background=False)
    controller.start()
    assert wait_until(lambda: controller.state.loaded), "the tray never read its state"
    assert not controller.ops.busy or wait_until(lambda: not controller.ops.busy)

    if controller.tray is not None:
        menu = controller.tray.menu
        geometry = controller.tray.icon.geometry()
        anchor = geometry.bottomLeft() if geometry.isValid() else QPoint(SIZE[0] - 200, 30)
        menu.popup(anchor)
        settle(500)
        shoot(menu, out / "tray-menu.png")
        app.primaryScreen().grabWindow(0).save(str(out / "screen-tray.png"))
        print(out / "screen-tray.png")
        menu.hide()

    names = {
        Action.DIGEST: "digest",
        Action.SEARCH: "browser",
        Action.SCOPES: "scopes",
        Action.IDENTITY: "identity",
        Action.SETTINGS: "settings",
    }
    for action, name in names.items():
        seen: list[bool] = []
        window = controller.windows.get(action)
        if hasattr(window, "loaded"):
            window.loaded.connect(lambda *_, seen=seen: seen.append(True))
        else:
            seen.append(True)
        window.resize(*SIZE)
        controller.windows.open(action)
        assert wait_until(lambda seen=seen: bool(seen)), f"{name} never loaded"
        wait_until(lambda: not controller.ops.busy)
        settle(300)
        shoot(window, out / f"{name}.png")
        if action is Action.DIGEST:  # and its trends tab: the weekly chart, the top triggers
            window.tabs.setCurrentWidget(window.trends)
            settle(300)
            shoot(window, out / "digest-trends.png")
        if action is Action.IDENTITY:  # and the diff of the two versions, as a user picks them
            shown: list[bool] = []
            window.diff_shown.connect(lambda *_, shown=shown: shown.append(True))
            window.tabs.setCurrentIndex(1)
            window.show_diff(1, 2)
            assert wait_until(lambda shown=shown: bool(shown)), "the identity diff never showed"
            settle(300)
            shoot(window, out / "identity-diff.png")
        window.hide()

    shoot_memory(controller, out / "browser-memory.png")

    from memoryd_desktop.grant_dialog import GrantDialog

    prompt = GrantDialog("/home/user/payroll", "56f2efcf5a98", "mcp (claude-code)", True, what="search")
    prompt.show()
    settle(300)
    shoot(prompt, out / "grant-prompt.png")
    prompt.close()

    from memoryd_desktop.grant_server import pin_question

    # `memoryd grant-pin set` while random-key projects have no PIN: the person confirms
    question, _allow = pin_question({"actor": "cli", "agent": "claude-code", "peer_pid": 4242})
    question.show()
    settle(300)
    shoot(question, out / "grant-pin.png")
    question.close()

    from memoryd_desktop.welcome import WelcomeWindow

    welcome = WelcomeWindow(controller.facade, controller.ops)
    listed: list[bool] = []
    welcome.loaded.connect(lambda: listed.append(True))
    welcome.load()
    welcome.show()
    assert wait_until(lambda: bool(listed)), "the welcome never listed the agents"
    settle(300)
    shoot(welcome, out / "welcome.png")
    welcome.hide()  # not closed: closing it would note the welcome as done

    controller.show_window()
    settle(300)
    assert controller.window is not None
    shoot(controller.window, out / "status-window.png")
    dialog_shots(controller, out)
    controller.shutdown()
    del translators
    QCoreApplication.quit()
    return 0


# -- the dialogs, each opened as a person opens it ---------------------------------------
# Window-modal dialogs and questions are shown with open() (no nested event loop), so each
# is shot once it is on screen and then closed the way Cancel closes it.


def shoot_dialog(dialog: QDialog | None, path: Path) -> None:
    assert dialog is not None, f"{path.name}: the dialog did not open"
    assert wait_until(dialog.isVisible), f"{path.name}: the dialog never showed"
    settle(300)
    shoot(dialog, path)
    dialog.reject()
    settle(100)


def opened(controller: Controller, action: Action) -> Any:
    """The window of `action`, opened through the tray's windows and given its data."""
    window = controller.windows.get(action)
    seen: list[bool] = []
    if hasattr(window, "loaded"):
        window.loaded.connect(lambda *_: seen.append(True))
    else:
        seen.append(True)
    window.resize(*SIZE)
    controller.windows.open(action)
    assert wait_until(lambda: bool(seen)), f"{action} never loaded"
    wait_until(lambda: not controller.ops.busy)
    settle(300)
    return window


def dialog_shots(controller: Controller, out: Path) -> None:
    browser_dialogs(controller, out)
    digest_dialogs(controller, out)
    scopes_dialogs(controller, out)
    settings_tabs(controller, out)
    identity_report(controller, out)


def _slug(controller: Controller, title: str) -> str:
    rows = controller.facade.list(scopes=None)
    return next(str(r["slug"]) for r in rows if r["title"] == title)


def browser_dialogs(controller: Controller, out: Path) -> None:
    """Record, edit, forget, merge, import and mark a folder sensitive: the browser's menu."""
    window = opened(controller, Action.SEARCH)
    wait_until(lambda: window.model.rowCount() > 0)
    window.record_action.trigger()
    shoot_dialog(window.dialog, out / "browser-record.png")

    slug = _slug(controller, "Use SQLite for the cache")
    shown: list[str] = []
    window.detail_shown.connect(shown.append)
    window.select(slug)

    def showing() -> bool:  # shown now, or still shown from the browser-memory shot
        return slug in shown or (window.view is not None and window.view.doc.meta.slug == slug)

    assert wait_until(showing), "the memory's detail never showed"
    window.edit_action.trigger()
    shoot_dialog(window.dialog, out / "browser-edit.png")
    window.forget_action.trigger()
    shoot_dialog(window.dialog, out / "browser-forget.png")

    window.select(_slug(controller, "Staging on db-2"), _slug(controller, "db-2 is staging"))
    settle(200)
    window.merge_action.trigger()
    shoot_dialog(window.dialog, out / "browser-merge.png")
    window.import_action.trigger()
    shoot_dialog(window.dialog, out / "browser-import.png")
    window.mark_action.trigger()
    shoot_dialog(window.dialog, out / "browser-mark-sensitive.png")
    window.hide()


def digest_dialogs(controller: Controller, out: Path) -> None:
    """The review's questions: approve all, merge a duplicate pair, forget a suspect memory
    (and the duplicates and suspect tabs they are asked from); a sync conflict's versions."""
    from memoryd_desktop.digest_window import Tab

    window = opened(controller, Action.DIGEST)
    window.show_tab(Tab.PROMOTIONS)
    settle(200)
    window.approve_all_button.click()
    shoot_dialog(window.confirm_box, out / "digest-approve-all.png")

    window.show_tab(Tab.DUPLICATES)
    window.views[Tab.DUPLICATES].select_row(0)
    settle(500)
    shoot(window, out / "digest-duplicates.png")
    window.merge_left.click()
    shoot_dialog(window.merge_box, out / "digest-merge.png")

    window.show_tab(Tab.SUSPECT)
    window.views[Tab.SUSPECT].select_row(0)
    settle(500)
    shoot(window, out / "digest-suspect.png")
    window.suspect_pane.forget.click()
    shoot_dialog(window.forget_box, out / "digest-forget.png")

    window.show_tab(Tab.CONFLICTS)
    window.views[Tab.CONFLICTS].select_row(0)
    settle(500)
    shoot(window, out / "digest-conflicts.png")
    window.conflict_pane.show_versions.click()
    assert wait_until(lambda: window.versions_dialog is not None), "the versions never showed"
    shoot_dialog(window.versions_dialog, out / "digest-versions.png")
    window.hide()


def scopes_dialogs(controller: Controller, out: Path) -> None:
    """Grant (with the passphrase), then Unmark's question; the grant is revoked after."""
    from tests.e2e.demo import PASSPHRASE

    window = opened(controller, Action.SCOPES)
    assert window.selected() is not None, "no sensitive project to pick"
    window.grant_button.click()
    dialog = window.grant_dialog
    assert dialog is not None and wait_until(dialog.isVisible), "the grant dialog never showed"
    settle(300)
    shoot(dialog, out / "scopes-grant.png")
    granted: list[bool] = []
    window.changed.connect(lambda *_: granted.append(True))
    dialog.passphrase_edit.setText(PASSPHRASE)
    dialog.allow_button.click()
    assert wait_until(lambda: bool(granted)), "the grant never happened"
    assert wait_until(window.unmark_button.isEnabled), "Unmark stayed disabled after the grant"
    window.unmark_button.click()
    shoot_dialog(window.confirm, out / "scopes-unmark.png")
    window.revoke_button.click()  # as it was: the next windows show the project locked
    assert wait_until(lambda: len(granted) >= 2), "the revoke never happened"
    wait_until(lambda: not controller.ops.busy)
    window.hide()


def settings_tabs(controller: Controller, out: Path) -> None:
    """Each tab of the settings dialog (the first is the "settings" shot)."""
    dialog = opened(controller, Action.SETTINGS)
    for index in range(1, dialog.tabs.count()):
        dialog.tabs.setCurrentIndex(index)
        settle(300)
        shoot(dialog, out / f"settings-tab{index + 1}.png")
    dialog.tabs.setCurrentIndex(0)
    dialog.hide()


def identity_report(controller: Controller, out: Path) -> None:
    """The monthly report in words, then with the report file (and its diff) shown."""
    window = opened(controller, Action.IDENTITY)
    shown: list[str] = []
    window.report_shown.connect(shown.append)
    window.tabs.setCurrentIndex(2)
    window.reports_list.setCurrentRow(-1)
    window.reports_list.setCurrentRow(0)
    assert wait_until(lambda: bool(shown)), "the monthly report never showed"
    settle(300)
    shoot(window, out / "identity-report.png")
    window.raw_toggle.click()
    settle(300)
    shoot(window, out / "identity-report-file.png")
    window.raw_toggle.click()
    window.tabs.setCurrentIndex(0)
    window.hide()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
