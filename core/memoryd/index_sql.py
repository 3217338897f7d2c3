"""The index's read statements and recall counters as SQL text, standard library only.

One copy for both drivers: memoryd.store.index runs them through SQLAlchemy (the full
store), memoryd.reader through the standard library's sqlite3 (the CLI's cold read
path, which must not import SQLAlchemy). Parameters are `:name`, which both accept; a
list is expanded here into `:name_0, :name_1, ...` rather than by SQLAlchemy.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

MEMORY_COLUMNS = (
    "slug",
    "type",
    "scope_hash",
    "title",
    "source",
    "created_at",
    "updated_at",
    "ttl_days",
    "decay_state",
    "last_recalled_at",
    "recall_count",
    "fingerprint",
    "body_path",
    "scope_sensitive",
    "session_key",
    "dura_score",
    "dura_mean",
    "analyzed_fingerprint",
    "superseded_by",
    "suspect",
)
COLS = ", ".join(MEMORY_COLUMNS)

# Column weights for bm25(): title, body, triggers, tags, traces.
BM25_WEIGHTS = (4.0, 1.0, 3.0, 2.0, 0.6)

GET = f"SELECT {COLS} FROM memories WHERE slug = :slug"
STORED_TRACES = "SELECT text FROM turns WHERE slug = :slug ORDER BY seq"
TRIGGERS_OF = 'SELECT "trigger" FROM triggers WHERE slug = :slug ORDER BY "trigger"'
MARK_RECALLED = (
    "UPDATE memories SET recall_count = recall_count + 1, last_recalled_at = :ts, "
    "decay_state = CASE WHEN decay_state = 'forgotten' THEN decay_state ELSE 'alive' END "
    "WHERE slug = :slug"
)
RECALL_STATS = (
    "INSERT INTO recall_stats (slug, day, hits) SELECT slug, :day, 1 FROM memories "
    "WHERE slug = :slug ON CONFLICT(slug, day) DO UPDATE SET hits = hits + 1"
)
TRIGGER_HIT = (
    'INSERT INTO trigger_stats ("trigger", scope_hash, day, hits) '
    'VALUES (:t, :scope, :day, 1) ON CONFLICT("trigger", scope_hash, day) '
    "DO UPDATE SET hits = hits + 1"
)


@dataclass(frozen=True)
class Hit:
    slug: str
    score: float


@dataclass(frozen=True)
class TurnHit:
    slug: str
    seq: int
    role: str
    ts: str | None
    ext_id: str | None
    text: str
    score: float


def reasons(value: str) -> list[str]:
    """The reasons a memory is suspect, as the list the frontmatter holds."""
    try:
        got = json.loads(value)
    except ValueError:
        return [value]
    return [str(r) for r in got] if isinstance(got, list) else [str(got)]


def memory_row(row: dict[str, Any]) -> dict[str, Any]:
    if isinstance(row.get("suspect"), str):
        row["suspect"] = reasons(row["suspect"])
    return row


def _in(column: str, name: str, values: Sequence[str], params: dict[str, Any]) -> str:
    keys = [f"{name}_{i}" for i in range(len(values))]
    params.update(zip(keys, values, strict=True))
    return f"{column} IN ({', '.join(':' + k for k in keys)})"


def filters(
    scopes: Sequence[str] | None, types: Sequence[str] | None, states: Sequence[str] | None
) -> tuple[str, dict[str, Any]]:
    """The WHERE clause over `memories m` and its parameters. An empty `scopes` list
    matches nothing (`IN ()`); None means every scope."""
    where: list[str] = []
    params: dict[str, Any] = {}
    if scopes is not None:
        where.append(_in("m.scope_hash", "scopes", list(scopes), params))
    if types:
        where.append(_in("m.type", "types", list(types), params))
    if states:
        where.append(_in("m.decay_state", "states", list(states), params))
    return (" AND ".join(where) or "1"), params


def get_many(slugs: Sequence[str]) -> tuple[str, dict[str, Any]]:
    """Rows by slug in one statement (dense search candidates keyword search did not bring)."""
    params: dict[str, Any] = {}
    return f"SELECT {COLS} FROM memories m WHERE {_in('m.slug', 'slugs', list(slugs), params)}", params


def traces_of(slugs: Sequence[str]) -> tuple[str, dict[str, Any]]:
    """Many memories' turns in one statement, each memory's in order (STORED_TRACES for many)."""
    params: dict[str, Any] = {}
    where = _in("slug", "slugs", list(slugs), params)
    return f"SELECT slug, text FROM turns WHERE {where} ORDER BY slug, seq", params


def started_of(slugs: Sequence[str]) -> tuple[str, dict[str, Any]]:
    """When each session began, by its first timestamped turn (what time words in a
    question are matched against: an imported session's turns keep their own times)."""
    params: dict[str, Any] = {}
    where = _in("slug", "slugs", list(slugs), params)
    return f"SELECT slug, min(ts) FROM turns WHERE {where} AND ts > '' GROUP BY slug", params


def turns_at(slug: str, seqs: Sequence[int]) -> tuple[str, dict[str, Any]]:
    """One session's turns by seq, as TurnHit's first six fields."""
    params: dict[str, Any] = {"slug": slug}
    where = _in("seq", "seqs", list(seqs), params)
    return f"SELECT slug, seq, role, ts, ext_id, text FROM turns WHERE slug = :slug AND {where}", params


def by_slug(keys: Sequence[tuple[str, int]]) -> dict[str, list[int]]:
    """(slug, seq) keys grouped by slug, in first-seen order (one turns_at each)."""
    out: dict[str, list[int]] = {}
    for slug, seq in keys:
        out.setdefault(slug, []).append(seq)
    return out


def list_rows(
    scopes: Sequence[str] | None,
    types: Sequence[str] | None,
    states: Sequence[str] | None,
    limit: int | None,
) -> tuple[str, dict[str, Any]]:
    where, params = filters(scopes, types, states)
    sql = f"SELECT {COLS} FROM memories m WHERE {where} ORDER BY m.created_at DESC, m.slug"
    if limit:
        sql += f" LIMIT {int(limit)}"
    return sql, params


def search(
    match: str,
    scopes: Sequence[str] | None,
    types: Sequence[str] | None,
    states: Sequence[str] | None,
    limit: int,
) -> tuple[str, dict[str, Any]]:
    """Hits with their memory rows, in one statement (not one more query per hit); the
    last column is the bm25 score."""
    where, params = filters(scopes, types, states)
    w = ", ".join(str(x) for x in BM25_WEIGHTS)
    cols = ", ".join(f"m.{c}" for c in MEMORY_COLUMNS)
    sql = (
        f"SELECT {cols}, bm25(memories_fts, {w}) AS score "
        "FROM memories_fts JOIN fts_docs d ON d.id = memories_fts.rowid "
        "JOIN memories m ON m.slug = d.slug "
        f"WHERE memories_fts MATCH :match AND {where} ORDER BY score, m.slug LIMIT :limit"
    )
    params.update(match=match, limit=limit)
    return sql, params


def verbatim(
    needles: Sequence[str],
    scopes: Sequence[str] | None,
    types: Sequence[str] | None,
    states: Sequence[str] | None,
    limit: int,
) -> tuple[str, dict[str, Any]]:
    """Memories whose title or body holds one of `needles` (lower case) as a substring, newest
    first: for identifiers the tokenizer splits to nothing (1.4.2). A scan of the scope's
    rows, bounded by `limit`; the caller checks whole-token matches."""
    where, params = filters(scopes, types, states)
    cols = ", ".join(f"m.{c}" for c in MEMORY_COLUMNS)
    held = []
    for i, needle in enumerate(needles):
        params[f"n{i}"] = needle
        held.append(f"instr(lower(f.title), :n{i}) > 0 OR instr(lower(f.body), :n{i}) > 0")
    sql = (
        f"SELECT {cols}, 0.0 AS score "
        "FROM memories_fts f JOIN fts_docs d ON d.id = f.rowid JOIN memories m ON m.slug = d.slug "
        f"WHERE ({' OR '.join(held) or '0'}) AND {where} ORDER BY m.created_at DESC, m.slug LIMIT :limit"
    )
    params["limit"] = limit
    return sql, params


def search_turns(
    match: str, scopes: Sequence[str] | None, states: Sequence[str] | None, limit: int
) -> tuple[str, dict[str, Any]]:
    """Every matching turn scored, joined and filtered: exact, and the fallback of
    `search_turns_top`."""
    where, params = filters(scopes, None, states)
    sql = (
        "SELECT t.slug, t.seq, t.role, t.ts, t.ext_id, t.text, bm25(turns_fts, 0.5, 1.0) AS score "
        "FROM turns_fts JOIN turns t ON t.id = turns_fts.rowid JOIN memories m ON m.slug = t.slug "
        f"WHERE turns_fts MATCH :match AND {where} ORDER BY score, t.slug, t.seq LIMIT :limit"
    )
    params.update(match=match, limit=limit)
    return sql, params


# Turns fetched by bm25 from FTS5 alone, as a multiple of `limit` over the searched scopes'
# share of the sessions, before the join and filters. Below three quarters of the sessions the
# pool is deep enough to cost what the full statement costs, and falls short more often (a
# synthetic store of 100k turns, limit 400: one scope of ten, 15 ms for the full statement
# and 36 ms for a failed pool and then it; one of two, 21.7 ms against 25.3 ms pooled).
TURN_POOL_FACTOR = 4
TURN_POOL_MIN_SHARE = 0.75
SESSIONS_IN = "SELECT count(*) FROM memories m WHERE m.type = 'session'"
MATCHES_UP_TO = "SELECT count(*) FROM (SELECT rowid FROM turns_fts WHERE turns_fts MATCH :match LIMIT :pool)"


def search_turns_top(
    match: str, scopes: Sequence[str] | None, states: Sequence[str] | None, limit: int, pool: int
) -> tuple[str, dict[str, Any]]:
    """`search_turns` over the `pool` best-scored matches only. Joining every match to
    `turns` and `memories` before sorting cost ~45 ms a query at 100k memories (a common word
    matches ~10k turns) against ~11 ms for FTS5's own ordering. Each row also carries the
    pool's size and worst score, which tell whether the answer is the full statement's
    (`ranked_turns`)."""
    where, params = filters(scopes, None, states)
    sql = (
        "WITH top AS MATERIALIZED (SELECT rowid AS id, bm25(turns_fts, 0.5, 1.0) AS score "
        "FROM turns_fts WHERE turns_fts MATCH :match ORDER BY score LIMIT :pool) "
        "SELECT t.slug, t.seq, t.role, t.ts, t.ext_id, t.text, top.score, "
        "(SELECT count(*) FROM top), (SELECT max(score) FROM top) "
        "FROM top JOIN turns t ON t.id = top.id JOIN memories m ON m.slug = t.slug "
        f"WHERE {where} ORDER BY top.score, t.slug, t.seq LIMIT :limit"
    )
    params.update(match=match, limit=limit, pool=pool)
    return sql, params


def _pool(
    run: Callable[[str, dict[str, Any]], Sequence[Sequence[Any]]], scopes: Sequence[str] | None, limit: int
) -> int | None:
    """How deep to pool, or None for the full statement: the searched scopes' share of the
    sessions (two index counts, ~3 ms at 100k memories) says how many of FTS5's best turns
    are theirs."""
    if limit <= 0 or (scopes is not None and not scopes):
        return None  # LIMIT -1 is no limit to SQLite; IN () matches nothing: both are cheap
    if scopes is None:
        return limit * TURN_POOL_FACTOR
    params: dict[str, Any] = {}
    mine = run(f"{SESSIONS_IN} AND {_in('m.scope_hash', 'scopes', list(scopes), params)}", params)[0][0]
    every = run(SESSIONS_IN, {})[0][0]
    share = mine / every if every else 0.0
    if share < TURN_POOL_MIN_SHARE:
        return None
    return math.ceil(limit * TURN_POOL_FACTOR / share)


def ranked_turns(
    run: Callable[[str, dict[str, Any]], Sequence[Sequence[Any]]],
    match: str,
    scopes: Sequence[str] | None,
    states: Sequence[str] | None,
    limit: int,
) -> list[TurnHit]:
    """The best `limit` matching turns, as `search_turns` ranks them, through either driver's
    `run`. The pool answers when it provably holds the whole answer: it held every match, or
    the answer's last score is better than the pool's worst (every turn left out of the pool
    scores at least that). Otherwise (filters rejected most of the pool, ties at its edge)
    the full statement does."""
    pool = _pool(run, scopes, limit)
    if pool is not None:
        statement, params = search_turns_top(match, scopes, states, limit, pool)
        rows = run(statement, params)
        if rows:
            pooled, edge = rows[0][7], rows[0][8]
            if pooled < pool or (len(rows) >= limit and rows[-1][6] < edge):
                return [turn_hit(r) for r in rows]
        elif run(MATCHES_UP_TO, {"match": match, "pool": pool})[0][0] < pool:
            return []  # the pool held every match, and none passed the filters
    statement, params = search_turns(match, scopes, states, limit)
    return [turn_hit(r) for r in run(statement, params)]


def hit(values: Sequence[Any]) -> tuple[Hit, dict[str, Any]]:
    """One row of `search`'s statement as (Hit, memory row)."""
    row = memory_row(dict(zip(MEMORY_COLUMNS, values[:-1], strict=True)))
    return Hit(row["slug"], float(values[-1])), row


def turn_hit(values: Sequence[Any]) -> TurnHit:
    return TurnHit(*values[:6], float(values[6]))
