"""Routine sessions stay sessions: a bug fix, a one-off question or errand, chit-chat. A
proposal made of them is the junk a person has to reject (issue 21), and rule changes that
lift the labelled sets' figures have made such proposals before (the reverted round of
2026-11-27 turned 9 of these 35 into proposals)."""

from __future__ import annotations

import json
from pathlib import Path

from memoryd.llm import rules

DATA = Path(__file__).resolve().parents[2] / "data" / "proposals" / "routine.json"
# Proposed today, and wrong: a problem report read as a fact ("the header gets duplicated"),
# a review request's pointer read as a fact, and a told attempt read as a how-to.
KNOWN = {"en_bugfix_3", "en_review", "zh_bugfix_2"}


def test_routine_sessions_are_not_proposed() -> None:
    sessions: dict[str, list[str]] = json.loads(DATA.read_text(encoding="utf-8"))["sessions"]
    assert len(sessions) >= 30
    proposed = {}
    for name, turns in sessions.items():
        out = rules.score(turns[0][:79], "", user_turns=turns)
        if out.type != "none":
            proposed[name] = (out.type, out.title)
    assert set(proposed) <= KNOWN, {k: v for k, v in proposed.items() if k not in KNOWN}
