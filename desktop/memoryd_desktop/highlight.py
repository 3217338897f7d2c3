"""Search terms marked where results are read: in a table cell (a delegate painting the
cell's text as rich text) and in a rendered document (a background on each match).

The terms are core's (`Memoryd.search_terms`: words lower-cased, Han text as bigrams), so
what is marked is what the keyword search matched, in English and in Chinese alike. User
text is escaped before it becomes rich text: a title such as `<b>x</b>` shows as written.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRectF, Qt
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QPainter,
    QPalette,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget

MARK_BACKGROUND = "#ffe37a"  # a highlighter's yellow, readable with dark text in any theme
MARK_TEXT = "#1f1f1f"


MAX_MARKS = 500  # marked stretches in one body: enough to read by, bounded on a huge one


def pattern(terms: Sequence[str]) -> re.Pattern[str] | None:
    """One case-insensitive pattern that finds, at each place a term starts, the longest
    term there (a lookahead, so overlapping matches are all found); None without terms."""
    words = sorted({t for t in terms if t.strip()}, key=len, reverse=True)
    if not words:
        return None
    return re.compile("(?=(" + "|".join(re.escape(w) for w in words) + "))", re.IGNORECASE)


def spans(text: str, terms: Sequence[str], limit: int | None = None) -> list[tuple[int, int]]:
    """(start, end) of each match in `text`, overlapping and touching ones joined ("数据"
    and "据库" in "数据库" mark the whole word); at most `limit` of them."""
    found = pattern(terms)
    if found is None:
        return []
    out: list[tuple[int, int]] = []
    for match in found.finditer(text):  # one scan, in the regex engine, not a Python loop
        start, end = match.span(1)
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        elif limit is not None and len(out) >= limit:
            break
        else:
            out.append((start, end))
    return out


def rich_text(text: str, terms: Sequence[str]) -> str:
    """`text` escaped, its matches wrapped in a marked span."""
    parts, at = [], 0
    for start, end in spans(text, terms):
        parts.append(html.escape(text[at:start]))
        mark = f'<span style="background-color:{MARK_BACKGROUND}; color:{MARK_TEXT};">'
        parts.append(mark + html.escape(text[start:end]) + "</span>")
        at = end
    parts.append(html.escape(text[at:]))
    return "".join(parts).replace("\n", "<br>")


def mark_document(doc: QTextDocument, terms: Sequence[str]) -> int:
    """Give the first MAX_MARKS matches in `doc` the marked background, in one edit (one
    layout pass, not one per match); how many stretches were marked."""
    found = spans(doc.toRawText(), terms, MAX_MARKS)  # raw: one character per position
    if not found:
        return 0
    fmt = QTextCharFormat()
    fmt.setBackground(QColor(MARK_BACKGROUND))
    fmt.setForeground(QColor(MARK_TEXT))
    cursor = QTextCursor(doc)
    cursor.beginEditBlock()
    for start, end in found:
        cursor.setPosition(start)
        cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        cursor.mergeCharFormat(fmt)
    cursor.endEditBlock()
    return len(found)


class HighlightDelegate(QStyledItemDelegate):
    """Paints a cell's text with the current terms marked; cells without a match, and any
    cell while there are no terms, are painted the usual way."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.terms: list[str] = []

    def paint(
        self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        widget = opt.widget  # type: ignore[attr-defined]
        style = widget.style() if widget is not None else None
        text = str(opt.text)  # type: ignore[attr-defined]
        if style is None or not spans(text, self.terms):
            super().paint(painter, option, index)
            return
        opt.text = ""  # type: ignore[attr-defined]
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
        rect = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, opt, widget)
        margin = style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, widget) + 1
        shown = opt.fontMetrics.elidedText(  # type: ignore[attr-defined]
            text, Qt.TextElideMode.ElideRight, max(rect.width() - 2 * margin, 0)
        )
        doc = QTextDocument()
        doc.setDocumentMargin(0)
        doc.setDefaultFont(opt.font)  # type: ignore[attr-defined]
        doc.setHtml(rich_text(shown, self.terms))
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)  # type: ignore[attr-defined]
        context = QAbstractTextDocumentLayout.PaintContext()
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        context.palette.setColor(QPalette.ColorRole.Text, opt.palette.color(role))  # type: ignore[attr-defined]
        painter.save()
        top = rect.top() + (rect.height() - doc.size().height()) / 2
        painter.translate(rect.left() + margin, top)
        context.clip = QRectF(0, 0, rect.width() - margin, doc.size().height())
        painter.setClipRect(context.clip)
        doc.documentLayout().draw(painter, context)
        painter.restore()
