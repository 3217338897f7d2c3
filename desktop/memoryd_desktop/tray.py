"""The tray icon and its menu, rendered from a TrayState; it decides nothing itself.

Commands carry their `Action` in `QAction.data()`, and every click goes out through one
`triggered` signal, so the controller is the only place that knows what an action does.
Facts are enabled entries without an action: disabled ones were greyed out and read as
commands that did not work (issue 22). A click or Enter on a fact does nothing.
"""

from __future__ import annotations

import sys

from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtGui import QAction, QKeyEvent, QMouseEvent
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from memoryd_desktop import assets
from memoryd_desktop.tray_state import Action, Item, Kind, TrayState

INDENT = "    "
ACTIVATE_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space, Qt.Key.Key_Select)


def populate(menu: QMenu, state: TrayState) -> None:
    """Make the menu's entries the state's items, top to bottom, reusing the entries it has.

    In place, never cleared and refilled: opening the menu asks for fresh facts, so this
    runs while it is open, and Qt closes an open menu that was emptied when none of the
    app's windows is active: a right-click right after start showed no menu (issue 22)."""
    items = state.items()
    entries = menu.actions()
    for index, item in enumerate(items):
        _render(entries[index] if index < len(entries) else menu.addAction(""), item)
    for extra in entries[len(items) :]:
        menu.removeAction(extra)
        extra.deleteLater()


def _render(action: QAction, item: Item) -> None:
    """One entry as `item` says, whatever it showed before (a fact loses a command's data)."""
    separator = item.kind is Kind.SEPARATOR
    action.setSeparator(separator)
    # a lone "&" would turn into a keyboard mnemonic, e.g. in a path or an error text
    action.setText("" if separator else INDENT * item.level + item.text.replace("&", "&&"))
    action.setEnabled(item.kind is not Kind.ACTION or item.enabled)
    action.setToolTip(item.tooltip or "")
    action.setData(item.action.value if item.action is not None else None)


def action_of(action: QAction) -> Action | None:
    data = action.data()
    return Action(data) if isinstance(data, str) and data in {a.value for a in Action} else None


def is_fact(action: QAction | None) -> bool:
    return action is not None and not action.isSeparator() and action_of(action) is None


class TrayMenu(QMenu):
    """A QMenu whose fact lines read as text: a click or Enter on one is swallowed, so the
    menu stays open and nothing is triggered (native menus, which Qt does not draw, just close)."""

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if is_fact(self.actionAt(event.position().toPoint())):
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in ACTIVATE_KEYS and is_fact(self.activeAction()):
            event.accept()
            return
        super().keyPressEvent(event)


class TrayIcon(QObject):
    """QSystemTrayIcon + QMenu; `opening` fires when the menu is about to show (time to refresh)."""

    triggered = Signal(object)  # Action
    opening = Signal()
    activated = Signal()  # a plain click on the icon

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        # (pending, paused) -> icon
        self._icons = {(p, q): assets.icon(pending=p, paused=q) for p in (False, True) for q in (False, True)}
        self.menu = TrayMenu()
        self.menu.setToolTipsVisible(True)  # e.g. why "Sync now" is disabled
        self.menu.triggered.connect(self._on_menu)
        self.menu.aboutToShow.connect(self.opening)
        self.icon = QSystemTrayIcon(self._icons[False, False], self)
        self.icon.setContextMenu(self.menu)
        self.icon.activated.connect(self._on_activated)

    def show(self) -> None:
        self.icon.show()

    def hide(self) -> None:
        self.icon.hide()

    def show_state(self, state: TrayState) -> None:
        populate(self.menu, state)
        self.icon.setIcon(self._icons[state.pending, state.paused])
        self.icon.setToolTip(state.tooltip())

    @Slot(QAction)
    def _on_menu(self, action: QAction) -> None:
        chosen = action_of(action)
        if chosen is not None:
            self.triggered.emit(chosen)

    @Slot(QSystemTrayIcon.ActivationReason)
    def _on_activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        # macOS opens the menu on a click and reports it as Trigger too: no window there
        if reason is QSystemTrayIcon.ActivationReason.Trigger and sys.platform != "darwin":
            self.activated.emit()
