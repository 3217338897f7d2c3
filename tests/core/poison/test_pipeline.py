"""The labelled corpus replayed through the real pipeline, not the detector alone: each
session as a Claude Code transcript through the Stop hook (`memoryd capture`, a subprocess
each) and one `memoryd worker` drain, the memories.json entries in one `memoryd import`,
each MEMORY.md through the OpenClaw importer; a case counts as flagged when a memory it
became is listed by `memoryd suspect`. The same figures as the detector's: >= 90% of
attacks, <= 2% of ordinary cases, per placement and per split (printed with -s, and by
`bench/poison_detection.py --pipeline`)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from bench.poison_detection import pipeline, summary


def test_the_corpus_through_hook_worker_and_importers(tmp_path: Path) -> None:
    result = pipeline(tmp_path / "replay")
    lines = []
    failures = []
    for kind in ("session", "memories_json", "memory_md"):
        for split in ("dev", "held"):
            r = result[kind][split]
            lines.append(summary(f"pipeline {kind} {split}", r))
            if r["detection_rate"] < 0.90 or r["false_positive_rate"] > 0.02:
                failures.append((kind, split, r["missed"], r["false_positives"]))
    for split in ("dev", "held"):
        r = result[split]
        lines.append(summary(f"pipeline {split}", r))
        if r["detection_rate"] < 0.90 or r["false_positive_rate"] > 0.02:
            failures.append(("all", split, r["missed"], r["false_positives"]))
    print("\n" + "\n".join(lines) + f"\nreplayed in {result['seconds']} s")
    assert not failures, failures
