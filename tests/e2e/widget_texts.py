"""Every text a person reads in a window, found by walking its widget tree: for the test
that no English is left in the Chinese UI (tests/e2e/test_zh_strings.py).

window_shots.py calls `dump()` beside each screenshot, so a window that is shot is also
checked: a new window needs only its entry in window_shots.py.

What is read: window titles, tooltips and placeholder texts of every widget; labels,
buttons, group boxes, tab texts, menu actions (and their submenus), combo box items,
item views' headers, and the plain text of read-only text views (the identity profile,
the DURA reasoning). Not read: the cells of item views and editable fields, which hold
the user's memories (user content), and widgets that were never shown on purpose
(hidden stays in: a page behind a tab is still the UI).
"""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QTabBar,
    QTableView,
    QTextEdit,
    QTreeView,
    QWidget,
)


def _menu_texts(menu: QMenu, where: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = [(f"{where} title", menu.title())]
    for action in menu.actions():
        out.append((f"{where} action", action.text()))
        out.append((f"{where} action tooltip", action.toolTip() if action.toolTip() != action.text() else ""))
        if action.menu() is not None:
            out.extend(_menu_texts(action.menu(), f"{where} › {action.text()}"))
    return out


def _view_headers(view: QTableView | QTreeView) -> list[str]:
    model = view.model()
    if model is None:
        return []
    texts = []
    for section in range(model.columnCount(QModelIndex())):
        value = model.headerData(section, Qt.Orientation.Horizontal, Qt.ItemDataRole.DisplayRole)
        if isinstance(value, str):
            texts.append(value)
    return texts


def _own_texts(widget: QWidget) -> list[tuple[str, str]]:
    kind = type(widget).__name__
    out: list[tuple[str, str]] = [(f"{kind} tooltip", widget.toolTip())]
    if widget.isWindow():
        out.append((f"{kind} window title", widget.windowTitle()))
    if isinstance(widget, QLabel | QAbstractButton):
        out.append((kind, widget.text()))
    elif isinstance(widget, QGroupBox):
        out.append((kind, widget.title()))
    elif isinstance(widget, QTabBar):
        for i in range(widget.count()):
            out.append((f"{kind} tab", widget.tabText(i)))
            out.append((f"{kind} tab tooltip", widget.tabToolTip(i)))
    elif isinstance(widget, QMenu):
        out.extend(_menu_texts(widget, kind))
    elif isinstance(widget, QComboBox):
        out.extend((f"{kind} item", widget.itemText(i)) for i in range(widget.count()))
        if widget.isEditable() and widget.lineEdit() is not None:
            out.append((f"{kind} placeholder", widget.lineEdit().placeholderText()))
    elif isinstance(widget, QLineEdit):
        out.append((f"{kind} placeholder", widget.placeholderText()))
    elif isinstance(widget, QTextEdit | QPlainTextEdit):
        out.append((f"{kind} placeholder", widget.placeholderText()))
        if widget.isReadOnly():
            out.append((kind, widget.toPlainText()))
    elif isinstance(widget, QTableView | QTreeView):  # a list view's rows are the user's
        out.extend((f"{kind} header", text) for text in _view_headers(widget))
    return out


def texts(window: QWidget) -> list[tuple[str, str]]:
    """(where, text) for every non-empty UI text of `window` and its descendants."""
    found = []
    for widget in [window, *window.findChildren(QWidget)]:
        name = widget.objectName()
        for where, text in _own_texts(widget):
            if text and text.strip():
                found.append((f"{where}{f' #{name}' if name else ''}", text))
    return found


def dump(window: QWidget, path: Path) -> None:
    """Write `window`'s texts as JSON (a list of [where, text]) to `path`."""
    path.write_text(json.dumps(texts(window), ensure_ascii=False, indent=1), encoding="utf-8")
