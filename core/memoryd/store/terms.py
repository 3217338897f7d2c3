"""How rare a term is among the memories of the store: what makes a keyword specific.

A term found in most memories of a project ("pnpm" in a pnpm monorepo) tells a person
little about any one of them; a term found in few says which memory it is. The document
frequency comes from the full-text index (memories_fts), one statement per batch of terms:
each term is an FTS5 phrase lookup on the index, never a scan of the memories (CROSS JOIN
keeps SQLite from starting at the scope's memories and asking the index once per memory).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from memoryd.db.engine import read_session
from memoryd.keyterms import Rarity
from memoryd.textproc import segment

if TYPE_CHECKING:
    from memoryd.store import Store

_BATCH = 400  # terms per statement (two bound values each, well under SQLite's limit)
_WORDY = re.compile(r"[^\W_]", re.UNICODE)
_UNSENDABLE = re.compile(r"[\x00\ud800-\udfff]")  # NUL ends SQLite's query text; surrogates no UTF-8


def idf(documents: int, containing: int) -> float:
    """Smoothed inverse document frequency: 1.0 for a term in every memory, more when rarer."""
    return math.log((documents + 1) / (containing + 1)) + 1.0


def phrase(term: str) -> str | None:
    """The FTS5 query for documents holding `term` as written: one phrase, its Han runs cut
    into the bigrams the index holds (textproc.segment), so 'Fly.io' is 'fly' then 'io' and
    '迁移脚本' is 迁移 移脚 脚本 in a row. None when the term has nothing to look up."""
    term = _UNSENDABLE.sub(" ", term)
    if not _WORDY.search(term):
        return None
    return '"' + " ".join(segment(term).split()).replace('"', '""') + '"'


def rarity_for(store: Store, scope_hash: str | None) -> Rarity:
    """A `keyterms.Rarity` over the memories of `scope_hash` (every memory when None):
    term -> idf. An index that cannot answer (locked past the busy timeout, no FTS5)
    gives no weights, and keywords() then ranks by its own prior."""

    def rarity(terms: Sequence[str]) -> Mapping[str, float]:
        try:
            return _rarity(store, scope_hash, terms)
        except DBAPIError:
            return {}

    return rarity


def _rarity(store: Store, scope_hash: str | None, terms: Sequence[str]) -> dict[str, float]:
    queries = {t: phrase(t) for t in dict.fromkeys(terms)}
    asked = [(t, q) for t, q in queries.items() if q is not None]
    scoped = "m.scope_hash = :scope" if scope_hash is not None else "1"
    found: dict[str, int] = {}
    with read_session(store.engine) as s:
        total = int(
            s.exec(
                text(f"SELECT count(*) FROM fts_docs d JOIN memories m ON m.slug = d.slug WHERE {scoped}"),
                params={"scope": scope_hash},
            ).scalar()
            or 0
        )
        for start in range(0, len(asked), _BATCH):
            found.update(_document_counts(s, asked[start : start + _BATCH], scoped, scope_hash))
    return {t: idf(total, found.get(t, 0)) for t in queries}


def _document_counts(
    s: Any, batch: Sequence[tuple[str, str]], scoped: str, scope_hash: str | None
) -> dict[str, int]:
    values = ", ".join(f"({i}, :q{i})" for i in range(len(batch)))
    params: dict[str, Any] = {"scope": scope_hash}
    params.update({f"q{i}": query for i, (_, query) in enumerate(batch)})
    sql = (
        f"WITH asked(n, query) AS (VALUES {values}) "
        "SELECT asked.n, (SELECT count(*) FROM memories_fts "
        "CROSS JOIN fts_docs d ON d.id = memories_fts.rowid CROSS JOIN memories m ON m.slug = d.slug "
        f"WHERE memories_fts MATCH asked.query AND {scoped}) FROM asked"
    )
    return {batch[int(r[0])][0]: int(r[1]) for r in s.exec(text(sql), params=params)}
