"""The tray's windows, made on first use and kept: menu entries and notification clicks
open them through here, so each exists once and reopening one just raises it.

Each window module is imported when first opened, not at start: the tray icon must be up
in well under 1.5 s, and most days only the menu is used.

Open windows follow the store live: after another window's change (its `changed`), a
change the tray made (`store_changed`), or a grant given, revoked or run out (GrantWatch),
each visible window listed in FOLLOW reads again, so none shows "Locked" after a grant
until Refresh. Windows where a reload would throw away the user's place (the review, the
identity versions, Settings) are left to reload when next opened.
"""

from __future__ import annotations

import importlib
import logging
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from memoryd.app import Memoryd
from memoryd_desktop.live import GrantWatch
from memoryd_desktop.ops import Ops
from memoryd_desktop.tray_state import Action

log = logging.getLogger("memoryd.tray")

# action -> (module, class)
WINDOWS: dict[Action, tuple[str, str]] = {
    Action.DIGEST: ("memoryd_desktop.digest_window", "DigestWindow"),
    Action.SEARCH: ("memoryd_desktop.browser_window", "BrowserWindow"),
    Action.SCOPES: ("memoryd_desktop.scopes_window", "ScopesWindow"),
    Action.IDENTITY: ("memoryd_desktop.identity_window", "IdentityWindow"),
    Action.SETTINGS: ("memoryd_desktop.settings_dialog", "SettingsDialog"),
}
# Signals after which the tray's counts (and, for settings, the schedule) are stale.
CHANGE_SIGNALS = ("changed", "saved")
# The open windows that read again when the store or the grants change: the method to call.
FOLLOW: dict[Action, str] = {
    Action.SCOPES: "load",  # the sensitive projects and their grants
    Action.SEARCH: "refresh",  # the current search: sensitive projects' memories open up or close
}


class Windows(QObject):
    changed = Signal()
    settings_saved = Signal()
    opened = Signal(object, object)  # Action, the window

    def __init__(self, facade: Memoryd, ops: Ops, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.facade = facade
        self.ops = ops
        self.made: dict[Action, QWidget] = {}
        self.grant_watch = GrantWatch(facade, ops, self)
        self.grant_watch.changed.connect(lambda: self.store_changed(None))

    @property
    def actions(self) -> frozenset[Action]:
        return frozenset(WINDOWS)

    def get(self, action: Action) -> QWidget:
        """The window for an action, made (and wired) the first time."""
        window = self.made.get(action)
        if window is None:
            module, name = WINDOWS[action]
            cls: Any = getattr(importlib.import_module(module), name)
            window = cls(self.facade, self.ops)
            for signal in CHANGE_SIGNALS:
                if hasattr(window, signal):
                    getattr(window, signal).connect(self.changed)
            if hasattr(window, "changed"):
                window.changed.connect(lambda *_, source=action: self.store_changed(source))
            if action is Action.SETTINGS:
                window.saved.connect(self.settings_saved)
            if hasattr(window, "grant_needed"):  # only a click on a window's Grant… emits it
                window.grant_needed.connect(lambda *_: self.open(Action.SCOPES))
            self.made[action] = window
            if action in FOLLOW:
                self.grant_watch.start()
        return window

    def store_changed(self, source: Action | None = None) -> None:
        """The store or the grants changed: each open window in FOLLOW reads again, except
        `source`, the window whose own action it was (it has already)."""
        for action, method in FOLLOW.items():
            window = self.made.get(action)
            if window is not None and action is not source and window.isVisible():
                getattr(window, method)()

    def open(self, action: Action) -> QWidget:
        """Show (fresh data, raised, focused) the window for a menu entry or a click. A
        window with `load_if_idle` (Settings) decides itself whether to read again, so
        reopening it does not throw away what the user typed."""
        window = self.get(action)
        if hasattr(window, "load_if_idle"):
            window.load_if_idle()
        elif hasattr(window, "load"):
            window.load()
        window.show()
        window.raise_()
        window.activateWindow()
        log.info("window %s opened", action.value)
        self.opened.emit(action, window)
        return window

    def close_all(self) -> None:
        self.grant_watch.stop()
        for window in self.made.values():
            window.close()
