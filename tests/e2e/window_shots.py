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

from PySide6.QtCore import QCoreApplication, QEventLoop, QPoint, QTimer
from PySide6.QtWidgets import QApplication, QWidget

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
    controller.shutdown()
    del translators
    QCoreApplication.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
