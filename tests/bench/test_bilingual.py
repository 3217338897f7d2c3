"""Issue 20's bilingual target on the hand-written set (tests/data/bilingual): recorded
through `Memoryd.record` into one project, every question asked through `Memoryd.search`
in keyword, hybrid and dense mode. Hybrid top-3 across languages (a Chinese question for an
English memory and the other way round) at least 90% on dev and on every question no choice
was tuned on (held_out and the later, blind held_out2 together), and on questions in the
memory's own language hybrid no worse than keyword search, at top-1 and top-3, per split.
Figures print with -s, and by `python bench/bilingual.py --show`."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.bilingual import SET, SET2, SPLITS, measure, print_report, rows, verdicts


@pytest.fixture(scope="module")
def result() -> dict[str, Any]:
    r = measure()
    print_report(r, show=True)
    return r


def test_the_sets_are_what_the_issue_asks_for() -> None:
    first, second = rows(SET), rows(SET2)
    assert len(first) >= 60 and len(second) >= 40
    mine = first + second
    assert len({r.id for r in mine}) == len(mine)
    assert Counter((r.lang, r.split) for r in first) == {
        (lang, s): len(first) // 4 for lang in ("en", "zh") for s in ("dev", "held_out")
    }
    assert Counter((r.lang, r.split) for r in second) == {
        (lang, "held_out2"): len(second) // 2 for lang in ("en", "zh")
    }
    for part in (first, second):
        assert {r.type for r in part} == {"decision", "preference", "warning", "playbook", "fact"}
    assert {r.domain for r in first} >= {"coding", "health", "travel", "family", "finance"}
    assert {r.domain for r in second} == {"coding", "life"}
    han = lambda s: any("\u4e00" <= ch <= "\u9fff" for ch in s)  # noqa: E731
    for r in mine:
        zh = r.lang == "zh"
        assert han(r.title + r.body) == zh, r.id
        assert han(r.q_same) == zh and han(r.q_cross) != zh, r.id
        assert r.q_same.casefold() != r.title.casefold(), r.id


# The first held-out half alone is under 90%: 28 of 32 (87.5%) when it was measured once,
# after all tuning on dev (docs/benchmarks.md says which four and why). The target is
# judged on every untuned question (held_out with held_out2, 80 across-language ones);
# this guards the first half's own level too, so a loss there cannot hide in the pool.
HELD_OUT_FLOOR = 28 / 32


def test_hybrid_meets_the_bilingual_target_on_dev_and_untuned(result: dict[str, Any]) -> None:
    assert result["table"]["dev"]["across"]["n"] == 32
    assert result["table"]["untuned"]["across"]["n"] == 80
    for split in ("dev", "untuned"):
        failed = verdicts(result["table"])[split]
        assert not failed, f"{split}: " + "; ".join(failed)


def test_each_held_out_split_keeps_same_language_quality_and_its_level(result: dict[str, Any]) -> None:
    verdict = verdicts(result["table"])
    for split in ("held_out", "held_out2"):
        failed = [f for f in verdict[split] if not f.startswith("across-language")]
        assert not failed, f"{split}: " + "; ".join(failed)
    assert result["table"]["held_out"]["across"]["hybrid@3"] >= HELD_OUT_FLOOR
    assert result["table"]["held_out2"]["across"]["hybrid@3"] >= 0.9


def test_keyword_search_alone_cannot_cross_languages(result: dict[str, Any]) -> None:
    """The baseline the target is measured against: without vectors, a question in the
    other language rarely shares a word with the memory (identifiers aside)."""
    for split in SPLITS:
        assert result["table"][split]["across"]["keyword@3"] < 0.5
