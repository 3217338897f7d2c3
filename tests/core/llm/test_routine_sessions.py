"""Routine sessions stay sessions: a bug fix, a one-off question or errand, chit-chat. A
proposal made of them is the junk a person has to reject (issue 21), and rule changes that
lift the labelled sets' figures have made such proposals before (the reverted round of
2026-11-27 turned 9 of these 35 into proposals). A second set in ten languages
(routine_ml.json) shows what the learned type proposes there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memoryd.llm import rules

FOLDER = Path(__file__).resolve().parents[2] / "data" / "proposals"
DATA = FOLDER / "routine.json"
# Ten languages (English, Chinese, German, French, Spanish, Portuguese, Italian, Russian,
# Japanese, Korean), written blind on 2026-11-28 by someone who never saw the rules.
DATA_ML = FOLDER / "routine_ml.json"
# Proposed today, and wrong: a problem report read as a fact ("the header gets duplicated"),
# a review request's pointer read as a fact, and a told attempt read as a how-to.
KNOWN = {"en_bugfix_3", "en_review", "zh_bugfix_2"}
# With the learned type (memoryd.llm.typeclf, fitted on dev..dev6), as the analysis runs
# it: "I'm working on the migration script today. It runs every night against staging, but
# it's slow." read as a warning (a nightly run against staging is a fact; the reviewer judged
# the session routine), and a request for debugging steps as a warning.
KNOWN_LEARNED = (KNOWN - {"en_bugfix_3"}) | {"en_status", "en_debug_steps"}
# routine_ml by the cues alone: a rename request read as a fact.
KNOWN_ML = {"en_errand_2"}
# routine_ml with the learned type: 8 of 68 since it was fitted on dev..dev6 (9 before, four
# of them others), where the cues read nothing to keep and the classifier calls a request,
# a question or a text to translate or summarise a fact, a preference, a warning or a
# decision, mostly at less than even odds. Making it yield there
# cut these to 3 but cost held_out recall 3.6 points and half the other-language types
# (yielding only where a session opens with a question or a request: recall 1.8, a quarter)
# (docs/benchmarks.md, "how they generalise"), so it stays; this list must not grow.
KNOWN_ML_LEARNED = {
    "en_review_1",
    "zh_bugfix_2",
    "de_errand_1",
    "de_everyday_1",
    "de_question_1",
    "it_errand_1",
    "it_review_1",
    "ko_bugfix_1",
}


@pytest.fixture(autouse=True)
def no_real_waits() -> None:
    """No waits here, but a model loads: tests/core/llm's five-second budget is for providers."""


@pytest.mark.parametrize(("data", "known"), [(DATA, KNOWN), (DATA_ML, KNOWN_ML)], ids=["en-zh", "ten"])
def test_routine_sessions_are_not_proposed(data: Path, known: set[str]) -> None:
    sessions: dict[str, list[str]] = json.loads(data.read_text(encoding="utf-8"))["sessions"]
    assert len(sessions) >= 30
    proposed = {}
    for name, turns in sessions.items():
        out = rules.score(turns[0][:79], "", user_turns=turns)
        if out.type != "none":
            proposed[name] = (out.type, out.title)
    assert set(proposed) <= known, {k: v for k, v in proposed.items() if k not in known}


@pytest.mark.parametrize(
    ("data", "known"), [(DATA, KNOWN_LEARNED), (DATA_ML, KNOWN_ML_LEARNED)], ids=["en-zh", "ten"]
)
def test_routine_sessions_are_not_proposed_by_the_learned_type(data: Path, known: set[str]) -> None:
    """The classifier decides where the cue words do not (memoryd.llm.typeclf): it must not
    turn routine chatter into proposals the cues left alone."""
    from memoryd.embed.use import UseEmbedder

    embedder = UseEmbedder()
    sessions: dict[str, list[str]] = json.loads(data.read_text(encoding="utf-8"))["sessions"]
    proposed = {}
    for name, turns in sessions.items():
        out = rules.score(turns[0][:79], "", user_turns=turns, embedder=embedder)
        if out.type != "none":
            proposed[name] = (out.type, out.title)
    assert set(proposed) <= known, {k: v for k, v in proposed.items() if k not in known}
