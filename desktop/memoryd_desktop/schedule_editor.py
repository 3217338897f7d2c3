"""One job's time on the Settings → Schedules tab, as a person says it: every day at 03:00,
every week on Monday at 09:00, every month on the 1st at 04:00; a cron line is the
advanced form, for anything else.

A stored cron line that says one of the plain things opens in that form; any other opens
as cron. Unless the user changes it, the line is given back as it was written (so "mon"
does not become "1" and look like an edit). Under the controls, a "next run" line follows
every edit: it asks core for the trigger the tray's scheduler builds from the same line
(`Memoryd.cron_trigger`, as `job_triggers`), so it says when the job will really run.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from PySide6.QtCore import QCoreApplication, QTime, QTimer, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLineEdit, QSpinBox, QTimeEdit, QWidget

from memoryd.errors import MemorydError

log = logging.getLogger("memoryd.tray")

translate = QCoreApplication.translate  # the bare name lupdate recognises

DAILY, WEEKLY, MONTHLY, CRON = "daily", "weekly", "monthly", "cron"
DAY_NAMES = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")  # cron's weekday numbers 0-6
LAST_PLAIN_DAY = 28  # a later day is skipped in shorter months: that is for the cron form
TYPING_MS = 200  # a typed cron line is read once typing pauses


@dataclass(frozen=True)
class Choice:
    """A job's time: a plain kind with its hour and minute (and weekday, 0 = Sunday, or
    day of the month), or a cron line."""

    kind: str
    hour: int = 0
    minute: int = 0
    weekday: int = 1
    day: int = 1
    cron: str = ""


def _number(text: str, low: int, high: int) -> int | None:
    """ASCII digits only: "²" is a digit to str.isdigit() (int() refuses it), and full-width
    or Arabic-Indic digits are not what cron reads."""
    if not (text.isascii() and text.isdigit()) or not low <= int(text) <= high:
        return None
    return int(text)


def _weekday(text: str) -> int | None:
    if text.lower() in DAY_NAMES:
        return DAY_NAMES.index(text.lower())
    day = _number(text, 0, 7)
    return None if day is None else day % 7


def parse(cron: str) -> Choice:
    """The plain choice a cron line says, or a CRON choice holding the line."""
    fields = cron.split()
    if len(fields) == 5:
        minute_f, hour_f, day_f, month_f, weekday_f = fields
        minute, hour = _number(minute_f, 0, 59), _number(hour_f, 0, 23)
        if minute is not None and hour is not None and month_f == "*":
            if day_f == "*" and weekday_f == "*":
                return Choice(DAILY, hour, minute)
            weekday = _weekday(weekday_f)
            if day_f == "*" and weekday is not None:
                return Choice(WEEKLY, hour, minute, weekday=weekday)
            day = _number(day_f, 1, LAST_PLAIN_DAY)
            if weekday_f == "*" and day is not None:
                return Choice(MONTHLY, hour, minute, day=day)
    return Choice(CRON, cron=" ".join(fields))


def build(choice: Choice) -> str:
    """The cron line for a choice."""
    at = f"{choice.minute} {choice.hour}"
    if choice.kind == DAILY:
        return f"{at} * * *"
    if choice.kind == WEEKLY:
        return f"{at} * * {choice.weekday}"
    if choice.kind == MONTHLY:
        return f"{at} {choice.day} * *"
    return " ".join(choice.cron.split())


def next_fire(trigger: Any, now: datetime | None = None) -> datetime | None:
    """When an APScheduler trigger fires next after `now` (UTC), as the scheduler asks it."""
    moment = now or datetime.now(UTC)
    nxt = trigger.get_next_fire_time(None, moment)
    return None if nxt is None else nxt.astimezone(UTC)


def weekday_names() -> list[tuple[str, int]]:
    """Monday first, as calendars here show the week; the value is cron's number."""
    return [
        (translate("SettingsDialog", "Monday"), 1),
        (translate("SettingsDialog", "Tuesday"), 2),
        (translate("SettingsDialog", "Wednesday"), 3),
        (translate("SettingsDialog", "Thursday"), 4),
        (translate("SettingsDialog", "Friday"), 5),
        (translate("SettingsDialog", "Saturday"), 6),
        (translate("SettingsDialog", "Sunday"), 0),
    ]


