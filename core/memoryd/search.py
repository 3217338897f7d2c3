"""Level 1 (memories) and level 2 (raw turns) search over the store.

Relevance is bm25 over title, body, triggers, tags and the session's turns; long-term
memory then ranks above working memory and alive above dim. A hit is a recall.

Raw turns are short and lean on their context, so level 2 re-ranks a deeper bm25 pool
with what the turns carry (memoryd.turnrank).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memoryd import turnrank
from memoryd.models import DecayState, MemoryType
from memoryd.store import Store, TurnHit
from memoryd.textproc import dates, match_query, snippet, terms
from memoryd.turnrank import TRACE_POOL, rerank_turns

LONG_TERM_BOOST = 1.25
STATE_FACTOR = {
    DecayState.alive.value: 1.0,
    DecayState.dim.value: 0.85,
    DecayState.soft_forgotten.value: 0.6,
    DecayState.forgotten.value: 0.5,
}
# A superseded memory is kept for history but must not outrank what replaced it.
SUPERSEDED_FACTOR = 0.3
# Sessions whose level-1 relevance informs level 2 (memoryd.turnrank).
SESSION_POOL = 50


@dataclass(frozen=True)
class Result:
    slug: str
    title: str
    type: str
    scope_hash: str
    decay_state: str
    source: str
    created_at: str
    recall_count: int
    score: float
    snippet: str = ""
    superseded_by: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def states_for(include_forgotten: bool) -> list[str]:
    states = [DecayState.alive.value, DecayState.dim.value]
    if include_forgotten:  # soft-forgotten only: forgotten memories left the index
        states.append(DecayState.soft_forgotten.value)
    return states


def rank(score: float, row: dict[str, Any]) -> float:
    relevance = -score  # bm25() is lower-is-better
    boost = LONG_TERM_BOOST if row.get("type") != MemoryType.session.value else 1.0
    if row.get("superseded_by"):
        boost *= SUPERSEDED_FACTOR
    return relevance * boost * STATE_FACTOR.get(row.get("decay_state", "alive"), 1.0)


def successors_first(results: list[Result]) -> list[Result]:
    """A superseded hit never stands above its successor when both are found."""
    out = list(results)
    for r in results:
        if r.superseded_by is None:
            continue
        i = out.index(r)
        j = next((k for k, x in enumerate(out) if x.slug == r.superseded_by), -1)
        if j > i:
            out.insert(j, out.pop(i))
    return out


def search(
    store: Store,
    query: str,
    *,
    scopes: Sequence[str] | None,
    types: Sequence[str] | None = None,
    limit: int = 10,
    include_forgotten: bool = False,
    with_snippets: bool = True,
) -> list[Result]:
    match = match_query(query)
    if match is None or limit <= 0:
        return []
    pool = store.search(
        match, scopes=scopes, types=types, states=states_for(include_forgotten), limit=max(limit * 3, 30)
    )
    ranked = sorted(pool, key=lambda hr: rank(hr[0].score, hr[1]), reverse=True)[:limit]
    out = []
    for hit, row in ranked:
        text = snippet(_body(store, row), query) if with_snippets else ""
        out.append(_result(row, row["title"], hit.score, text))
    return successors_first(out)


def _result(row: dict[str, Any], title: str, bm25: float, text: str) -> Result:
    return Result(
        row["slug"],
        title,
        row["type"],
        row["scope_hash"],
        row["decay_state"],
        row["source"],
        row["created_at"],
        int(row["recall_count"]),
        round(rank(bm25, row), 4),
        text,
        row.get("superseded_by"),
    )


def _body(store: Store, row: dict[str, Any]) -> str:
    """The memory's body for a snippet: the file after its frontmatter, without parsing
    and validating the YAML (a full read cost a few ms a hit, most of a search). A damaged
    or missing file still shows up as a hit, with no snippet; doctor reports it."""
    try:
        text = store.files.absolute(row["body_path"]).read_text(encoding="utf-8")
    except (KeyError, OSError, UnicodeDecodeError):
        return ""
    end = text.find("\n---\n", 3) if text.startswith("---\n") else -1
    return text[end + 5 :] if end >= 0 else ""


def traces(
    store: Store,
    query: str,
    *,
    scopes: Sequence[str] | None,
    limit: int = 10,
    include_forgotten: bool = False,
) -> list[TurnHit]:
    match = match_query(query)
    if match is None or limit <= 0:
        return []
    pool = store.search_turns(
        match, scopes=scopes, states=states_for(include_forgotten), limit=max(limit, TRACE_POOL)
    )
    sessions = search(
        store,
        query,
        scopes=scopes,
        types=[MemoryType.session.value],
        limit=SESSION_POOL,
        include_forgotten=include_forgotten,
        with_snippets=False,
    )
    return turnrank.rank(query, pool, sessions={r.slug: r.score for r in sessions}, limit=limit)


def matched_triggers(store: Store, results: Sequence[Result], query: str) -> list[tuple[str, str]]:
    """(trigger, scope) pairs whose every term occurs in the query: trigger_stats hits."""
    wanted = set(terms(query))
    out = []
    for r in results:
        for trig in store.triggers(r.slug):
            t = terms(trig)
            if t and set(t) <= wanted:
                out.append((trig, r.scope_hash))
    return out


def search_sensitive(
    store: Store,
    query: str,
    scope_hash: str,
    *,
    types: Sequence[str] | None = None,
    limit: int = 10,
    include_forgotten: bool = False,
    unopened: list[str] | None = None,
) -> list[Result]:
    """A sensitive scope has no words in the index: under a grant its memories are
    decrypted and searched in a private in-memory SQLite (same tokens, same bm25), which
    never touches the disk and is gone when the search ends. The slugs of memories that do
    not decrypt (a damaged or swapped file) go to `unopened`, for the caller to report."""
    import sqlite3

    from memoryd.errors import CorruptFile
    from memoryd.store.index import BM25_WEIGHTS
    from memoryd.textproc import segment

    match = match_query(query)
    if match is None or limit <= 0:
        return []
    rows = store.list(scopes=[scope_hash], types=types, states=states_for(include_forgotten))
    db = sqlite3.connect(":memory:")
    try:
        db.execute("PRAGMA temp_store = MEMORY")
        db.execute(
            "CREATE VIRTUAL TABLE m USING fts5(title, body, triggers, tags, traces, "
            "tokenize = 'porter unicode61 remove_diacritics 2')"
        )
        docs: dict[int, tuple[dict[str, Any], str, str]] = {}
        for i, row in enumerate(rows):
            try:
                doc, path = store.read(row["slug"])
            except CorruptFile:
                if unopened is not None:
                    unopened.append(row["slug"])
                continue
            traces_text = "\n".join(t.text for t in store.files.read_turns(path))
            fields = (
                doc.meta.title,
                doc.body,
                " ".join(doc.meta.triggers),
                " ".join(doc.meta.tags),
                traces_text,
            )
            db.execute(
                "INSERT INTO m (rowid, title, body, triggers, tags, traces) VALUES (?, ?, ?, ?, ?, ?)",
                (i, *(segment(f) for f in fields)),
            )
            docs[i] = (row, doc.meta.title, doc.body)
        w = ", ".join(str(x) for x in BM25_WEIGHTS)
        hits = db.execute(
            f"SELECT rowid, bm25(m, {w}) FROM m WHERE m MATCH ? ORDER BY 2 LIMIT ?",
            (match, max(limit * 3, 30)),
        ).fetchall()
    finally:
        db.close()
    out = []
    for rowid, score in hits:
        row, title, body = docs[rowid]
        out.append(_result(row, title, score, snippet(body, query)))
    return sorted(out, key=lambda r: r.score, reverse=True)[:limit]


def traces_sensitive(
    store: Store, query: str, scope_hash: str, *, limit: int = 10, include_forgotten: bool = False
) -> list[TurnHit]:
    """Level 2 in a sensitive scope, under a grant: its sessions' turns are decrypted and
    searched in a private in-memory FTS table, like search_sensitive does for memories."""
    import sqlite3

    from memoryd.errors import CorruptFile
    from memoryd.textproc import segment

    match = match_query(query)
    if match is None or limit <= 0:
        return []
    rows = store.list(scopes=[scope_hash], types=["session"], states=states_for(include_forgotten))
    db = sqlite3.connect(":memory:")
    turns: list[tuple[str, Any]] = []
    try:
        db.execute(
            "CREATE VIRTUAL TABLE t USING fts5(text, tokenize = 'porter unicode61 remove_diacritics 2')"
        )
        for row in rows:
            try:
                for turn in store.files.read_turns(store.files.absolute(row["body_path"])):
                    db.execute("INSERT INTO t (rowid, text) VALUES (?, ?)", (len(turns), segment(turn.text)))
                    turns.append((row["slug"], turn))
            except CorruptFile:
                continue
        hits = db.execute(
            "SELECT rowid, bm25(t) FROM t WHERE t MATCH ? ORDER BY 2 LIMIT ?", (match, max(limit, TRACE_POOL))
        ).fetchall()
    finally:
        db.close()
    pool = [
        TurnHit(turns[i][0], t.seq, t.role, t.ts, t.ext_id, t.text, float(score))
        for i, score in hits
        for t in [turns[i][1]]
    ]
    return rerank_turns(pool, dates(query))[:limit]
