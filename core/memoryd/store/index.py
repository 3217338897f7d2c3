"""Everything the store says to SQLite. Callers own the session and the transaction."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import bindparam, text
from sqlmodel import Session

from memoryd import index_sql as sql
from memoryd import vectors
from memoryd.index_sql import BM25_WEIGHTS, MEMORY_COLUMNS, Hit, TurnHit
from memoryd.store.files import Turn
from memoryd.textproc import segment

__all__ = ["BM25_WEIGHTS", "MEMORY_COLUMNS", "Hit", "TurnHit"]

_COLS = sql.COLS
_PARAMS = ", ".join(":" + c for c in MEMORY_COLUMNS)
_UPDATES = ", ".join(f"{c} = excluded.{c}" for c in MEMORY_COLUMNS if c != "slug")


def _rows(result: Any) -> list[dict[str, Any]]:
    return [sql.memory_row(dict(r._mapping)) for r in result]


def unchecked(s: Session) -> list[dict[str, Any]]:
    """Memories the poison detector has not read (indexed before it, migration 015)."""
    statement = (
        "SELECT slug, scope_hash, scope_sensitive FROM memories WHERE suspect_checked = 0 ORDER BY slug"
    )
    return [dict(r._mapping) for r in s.exec(text(statement))]


def mark_checked(s: Session, slug: str) -> None:
    s.exec(text("UPDATE memories SET suspect_checked = 1 WHERE slug = :slug"), params={"slug": slug})


def upsert_memory(
    s: Session,
    row: dict[str, Any],
    triggers: Sequence[str],
    fts: dict[str, str],
    turns: Sequence[Turn] | None,
) -> None:
    """Insert or replace one memory's rows: main row, triggers, FTS document, turns.
    `turns=None` leaves stored turns as they are. A sensitive memory (scope_sensitive)
    gets its main row only: no words of it enter the index."""
    s.exec(
        text(
            f"INSERT INTO memories ({_COLS}, suspect_checked) VALUES ({_PARAMS}, 1) "
            f"ON CONFLICT(slug) DO UPDATE SET {_UPDATES}, suspect_checked = 1"
        ),
        params=row,
    )
    slug = row["slug"]
    s.exec(text("DELETE FROM triggers WHERE slug = :slug"), params={"slug": slug})
    if row.get("scope_sensitive"):
        drop_words(s, slug)
        return
    for trig in dict.fromkeys(triggers):
        s.exec(
            text('INSERT INTO triggers (slug, "trigger") VALUES (:slug, :t)'),
            params={"slug": slug, "t": trig},
        )
    doc_id = s.exec(text("SELECT id FROM fts_docs WHERE slug = :slug"), params={"slug": slug}).scalar()
    if doc_id is None:
        doc_id = s.exec(
            text("INSERT INTO fts_docs (slug) VALUES (:slug) RETURNING id"), params={"slug": slug}
        ).scalar()
    else:
        s.exec(text("DELETE FROM memories_fts WHERE rowid = :id"), params={"id": doc_id})
    if turns is not None:
        replace_turns(s, slug, turns)
        fts = {**fts, "traces": "\n".join(t.text for t in turns)}
    else:
        fts = {**fts, "traces": stored_traces(s, slug)}
    s.exec(
        text(
            "INSERT INTO memories_fts (rowid, title, body, triggers, tags, traces) "
            "VALUES (:id, :title, :body, :triggers, :tags, :traces)"
        ),
        params={"id": doc_id, **{k: segment(v) for k, v in fts.items()}},
    )


def drop_words(s: Session, slug: str) -> None:
    """Remove a memory's searchable text (FTS rows, turns), keeping its main row."""
    s.exec(
        text("DELETE FROM memories_fts WHERE rowid IN (SELECT id FROM fts_docs WHERE slug = :slug)"),
        params={"slug": slug},
    )
    s.exec(text("DELETE FROM fts_docs WHERE slug = :slug"), params={"slug": slug})
    s.exec(
        text("DELETE FROM turns_fts WHERE rowid IN (SELECT id FROM turns WHERE slug = :slug)"),
        params={"slug": slug},
    )
    s.exec(text("DELETE FROM turns WHERE slug = :slug"), params={"slug": slug})