class ScheduleEditor(QWidget):
    """The controls of one job's time. `edited` after each change the user makes (the
    next-run line is the owner's to redraw: it also shows the last run)."""

    edited = Signal()

    def __init__(self, cron: str, trigger: Callable[[str], Any], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.original = cron
        self.parsed = parse(cron)
        self._trigger = trigger
        self.kind = QComboBox()
        for label, kind in (
            (translate("SettingsDialog", "Every day"), DAILY),
            (translate("SettingsDialog", "Every week"), WEEKLY),
            (translate("SettingsDialog", "Every month"), MONTHLY),
            (translate("SettingsDialog", "Advanced (cron)"), CRON),
        ):
            self.kind.addItem(label, kind)
        self.weekday = QComboBox()
        for label, number in weekday_names():
            self.weekday.addItem(label, number)
        self.day = QSpinBox()
        self.day.setRange(1, LAST_PLAIN_DAY)
        # one message, so each language puts the number where it belongs ("day 1", "1 日")
        before, _, after = translate("SettingsDialog", "day {day}").partition("{day}")
        self.day.setPrefix(before)
        self.day.setSuffix(after)
        self.at_label = QLabel(translate("SettingsDialog", "at"))
        self.time = QTimeEdit()
        self.time.setDisplayFormat("HH:mm")
        self.cron_edit = QLineEdit()
        self.cron_edit.setPlaceholderText(translate("SettingsDialog", "minute hour day month weekday"))
        self.cron_edit.setToolTip(
            translate(
                "SettingsDialog",
                "Five fields in local time: minute hour day month weekday. Empty means the default time.",
            )
        )
        self.typing = QTimer(self)
        self.typing.setSingleShot(True)
        self.typing.setInterval(TYPING_MS)
        self.typing.timeout.connect(self.edited)

        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        for widget in (self.kind, self.weekday, self.day, self.at_label, self.time):
            row.addWidget(widget)
        row.addWidget(self.cron_edit, 1)
        row.addStretch(0)
        self.shown_kind = self.parsed.kind
        self.show_choice(self.parsed)
        self.kind.currentIndexChanged.connect(self._kind_chosen)
        self.weekday.currentIndexChanged.connect(lambda _i: self.edited.emit())
        self.day.valueChanged.connect(lambda _v: self.edited.emit())
        self.time.timeChanged.connect(lambda _t: self.edited.emit())
        self.cron_edit.textEdited.connect(lambda _t: self.typing.start())

    # -- the form ---------------------------------------------------------------------
    def show_choice(self, choice: Choice) -> None:
        for widget in (self.kind, self.weekday, self.day, self.time, self.cron_edit):
            widget.blockSignals(True)
        self.kind.setCurrentIndex(self.kind.findData(choice.kind))
        self.weekday.setCurrentIndex(max(0, self.weekday.findData(choice.weekday)))
        self.day.setValue(choice.day)
        self.time.setTime(QTime(choice.hour, choice.minute))
        self.cron_edit.setText(choice.cron if choice.kind == CRON else build(choice))
        for widget in (self.kind, self.weekday, self.day, self.time, self.cron_edit):
            widget.blockSignals(False)
        self._show_kind(choice.kind)

    def _show_kind(self, kind: str) -> None:
        self.shown_kind = kind
        self.weekday.setVisible(kind == WEEKLY)
        self.day.setVisible(kind == MONTHLY)
        for widget in (self.at_label, self.time):
            widget.setVisible(kind != CRON)
        self.cron_edit.setVisible(kind == CRON)

    def _kind_chosen(self, _index: int) -> None:
        """To cron: the line of what was shown, to edit from. From cron: the plain form the
        line says, else the plain controls as they were."""
        kind = str(self.kind.currentData())
        if kind == self.shown_kind:
            return
        if kind == CRON:
            self.cron_edit.setText(build(self.plain(self.shown_kind)))
        elif self.shown_kind == CRON:
            said = parse(self.cron_edit.text())
            self.show_choice(replace(said if said.kind != CRON else self.plain(kind), kind=kind))
        self._show_kind(kind)
        self.edited.emit()

    def plain(self, kind: str) -> Choice:
        """The plain controls' values, as a choice of `kind`."""
        time = self.time.time()
        return Choice(kind, time.hour(), time.minute(), int(self.weekday.currentData()), self.day.value())

    def choice(self) -> Choice:
        kind = str(self.kind.currentData())
        if kind == CRON:
            return Choice(CRON, cron=" ".join(self.cron_edit.text().split()))
        return self.plain(kind)

    def cron(self) -> str:
        """The line to save: as it was loaded while it still says the same (so "mon" does
        not turn into "1" and count as an edit)."""
        built = build(self.choice())
        return self.original if build(parse(built)) == build(self.parsed) else built

    def advanced(self) -> bool:
        return self.kind.currentData() == CRON

    def set_cron(self, cron: str) -> None:
        """Show a cron line in the advanced form (as a user typing it would)."""
        self.kind.setCurrentIndex(self.kind.findData(CRON))
        self._show_kind(CRON)
        self.cron_edit.setText(cron)
        self.edited.emit()

    # -- what it means ----------------------------------------------------------------
    def next_run(self) -> tuple[datetime | None, str | None]:
        """(when it runs next, None) or (None, why the line is not valid). An empty line in
        the cron form is the default time: (None, None)."""
        cron = self.cron()
        if not cron.strip():
            return None, None
        try:
            trig = self._trigger(cron)
        except MemorydError as exc:
            return None, str(exc)
        return next_fire(trig), None
