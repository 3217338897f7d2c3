"""The review's Trends tab: the last weeks' captures, recalls and approved promotions as a
bar chart, the top triggers as ranked bars, and the lists that read better as words
(rising entities, recent supersedes, the most recalled memories, the LLM's cost).

The charts are drawn with QPainter: QtCharts is not in the PySide6 wheels installed here
(PySide6-Essentials), and two bar charts do not warrant the Addons' size. Each chart keeps
what it draws (`categories`, `series`), so a test reads the numbers back from the widget.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QCoreApplication, QDate, QLocale, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGridLayout,
    QGroupBox,
    QListWidget,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from memoryd_desktop.digest_panes import muted, wrapping

translate = QCoreApplication.translate  # the bare name lupdate recognises

# Colours that stay apart for colour-blind readers (Okabe-Ito blue, orange, green).
COLOURS = (QColor("#0072B2"), QColor("#E69F00"), QColor("#009E73"))
PAD = 8


@dataclass(frozen=True)
class Series:
    name: str
    values: tuple[int, ...]
    colour: QColor


def nice_max(value: int) -> int:
    """The top of the value axis: 1, 2 or 5 times a power of ten, at least `value`."""
    if value <= 1:
        return 1
    power = 10 ** math.floor(math.log10(value))
    for step in (1, 2, 5, 10):
        if value <= step * power:
            return step * power
    return 10 * power


def _muted(widget: QWidget) -> QColor:
    return widget.palette().color(QPalette.ColorRole.PlaceholderText)


def _draw_empty(widget: QWidget, painter: QPainter, text: str) -> None:
    painter.setPen(_muted(widget))
    box = QRectF(widget.rect()).adjusted(PAD * 2, PAD, -PAD * 2, -PAD)
    painter.drawText(box, Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, text)


class WeeklyChart(QWidget):
    """Grouped bars, one group per week, one bar per series, a legend above."""

    def __init__(self, empty_text: str) -> None:
        super().__init__()
        self.empty_text = empty_text
        self.categories: list[str] = []
        self.series: list[Series] = []
        self.setMinimumHeight(200)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    @property
    def empty(self) -> bool:
        return not any(v for s in self.series for v in s.values)

    def set_data(self, categories: list[str], series: list[Series]) -> None:
        self.categories, self.series = categories, series
        self.setToolTip(
            "\n".join(
                f"{week}: " + ", ".join(f"{s.name} {s.values[i]}" for s in series)
                for i, week in enumerate(categories)
            )
        )
        self.update()

    def sizeHint(self) -> QSize:
        return QSize(520, 240)

    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        if self.empty:
            _draw_empty(self, painter, self.empty_text)
            return
        fm = self.fontMetrics()
        line = fm.height()
        text = self.palette().color(QPalette.ColorRole.WindowText)
        # the legend, one row above the plot
        x = PAD
        for s in self.series:
            painter.fillRect(QRectF(x, PAD + line / 4, line / 2, line / 2), s.colour)
            painter.setPen(text)
            painter.drawText(int(x + line * 0.75), PAD + fm.ascent(), s.name)
            x += line * 0.75 + fm.horizontalAdvance(s.name) + line * 1.5
        top_value = nice_max(max(v for s in self.series for v in s.values))
        ticks = list(range(0, top_value + 1, max(1, top_value // 5)))  # 1, 2 or 5 x 10^n: even steps
        axis_w = max(fm.horizontalAdvance(str(t)) for t in ticks) + PAD
        plot = QRectF(PAD + axis_w, PAD * 2 + line, 0, 0)
        plot.setRight(self.width() - PAD)
        plot.setBottom(self.height() - PAD - line - 2)
        if plot.width() <= 10 or plot.height() <= 10:
            return
        grid = QColor(_muted(self))
        grid.setAlpha(90)
        for t in ticks:
            y = plot.bottom() - plot.height() * t / top_value
            painter.setPen(grid)
            painter.drawLine(int(plot.left()), int(y), int(plot.right()), int(y))
            painter.setPen(text)
            painter.drawText(
                QRectF(PAD, y - line / 2, axis_w - PAD / 2, line),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                str(t),
            )
        groups = len(self.categories)
        slot = plot.width() / max(groups, 1)
        bar = slot * 0.8 / max(len(self.series), 1)
        label_every = max(
            1, math.ceil(max((fm.horizontalAdvance(c) for c in self.categories), default=0) / slot)
        )
        for i, week in enumerate(self.categories):
            left = plot.left() + slot * i + slot * 0.1
            for j, s in enumerate(self.series):
                h = plot.height() * s.values[i] / top_value
                painter.fillRect(QRectF(left + bar * j, plot.bottom() - h, bar - 1, h), s.colour)
            if i % label_every == 0:
                painter.setPen(text)
                painter.drawText(
                    QRectF(plot.left() + slot * i - slot, plot.bottom() + 2, slot * 3, line),
                    Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop,
                    week,
                )


class RankChart(QWidget):
    """Horizontal bars, the largest first, each labelled with its name and its count."""

    def __init__(self, empty_text: str) -> None:
        super().__init__()
        self.empty_text = empty_text
        self.rows: list[tuple[str, int]] = []
        self.setMinimumHeight(120)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    @property
    def empty(self) -> bool:
        return not self.rows

    def set_rows(self, rows: list[tuple[str, int]], tips: list[str]) -> None:
        self.rows = rows
        self.setToolTip("\n".join(tips))
        self.update()

    def sizeHint(self) -> QSize:
        return QSize(320, 200)

    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QPainter(self)
        if self.empty:
            _draw_empty(self, painter, self.empty_text)
            return
        fm = self.fontMetrics()
        line = fm.height() + 4
        shown = self.rows[: max(1, (self.height() - PAD) // line)]
        label_w = min(max(fm.horizontalAdvance(n) for n, _ in shown) + PAD + 4, self.width() // 2)
        count_w = max(fm.horizontalAdvance(str(c)) for _, c in shown) + PAD
        room = self.width() - PAD * 2 - label_w - count_w
        top = max(c for _, c in shown) or 1
        text = self.palette().color(QPalette.ColorRole.WindowText)
        for i, (name, count) in enumerate(shown):
            y = PAD / 2 + i * line
            painter.setPen(text)
            painter.drawText(
                QRectF(PAD, y, label_w - PAD, line),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                fm.elidedText(name, Qt.TextElideMode.ElideRight, label_w - PAD),
            )
            w = max(2.0, room * count / top)
            painter.fillRect(QRectF(PAD + label_w, y + 3, w, line - 6), COLOURS[0])
            painter.drawText(
                QRectF(PAD + label_w + w + 4, y, count_w, line),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                str(count),
            )


def week_label(monday: str) -> str:
    """The week by its Monday, short, in the UI's language ("2 Mar", "3月2日")."""
    day = QDate.fromString(monday, "yyyy-MM-dd")
    return QLocale().toString(day, translate("TrendsChart", "d MMM")) if day.isValid() else monday


