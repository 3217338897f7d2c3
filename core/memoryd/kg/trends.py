"""The knowledge graph's part of the digest's trends (seed 000): entities named more this
window than the one before, and the supersedes decided in the window."""

from __future__ import annotations

from datetime import datetime

from memoryd import clock
from memoryd.db.engine import read_session
from memoryd.store import Store
from memoryd.store import kg as sql


def rising(
    store: Store, since: datetime, until: datetime, scopes: list[str] | None, top: int
) -> list[dict[str, object]]:
    """Entities by mentions in [since, until) minus mentions in the window of the same
    length before it; only those that rose, most first."""
    before = since - (until - since)
    with read_session(store.engine) as s:
        now = sql.mention_totals(s, clock.iso(since), clock.iso(until), scopes)
        prev = sql.mention_totals(s, clock.iso(before), clock.iso(since), scopes)
        deltas = {eid: n - prev.get(eid, 0) for eid, n in now.items()}
        up = sorted((d, eid) for eid, d in deltas.items() if d > 0)
        up = sorted(up, key=lambda x: (-x[0], x[1]))[:top]
        named = sql.names(s, [eid for _, eid in up])
    return [
        {
            "id": eid,
            "name": named.get(eid, (eid, ""))[0],
            "kind": named.get(eid, ("", "concept"))[1],
            "delta": d,
            "mentions": now[eid],
        }
        for d, eid in up
    ]


def supersedes_since(
    store: Store, since: datetime, scopes: list[str] | None, top: int
) -> list[dict[str, object]]:
    with read_session(store.engine) as s:
        rows = sql.supersedes_since(s, clock.iso(since), scopes)
    return rows[:top]
