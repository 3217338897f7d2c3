"""Level-2 (turn) re-ranking: raw turns are short and lean on their context.

A bm25 pool deeper than the answer is re-ranked: a turn next to a matching turn (the
question before an answer, the reply after a statement) and a turn from the session that
matches best gain a share of their score, and a query that names a date ("in August
2023", "2023年5月") lifts turns from that date. On LoCoMo each of the three adds 2-4
points of recall@5 over plain bm25 (docs/benchmarks.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from memoryd.textproc import DateRef, date_match

if TYPE_CHECKING:  # the store (and SQLAlchemy) stays off the read path's imports
    from memoryd.store.index import TurnHit

# Candidates fetched by bm25, and the share of a neighbouring turn's, the session's best
# turn's and the top score's relevance added.
TRACE_POOL = 100
NEIGHBOUR_SHARE = 0.3
SESSION_SHARE = 0.3
DATE_SHARE = 0.5


def rerank_turns(pool: Sequence[TurnHit], refs: Sequence[DateRef] = ()) -> list[TurnHit]:
    """Order bm25 turn hits by relevance plus context (see the module docstring). The
    returned score keeps bm25's sign: lower is better."""
    if not pool:
        return []
    rel = {(h.slug, h.seq): -h.score for h in pool}
    best: dict[str, float] = {}
    for (slug, _), r in rel.items():
        best[slug] = max(best.get(slug, 0.0), r)
    top = max(rel.values())
    refs = list(refs)

    def combined(h: TurnHit) -> float:
        near = max(rel.get((h.slug, h.seq - 1), 0.0), rel.get((h.slug, h.seq + 1), 0.0))
        when = DATE_SHARE * top * date_match(refs, h.ts) if refs else 0.0
        return -h.score + NEIGHBOUR_SHARE * near + SESSION_SHARE * best[h.slug] + when

    scored = sorted(((combined(h), i, h) for i, h in enumerate(pool)), key=lambda x: (-x[0], x[1]))
    return [replace(h, score=round(-score, 4)) for score, _, h in scored]
