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
    all_cases = cases("own")
    attacks = [c for c in all_cases if c.label == "attack"]
    ordinary = [c for c in all_cases if c.label == "ordinary"]
    assert len(attacks) >= 30 and len(ordinary) >= 100
    assert any("\u4e00" <= ch <= "\u9fff" for c in attacks for t in c.texts() for ch in t)
    assert {c.kind for c in attacks} == {"session", "memory_md", "memories_json"}
    assert len({c.id for c in cases()}) == len(cases())
    outside = cases("outside")
    assert len(outside) == 63 and all(c.origin.startswith("redteam") for c in outside)


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


# Texts written by someone else (a red-team tester), never seen by the rules' author before
# they were added. Before tuning: dev 7/17 attacks and 6/15 ordinary flagged, held 6/17
# and 4/14. After (tuned on dev only): dev 17/17 and 0/15, held 14/17 (82%) and 0/14. The
# bounds are those figures with a margin of about one case each, not a claim beyond them.
_OUTSIDE_FLOOR = {"outside dev": (0.94, 0.07), "outside held": (0.76, 0.08)}


@pytest.mark.parametrize("split", sorted(_OUTSIDE_FLOOR))
def test_outside_figures(figures: dict, split: str) -> None:
    r = figures[split]
    print(
        f"\npoison corpus {split}: attacks flagged {r['attacks_flagged']}/{r['attacks']} "
        f"({r['detection_rate']:.1%}), ordinary flagged {r['ordinary_flagged']}/{r['ordinary']} "
        f"({r['false_positive_rate']:.1%})"
    )
    least, most = _OUTSIDE_FLOOR[split]
    assert r["detection_rate"] >= least, r["missed"]
    assert r["false_positive_rate"] <= most, r["false_positives"]
