"""The stretch of past days a question points at with its time words ("a week ago",
"last Saturday", "in the past two months", 上周, 三天前), as dates relative to today.

A person asks "what did I decide last week?" and means the sessions of last week, which
no keyword and no embedding can tell from the others: their words say nothing about when
they were written. Search lifts the memories whose session falls in the stretch
(memoryd.search.time_factors); it never drops the others, since people misremember when.

Only time words that point back are read. "Tonight", "this weekend" and "today" mostly
ask about what is to come ("what should I cook this weekend?"), and "how many days ago"
asks for the span rather than naming it. The stretches are generous: "N units ago" is a
guess, so it spans 15% of N units either side (at least a day), and a named day, week,
month or year runs on two days past its end, as what happened is often told a day or
two later. Dates are the user's local calendar days.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

Span = tuple[date, date]  # first and last day, both included

SLACK = 0.15  # of the distance named by "N units ago"
TOLD_LATER = 2  # days after a named day or week that still count

_UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}
_UNIT = {
    **{
        w: "day"
        for w in ("day", "days", "tag", "tagen", "tage", "jour", "jours", "día", "días", "dia", "dias")
    },
    **{w: "week" for w in ("week", "weeks", "woche", "wochen", "semaine", "semaines", "semana", "semanas")},
    **{w: "month" for w in ("month", "months", "monat", "monaten", "monate", "mois", "mes", "meses")},
    **{w: "year" for w in ("year", "years", "jahr", "jahren", "jahre", "an", "ans", "año", "años")},
}
_COUNT = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2, "a couple": 2,
    "couple of": 2, "a few": 3, "few": 3, "several": 3,
    "ein": 1, "eine": 1, "einer": 1, "einem": 1, "einen": 1, "zwei": 2, "drei": 3, "vier": 4,
    "fünf": 5, "sechs": 6, "ein paar": 3,
    "un": 1, "une": 1, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "quelques": 3,
    "una": 1, "uno": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "unos": 3, "unas": 3,
}  # fmt: skip
_COUNT_RE = "|".join(sorted((re.escape(k) for k in _COUNT), key=len, reverse=True))
# A count: digits (1.5 and 2,5 whole, not their fraction alone) or a number word.
_N = rf"(?<![\d.,])(\d{{1,3}}(?:[.,]\d{{1,2}})?|{_COUNT_RE})"
_UNITS_RE = "|".join(sorted(_UNIT, key=len, reverse=True))
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

# Patterns are kept as text: `re` compiles one the first time a question needs it (and
# keeps it), so a search whose question has no time word (most) pays nothing for them,
# nor does a cold CLI's import.
_AGO = (
    rf"\b{_N}\s+({_UNITS_RE})\s+ago\b",  # two weeks ago ("how many weeks ago" names none)
    rf"\bvor\s+{_N}\s+({_UNITS_RE})\b",  # vor zwei Wochen
    rf"\bil y a\s+{_N}\s+({_UNITS_RE})\b",  # il y a deux semaines
    rf"\bhace\s+{_N}\s+({_UNITS_RE})\b",  # hace dos semanas
)
_PERIOD = r"(day|days|week|weeks|month|months|year|years)\b"
# A stretch up to today: "in the past two weeks", "over the last month", "last 3 days".
# Not "the last week of December", "the last day of the sprint": a part of something else.
_PAST = rf"\b(?:(?:(?:the|these)\s+(?:last|past)|past)\s+(?:{_N}\s+)?|last\s+{_N}\s+){_PERIOD}(?!\s+of\b)"
_LAST_WEEKDAY = rf"\b(?:last|this past|past)\s+({'|'.join(_WEEKDAYS)})\b(?!\s+of\b)"
_LAST_WEEKEND = r"\b(?:last|this past|past)\s+weekend\b"
_YESTERDAY = r"\b(?:yesterday|gestern|ayer|ontem|ieri|gisteren)\b"  # not "hier": German "here"
_DAY_BEFORE = r"\b(?:the day before yesterday|vorgestern|avant-hier|anteayer)\b"
_LAST_CALENDAR = (
    (r"\b(?:letzte|vergangene)n?\s+woche\b|\bla semaine derni[eè]re\b|\bla semana pasada\b", "week"),
    (r"\b(?:letzte|vergangene)n?\s+monat\b|\ble mois dernier\b|\bel mes pasado\b", "month"),
    (
        r"\b(?:letzte|vergangene)s?\s+jahr\b|\bl'ann[ée]e derni[eè]re\b|\bl'an dernier\b|\bel año pasado\b",
        "year",
    ),
)

# Chinese: 三天前, 两个星期前, 半个月前, 上周六, 上个月, 去年, 最近两周, 过去三个月.
_ZH_DIGIT = dict(zip("一二两俩三四五六七八九", (1, 2, 2, 2, 3, 4, 5, 6, 7, 8, 9), strict=True))
_ZH_N = r"(\d{1,3}|[一二两俩三四五六七八九十]{1,3}|几|半)"
_ZH_UNIT = r"(天|周|个星期|个礼拜|星期|礼拜|个月|年)"  # not 月, 日: 三月前 is "before March"
_ZH_AGO = _ZH_N + r" ?" + _ZH_UNIT + r"(?:之)?前"
_ZH_PAST = r"(?:最近|过去|近|这) ?" + _ZH_N + r" ?" + _ZH_UNIT
# 上 ends many words (早上, 晚上, 会上, 线上, 路上, 登上): after one of them 上周, 上月 are
# not "last week/month"; nor before a word that begins with 周 or 月 (周报, 周围, 月球).
_ZH_ON = "早晚会线路网马身楼桌手地天面班加以向往登爬赶追碰遇看墙台街车船床顶头场"
_ZH_LAST = rf"(?<![{_ZH_ON}])(上上|上)"
_ZH_LAST_WEEK = _ZH_LAST + r"(?:个)?(?:周|星期|礼拜)(?![报刊期边围到长年])([一二三四五六日天末])?"
_ZH_LAST_MONTH = _ZH_LAST + r"个?月(?![球亮光饼份底初中])"
_ZH_LAST_YEAR = r"(?<![失过除回离出进上下])(前|去)年(?![轻纪龄华级代])"
_ZH_DAYS_BACK = r"(?<![提之以目面跟眼当门向往空])(大前天|前天|昨天|昨日)(?!数)"
# Every time word above holds one of these: a question without any is not read further.
_HINTS = (
    "ago", "last", "past", "yesterday", "vor", "il y a", "hace", "derni", "pasad", "letzte", "vergangen",
    "gestern", "ayer", "ontem", "ieri", "gisteren", "avant-hier", "前", "上", "去年", "昨", "最近", "过去",
    "before last", "l'an",
    "近", "这",
)  # fmt: skip
_ZH_UNIT_DAYS = {"天": 1, "周": 7, "星期": 7, "礼拜": 7, "个星期": 7, "个礼拜": 7, "个月": 30, "年": 365}


def spans(question: str, today: date) -> list[Span]:
    """Every stretch of days the question's time words point back to (none: no such words).
    A stretch before the first day the calendar holds (a clock pinned to year 1) is none."""
    try:
        return list(dict.fromkeys(_spans(question, today)))  # "2 days ago" said twice is one
    except (OverflowError, ValueError):
        return []


def local_day(now: datetime) -> date:
    """The user's calendar day at `now`; its UTC day where the local one is off the
    calendar (a clock pinned to 9999-12-31 east of UTC)."""
    try:
        return now.astimezone().date()
    except (OverflowError, ValueError):
        return now.date()


def held_on(ts: str | None, found: list[Span]) -> bool:
    """Whether an ISO-8601 time as turns and rows carry it (naive: UTC) falls on a day of
    a span; an unreadable one, or one off the calendar, does not."""
    if not found or not ts:
        return False
    try:
        when = datetime.fromisoformat(ts.strip().replace("Z", "+00:00"))
        return within(when if when.tzinfo else when.replace(tzinfo=UTC), found)
    except (OverflowError, ValueError):
        return False


def _spans(question: str, today: date) -> list[Span]:
    text = question.lower()
    if not any(hint in text for hint in _HINTS):
        return []
    out: list[Span] = []
    for pattern in _AGO:
        for m in re.finditer(pattern, text):
            if (count := _count(m.group(1))) is not None:
                out.append(_around(today, round(count * _UNIT_DAYS[_UNIT[m.group(2)]])))
    for m in re.finditer(_PAST, text):
        word = m.group(1) or m.group(2)
        count = _count(word) if word else 1
        if count is not None:
            out.append(_back_to(today, round(count * _UNIT_DAYS[m.group(3).rstrip("s")])))
    if re.search(r"\bthe week before last\b", text):
        out.append(_previous(today, "week", 2))
    text_sans_past = re.sub(_PAST, " ", text)
    for m in re.finditer(r"\blast\s+(week|month|year)\b(?!\s+of\b)", text_sans_past):
        out.append(_previous(today, m.group(1)))
    for pattern, unit in _LAST_CALENDAR:
        if re.search(pattern, text):
            out.append(_previous(today, unit))
    for m in re.finditer(_LAST_WEEKDAY, text):
        day = _most_recent(today, _WEEKDAYS.index(m.group(1)))
        out.append((day, day + timedelta(days=TOLD_LATER)))
    if re.search(_LAST_WEEKEND, text):
        saturday = _most_recent(today - timedelta(days=1), 5)
        out.append((saturday, saturday + timedelta(days=1 + TOLD_LATER)))
    if re.search(_DAY_BEFORE, text):
        out.append(_day(today, 2))
    elif re.search(_YESTERDAY, text):
        out.append(_day(today, 1))
    out += _chinese(question, today)
    return out


def within(when: datetime, found: list[Span]) -> bool:
    """Whether a moment (aware; read in the local time zone) falls on a day of a span. A
    moment the local calendar cannot hold (a forged 9999-12-31T23:00Z east of UTC) does not."""
    try:
        day = when.astimezone().date()
    except (OverflowError, ValueError):
        return False
    return any(first <= day <= last for first, last in found)


def _chinese(text: str, today: date) -> list[Span]:
    out: list[Span] = []
    for m in re.finditer(_ZH_AGO, text):
        if (days := _zh_days(m.group(1), m.group(2))) is not None:
            out.append(_around(today, days))
    for m in re.finditer(_ZH_PAST, text):
        if (days := _zh_days(m.group(1), m.group(2))) is not None:
            out.append(_back_to(today, days))
    for m in re.finditer(_ZH_LAST_WEEK, text):
        back = len(m.group(1))  # 上周 one week, 上上周 two
        monday = today - timedelta(days=today.weekday() + 7 * back)
        which = m.group(2)
        if which is None:
            out.append((monday, monday + timedelta(days=6 + TOLD_LATER)))
        elif which == "末":
            out.append((monday + timedelta(days=5), monday + timedelta(days=6 + TOLD_LATER)))
        else:
            day = monday + timedelta(days="一二三四五六日天".index(which) if which != "天" else 6)
            out.append((day, day + timedelta(days=TOLD_LATER)))
    for m in re.finditer(_ZH_LAST_MONTH, text):
        out.append(_previous(today, "month", len(m.group(1))))
    for m in re.finditer(_ZH_LAST_YEAR, text):
        out.append(_previous(today, "year", 1 if m.group(1) == "去" else 2))
    if m := re.search(_ZH_DAYS_BACK, text):
        out.append(_day(today, {"大前天": 3, "前天": 2}.get(m.group(1), 1)))
    return out


def _zh_days(count: str, unit: str) -> int | None:
    per = _ZH_UNIT_DAYS[unit]
    if count == "半":
        return per // 2 if per > 1 else None
    n = 3 if count == "几" else _zh_number(count)
    return n * per if n else None


def _zh_number(text: str) -> int | None:
    if text.isdigit():
        return int(text)
    if text == "十":
        return 10
    if "十" in text:
        tens, _, ones = text.partition("十")
        return (_ZH_DIGIT.get(tens, 1) if tens else 1) * 10 + (_ZH_DIGIT.get(ones, 0) if ones else 0)
    return _ZH_DIGIT.get(text) if len(text) == 1 else None


def _count(word: str) -> float | None:
    if word[:1].isdigit():
        return float(word.replace(",", ".")) or None
    return _COUNT.get(word)


def _around(today: date, days: int) -> Span:
    slack = max(1, round(days * SLACK))
    return (today - timedelta(days=days + slack), today - timedelta(days=days - slack))


def _back_to(today: date, days: int) -> Span:
    return (today - timedelta(days=days + max(1, round(days * SLACK))), today)


def _day(today: date, back: int) -> Span:
    day = today - timedelta(days=back)
    return (day, day)


def _most_recent(today: date, weekday: int) -> date:
    """The last such weekday before today (a week back when today is one)."""
    return today - timedelta(days=(today.weekday() - weekday) % 7 or 7)


def _previous(today: date, unit: str, back: int = 1) -> Span:
    """The calendar week, month or year `back` before this one, and the days it is told in
    after."""
    if unit == "week":
        first = today - timedelta(days=today.weekday() + 7 * back)
        last = first + timedelta(days=6)
    elif unit == "month":
        last = today.replace(day=1) - timedelta(days=1)
        for _ in range(back - 1):
            last = last.replace(day=1) - timedelta(days=1)
        first = last.replace(day=1)
    else:
        first, last = date(today.year - back, 1, 1), date(today.year - back, 12, 31)
    return (first, last + timedelta(days=TOLD_LATER))