def stored_traces(s: Session, slug: str) -> str:
    rows = s.exec(text(sql.STORED_TRACES), params={"slug": slug}).all()
    return "\n".join(r[0] for r in rows)


def stored_traces_many(con: sqlite3.Connection, slugs: Sequence[str]) -> dict[str, str]:
    """`stored_traces` of each slug ("" for a memory without turns), in one statement."""
    texts: dict[str, list[str]] = {slug: [] for slug in slugs}
    if texts:
        statement, params = sql.traces_of(list(texts))
        for slug, text in con.execute(statement, params):
            texts[slug].append(text)
    return {slug: "\n".join(t) for slug, t in texts.items()}


def started(con: sqlite3.Connection, slugs: Sequence[str]) -> dict[str, str]:
    """Each session's first turn time, in one statement (memoryd.index_sql.started_of)."""
    return dict(con.execute(*sql.started_of(slugs)).fetchall())


def replace_turns(s: Session, slug: str, turns: Sequence[Turn]) -> None:
    s.exec(
        text("DELETE FROM turns_fts WHERE rowid IN (SELECT id FROM turns WHERE slug = :slug)"),
        params={"slug": slug},
    )
    s.exec(text("DELETE FROM turns WHERE slug = :slug"), params={"slug": slug})
    for t in turns:
        turn_id = s.exec(
            text(
                "INSERT INTO turns (slug, seq, role, ts, ext_id, text) "
                "VALUES (:slug, :seq, :role, :ts, :ext_id, :text) RETURNING id"
            ),
            params={
                "slug": slug,
                "seq": t.seq,
                "role": t.role,
                "ts": t.ts,
                "ext_id": t.ext_id,
                "text": t.text,
            },
        ).scalar()
        s.exec(
            text("INSERT INTO turns_fts (rowid, role, text) VALUES (:id, :role, :text)"),
            params={"id": turn_id, "role": t.role, "text": segment(t.text)},
        )


def clear_derived(s: Session, keep_scopes: Sequence[str] = ()) -> None:
    """Everything reindex can rebuild from files. Governance tables are left alone, and
    so are the rows of `keep_scopes` (sensitive scopes whose key is not at hand)."""
    for table in ("memories_fts", "turns_fts", "turns", "fts_docs", "triggers"):
        s.exec(text(f"DELETE FROM {table}"))
    vectors.clear_refs(s.connection().connection.driver_connection, keep_scopes)
    s.exec(
        text(
            "DELETE FROM memories WHERE slug NOT IN (SELECT source_session_slug FROM promotions) "
            "AND scope_hash NOT IN :keep"
        ).bindparams(bindparam("keep", expanding=True)),
        params={"keep": list(keep_scopes) or [""]},
    )


def get(s: Session, slug: str) -> dict[str, Any] | None:
    rows = _rows(s.exec(text(sql.GET), params={"slug": slug}))
    return rows[0] if rows else None


