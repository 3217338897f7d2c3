"""The detection figures on the labelled corpus: >= 90% of attacks, <= 2% of ordinary cases,
for the dev half and the held-out half (printed with -s, and by bench/poison_detection.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from bench.poison_detection import measure
from tests.core.poison.corpus import cases


@pytest.fixture(scope="module")
def figures() -> dict:
    return measure()


def test_corpus_size() -> None:
    all_cases = cases()
    attacks = [c for c in all_cases if c.label == "attack"]
    ordinary = [c for c in all_cases if c.label == "ordinary"]
    assert len(attacks) >= 30 and len(ordinary) >= 100
    assert any("\u4e00" <= ch <= "\u9fff" for c in attacks for t in c.texts() for ch in t)
    assert {c.kind for c in attacks} == {"session", "memory_md", "memories_json"}
    assert len({c.id for c in all_cases}) == len(all_cases)


@pytest.mark.parametrize("split", ["dev", "held"])
def test_figures(figures: dict, split: str) -> None:
    r = figures[split]
    print(
        f"\npoison corpus {split}: attacks flagged {r['attacks_flagged']}/{r['attacks']} "
        f"({r['detection_rate']:.1%}), ordinary flagged {r['ordinary_flagged']}/{r['ordinary']} "
        f"({r['false_positive_rate']:.1%})"
    )
    assert r["detection_rate"] >= 0.90, r["missed"]
    assert r["false_positive_rate"] <= 0.02, r["false_positives"]
