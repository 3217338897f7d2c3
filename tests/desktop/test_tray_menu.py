"""The tray menu and icon rendered from a TrayState (no tray host needed to build them)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QAction, QIcon
from PySide6.QtWidgets import QApplication, QMenu
from pytestqt.qtbot import QtBot

from memoryd.app import Memoryd
from memoryd_desktop import assets, tray_state
from memoryd_desktop.tray import TrayIcon, action_of, populate
from memoryd_desktop.tray_state import Action, TrayState


def _rows(menu: QMenu) -> list[tuple[str, bool, Action | None]]:
    return [(a.text(), a.isEnabled(), action_of(a)) for a in menu.actions() if not a.isSeparator()]


def _find(menu: QMenu, action: Action) -> QAction:
    return next(a for a in menu.actions() if action_of(a) is action)


def _same_icon(a: QIcon, b: QIcon) -> bool:
    return a.pixmap(32, 32).toImage() == b.pixmap(32, 32).toImage()


def test_menu_from_state_has_facts_then_actions(qtbot: QtBot, facade: Memoryd) -> None:
    facade.record("decision", "Use SQLite", "One file, WAL mode, no server.")
    menu = QMenu()

    populate(menu, tray_state.load(facade))

    assert _rows(menu) == [
        ("Promotions waiting: 0", True, None),  # facts: normal text, not greyed out
        ("Memories: 1", True, None),
        ("    Decisions: 1", True, None),
        ("Captures waiting: 0", True, None),
        ("Review digest...", True, Action.DIGEST),
        ("Search memories...", True, Action.SEARCH),
        ("Sensitive projects...", True, Action.SCOPES),
        ("Identity...", True, Action.IDENTITY),
        ("Consolidate now", True, Action.CONSOLIDATE),
        ("Sync now (no folder: Settings → Sync)", False, Action.SYNC),
        ("Pause capture", True, Action.PAUSE),
        ("Process captures now", False, Action.DRAIN),
        ("Settings...", True, Action.SETTINGS),
        ("Open data folder", True, Action.OPEN_FOLDER),
        ("Quit", True, Action.QUIT),
    ]
    assert sum(a.isSeparator() for a in menu.actions()) == 4


def test_sync_now_is_offered_once_a_folder_is_set(qtbot: QtBot, facade: Memoryd, tmp_path: Path) -> None:
    menu = QMenu()
    populate(menu, tray_state.load(facade))
    sync = _find(menu, Action.SYNC)
    assert not sync.isEnabled() and "Settings → Sync" in sync.toolTip()

    facade.update_config({"sync.folder": str(tmp_path)})
    populate(menu, tray_state.load(facade))
    sync = _find(menu, Action.SYNC)
    assert (sync.text(), sync.isEnabled(), sync.toolTip()) == ("Sync now", True, f"Sync with {tmp_path}")


def test_menu_is_rebuilt_not_appended(qtbot: QtBot, home: Path) -> None:
    menu = QMenu()
    populate(menu, TrayState(home=home, loaded=True, spool_pending=1))
    populate(menu, TrayState(home=home, loaded=True, spool_pending=3))

    texts = [text for text, _enabled, _action in _rows(menu)]
    assert texts.count("Quit") == 1
    assert "Captures waiting: 3" in texts
    assert _find(menu, Action.DRAIN).isEnabled()


def _entries(menu: QMenu) -> list[tuple[bool, str, bool, str, object]]:
    return [(a.isSeparator(), a.text(), a.isEnabled(), a.toolTip(), a.data()) for a in menu.actions()]


def test_menu_is_updated_in_place_while_it_may_be_open(qtbot: QtBot, home: Path, tmp_path: Path) -> None:
    """Refreshed while open (opening it asks for fresh facts), the menu keeps its entries:
    Qt closes an open menu that is emptied, as clear() did (issue 22)."""
    menu = QMenu()
    short = TrayState(home=home, error="store is locked")
    full = TrayState(
        home=home, loaded=True, by_type=(("decision", 2), ("fact", 1)), sync_folder=str(tmp_path)
    )
    populate(menu, full)
    before = menu.actions()
    kept = len(before)  # the entries every state so far had

    for state in (short, full, TrayState(home=home, loaded=True, spool_pending=2), short):
        populate(menu, state)
        fresh = QMenu()
        populate(fresh, state)
        assert _entries(menu) == _entries(fresh)  # every field of every entry, separators too
        kept = min(kept, len(menu.actions()))
        assert menu.actions()[:kept] == before[:kept]  # the same QActions, changed in place


def test_ampersand_in_a_fact_is_not_a_mnemonic(qtbot: QtBot, home: Path) -> None:
    menu = QMenu()
    populate(menu, TrayState(home=home, error="R&D folder is read-only"))
    assert "Could not read memoryd: R&&D folder is read-only" in [t for t, _e, _a in _rows(menu)]


def test_tray_icon_reports_clicks_and_shows_the_badge(qtbot: QtBot, home: Path) -> None:
    tray = TrayIcon()
    tray.show_state(TrayState(home=home, loaded=True, spool_pending=2))

    assert _same_icon(tray.icon.icon(), assets.icon(pending=True))
    assert not _same_icon(tray.icon.icon(), assets.icon(pending=False))
    assert "Captures waiting: 2" in tray.icon.toolTip()
    with qtbot.waitSignal(tray.triggered, timeout=1000) as blocker:
        _find(tray.menu, Action.DRAIN).trigger()
    assert blocker.args == [Action.DRAIN]

    tray.show_state(TrayState(home=home, loaded=True, spool_pending=0))
    assert _same_icon(tray.icon.icon(), assets.icon(pending=False))


def test_a_click_or_enter_on_a_fact_does_nothing_and_the_menu_stays_open(qtbot: QtBot, home: Path) -> None:
    tray = TrayIcon()
    tray.show_state(TrayState(home=home, loaded=True, spool_pending=2))
    menu = tray.menu
    fact = menu.actions()[0]
    assert fact.text() == "Promotions waiting: 0" and fact.isEnabled()
    fired: list[object] = []
    tray.triggered.connect(fired.append)
    menu.triggered.connect(fired.append)
    menu.popup(QPoint(10, 10))
    qtbot.waitUntil(menu.isVisible, timeout=2000)

    qtbot.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(fact).center())
    menu.setActiveAction(fact)
    qtbot.keyClick(menu, Qt.Key.Key_Return)
    assert menu.isVisible() and fired == []

    drain = _find(menu, Action.DRAIN)
    qtbot.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(drain).center())
    assert Action.DRAIN in fired and not menu.isVisible()  # commands still work


def test_the_paused_icon_differs_and_goes_when_capture_resumes(qtbot: QtBot, home: Path) -> None:
    tray = TrayIcon()
    plain = TrayState(home=home, loaded=True)
    tray.show_state(plain)
    assert _same_icon(tray.icon.icon(), assets.icon())

    tray.show_state(replace(plain, paused=True))
    assert not _same_icon(tray.icon.icon(), assets.icon())
    assert _same_icon(tray.icon.icon(), assets.icon(paused=True))
    assert tray.icon.toolTip().splitlines()[:2] == ["memoryd", "Capture is paused"]
    tray.show_state(replace(plain, paused=True, spool_pending=1))  # paused, and captures wait
    assert _same_icon(tray.icon.icon(), assets.icon(pending=True, paused=True))
    assert not _same_icon(tray.icon.icon(), assets.icon(paused=True))
    assert not _same_icon(tray.icon.icon(), assets.icon(pending=True))

    tray.show_state(plain)
    assert _same_icon(tray.icon.icon(), assets.icon())
    assert "paused" not in tray.icon.toolTip()


def test_icons_are_found_and_render(qapp: QApplication) -> None:
    rendered = []
    for pending in (False, True):
        for paused in (False, True):
            path = assets.icon_path(pending, paused)
            assert path.is_file(), path
            image = assets.icon(pending, paused).pixmap(22, 22).toImage()
            assert not image.isNull()
            rendered.append(image)
    assert all(a != b for i, a in enumerate(rendered) for b in rendered[i + 1 :])  # four looks
