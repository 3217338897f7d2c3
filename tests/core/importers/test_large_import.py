"""A 3,000-record memory-system store imports in one run, with batched audit events."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from tests.conftest import run_cli
from tests.core.importers.support import listed, run_import

RECORDS = 3000
BATCH = 500  # importers.common.BATCH: one audit event per this many memories at most


def write_facts(root: Path, n: int) -> Path:
    """layer2/active/facts.jsonl with n seed-003 fact records, English and Chinese mixed."""
    path = root / "memory" / "layer2" / "active" / "facts.jsonl"
    path.parent.mkdir(parents=True)
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            day = 1 + i % 28
            content = (
                f"项目 {i % 50} 的第 {i} 条记录"
                if i % 3 == 0
                else f"Fact {i}: service {i % 41} runs on port {8000 + i}"
            )
            rec = {
                "id": f"f_202610{day:02d}_{i:04d}",
                "content": content,
                "importance": [0.2, 0.5, 0.8, 1.0][i % 4],
                "score": round(0.3 + (i % 70) / 100, 2),
                "entities": ["用户"],
                "source": f"session_{i // 40:08x}:{i % 40}",
                "created": f"2026-10-{day:02d}T10:30:00Z",
            }
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return path


def import_events(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["event_type"] == "import"]


def test_large_import_is_batched_and_idempotent(tmp_path: Path, project: Path, isolated_home: Path) -> None:
    """3,000 records import in one run and a rerun leaves them all unchanged; the audit log
    holds a handful of import events (one per batch), whose chain verifies."""
    write_facts(tmp_path / "workspace", RECORDS)
    report = run_import("memory-system", str(tmp_path / "workspace"), "--scope", str(project))
    assert (report["imported"], report["updated"], report["unchanged"]) == (RECORDS, 0, 0)
    assert (report["malformed"], report["skipped"]) == (0, 0)
    rows = listed(project)
    assert len(rows) == len({r["session_key"] for r in rows}) == RECORDS

    out = run_cli("audit", "--json")
    assert out.returncode == 0, out.stderr
    events = import_events(json.loads(out.stdout))
    assert 0 < len(events) <= -(-RECORDS // BATCH)
    assert sum(json.loads(e["details"])["count"] for e in events) == RECORDS
    lines = (isolated_home / "audit" / "audit.jsonl").read_text(encoding="utf-8").splitlines()
    assert Counter(json.loads(line)["event_type"] for line in lines)["import"] == len(events)

    again = run_import("memory-system", str(tmp_path / "workspace"), "--scope", str(project))
    assert (again["imported"], again["updated"], again["unchanged"]) == (0, 0, RECORDS)
    assert len(listed(project)) == RECORDS
    assert len(import_events(json.loads(run_cli("audit", "--json").stdout))) == len(events)
    verify = run_cli("audit", "verify")
    assert verify.returncode == 0, verify.stderr
