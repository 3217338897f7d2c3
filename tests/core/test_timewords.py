"""Time words in a question name the days it asks about; words that point forward, or ask
for the span, name none."""

from __future__ import annotations

import os
import time
from datetime import UTC, date, datetime

import pytest

from memoryd.timewords import held_on, local_day, spans, within

TUESDAY = date(2023, 3, 21)


@pytest.mark.parametrize(
    ("question", "first", "last"),
    [
        ("What did I do two weeks ago?", date(2023, 3, 5), date(2023, 3, 9)),  # 14 days, 15% either side
        ("Which book did I finish a week ago?", date(2023, 3, 13), date(2023, 3, 15)),
        ("a couple of days ago", date(2023, 3, 18), date(2023, 3, 20)),
        ("What did I mention 4 weeks ago?", date(2023, 2, 17), date(2023, 2, 25)),
        ("Who did I go with last Saturday?", date(2023, 3, 18), date(2023, 3, 20)),
        ("Which bike did I fix the past weekend?", date(2023, 3, 18), date(2023, 3, 21)),
        ("Where did I go last week?", date(2023, 3, 13), date(2023, 3, 21)),  # Mon-Sun, and two days
        ("What did we decide last month?", date(2023, 2, 1), date(2023, 3, 2)),
        ("What changed last year?", date(2022, 1, 1), date(2023, 1, 2)),
        ("How many plants did I buy in the past two months?", date(2023, 1, 11), date(2023, 3, 21)),
        ("over the last month", date(2023, 2, 15), date(2023, 3, 21)),
        ("in the last 3 days", date(2023, 3, 17), date(2023, 3, 21)),
        ("What did I cook yesterday?", date(2023, 3, 20), date(2023, 3, 20)),
        ("the day before yesterday", date(2023, 3, 19), date(2023, 3, 19)),
        ("Was haben wir vor zwei Wochen beschlossen?", date(2023, 3, 5), date(2023, 3, 9)),
        ("Qu'avons-nous décidé il y a trois jours ?", date(2023, 3, 17), date(2023, 3, 19)),
        ("¿Qué decidimos hace un mes?", date(2023, 2, 15), date(2023, 2, 23)),
        ("la semaine dernière", date(2023, 3, 13), date(2023, 3, 21)),
        ("Was war letzte Woche?", date(2023, 3, 13), date(2023, 3, 21)),
        ("我三天前做了什么？", date(2023, 3, 17), date(2023, 3, 19)),
        ("两个星期前我们决定了什么", date(2023, 3, 5), date(2023, 3, 9)),
        ("半个月前", date(2023, 3, 4), date(2023, 3, 8)),
        ("上周六我和谁去的？", date(2023, 3, 18), date(2023, 3, 20)),  # Saturday of last week
        ("上周讨论了什么", date(2023, 3, 13), date(2023, 3, 21)),
        ("上个月的决定", date(2023, 2, 1), date(2023, 3, 2)),
        ("去年", date(2022, 1, 1), date(2023, 1, 2)),
        ("最近两周", date(2023, 3, 5), date(2023, 3, 21)),
        ("前天", date(2023, 3, 19), date(2023, 3, 19)),
        ("几天前", date(2023, 3, 17), date(2023, 3, 19)),
        ("上上周开会说了什么", date(2023, 3, 6), date(2023, 3, 14)),  # the week before last
        ("上上个月的账单", date(2023, 1, 1), date(2023, 2, 2)),
        ("前年", date(2021, 1, 1), date(2022, 1, 2)),
        ("大前天", date(2023, 3, 18), date(2023, 3, 18)),
        ("What did I start 1.5 years ago?", date(2021, 6, 29), date(2021, 12, 10)),  # 548 days, not 5 years
        ("a couple weeks ago", date(2023, 3, 5), date(2023, 3, 9)),
        ("over the last couple of weeks", date(2023, 3, 5), date(2023, 3, 21)),
        ("l'an dernier", date(2022, 1, 1), date(2023, 1, 2)),
        ("the week before last", date(2023, 3, 6), date(2023, 3, 14)),
    ],
)
def test_time_words_name_their_days(question: str, first: date, last: date) -> None:
    assert spans(question, TUESDAY) == [(first, last)]


