"""The tray icon and its menu, rendered from a TrayState; it decides nothing itself.

Facts are disabled menu entries (read-only lines), commands carry their `Action` in
`QAction.data()`, and every click goes out through one `triggered` signal, so the
controller is the only place that knows what an action does.
"""

from __future__ import annotations

import sys

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from memoryd_desktop import assets
from memoryd_desktop.tray_state import Action, Item, Kind, TrayState

INDENT = "    "


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
    action.setEnabled(separator or (item.kind is Kind.ACTION and item.enabled))
    action.setToolTip(item.tooltip or "")
    action.setData(item.action.value if item.action is not None else None)


def action_of(action: QAction) -> Action | None:
    data = action.data()
    return Action(data) if isinstance(data, str) and data in {a.value for a in Action} else None


class TrayIcon(QObject):
    """QSystemTrayIcon + QMenu; `opening` fires when the menu is about to show (time to refresh)."""

    triggered = Signal(object)  # Action
    opening = Signal()
    activated = Signal()  # a plain click on the icon

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._icons = {False: assets.icon(pending=False), True: assets.icon(pending=True)}
        self.menu = QMenu()
        self.menu.setToolTipsVisible(True)  # e.g. why "Sync now" is disabled
        self.menu.triggered.connect(self._on_menu)
        self.menu.aboutToShow.connect(self.opening)
        self.icon = QSystemTrayIcon(self._icons[False], self)
        self.icon.setContextMenu(self.menu)
        self.icon.activated.connect(self._on_activated)

    def show(self) -> None:
        self.icon.show()

    def hide(self) -> None:
        self.icon.hide()

    def show_state(self, state: TrayState) -> None:
        populate(self.menu, state)
        self.icon.setIcon(self._icons[state.pending])
        self.icon.setToolTip(state.tooltip())

    def notify(self, title: str, text: str, error: bool = False) -> None:
        """A balloon/notification; Qt falls back to its own popup where the desktop has none."""
        kind = QSystemTrayIcon.MessageIcon.Critical if error else QSystemTrayIcon.MessageIcon.Information
        self.icon.showMessage(title, text, kind, 10_000)

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
