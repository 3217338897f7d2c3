"""Migrations: blank -> latest equals the SQLModel tables; an older schema upgrades."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlmodel import SQLModel

from memoryd.db import tables  # noqa: F401  (registers the tables)
from memoryd.db.engine import migrations, open_index, probe, schema_version


def _columns(db: Path) -> dict[str, set[str]]:
    con = sqlite3.connect(db)
    names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    out = {n: {r[1] for r in con.execute(f'PRAGMA table_info("{n}")')} for n in names}
    con.close()
    return out


def test_blank_to_latest_matches_sqlmodel(tmp_path: Path):
    db = tmp_path / "index.db"
    engine = open_index(db)
    assert schema_version(engine) == migrations()[-1][0] == 21
    cols = _columns(db)
    for name, table in SQLModel.metadata.tables.items():
        assert name in cols, f"table {name} missing from migrations"
        assert cols[name] == {c.name for c in table.columns}, name
    seed_tables = {
        "memories",
        "triggers",
        "promotions",
        "sensitive_scopes",
        "entities",
        "relations",
        "supersedes_chain",
        "profile_versions",
        "trigger_stats",
        "profile_change_reports",
    }
    assert seed_tables <= set(SQLModel.metadata.tables)
    assert {"memories_fts", "turns_fts"} <= set(cols)
    # the nightly consolidation's checkpoints (012): plain SQL, no SQLModel table
    assert {"consolidation_state", "consolidation_phases", "consolidation_done"} <= set(cols)
    # sync's ledger of applied versions and what a sync is about to write (013): plain SQL
    assert {"sync_applied", "sync_pending"} <= set(cols)
    # vectors for hybrid search (017): plain SQL, read through sqlite3 by memoryd.vectors
    assert cols["vectors"] == {"fingerprint", "model", "dim", "sealed", "data"}
    assert cols["vector_refs"] == {"slug", "level", "part", "fingerprint"}
    # what migration 018's triggers count for Vectors.missing: plain SQL
    assert cols["vector_texts"] == {"id", "n"}
    assert cols["vector_have"] == {"model", "n"}
    # undo of review actions and "not duplicates" decisions (019): plain SQL
    assert cols["review_actions"] == {
        "id",
        "kind",
        "at",
        "actor",
        "scope_hash",
        "target",
        "detail",
        "undone_at",
    }
    assert cols["not_duplicates"] == {"group_key", "scope_hash", "decided_at"}
    # project names (020): plain SQL, read through sqlite3 by memoryd.projects
    assert cols["project_names"] == {"scope_hash", "name", "root", "kind", "sealed", "seen_at"}
    # memories to re-index once for kana and hangul bigrams (021): plain SQL, store/index.py
    assert cols["resegment"] == {"slug"}
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    applied = [r[0] for r in con.execute("SELECT version FROM schema_migrations")]
    assert applied == list(range(1, 22))


def test_reopen_is_idempotent_and_old_schema_upgrades(tmp_path: Path):
    db = tmp_path / "index.db"
    con = sqlite3.connect(db)
    con.execute(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
        "applied_at TEXT NOT NULL)"
    )
    for version, name, sql in migrations()[:3]:
        con.executescript(sql)
        con.execute("INSERT INTO schema_migrations VALUES (?, ?, 'then')", (version, name))
    con.execute(
        "INSERT INTO memories (slug, type, scope_hash, title, source, created_at, fingerprint, body_path)"
        " VALUES ('old', 'fact', 'abcdefabcdef', 't', 'manual', 'x', 'f', 'p')"
    )
    con.commit()
    con.close()
    engine = open_index(db)
    assert schema_version(engine) == 21
    open_index(db)  # again: nothing to do, nothing breaks
    con = sqlite3.connect(db)
    assert con.execute("SELECT slug, scope_sensitive, session_key, suspect FROM memories").fetchall() == [
        ("old", 0, None, None)
    ]


def test_probe_reports_fts5():
    caps = probe()
    assert caps.fts5 and caps.sqlite_version.count(".") == 2
