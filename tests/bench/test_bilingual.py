"""Issue 20's bilingual target on the hand-written set (tests/data/bilingual): recorded
through `Memoryd.record` into one project, every question asked through `Memoryd.search`
in keyword, hybrid and dense mode. On each split: hybrid top-3 across languages (a Chinese
question for an English memory and the other way round) at least 90%, and on questions in
the memory's own language hybrid no worse than keyword search, at top-1 and top-3.
Figures print with -s, and by `python bench/bilingual.py --show`."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.bilingual import SPLITS, measure, print_report, rows, verdicts


@pytest.fixture(scope="module")
def result() -> dict[str, Any]:
    r = measure()
    print_report(r, show=True)
    return r


def test_the_set_is_what_the_issue_asks_for() -> None:
    mine = rows()
    assert len(mine) >= 60
    assert len({r.id for r in mine}) == len(mine)
    assert Counter((r.lang, r.split) for r in mine) == {
        (lang, s): len(mine) // 4 for lang in ("en", "zh") for s in SPLITS
    }
    assert {r.type for r in mine} == {"decision", "preference", "warning", "playbook", "fact"}
    assert {r.domain for r in mine} >= {"coding", "health", "travel", "family", "finance"}
    han = lambda s: any("\u4e00" <= ch <= "\u9fff" for ch in s)  # noqa: E731
    for r in mine:
        zh = r.lang == "zh"
        assert han(r.title + r.body) == zh, r.id
        assert han(r.q_same) == zh and han(r.q_cross) != zh, r.id
        assert r.q_same.casefold() != r.title.casefold(), r.id


# The held-out half misses the issue's 90%: 28 of 32 (87.5%) when it was measured once,
# after all tuning on dev (docs/benchmarks.md says which four and why). Tuning until it
# passes would fit the held-out half, so this guards today's level, one question below it,
# and the same-language rule in full; the issue stays open on this figure.
HELD_OUT_FLOOR = 27 / 32


def test_hybrid_meets_the_bilingual_target_on_dev(result: dict[str, Any]) -> None:
    assert result["table"]["dev"]["across"]["n"] == 32
    failed = verdicts(result["table"])["dev"]
    assert not failed, "; ".join(failed)


def test_held_out_keeps_same_language_quality_and_todays_cross_language_level(
    result: dict[str, Any],
) -> None:
    t = result["table"]["held_out"]
    assert t["across"]["n"] == 32
    assert t["across"]["hybrid@3"] >= HELD_OUT_FLOOR
    failed = [f for f in verdicts(result["table"])["held_out"] if not f.startswith("across-language")]
    assert not failed, "; ".join(failed)


def test_keyword_search_alone_cannot_cross_languages(result: dict[str, Any]) -> None:
    """The baseline the target is measured against: without vectors, a question in the
    other language rarely shares a word with the memory (identifiers aside)."""
    for split in SPLITS:
        assert result["table"][split]["across"]["keyword@3"] < 0.5