@pytest.mark.parametrize(
    "question",
    [
        "How many days ago did I meet Emma?",  # asks for the span
        "How many weeks ago did I start using the app?",
        "What should I serve for dinner this weekend?",  # points forward
        "Can you recommend a show to watch tonight?",
        "What percentage of shoes did I wear on my last trip?",  # "last" without a time unit
        "Which database did we choose?",
        "三月前完成",  # before March, not three months ago
        "Ich bin hier seit Montag",  # German "hier" is "here", not French "yesterday"
        "",
        # 上, 去, 前 ending or starting other words: no "last week", "last month", "last year"
        "早上周会上说的部署计划",  # morning weekly meeting
        "会上周经理说了什么",  # Manager Zhou at the meeting
        "线上周报模板",  # online weekly report
        "路上周围",
        "晚上周五发布的版本",  # Friday evening
        "登上月球",  # land on the moon
        "我们会失去年轻用户吗",  # lose young users
        "提前天数",  # days in advance
        # a part of something else, or what is to come
        "What was the last day of the sprint about?",
        "What do I need to do in the last week of December?",
        "the last Monday of the month",
    ],
)
def test_words_that_name_no_past_days(question: str) -> None:
    assert spans(question, TUESDAY) == []


def test_last_weekday_on_that_weekday_is_a_week_back() -> None:
    saturday = date(2023, 4, 22)
    assert spans("last Saturday", saturday) == [(date(2023, 4, 15), date(2023, 4, 17))]


def test_a_moment_is_read_on_the_local_calendar(monkeypatch: pytest.MonkeyPatch) -> None:
    """23:30 UTC on the 20th is already the 21st in Shanghai: a user there said "yesterday"
    of the 21st's sessions on the 22nd."""
    late = datetime(2023, 3, 20, 23, 30, tzinfo=UTC)
    found = spans("yesterday", date(2023, 3, 22))
    for zone, expected in (("UTC", False), ("Asia/Shanghai", True)):
        monkeypatch.setenv("TZ", zone)
        time.tzset()
        assert within(late, found) is expected, zone
    monkeypatch.delenv("TZ")
    time.tzset()
    assert os.environ.get("TZ") is None


def test_the_edges_of_the_calendar_name_nothing_and_raise_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """A clock pinned to year 1 (MEMORYD_NOW), and forged turn times at either end of the
    calendar, read east of UTC: no traceback out of a search."""
    assert spans("what did I do yesterday and 999 years ago?", date(1, 1, 1)) == []
    monkeypatch.setenv("TZ", "Asia/Shanghai")
    time.tzset()
    try:
        assert (
            within(datetime(9999, 12, 31, 23, tzinfo=UTC), [(date(9999, 12, 30), date(9999, 12, 31))])
            is False
        )
        assert within(datetime(1, 1, 1, tzinfo=UTC), [(date(1, 1, 1), date(1, 1, 2))]) is True
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_a_time_word_said_many_times_is_one_stretch() -> None:
    assert len(spans("2 days ago " * 2000, TUESDAY)) == 1


def test_off_calendar_times_and_clocks_are_on_no_day(monkeypatch: pytest.MonkeyPatch) -> None:
    """Turn times at the calendar's edge with an offset (.NET's DateTime.MinValue as a
    local time), unreadable ones, and a clock pinned to the last second east of UTC: no
    traceback, and no day."""
    found = [(date(1, 1, 1), date(9999, 12, 31))]
    for ts in (
        "0001-01-01T00:00:00+01:00",
        "9999-12-31T23:00:00-05:00",
        "",
        "garbage",
        "2026-13-40T00:00:00Z",
    ):
        assert held_on(ts, found) is False, ts
    assert held_on("2026-11-18T09:00:00", found) is True  # naive: UTC
    assert spans("what did we change last year?", date(1, 6, 1)) == []  # year 0
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    try:
        assert local_day(datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)) == date(9999, 12, 31)
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