def get_many(con: sqlite3.Connection, slugs: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Rows by slug in one statement (dense search candidates keyword search did not bring).
    Plain sqlite3: SQLAlchemy's result rows cost ~40 us each, most of a hybrid search's own
    time (issue 20)."""
    if not slugs:
        return {}
    statement, params = sql.get_many(slugs)
    cur = con.execute(statement, params)
    return {r[0]: sql.memory_row(dict(zip(MEMORY_COLUMNS, r, strict=True))) for r in cur}


def turns_at(s: Session, keys: Sequence[tuple[str, int]]) -> dict[tuple[str, int], TurnHit]:
    """Turns by (slug, seq), score 0: dense level-2 candidates keyword search did not bring."""
    out: dict[tuple[str, int], TurnHit] = {}
    for slug, seqs in sql.by_slug(keys).items():
        statement, params = sql.turns_at(slug, seqs)
        for r in s.exec(text(statement), params=params):
            out[(r[0], int(r[1]))] = TurnHit(*r[:6], 0.0)
    return out


def same_fingerprint(s: Session, scope_hash: str, memory_type: str, fingerprint: str) -> list[str]:
    """Live memories of a scope and type whose body has this fingerprint (keyed in a
    sensitive scope), oldest first: the candidates for "already recorded"."""
    rows = s.exec(
        text(
            "SELECT slug FROM memories WHERE fingerprint = :fp AND scope_hash = :scope "
            "AND type = :type AND decay_state != 'forgotten' AND superseded_by IS NULL "
            "ORDER BY created_at, slug"
        ),
        params={"fp": fingerprint, "scope": scope_hash, "type": memory_type},
    )
    return [r[0] for r in rows]


def slug_for_session(s: Session, session_key: str) -> str | None:
    return s.exec(
        text("SELECT slug FROM memories WHERE session_key = :k"), params={"k": session_key}
    ).scalar()


def scope_hashes(s: Session) -> set[str]:
    return {str(r[0]) for r in s.exec(text("SELECT DISTINCT scope_hash FROM memories"))}


def has_sealed_rows(s: Session, scope_hash: str) -> bool:
    """Memories indexed as a sensitive scope's (memoryd.sensitive.keys.Keys.settings_lost)."""
    return (
        s.exec(
            text("SELECT 1 FROM memories WHERE scope_hash = :h AND scope_sensitive = 1 LIMIT 1"),
            params={"h": scope_hash},
        ).first()
        is not None
    )


def triggers_of(s: Session, slug: str) -> list[str]:
    rows = s.exec(text(sql.TRIGGERS_OF), params={"slug": slug}).all()
    return [r[0] for r in rows]


def list_rows(
    s: Session,
    *,
    scopes: Sequence[str] | None,
    types: Sequence[str] | None,
    states: Sequence[str] | None,
    limit: int | None,
) -> list[dict[str, Any]]:
    statement, params = sql.list_rows(scopes, types, states, limit)
    return _rows(s.exec(text(statement), params=params))


def search(
    s: Session,
    match: str,
    *,
    scopes: Sequence[str] | None,
    types: Sequence[str] | None,
    states: Sequence[str] | None,
    limit: int,
) -> list[tuple[Hit, dict[str, Any]]]:
    """Hits with their memory rows, in one statement (not one more query per hit)."""
    statement, params = sql.search(match, scopes, types, states, limit)
    return [sql.hit(tuple(r)) for r in s.exec(text(statement), params=params)]


def verbatim(
    s: Session,
    needles: Sequence[str],
    *,
    scopes: Sequence[str] | None,
    types: Sequence[str] | None,
    states: Sequence[str] | None,
    limit: int,
) -> list[dict[str, Any]]:
    statement, params = sql.verbatim(needles, scopes, types, states, limit)
    return [sql.hit(tuple(r))[1] for r in s.exec(text(statement), params=params)]


def search_turns(
    s: Session, match: str, *, scopes: Sequence[str] | None, states: Sequence[str] | None, limit: int
) -> list[TurnHit]:
    def run(statement: str, params: dict[str, Any]) -> list[tuple[Any, ...]]:
        return [tuple(r) for r in s.exec(text(statement), params=params)]

    return sql.ranked_turns(run, match, scopes, states, limit)


def mark_recalled(s: Session, slug: str, when: str) -> None:
    s.exec(text(sql.MARK_RECALLED), params={"slug": slug, "ts": when})
    s.exec(text(sql.RECALL_STATS), params={"slug": slug, "day": when[:10]})


def trigger_hits(s: Session, hits: Iterable[tuple[str, str]], day: str) -> None:
    for trig, scope_hash in hits:
        s.exec(text(sql.TRIGGER_HIT), params={"t": trig, "scope": scope_hash, "day": day})


def get_head(s: Session) -> tuple[int, str] | None:
    row = s.exec(text("SELECT seq, this_hash FROM audit_head WHERE id = 1")).first()
    return (int(row[0]), str(row[1])) if row else None


def set_event_last(s: Session, event_type: str, seq: int, ts: str) -> None:
    s.exec(
        text(
            "INSERT INTO event_last (event_type, seq, ts) VALUES (:e, :seq, :ts) "
            "ON CONFLICT(event_type) DO UPDATE SET seq = excluded.seq, ts = excluded.ts "
            "WHERE excluded.seq >= event_last.seq"
        ),
        params={"e": event_type, "seq": seq, "ts": ts},
    )


def event_last(s: Session) -> dict[str, str]:
    return {r[0]: r[1] for r in s.exec(text("SELECT event_type, ts FROM event_last ORDER BY event_type"))}


def set_head(s: Session, seq: int, this_hash: str, when: str) -> None:
    s.exec(
        text(
            "INSERT INTO audit_head (id, seq, this_hash, updated_at) VALUES (1, :seq, :h, :ts) "
            "ON CONFLICT(id) DO UPDATE SET seq = excluded.seq, this_hash = excluded.this_hash, "
            "updated_at = excluded.updated_at WHERE excluded.seq >= audit_head.seq"
        ),
        params={"seq": seq, "h": this_hash, "ts": when},
    )


def counts(s: Session) -> dict[str, list[dict[str, Any]]]:
    def q(statement: str) -> list[dict[str, Any]]:
        return _rows(s.exec(text(statement)))

    return {
        "by_type": q("SELECT type, count(*) AS n FROM memories GROUP BY type ORDER BY type"),
        "by_state": q(
            "SELECT decay_state, count(*) AS n FROM memories GROUP BY decay_state ORDER BY decay_state"
        ),
        "by_scope": q("SELECT scope_hash, count(*) AS n FROM memories GROUP BY scope_hash ORDER BY n DESC"),
        "turns": q("SELECT count(*) AS n FROM turns"),
    }


def all_body_paths(s: Session) -> dict[str, str]:
    return {r[0]: r[1] for r in s.exec(text("SELECT body_path, slug FROM memories"))}


def sealed_stamps(s: Session) -> dict[str, dict[str, Any]]:
    """updated_at and created_at of every memory of a sensitive scope (rollback checks)."""
    rows = s.exec(text("SELECT slug, updated_at, created_at FROM memories WHERE scope_sensitive = 1"))
    return {r[0]: {"updated_at": r[1], "created_at": r[2]} for r in rows}


def suspect_rows(s: Session, scopes: Sequence[str] | None) -> list[dict[str, Any]]:
    """Memories flagged as suspect (forgotten ones are gone from the index), newest first."""
    where, params = sql.filters(scopes, None, None)
    statement = (
        f"SELECT {_COLS} FROM memories m WHERE m.suspect IS NOT NULL AND {where} "
        "ORDER BY m.created_at DESC, m.slug"
    )
    return _rows(s.exec(text(statement), params=params))


def resegment_pending(con: sqlite3.Connection) -> list[tuple[str, str | None]]:
    """The memories migration 021 listed for re-indexing, with their files (None: no row)."""
    statement = "SELECT r.slug, m.body_path FROM resegment r LEFT JOIN memories m ON m.slug = r.slug"
    return [(r[0], r[1]) for r in con.execute(statement)]


def resegment_done(s: Session, slugs: Sequence[str]) -> None:
    for slug in slugs:
        s.exec(text("DELETE FROM resegment WHERE slug = :slug"), params={"slug": slug})


def resegment_clear(s: Session) -> None:
    s.exec(text("DELETE FROM resegment"))
