"""The plain reading of cron lines: what opens as "every day/week/month at", what stays
cron, and that building a choice gives the line back; the editor over core's trigger."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QTime
from pytestqt.qtbot import QtBot

from memoryd.app import Memoryd
from memoryd_desktop.schedule_editor import CRON, DAILY, MONTHLY, WEEKLY, Choice, ScheduleEditor, build, parse


@pytest.mark.parametrize(
    ("cron", "choice"),
    [
        ("0 3 * * *", Choice(DAILY, 3, 0)),
        ("05  03 * * *", Choice(DAILY, 3, 5)),
        ("0 9 * * 1", Choice(WEEKLY, 9, 0, weekday=1)),
        ("0 9 * * MON", Choice(WEEKLY, 9, 0, weekday=1)),
        ("0 2 * * 7", Choice(WEEKLY, 2, 0, weekday=0)),  # 7 is Sunday too
        ("0 4 1 * *", Choice(MONTHLY, 4, 0, day=1)),
        ("59 23 28 * *", Choice(MONTHLY, 23, 59, day=28)),
    ],
)
def test_plain_lines_read_as_their_choice(cron: str, choice: Choice) -> None:
    assert parse(cron) == choice
    assert parse(build(choice)) == choice


@pytest.mark.parametrize(
    "cron",
    [
        "0 */6 * * *",  # every six hours
        "30 8 * * mon-fri",
        "0 4 31 * *",  # skipped in shorter months: not "every month"
        "0 4 1 1 *",  # once a year
        "0 4 1 * 1",  # the 1st or any Monday (cron's either-or)
        "60 3 * * *",
        "0 3 * *",
        "",
        "0 ² * * *",  # a superscript: str.isdigit() says yes, int() says no
        "０ ３ * * *",  # full-width digits
        "0 ٣ * * *",  # Arabic-Indic three
        "0 3 * * ١",  # an Arabic-Indic weekday
        "0 3 ٢ * *",  # an Arabic-Indic day of the month
    ],
)
def test_other_lines_stay_cron(cron: str) -> None:
    assert parse(cron) == Choice(CRON, cron=" ".join(cron.split()))
    assert build(parse(cron)) == " ".join(cron.split())


def test_the_editor_reads_lines_with_cores_trigger(qtbot: QtBot, facade: Memoryd) -> None:
    editor = ScheduleEditor("0 9 * * mon", facade.cron_trigger)
    qtbot.addWidget(editor)
    editor.show()
    assert not editor.advanced() and editor.cron() == "0 9 * * mon"
    when, problem = editor.next_run()
    assert problem is None and when is not None and when.weekday() in range(7)
    with qtbot.waitSignal(editor.edited, timeout=1_000):
        editor.time.setTime(QTime(7, 5))
    assert editor.cron() == "5 7 * * 1"

    editor.set_cron("0 25 * * *")
    when, problem = editor.next_run()
    assert when is None and problem is not None and "not a valid cron line" in problem
    editor.set_cron("0 0 30 2 *")  # valid, never comes
    assert editor.next_run() == (None, None)  # "Next run: never"
