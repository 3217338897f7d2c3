"""The controller over a real temp store: no-tray fallback window, actions, errors, late tray."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from memoryd import paths
from memoryd.app import Memoryd
from memoryd.capture import spool
from memoryd_desktop.controller import Controller
from memoryd_desktop.status_window import StatusWindow
from memoryd_desktop.tray_state import Action, TrayState

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
    spool.put(facade.layout.spool, "claude-code", {"session_id": "abc", "cwd": "."}, NOW)
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
