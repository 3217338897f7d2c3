"""The keys every tray window answers the same way: Ctrl+F to its search field, Esc and
Ctrl+W to close. One place, so a window installs them with one call and none differs.

The shortcuts are window-wide (Qt.WindowShortcut): while a dialog of the window is open it
is the active window, so its own Esc (Cancel) wins and the window behind stays open.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QLineEdit, QWidget


@dataclass
class WindowKeys:
    """The shortcuts installed on one window (kept so they live as long as it does)."""

    close: list[QShortcut]
    find: QShortcut | None


def _shortcut(window: QWidget, keys: QKeySequence | str, slot: Callable[[], object]) -> QShortcut:
    shortcut = QShortcut(QKeySequence(keys), window)
    shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
    shortcut.activated.connect(slot)
    return shortcut


def install(
    window: QWidget, *, search: QWidget | None = None, escape: bool | Callable[[], bool] = True
) -> WindowKeys:
    """Ctrl+W (and Esc, unless `escape` is False or says no at the time) close `window`;
    Ctrl+F puts the cursor in `search`, its text selected, when the window has one. A
    QDialog closes through its own reject() either way (Cancel and its checks)."""

    def close_by_escape() -> None:
        if escape() if callable(escape) else escape:
            window.close()

    close = [_shortcut(window, QKeySequence.StandardKey.Close, window.close)]
    if QKeySequence(QKeySequence.StandardKey.Close) != QKeySequence("Ctrl+W"):  # Close is Ctrl+F4 on Windows
        close.append(_shortcut(window, "Ctrl+W", window.close))
    if escape is not False:
        close.append(_shortcut(window, Qt.Key.Key_Escape, close_by_escape))
    find = None
    if search is not None:
        field = search

        def focus_search() -> None:
            field.setFocus(Qt.FocusReason.ShortcutFocusReason)
            if isinstance(field, QLineEdit):
                field.selectAll()

        find = _shortcut(window, QKeySequence.StandardKey.Find, focus_search)
    return WindowKeys(close, find)
