"""Two texts side by side, line against line: removed lines red on the left, added green on
the right, unchanged lines level with each other.

A unified diff (what `memoryd profile diff` prints) is fine in a terminal, but a person
comparing two versions of a profile reads two columns faster. Rows are aligned with blank
filler lines, so both panes keep the same line count and scroll together; within a changed
pair the differing characters are emphasised. Every line carries its mark as a block
property, so tests and screen readers need not guess from colours.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from PySide6.QtCore import Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFontDatabase,
    QPalette,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextFormat,
)
from PySide6.QtWidgets import QGridLayout, QLabel, QPlainTextEdit, QScrollBar, QWidget

MARK_PROPERTY = QTextFormat.Property.UserProperty.value + 1  # the line's Mark, as a string


class Mark(StrEnum):
    SAME = "same"
    REMOVED = "removed"
    ADDED = "added"
    FILLER = "filler"  # a blank line that keeps the other side's change level


@dataclass(frozen=True)
class Cell:
    """One line of one pane; `spans` are the (start, end) characters that differ."""

    text: str
    mark: Mark
    spans: tuple[tuple[int, int], ...] = field(default=())


FILLER = Cell("", Mark.FILLER)

# (light palette, dark palette) backgrounds: the line, then the emphasised characters
COLOURS: dict[Mark, tuple[tuple[str, str], tuple[str, str]]] = {
    Mark.REMOVED: (("#ffebe9", "#ffc1bd"), ("#4b1d1d", "#7d2a2a")),
    Mark.ADDED: (("#e6ffec", "#abf2bc"), ("#173a22", "#2b6a3b")),
    Mark.FILLER: (("#f2f2f2", "#f2f2f2"), ("#2b2b2b", "#2b2b2b")),
}


def _spans(a: str, b: str) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]:
    """The character ranges that differ between a changed pair, on each side."""
    left: list[tuple[int, int]] = []
    right: list[tuple[int, int]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if i2 > i1:
            left.append((i1, i2))
        if j2 > j1:
            right.append((j1, j2))
    return tuple(left), tuple(right)


def align(left: Sequence[str], right: Sequence[str]) -> list[tuple[Cell, Cell]]:
    """Rows of (left cell, right cell): equal lines paired, replaced lines paired in order,
    the rest of a change set against fillers."""
    rows: list[tuple[Cell, Cell]] = []
    matcher = difflib.SequenceMatcher(None, list(left), list(right), autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            rows += [
                (Cell(a, Mark.SAME), Cell(b, Mark.SAME))
                for a, b in zip(left[i1:i2], right[j1:j2], strict=True)
            ]
            continue
        olds, news = left[i1:i2], right[j1:j2]
        for k in range(max(len(olds), len(news))):
            a = olds[k] if k < len(olds) else None
            b = news[k] if k < len(news) else None
            if a is not None and b is not None:
                sa, sb = _spans(a, b)
                rows.append((Cell(a, Mark.REMOVED, sa), Cell(b, Mark.ADDED, sb)))
            elif a is not None:
                rows.append((Cell(a, Mark.REMOVED), FILLER))
            elif b is not None:
                rows.append((FILLER, Cell(b, Mark.ADDED)))
    return rows


class SideBySide(QWidget):
    """Older text on the left, newer on the right; call `set_texts` to compare two."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.left_title = QLabel()
        self.right_title = QLabel()
        self.left = self._pane()
        self.right = self._pane()
        self._rows: list[tuple[Cell, Cell]] = []
        self._link(self.left.verticalScrollBar(), self.right.verticalScrollBar())
        self._link(self.left.horizontalScrollBar(), self.right.horizontalScrollBar())
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(self.left_title, 0, 0)
        grid.addWidget(self.right_title, 0, 1)
        grid.addWidget(self.left, 1, 0)
        grid.addWidget(self.right, 1, 1)

    @staticmethod
    def _pane() -> QPlainTextEdit:
        pane = QPlainTextEdit()
        pane.setReadOnly(True)
        pane.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)  # a wrapped line breaks the rows
        pane.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        pane.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        return pane

    @staticmethod
    def _link(a: QScrollBar, b: QScrollBar) -> None:
        """Scroll both panes together (setValue to the same value emits nothing: no loop)."""
        a.valueChanged.connect(b.setValue)
        b.valueChanged.connect(a.setValue)

    def set_texts(self, left: str, right: str, *, left_title: str = "", right_title: str = "") -> None:
        """Compare `left` (the older text) with `right` (the newer one) and show both."""
        self._rows = align(left.splitlines(), right.splitlines())
        self.left_title.setText(left_title)
        self.right_title.setText(right_title)
        self.left_title.setVisible(bool(left_title))
        self.right_title.setVisible(bool(right_title))
        dark = self.palette().color(QPalette.ColorRole.Base).lightness() < 128
        self._fill(self.left, [row[0] for row in self._rows], dark)
        self._fill(self.right, [row[1] for row in self._rows], dark)

    def clear(self) -> None:
        self.set_texts("", "")

    @staticmethod
    def _fill(pane: QPlainTextEdit, cells: list[Cell], dark: bool) -> None:
        pane.clear()
        cursor = QTextCursor(pane.document())
        cursor.beginEditBlock()
        plain = QTextCharFormat()
        for n, cell in enumerate(cells):
            block = QTextBlockFormat()
            block.setProperty(MARK_PROPERTY, cell.mark.value)
            colours = COLOURS.get(cell.mark)
            strong = QTextCharFormat()
            if colours is not None:
                line, emphasis = colours[1 if dark else 0]
                block.setBackground(QBrush(QColor(line)))
                strong.setBackground(QBrush(QColor(emphasis)))
            if n:
                cursor.insertBlock(block, plain)
            else:
                cursor.setBlockFormat(block)
            at = 0
            for start, end in cell.spans:
                cursor.insertText(cell.text[at:start], plain)
                cursor.insertText(cell.text[start:end], strong)
                at = end
            cursor.insertText(cell.text[at:], plain)
        cursor.endEditBlock()
        pane.moveCursor(QTextCursor.MoveOperation.Start)

    # -- what is shown, for tests and assistive tools ------------------------------------
    def rows(self) -> list[tuple[Cell, Cell]]:
        return list(self._rows)

    @staticmethod
    def _marked(pane: QPlainTextEdit, mark: Mark) -> list[str]:
        """The lines of a pane whose block carries `mark`, read back from the document."""
        out = []
        block = pane.document().firstBlock()
        while block.isValid():
            if block.blockFormat().property(MARK_PROPERTY) == mark.value:
                out.append(block.text())
            block = block.next()
        return out

    def added_lines(self) -> list[str]:
        return self._marked(self.right, Mark.ADDED)

    def removed_lines(self) -> list[str]:
        return self._marked(self.left, Mark.REMOVED)

    def unchanged_lines(self) -> list[str]:
        return self._marked(self.left, Mark.SAME)

    def counts(self) -> tuple[int, int]:
        """(lines added, lines removed)."""
        added = sum(1 for _, b in self._rows if b.mark is Mark.ADDED)
        removed = sum(1 for a, _ in self._rows if a.mark is Mark.REMOVED)
        return added, removed
