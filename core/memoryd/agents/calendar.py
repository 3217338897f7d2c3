"""The cron subset the OS timers take, and its conversion to systemd's OnCalendar and
launchd's StartCalendarInterval.

Kept apart from the file writing so the conversions read (and are tested) against cron's
meaning alone: a timer must fire at every slot of the line as the tray reads it
(memoryd.schedule), or a slot is missed."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Any

from memoryd.errors import UsageError

# -- the cron subset: five fields of numbers, names, lists, ranges, steps and * -----------
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
DAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
# (name, lowest, highest, names for lowest..): weekday 7 is Sunday again.
FIELDS = (
    ("minute", 0, 59, ()),
    ("hour", 0, 23, ()),
    ("day", 1, 31, ()),
    ("month", 1, 12, MONTHS),
    ("weekday", 0, 7, DAYS),
)
SYSTEMD_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
MAX_INTERVALS = 2000  # launchd dicts for one job: a cron line that needs more is refused


@dataclass(frozen=True)
class Cron:
    """A parsed cron line: the values of each field, and whether the day and weekday
    fields start with `*` (cron's rule: when neither does, a day matching either runs)."""

    minute: frozenset[int]
    hour: frozenset[int]
    day: frozenset[int]
    month: frozenset[int]
    weekday: frozenset[int]  # 0 = Sunday .. 6 = Saturday
    day_star: bool
    weekday_star: bool

    @property
    def either_day(self) -> bool:
        return not self.day_star and not self.weekday_star


def _field(text: str, name: str, lo: int, hi: int, names: tuple[str, ...]) -> frozenset[int]:
    def number(token: str) -> int:
        if token in names:
            return lo + names.index(token)
        if token.isdigit() and lo <= int(token) <= hi:
            return int(token)
        raise UsageError(f"cron {name} {token!r} is out of range {lo}-{hi}")

    out: set[int] = set()
    for part in text.lower().split(","):
        span, slash, step_text = part.partition("/")
        if slash and not (step_text.isdigit() and int(step_text) > 0):
            raise UsageError(f"cron {name} step {step_text!r} is not a positive number")
        step = int(step_text) if slash else 1
        if span == "*":
            a, b = lo, hi
        elif "-" in span:
            first, last = span.split("-", 1)
            a, b = number(first), number(last)
            if a > b:
                raise UsageError(f"cron {name} range {span!r} runs backwards")
        else:  # `N/step` runs to the top (Saturday for weekdays, as memoryd.schedule reads it)
            a = number(span)
            b = (6 if name == "weekday" else hi) if slash else a
        out.update(range(a, b + 1, step))
    if name == "weekday":
        out = {d % 7 for d in out}
    return frozenset(out)


def parse(cron: str) -> Cron:
    """A five-field cron line; UsageError for anything outside the subset (L, W, #, @daily)."""
    parts = str(cron).split()
    if len(parts) != 5:
        raise UsageError(f"schedule {cron!r} must be five cron fields: minute hour day month weekday")
    for part in parts:
        if not re.fullmatch(r"[0-9A-Za-z*/,-]+", part):
            raise UsageError(f"cron field {part!r} is outside what the timers support")
    values = [_field(p, *spec) for p, spec in zip(parts, FIELDS, strict=True)]
    return Cron(*values, day_star=parts[2].startswith("*"), weekday_star=parts[4].startswith("*"))


# -- systemd OnCalendar and launchd StartCalendarInterval -------------------------------
def _full(values: frozenset[int], lo: int, hi: int) -> bool:
    return values >= set(range(lo, hi + 1))


def _numbers(values: frozenset[int], lo: int, hi: int) -> str:
    """One OnCalendar field: *, a repetition `start/step`, or a list with `a..b` runs."""
    if _full(values, lo, hi):
        return "*"
    vals = sorted(values)
    if len(vals) >= 2:
        step = vals[1] - vals[0]
        if len(vals) >= 3 and step > 1 and vals == list(range(vals[0], hi + 1, step)):
            return f"{vals[0]:02d}/{step}"
    return ",".join(_runs(vals, lambda v: f"{v:02d}"))


def _runs(vals: list[int], show: Any) -> list[str]:
    """Consecutive values of three or more as `a..b`, others one by one."""
    out: list[str] = []
    for _, group in itertools.groupby(enumerate(vals), lambda iv: iv[1] - iv[0]):
        run = [v for _, v in group]
        if len(run) >= 3:
            out.append(f"{show(run[0])}..{show(run[-1])}")
        else:
            out.extend(show(v) for v in run)
    return out


def _weekdays(days: frozenset[int]) -> str:
    """systemd counts from Monday: Mon..Fri, Sat,Sun."""
    order = sorted((d + 6) % 7 for d in days)
    return ",".join(_runs(order, lambda i: SYSTEMD_DAYS[i]))


def on_calendar(cron: str) -> list[str]:
    """The OnCalendar= values that fire exactly when the cron line does. Two when both day
    and weekday are restricted: cron runs on a day matching either, systemd on both."""
    c = parse(cron)
    time = f"{_numbers(c.hour, 0, 23)}:{_numbers(c.minute, 0, 59)}:00"
    month = _numbers(c.month, 1, 12)
    day = _numbers(c.day, 1, 31)
    all_days = _full(c.weekday, 0, 6)
    if c.either_day and not all_days and day != "*":
        return [f"{_weekdays(c.weekday)} *-{month}-* {time}", f"*-{month}-{day} {time}"]
    if c.either_day and (all_days or day == "*"):
        # one of the two is every day: cron's "either" is then every day
        return [f"*-{month}-* {time}"]
    prefix = "" if all_days else _weekdays(c.weekday) + " "
    return [f"{prefix}*-{month}-{day} {time}"]


def calendar_intervals(cron: str) -> list[dict[str, int]]:
    """launchd's StartCalendarInterval: one dict per combination of the restricted
    fields (a missing key is a wildcard); day-or-weekday lines get dicts of each kind."""
    c = parse(cron)
    keys = [("Minute", c.minute, 0, 59), ("Hour", c.hour, 0, 23), ("Month", c.month, 1, 12)]
    day = ("Day", c.day, 1, 31)
    weekday = ("Weekday", c.weekday, 0, 6)
    if c.either_day:
        if _full(c.weekday, 0, 6) or _full(c.day, 1, 31):
            variants = [keys]
        else:
            variants = [[*keys, day], [*keys, weekday]]
    else:
        variants = [[*keys, day, weekday]]
    out: list[dict[str, int]] = []
    for variant in variants:
        used = [(k, sorted(v)) for k, v, lo, hi in variant if not _full(v, lo, hi)]
        for combo in itertools.product(*(vals for _, vals in used)):
            out.append(dict(zip((k for k, _ in used), combo, strict=True)))
            if len(out) > MAX_INTERVALS:
                raise UsageError(f"schedule {cron!r} needs over {MAX_INTERVALS} launchd intervals")
    return out
