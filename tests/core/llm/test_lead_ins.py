"""Lead-ins and dismissals that the red team found read as rules, or hid a warning:
"Never mind, ..." is no standing rule; "Heads up:", "Lesson learned:" open a warning; the
lead-in never stays in the title nor becomes a trigger."""

from __future__ import annotations

import pytest

from memoryd import titles
from memoryd.llm import rules


def _score(text: str):
    return rules.score("x", text, user_turns=[text])


@pytest.mark.parametrize(
    "text",
    [
        "Never mind, just fix the typo in the changelog.",
        "Never mind the lint errors, fix the crash in payments.py.",
        "Nevermind, can you rename the variable instead?",
    ],
)
def test_never_mind_is_no_rule(text: str):
    out = _score(text)
    assert out.type == "none", out
    assert "mind" not in [t.lower() for t in out.triggers]


@pytest.mark.parametrize(
    "text",
    [
        "Heads up: the VPN certificate expires on 2027-01-15.",
        "Heads up — the shared drive is wiped every Sunday night, keep copies elsewhere.",
        "Lesson learned: take a snapshot before resizing the volume.",
        "Watch out: the sandbox API returns 200 even when the charge fails.",
    ],
)
def test_caution_lead_ins_open_a_warning(text: str):
    out = _score(text)
    assert out.type == "warning", out
    assert not {"heads", "lesson", "learned", "watch"} & {t.lower() for t in out.triggers}


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("Careful: the read replica lags by a minute", "The read replica lags by a minute"),
        ("Don't forget: the standup moved to 9:30", "The standup moved to 9:30"),
        ("Second: always run the formatter before pushing.", "Always run the formatter before pushing"),
        ("Heads up — the office is closed on Monday", "The office is closed on Monday"),
    ],
)
def test_lead_ins_leave_the_title(text: str, title: str):
    assert titles.make(text) == title
