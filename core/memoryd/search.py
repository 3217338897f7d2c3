"""Level 1 (memories) and level 2 (raw turns) search over the store.

Relevance is bm25 over title, body, triggers, tags and the session's turns; long-term
memory then ranks above working memory and alive above dim. A hit is a recall.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memoryd.models import DecayState, MemoryType
from memoryd.store import Store, TurnHit
from memoryd.textproc import match_query, snippet, terms

LONG_TERM_BOOST = 1.25
STATE_FACTOR = {
    DecayState.alive.value: 1.0,
    DecayState.dim.value: 0.85,
    DecayState.soft_forgotten.value: 0.6,
    DecayState.forgotten.value: 0.5,
}


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

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def states_for(include_forgotten: bool) -> list[str]:
    states = [DecayState.alive.value, DecayState.dim.value]
    if include_forgotten:
        states += [DecayState.soft_forgotten.value, DecayState.forgotten.value]
    return states


def rank(score: float, row: dict[str, Any]) -> float:
    relevance = -score  # bm25() is lower-is-better
    boost = LONG_TERM_BOOST if row.get("type") != MemoryType.session.value else 1.0
    return relevance * boost * STATE_FACTOR.get(row.get("decay_state", "alive"), 1.0)


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
        text = ""
        if with_snippets:
            try:
                doc, _ = store.read(hit.slug)
                text = snippet(doc.body, query)
            except Exception:  # a damaged file still shows up as a hit; doctor reports it
                text = ""
        out.append(
            Result(
                hit.slug,
                row["title"],
                row["type"],
                row["scope_hash"],
                row["decay_state"],
                row["source"],
                row["created_at"],
                int(row["recall_count"]),
                round(rank(hit.score, row), 4),
                text,
            )
        )
    return out


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
    return store.search_turns(match, scopes=scopes, states=states_for(include_forgotten), limit=limit)


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