def _list() -> QListWidget:
    widget = QListWidget()
    widget.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
    widget.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    return widget


class TrendsPane(QWidget):
    """The week at a glance: activity over the last weeks and the top triggers as charts,
    rising entities, recent supersedes and the most recalled memories as lists, and what
    the LLM cost today."""

    def __init__(self) -> None:
        super().__init__()
        grid = QGridLayout(self)
        weekly_box = QGroupBox(translate("TrendsChart", "Activity per week"))
        self.weekly = WeeklyChart(
            translate(
                "TrendsChart",
                "No activity yet. Captured sessions, recalls and approved promotions show here week by week.",
            )
        )
        QVBoxLayout(weekly_box).addWidget(self.weekly)
        grid.addWidget(weekly_box, 0, 0, 1, 2)
        triggers_box = QGroupBox(translate("DigestWindow", "Top triggers"))
        self.triggers = RankChart(translate("TrendsChart", "No trigger was hit in this period yet."))
        QVBoxLayout(triggers_box).addWidget(self.triggers)
        grid.addWidget(triggers_box, 1, 0)
        self.trend_lists: dict[str, QListWidget] = {}
        titles = (
            ("recalls", translate("DigestWindow", "Recalled most")),
            ("entities", translate("DigestWindow", "Rising entities")),
            ("supersedes", translate("DigestWindow", "Recent supersedes")),
        )
        for i, (key, title) in enumerate(titles):
            box = QGroupBox(title)
            self.trend_lists[key] = _list()
            QVBoxLayout(box).addWidget(self.trend_lists[key])
            grid.addWidget(box, 1 + (i + 1) // 2, (i + 1) % 2)
        grid.setRowStretch(0, 3)
        grid.setRowStretch(1, 2)
        grid.setRowStretch(2, 2)
        self.spend = muted(wrapping())
        grid.addWidget(self.spend, 3, 0, 1, 2)

    def fill(self, d: Any) -> None:
        """Show a digest's trends and spend."""
        t = d.trends
        weeks = list(t.weeks)
        self.weekly.set_data(
            [week_label(w.week) for w in weeks],
            [
                Series(translate("TrendsChart", "Captures"), tuple(w.captures for w in weeks), COLOURS[0]),
                Series(translate("TrendsChart", "Recalls"), tuple(w.recalls for w in weeks), COLOURS[1]),
                Series(
                    translate("TrendsChart", "Promotions"), tuple(w.promotions for w in weeks), COLOURS[2]
                ),
            ],
        )
        self.triggers.set_rows(
            [(x.trigger, x.hits) for x in t.top_triggers],
            [
                translate("DigestWindow", "{trigger}: {hits} hits").format(trigger=x.trigger, hits=x.hits)
                for x in t.top_triggers
            ],
        )
        lines = {
            "entities": [
                translate("DigestWindow", "{name}: {delta} mentions").format(
                    name=e.name, delta=f"{e.delta:+d}"
                )
                for e in t.rising_entities
            ],
            "supersedes": [
                translate("DigestWindow", "{old} → {new}").format(
                    old=s.old_title or s.old_slug, new=s.new_title or s.new_slug
                )
                for s in t.recent_supersedes
            ],
            "recalls": [
                translate("DigestWindow", "{title}: recalled {count} times").format(
                    title=r.title, count=r.recalls
                )
                for r in t.recall_hot
            ],
        }
        for key, texts in lines.items():
            widget = self.trend_lists[key]
            widget.clear()
            widget.addItems(texts or [translate("DigestWindow", "none")])
            if not texts:
                widget.item(0).setFlags(Qt.ItemFlag.NoItemFlags)  # shown greyed out
        sp = d.spend
        self.spend.setText(
            translate(
                "DigestWindow",
                "LLM today: {tokens} tokens in {calls} calls; {left} of the daily budget left.",
            ).format(tokens=f"{sp.today.tokens:,}", calls=sp.today.calls, left=f"{sp.left_today:,}")
        )
