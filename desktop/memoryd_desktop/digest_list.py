"""The digest window's lists: a table view the review keys drive (j/k move, a approves,
r rejects). Kept apart from the window so the key handling lives with the one widget
that reacts to it; the letters typed into an editor pane stay text.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView

from memoryd_desktop import digest_model as dm

_MOVE_KEYS = {Qt.Key.Key_J: 1, Qt.Key.Key_K: -1}
_ACT_KEYS = {Qt.Key.Key_A: "approve", Qt.Key.Key_R: "reject"}
_MODIFIERS = (
    Qt.KeyboardModifier.ControlModifier
    | Qt.KeyboardModifier.AltModifier
    | Qt.KeyboardModifier.MetaModifier
    | Qt.KeyboardModifier.ShiftModifier
)


class ReviewList(QTableView):
    """A list the review keys drive. Only the list reacts to j/k/a/r, so the same letters
    typed into the title, triggers or body editors stay text."""

    act = Signal(str)  # "approve" or "reject"

    def __init__(self, model: dm.RowsModel, stretch: tuple[int, ...], widths: dict[int, int]) -> None:
        super().__init__()
        self.setModel(model)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setTabKeyNavigation(False)
        self.setShowGrid(False)
        self.setWordWrap(False)
        self.setAlternatingRowColors(True)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        rows = self.verticalHeader()
        rows.hide()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)  # no per-row measuring
        rows.setDefaultSectionSize(self.fontMetrics().height() + 10)
        header = self.horizontalHeader()
        header.setHighlightSections(False)
        for column in range(model.columnCount()):
            if column in stretch:
                header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch)
            else:
                header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
                header.resizeSection(column, widths.get(column, 110))

    @property
    def rows(self) -> dm.RowsModel:
        model = self.model()
        assert isinstance(model, dm.RowsModel)
        return model

    def current_row(self) -> int | None:
        index = self.currentIndex()
        return index.row() if index.isValid() else None

    def current_item(self) -> Any:
        row = self.current_row()
        return None if row is None else self.rows.rows[row]

    def select_row(self, row: int) -> None:
        index = self.rows.index(row, 0)
        self.setCurrentIndex(index)
        self.scrollTo(index)

    def step(self, delta: int) -> None:
        """Move the selection down (1) or up (-1), stopping at either end."""
        count = self.rows.rowCount()
        if not count:
            return
        row = self.current_row()
        self.select_row(0 if row is None else max(0, min(count - 1, row + delta)))

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if not event.modifiers() & _MODIFIERS:
            key = event.key()
            if key in _MOVE_KEYS:
                self.step(_MOVE_KEYS[key])
                return
            if key in _ACT_KEYS:
                self.act.emit(_ACT_KEYS[key])
                return
        super().keyPressEvent(event)
