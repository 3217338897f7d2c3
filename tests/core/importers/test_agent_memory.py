"""`memoryd import agent-memory`: seed 004's memory.db, read-only, typed, expired rows left."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli
from tests.core.importers.fixtures import AgentMemoryFixture, build_agent_memory_db
from tests.core.importers.support import by_key, listed, one_line_error, read_doc, run_import

SOURCE = "importer-agent-memory"
EXPECTED = {
    "FACT": "fact",
    "PREFERENCE": "preference",
    "SKILL": "playbook",
    "ERROR": "warning",
    "RULE": "preference",
}


@dataclass(frozen=True)
class Built:
    fx: AgentMemoryFixture
    digest: str  # sha256 of memory.db as built
    files: list[str]  # names in its folder as built


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """One memory.db for the module, with its bytes fingerprinted before any import."""
    fx = build_agent_memory_db(tmp_path_factory.mktemp("agent-memory"))
    return Built(fx, hashlib.sha256(fx.root.read_bytes()).hexdigest(), sorted(os.listdir(fx.root.parent)))


def rows_of(path: Path, sql: str) -> list[sqlite3.Row]:
    """Read the fixture db read-only, so the test itself cannot touch its bytes."""
    with closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)) as conn:
        conn.row_factory = sqlite3.Row
        return conn.execute(sql).fetchall()


def test_counts(db: Built, project: Path) -> None:
    """Good memories and every episode are imported; NULL content is malformed; expired rows
    are skipped, saying so."""
    report = run_import("agent-memory", str(db.fx.root), "--scope", str(project))
    assert report["source"] == SOURCE
    assert report["imported"] == db.fx.memories_ok + db.fx.episodes
    assert report["malformed"] == db.fx.bad_rows
    assert report["skipped"] == db.fx.expired
    assert all("expired" in why for why in report["skipped_items"])
    assert report["scopes"] and len(by_key(listed(project))) == report["imported"]


def test_type_mapping_and_episodes(db: Built, project: Path, isolated_home: Path) -> None:
    """SKILL -> playbook, ERROR -> warning, RULE -> preference tagged rule (FACT and
    PREFERENCE as named); episodes are sessions with Goal and Outcome sections."""
    run_import("agent-memory", str(db.fx.root), "--scope", str(project))
    rows = by_key(listed(project))
    memories = rows_of(db.fx.root, "SELECT id, type, content, expires_at FROM memories")
    seen = set()
    for m in memories:
        row = rows.get(f"{SOURCE}:memory:{m['id']}")
        expired = m["expires_at"] is not None and m["expires_at"] < "2026"  # the fixture's 2020 row
        if m["content"] is None or expired:
            assert row is None
            continue
        assert row is not None, m["content"]
        assert row["type"] == EXPECTED[m["type"]], (m["type"], row["type"])
        tags = read_doc(isolated_home, row).meta.tags
        assert ("rule" in tags) == (m["type"] == "RULE"), (m["type"], tags)
        seen.add(m["type"])
    assert seen == set(EXPECTED)

    episodes = rows_of(db.fx.root, "SELECT id, goal, outcome FROM episodes")
    assert len(episodes) == db.fx.episodes
    for ep in episodes:
        row = rows[f"{SOURCE}:episode:{ep['id']}"]
        assert row["type"] == "session"
        body = read_doc(isolated_home, row).body
        assert f"## Goal\n{ep['goal']}\n" in body
        assert f"## Outcome\n{ep['outcome']}\n" in body


def test_db_is_not_modified(db: Built, project: Path) -> None:
    """The import opens memory.db read-only: same bytes after, no journal left beside it."""
    run_import("agent-memory", str(db.fx.root), "--scope", str(project))
    assert hashlib.sha256(db.fx.root.read_bytes()).hexdigest() == db.digest
    assert sorted(os.listdir(db.fx.root.parent)) == db.files


def test_not_sqlite_and_no_tables_are_usage_errors(tmp_path: Path, project: Path) -> None:
    """A file that is not SQLite, and a database with neither table: exit 2, one line."""
    text = tmp_path / "memory.db"
    text.write_text("this is a text file, not a database\n" * 40, encoding="utf-8")
    one_line_error(run_cli("import", "agent-memory", str(text), "--scope", str(project)), 2, "SQLite")
    other = tmp_path / "other.db"
    with closing(sqlite3.connect(other)) as conn:
        conn.execute("CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT)")
        conn.commit()
    one_line_error(run_cli("import", "agent-memory", str(other), "--scope", str(project)), 2, "neither")
    assert json.loads(run_cli("list", "--all-scopes", "--json").stdout) == []


def test_second_run_changes_nothing(db: Built, project: Path) -> None:
    """A rerun imports nothing and duplicates nothing."""
    first = run_import("agent-memory", str(db.fx.root), "--scope", str(project))
    before: dict[str, Any] = {k: r["slug"] for k, r in by_key(listed(project)).items()}
    again = run_import("agent-memory", str(db.fx.root), "--scope", str(project))
    assert (again["imported"], again["updated"], again["unchanged"]) == (0, 0, first["imported"])
    assert again["skipped"] == db.fx.expired and again["malformed"] == db.fx.bad_rows
    assert {k: r["slug"] for k, r in by_key(listed(project)).items()} == before
