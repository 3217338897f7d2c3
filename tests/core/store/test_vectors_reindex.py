"""`memoryd reindex` embeds what has no vector, in committed batches: a real reindex
SIGKILLed part-way keeps what it committed and a rerun embeds only the rest. `doctor`
counts what is missing and names the fix; the capture worker fills it in."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from memoryd import slugs
from memoryd.app import Memoryd
from memoryd.frontmatter import Document
from memoryd.models import Frontmatter, MemoryType, default_ttl
from memoryd.scope import resolve

BATCH = 64  # Store.embed_vectors' default


def population(scope_hash: str, n: int) -> list[tuple[Document, None]]:
    now = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
    out = []
    for i in range(n):
        title = f"Release note {i}"
        meta = Frontmatter(
            title=title,
            slug=slugs.for_title(title, now) + f"-{i}",
            type=MemoryType.fact,
            scope_hash=scope_hash,
            source="manual",
            created_at=now,
            updated_at=now,
            ttl_days=default_ttl(MemoryType.fact),
        )
        out.append((Document(meta=meta, body=f"Version {i}.0 moved the cache to region {i % 7}.\n"), None))
    return out


def vector_rows(db: Path) -> int:
    con = sqlite3.connect(db)
    try:
        return int(con.execute("SELECT count(*) FROM vectors").fetchall()[0][0])
    finally:
        con.close()


def test_a_killed_reindex_keeps_its_batches_and_a_rerun_embeds_only_the_rest(
    cli, isolated_home: Path, project: Path
) -> None:
    n = 2 * BATCH + 22
    store = Memoryd().store
    assert store.save_many(population(resolve(project).hash, n), actor="test") == n
    store.engine.dispose()

    killed = subprocess.run(
        [sys.executable, "-m", "memoryd.cli.main", "reindex"],
        env={**os.environ, "MEMORYD_KILL_AT": "vectors:batch@2"},
        capture_output=True,
        timeout=300,
        check=False,
    )
    assert killed.returncode == -9, killed.stderr[-2000:]
    assert vector_rows(isolated_home / "index.db") == 2 * BATCH  # two committed batches

    doctor = cli("doctor", "--json")
    assert json.loads(doctor.stdout)["vectors_missing"] == n - 2 * BATCH, doctor.stderr
    out = cli("reindex", "--json")
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout)
    assert rep["embedded"] == n - 2 * BATCH and rep["vectors_missing"] == 0, rep
    assert vector_rows(isolated_home / "index.db") == n
    assert json.loads(cli("reindex", "--json").stdout)["embedded"] == 0


def test_doctor_reports_missing_vectors_and_the_worker_fills_them(
    cli, isolated_home: Path, project: Path
) -> None:
    out = cli(
        "record",
        "--type",
        "fact",
        "--title",
        "Editor",
        "--body",
        "We write code in Helix.",
        "--scope",
        str(project),
    )
    assert out.returncode == 0, out.stderr
    doctor = cli("doctor")
    assert doctor.returncode == 0, doctor.stdout  # a warning: keyword search finds it meanwhile
    assert "1 texts without a vector" in doctor.stdout and "`memoryd reindex`" in doctor.stdout, doctor.stdout

    # A memory indexed before vectors existed (migration 017) has no refs at all.
    con = sqlite3.connect(isolated_home / "index.db")
    con.execute("DELETE FROM vector_refs")
    con.commit()
    con.close()
    doctor = cli("doctor", "--json")
    got = json.loads(doctor.stdout)
    assert (got["vectors_unreferenced"], got["vectors_missing"]) == (1, 0), got
    assert "1 memories never embedded" in cli("doctor").stdout

    worker = subprocess.run(
        [sys.executable, "-m", "memoryd.capture.worker"], capture_output=True, timeout=300, check=False
    )
    assert worker.returncode == 0, worker.stderr[-2000:]
    assert vector_rows(isolated_home / "index.db") == 1
    doctor = cli("doctor")
    assert "vectors" not in doctor.stdout, doctor.stdout
    log = "".join(p.read_text() for p in (isolated_home / "logs").glob("*.log"))
    assert "embedded 1 texts" in log, log[-2000:]
