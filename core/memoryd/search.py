"""Level 1 (memories) and level 2 (raw turns) search over the store.

Relevance is bm25 over title, body, triggers, tags and the session's turns; long-term
memory then ranks above working memory and alive above dim. A hit is a recall.

Raw turns are short and lean on their context, so level 2 re-ranks a deeper bm25 pool
with what the turns carry (memoryd.turnrank).

Hybrid mode (the default when an embedder is at hand) adds dense candidates from the
stored vectors (memoryd.store.vectors) and fuses both lists (memoryd.fusion at level 1,
memoryd.turnrank at level 2): a question in Chinese finds a memory written in English.
Without an embedder every mode is keyword search.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Any, TypeVar

from memoryd import clock, fusion, timewords, turnrank
from memoryd.config import SEARCH_MODES
from memoryd.embed import tag
from memoryd.errors import UsageError
from memoryd.index_sql import TurnHit
from memoryd.kinds import DecayState, MemoryType
from memoryd.textproc import match_query, snippet, terms
from memoryd.turnrank import TRACE_POOL

if TYPE_CHECKING:  # the CLI's read path passes a memoryd.reader.Reader: no SQLAlchemy here
    from memoryd.embed import Embedder
    from memoryd.store import Store

MODES = SEARCH_MODES
T = TypeVar("T")
log = logging.getLogger("memoryd.search")
# Only the head of a query is embedded: a sentence encoder's cost grows with the text (a
# 1 MB query took 20-30 s, issue 20) while its meaning is set by the first few sentences,
# and USE reads at most a few hundred tokens anyway. Keyword search still sees all of it.
QUERY_CHARS = 2000
# Beyond this a query is a pasted document, not a question: the facade searches with its
# head, since every pass over the words (tokens, identifiers, snippets) grows with it. The
# MCP tools' query parameter has the same maximum.
MAX_QUERY_CHARS = 10_000
K = TypeVar("K", bound=Hashable)
# A candidate only the dense side found must be at least this close to the question: nearest
# neighbours always exist, and a query about nothing stored must still find nothing. USE
# scores a question against the memory it asks about 0.3 or more, and unrelated memories
# about 0.1 (issue 20). Turns (level 2) keep 0.2, which LoCoMo was measured with.
DENSE_FLOOR = 0.2
# Memories (level 1): across languages USE scores lower, and 11% of the bilingual set's
# questions scored their own memory below 0.2 (0.13-0.19). Off-topic questions in either
# language ("recipe for banana bread", 明天巴黎天气怎么样？, seven of eight written for the
# measurement) reached at most 0.158 against that set: the floor sits just above.
MEMORY_FLOOR = 0.16

LONG_TERM_BOOST = 1.25
# A memory from the days the question's time words point at ("last week", 三天前;
# memoryd.timewords) counts this much more: enough to lift it over an equally close
# memory from other days, as long-term memory is lifted over working memory, not over a
# clearly better match, since people misremember when.
WHEN_BOOST = 1.25
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


@dataclass
class Evidence:
    """One scope's (or the index's) raw hybrid evidence, fused with the others' in one
    normalisation (`fused`): each list normalised alone made a sensitive scope's lone weak
    match score as high as the best of the rest, and rank first in an all-scope search.
    `titles` and `bodies` hold what a sealed memory's index row does not, and `bodies` the
    bodies read already (a snippet reuses them)."""

    keyword: dict[str, float]
    cosine: dict[str, float]  # level 1: the windows' pooled score (memoryd.pooling)
    peak: dict[str, float]  # the best window's cosine, which the floors look at
    exact: dict[str, int]
    blind: set[str]
    rows: dict[str, dict[str, Any]]
    titles: dict[str, str]
    bodies: dict[str, str]
    started: dict[str, str] = field(default_factory=dict)  # sealed sessions' first turn times


def fused(
    store: Store,
    query: str,
    evidence: Sequence[Evidence],
    *,
    limit: int,
    hybrid: bool,
    with_snippets: bool = True,
) -> list[Result]:
    """Hybrid (or dense) results over every list of evidence, normalised together."""
    keyword: dict[str, float] = {}
    cosine: dict[str, float] = {}
    peak: dict[str, float] = {}
    exact: dict[str, int] = {}
    blind: set[str] = set()
    rows: dict[str, dict[str, Any]] = {}
    titles: dict[str, str] = {}
    bodies: dict[str, str] = {}
    started: dict[str, str] = {}
    for e in evidence:
        keyword.update(e.keyword)
        cosine.update(e.cosine)
        peak.update(e.peak)
        exact.update(e.exact)
        blind |= e.blind
        rows.update(e.rows)
        titles.update(e.titles)
        bodies.update(e.bodies)
        started.update(e.started)
    kept = _kept(keyword, cosine, peak, exact, hybrid=hybrid, blind=blind)
    kept = {k: v for k, v in kept.items() if k in rows}  # gone since the vectors were read
    when = time_factors(store, query, {k: rows[k] for k in kept}, started)
    factors = {k: factor(rows[k]) * when.get(k, 1.0) for k in kept}
    ranked = fusion.order(kept, factors=factors, exact=exact)[:limit]
    words = terms(query) if with_snippets else []
    out = []
    for slug, score in ranked:
        row = rows[slug]
        text = ""
        if with_snippets:
            text = snippet(bodies[slug] if slug in bodies else _body(store, row), query, words=words)
        out.append(_result(row, titles.get(slug, row["title"]), 0.0, text, score=score))
    return successors_first(out)


def states_for(include_forgotten: bool) -> list[str]:
    states = [DecayState.alive.value, DecayState.dim.value]
    if include_forgotten:  # soft-forgotten only: forgotten memories left the index
        states.append(DecayState.soft_forgotten.value)
    return states


def factor(row: dict[str, Any]) -> float:
    """What a memory's standing multiplies its relevance by, in every mode."""
    boost = LONG_TERM_BOOST if row.get("type") != MemoryType.session.value else 1.0
    if row.get("superseded_by"):
        boost *= SUPERSEDED_FACTOR
    return boost * STATE_FACTOR.get(row.get("decay_state", "alive"), 1.0)


def rank(score: float, row: dict[str, Any], when: float = 1.0) -> float:
    return -score * factor(row) * when  # bm25() is lower-is-better


def _today() -> date:
    """The user's calendar day, which time words in a query count back from."""
    return timewords.local_day(clock.now())


def time_factors(
    store: Store, query: str, rows: Mapping[str, dict[str, Any]], started: Mapping[str, str] | None = None
) -> dict[str, float]:
    """WHEN_BOOST for each memory from the days the query's time words name (none
    named: nothing). A session counts from its first turn, other memories from when they
    were written; `started` holds what the index does not (sealed sessions)."""
    found = timewords.spans(query, _today())
    if not found or not rows:
        return {}
    times = dict(started or {})
    if missing := [k for k in rows if k not in times]:
        times.update(store.started(missing))
    out = {}
    for slug, row in rows.items():
        if timewords.held_on(times.get(slug) or row.get("created_at"), found):
            out[slug] = WHEN_BOOST
    return out


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise UsageError(f"search mode must be keyword, hybrid or dense, not {mode!r}")
    return mode


def _dense(embedder: Embedder, warn: Callable[[str], None] | None, run: Callable[[], T]) -> T | None:
    """`run` (the model embedding the query, the vectors it is compared with), or None when
    it fails: a model that loaded and then breaks (out of memory, a plug-in's bug) must not
    fail a search. The caller answers by keywords; `warn` gets one line."""
    try:
        return run()
    except Exception as exc:
        # The traceback only at debug when the caller words it in one line: a cold CLI has
        # no log handler, and logging's last resort would print the traceback on stderr.
        level = logging.WARNING if warn is None else logging.DEBUG
        log.log(level, "dense search failed; searching by keywords", exc_info=True)
        if warn is not None:
            name = getattr(embedder, "name", type(embedder).__name__)
            warn(
                f"embedding model {name} failed ({exc.__class__.__name__}: {exc}): searching by keywords only"
            )
        return None


def _near(
    store: Store,
    query: str,
    mode: str,
    embedder: Embedder | None,
    warn: Callable[[str], None] | None,
    states: Sequence[str],
    *,
    level: int,
    limit: int,
    scopes: Sequence[str] | None = None,
    types: Sequence[str] | None = None,
    sealed: str | None = None,
    given: Any = None,
    peaks: dict[str, float] | None = None,
    floor: float | None = None,
) -> list[tuple[str, int, float]] | None:
    """The stored vectors nearest the query as (slug, part, score), best first (level 1:
    pooled over a memory's windows, each one's best cosine into `peaks`): the clear
    ones of `scopes`, or, given `sealed`, that sensitive scope's, opened with its key for
    this query only. None in keyword mode, without a model, or when the model fails
    (`_dense`): the caller searches by keywords. A sensitive scope's lost key raises here,
    not inside `_dense`: it is the caller's to report, not a model's failure. `given`: the
    query's vector, embedded already."""
    if mode == "keyword" or embedder is None:
        return None
    model: Embedder = embedder
    key = store.keys.get(sealed) if sealed is not None else b""

    def run() -> list[tuple[str, int, float]]:
        qvec = given if given is not None else model.embed_query(_query(query))
        if sealed is not None:
            return store.vectors.similar_sealed(
                qvec,
                sealed,
                key,
                level=level,
                limit=limit,
                types=types,
                states=states,
                model=tag(model),
                peaks=peaks,
                floor=floor,
            )
        return store.vectors.similar(
            qvec,
            scopes=scopes,
            level=level,
            limit=limit,
            types=types,
            states=states,
            model=tag(model),
            peaks=peaks,
            floor=floor,
        )

    return _dense(model, warn, run)


def _query(query: str) -> str:
    return query[:QUERY_CHARS]


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
    mode: str = "hybrid",
    embedder: Embedder | None = None,
    warn: Callable[[str], None] | None = None,
    evidence: list[Evidence] | None = None,
) -> list[Result]:
    """`warn` gets one line when the model fails on the query (keywords answer instead).
    Given `evidence`, a hybrid or dense search appends its raw evidence there and returns
    nothing, for the caller to fuse with other scopes' (`fused`); keyword results are
    returned as ever."""
    check_mode(mode)
    if limit <= 0 or _nothing(query):
        return []
    states = states_for(include_forgotten)
    pool_size = max(limit * 3, 30)
    if mode == "keyword" or embedder is None:
        return _keyword_search(store, query, scopes, types, limit, include_forgotten, with_snippets)

    peak: dict[str, float] = {}

    def dense(qvec: Any = None) -> list[tuple[str, int, float]] | None:
        return _near(
            store,
            query,
            mode,
            embedder,
            warn,
            states,
            level=1,
            limit=pool_size,
            scopes=scopes,
            types=types,
            given=qvec,
            peaks=peak,
            floor=MEMORY_FLOOR,
        )

    # Hybrid: the query is embedded first, so a model that fails leaves keyword search
    # alone to answer. The vector scan runs on this thread, after the keyword lookup: on
    # two cores a thread for it lost more to the GIL hand-offs than it overlapped (hybrid
    # p50 at 100k memories 31.8 -> 27.9 ms under load, 18.7 -> 16.3 ms quiet; issue 20).
    qvec = None
    if mode == "hybrid":
        model = embedder
        qvec = _dense(model, warn, lambda: model.embed_query(_query(query)))
        if qvec is None:
            return _keyword_search(store, query, scopes, types, limit, include_forgotten, with_snippets)
    match = match_query(query) if mode == "hybrid" else None
    pool = store.search(match, scopes=scopes, types=types, states=states, limit=pool_size) if match else []
    rows = {row["slug"]: row for _, row in pool}
    keyword = {hit.slug: -hit.score for hit, _ in pool}
    idents = fusion.identifiers(query) if mode == "hybrid" else []
    for row in _identifier_pool(store, idents, scopes, types, states, pool_size):
        rows.setdefault(row["slug"], row)
    near = dense(qvec)
    if near is None:
        return _keyword_search(store, query, scopes, types, limit, include_forgotten, with_snippets)
    cosine = {slug: cos for slug, _, cos in near}
    # Every candidate's row: identifiers are counted on all of them, not only on the
    # identifier pool's (a dense or keyword candidate may hold one too).
    wanted = cosine if idents else {k: c for k, c in cosine.items() if peak[k] >= MEMORY_FLOOR}
    if missing := [k for k in wanted if k not in rows]:
        rows.update(store.rows(missing))
    exact, bodies = _exact(store, idents, rows) if idents else ({}, {})
    blind = _blind(
        query,
        keyword,
        {k: rows[k]["title"] for k in cosine if k in rows},
        lambda ks: {k: bodies[k] if k in bodies else _body(store, rows[k]) for k in ks},
    )
    found = Evidence(keyword, cosine, peak, exact, blind, rows, {}, bodies)
    if evidence is not None:
        evidence.append(found)
        return []
    return fused(store, query, [found], limit=limit, hybrid=mode == "hybrid", with_snippets=with_snippets)


def _blind(
    query: str,
    keyword: Mapping[K, float],
    titles: Mapping[K, str],
    bodies: Callable[[list[K]], Mapping[K, str]],
) -> set[K]:
    """Dense candidates keyword search did not match and could not have: written in another
    language than the query (judged by the title, which the index row carries, and where
    it is too short to tell, by the body)."""
    return fusion.other_language(query, {k: t for k, t in titles.items() if k not in keyword}, bodies)


def _kept(
    keyword: Mapping[K, float],
    cosine: Mapping[K, float],
    peak: Mapping[K, float],
    exact: Mapping[K, int],
    *,
    hybrid: bool,
    blind: Collection[K] = (),
) -> dict[K, float]:
    """Fused scores (dense mode: cosines) of the candidates worth showing: what keyword
    search matched, what holds an identifier of the query, and what is close in meaning
    (its best window's cosine `peak` at the floor)."""
    scores = fusion.fuse(keyword, cosine, blind=blind) if hybrid else dict(cosine)
    kept = {k: v for k, v in scores.items() if k in keyword or k in exact or peak[k] >= MEMORY_FLOOR}
    kept.update({k: 0.0 for k in exact if k not in kept})
    return kept


def _keyword_search(
    store: Store,
    query: str,
    scopes: Sequence[str] | None,
    types: Sequence[str] | None,
    limit: int,
    include_forgotten: bool,
    with_snippets: bool,
) -> list[Result]:
    match = match_query(query)
    if match is None:
        return []
    pool = store.search(
        match, scopes=scopes, types=types, states=states_for(include_forgotten), limit=max(limit * 3, 30)
    )
    when = time_factors(store, query, {row["slug"]: row for _, row in pool})
    ranked = sorted(pool, key=lambda hr: rank(hr[0].score, hr[1], when.get(hr[1]["slug"], 1.0)), reverse=True)
    ranked = ranked[:limit]
    words = terms(query) if with_snippets else []
    out = []
    for hit, row in ranked:
        text = snippet(_body(store, row), query, words=words) if with_snippets else ""
        out.append(_result(row, row["title"], hit.score, text, when=when.get(row["slug"], 1.0)))
    return successors_first(out)


def _identifier_pool(
    store: Store,
    idents: Sequence[str],
    scopes: Sequence[str] | None,
    types: Sequence[str] | None,
    states: Sequence[str],
    limit: int,
) -> list[dict[str, Any]]:
    """Memories that may hold one of the identifiers, so an exact match the broader keyword
    pool left out is still a candidate."""
    out: dict[str, dict[str, Any]] = {}
    for match in _identifier_matches(" ".join(idents)):
        for _, row in store.search(match, scopes=scopes, types=types, states=states, limit=limit):
            out.setdefault(row["slug"], row)
    # An identifier the tokenizer splits to nothing (1.4.2: no term) is looked for verbatim.
    # The CLI's read path (memoryd.reader) has no such lookup; it searches by keywords only.
    bare = [i.lower() for i in idents if not terms(i)]
    if bare and (lookup := getattr(store, "verbatim", None)) is not None:
        for row in lookup(bare, scopes=scopes, types=types, states=states, limit=limit):
            out.setdefault(row["slug"], row)
    return list(out.values())


def _nothing(query: str) -> bool:
    """No word to search for, nor an identifier (1.4.2 has no word)."""
    return match_query(query) is None and not fusion.identifiers(query)


def _identifier_matches(query: str) -> list[str]:
    """One FTS expression per identifier of the query: every word of it, in any order (a
    superset of the verbatim matches, which the caller checks)."""
    out = []
    for ident in fusion.identifiers(query):
        if words := list(dict.fromkeys(terms(ident))):
            out.append(" AND ".join('"' + w.replace('"', '""') + '"' for w in words))
    return out


def _exact(
    store: Store, idents: Sequence[str], rows: Mapping[str, dict[str, Any]]
) -> tuple[dict[str, int], dict[str, str]]:
    """How many of the identifiers each memory holds verbatim where an identifier counts as
    held (its title, its body, a session's turns), and the bodies read on the way, which
    the snippets reuse. The turns are read (in one statement where the store can) only for
    the memories whose title and body lack an identifier."""
    counts: dict[str, int] = {}
    lacking: dict[str, list[str]] = {}
    bodies: dict[str, str] = {}
    for slug, row in rows.items():
        body = bodies[slug] = _body(store, row)
        held = fusion.held(idents, "\n".join((row.get("title") or "", body)))
        counts[slug] = len(held)
        if len(held) < len(idents):
            lacking[slug] = [i for i in idents if i not in held]
    if lacking:
        many = getattr(store, "traces_texts", None)  # the CLI's Reader reads one by one
        turns = many(list(lacking)) if many is not None else {k: store.traces_text(k) for k in lacking}
        for slug, wanted in lacking.items():
            counts[slug] += len(fusion.held(wanted, turns[slug]))
    return {slug: n for slug, n in counts.items() if n}, bodies


def _result(
    row: dict[str, Any], title: str, bm25: float, text: str, *, score: float | None = None, when: float = 1.0
) -> Result:
    return Result(
        row["slug"],
        title,
        row["type"],
        row["scope_hash"],
        row["decay_state"],
        row["source"],
        row["created_at"],
        int(row["recall_count"]),
        round(rank(bm25, row, when) if score is None else score, 4),
        text,
        row.get("superseded_by"),
    )


def _body(store: Store, row: dict[str, Any]) -> str:
    """The memory's body for a snippet: the file after its frontmatter, without parsing
    and validating the YAML (a full read cost a few ms a hit, most of a search). A damaged
    or missing file still shows up as a hit, with no snippet; doctor reports it. Bytes decoded
    by hand: a text-mode file object costs twice the read itself; newlines are translated
    as text mode does. The path is joined as `files.absolute` does, without a Path object."""
    try:
        with open(os.path.join(store.layout.home, row["body_path"]), "rb") as f:
            text = f.read().decode("utf-8")
    except (KeyError, OSError, UnicodeDecodeError):
        return ""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    end = text.find("\n---\n", 3) if text.startswith("---\n") else -1
    return text[end + 5 :] if end >= 0 else ""


def traces(
    store: Store,
    query: str,
    *,
    scopes: Sequence[str] | None,
    limit: int = 10,
    include_forgotten: bool = False,
    mode: str = "hybrid",
    embedder: Embedder | None = None,
    warn: Callable[[str], None] | None = None,
) -> list[TurnHit]:
    check_mode(mode)
    if limit <= 0 or match_query(query) is None:  # no word to search for, nor a meaning
        return []
    states = states_for(include_forgotten)
    pool_size = max(limit, TRACE_POOL)
    near = _near(
        store, query, mode, embedder, warn, states, level=2, limit=turnrank.COSINE_POOL, scopes=scopes
    )
    dense = near is not None
    match = match_query(query) if not dense or mode == "hybrid" else None
    pool = store.search_turns(match, scopes=scopes, states=states, limit=pool_size) if match else []

    # A session's level-1 relevance is context for its turns. Keyword level 1 serves
    # better than hybrid here: level-1 vectors hold only what the user said, and on LoCoMo's
    # dev split hybrid sessions as context took turn recall@10 from 0.757 to 0.741.
    def sessions() -> dict[str, float]:
        found = search(
            store,
            query,
            scopes=scopes,
            types=[MemoryType.session.value],
            limit=SESSION_POOL,
            include_forgotten=include_forgotten,
            with_snippets=False,
            mode="keyword",  # see below
        )
        return {r.slug: r.score for r in found}

    if not dense:
        return turnrank.rank(query, pool, sessions=sessions(), limit=limit, today=_today()) if pool else []
    assert near is not None
    cosines = {(slug, part): cos for slug, part, cos in near}
    wanted = [k for k in list(cosines)[: turnrank.DENSE_POOL] if cosines[k] >= DENSE_FLOOR]
    extra = list(store.turns_at(wanted).values())
    for match in _identifier_matches(query if mode == "hybrid" else ""):
        extra += store.search_turns(match, scopes=scopes, states=states, limit=pool_size)
    ranked = turnrank.rank(query, pool, extra=extra, cosines=cosines, sessions=sessions(), today=_today())
    return _exact_first(query if mode == "hybrid" else "", ranked)[:limit]


def _exact_first(query: str, ranked: list[TurnHit]) -> list[TurnHit]:
    """Turns holding more of the query's identifiers verbatim first, in rank order otherwise."""
    idents = fusion.identifiers(query)
    if not idents:
        return ranked
    return sorted(ranked, key=lambda h: -fusion.verbatim(idents, h.text))


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
    mode: str = "hybrid",
    embedder: Embedder | None = None,
    warn: Callable[[str], None] | None = None,
    evidence: list[Evidence] | None = None,
) -> list[Result]:
    """A sensitive scope has no words in the index: under a grant its memories are
    decrypted and searched in a private in-memory SQLite (same tokens, same bm25), which
    never touches the disk and is gone when the search ends; its vectors are sealed with
    the scope's key and opened for the query only (Vectors.similar_sealed). The slugs of
    memories that do not decrypt (a damaged or swapped file) go to `unopened`, for the
    caller to report. `evidence` as in `search`."""
    import sqlite3

    from memoryd.errors import CorruptFile
    from memoryd.index_sql import BM25_WEIGHTS
    from memoryd.textproc import segment

    check_mode(mode)
    if limit <= 0 or _nothing(query):
        return []
    states = states_for(include_forgotten)
    pool_size = max(limit * 3, 30)
    peak: dict[str, float] = {}
    near = _near(
        store,
        query,
        mode,
        embedder,
        warn,
        states,
        level=1,
        limit=pool_size,
        types=types,
        sealed=scope_hash,
        peaks=peak,
        floor=MEMORY_FLOOR,
    )
    dense = near is not None
    match = match_query(query) if not dense or mode == "hybrid" else None
    rows = store.list(scopes=[scope_hash], types=types, states=states)
    db = sqlite3.connect(":memory:")
    docs: dict[str, tuple[dict[str, Any], str, str, str]] = {}  # slug: row, title, body, all text
    started: dict[str, str] = {}
    order: list[str] = []
    try:
        db.execute("PRAGMA temp_store = MEMORY")
        db.execute(
            "CREATE VIRTUAL TABLE m USING fts5(title, body, triggers, tags, traces, "
            "tokenize = 'porter unicode61 remove_diacritics 2')"
        )
        for row in rows:
            try:
                doc, path = store.read(row["slug"])
            except CorruptFile:
                if unopened is not None:
                    unopened.append(row["slug"])
                continue
            turns = store.files.read_turns(path)
            traces_text = "\n".join(t.text for t in turns)
            if times := [t.ts for t in turns if t.ts]:
                started[row["slug"]] = min(times)
            fields = (
                doc.meta.title,
                doc.body,
                " ".join(doc.meta.triggers),
                " ".join(doc.meta.tags),
                traces_text,
            )
            db.execute(
                "INSERT INTO m (rowid, title, body, triggers, tags, traces) VALUES (?, ?, ?, ?, ?, ?)",
                (len(order), *(segment(f) for f in fields)),
            )
            order.append(row["slug"])
            all_text = "\n".join((doc.meta.title, doc.body, traces_text))
            docs[row["slug"]] = (row, doc.meta.title, doc.body, all_text)
        w = ", ".join(str(x) for x in BM25_WEIGHTS)
        hits = (
            db.execute(
                f"SELECT rowid, bm25(m, {w}) FROM m WHERE m MATCH ? ORDER BY 2 LIMIT ?", (match, pool_size)
            ).fetchall()
            if match
            else []
        )
    finally:
        db.close()
    if not dense:
        when = time_factors(store, query, {order[rowid]: docs[order[rowid]][0] for rowid, _ in hits}, started)
        out = []
        for rowid, score in hits:
            row, title, body, _ = docs[order[rowid]]
            out.append(_result(row, title, score, snippet(body, query), when=when.get(row["slug"], 1.0)))
        return sorted(out, key=lambda r: r.score, reverse=True)[:limit]
    assert near is not None
    keyword = {order[rowid]: -score for rowid, score in hits}
    cosine = {slug: cos for slug, _, cos in near if slug in docs}
    idents = fusion.identifiers(query) if mode == "hybrid" else []
    exact = {k: n for k, d in docs.items() if idents and (n := fusion.verbatim(idents, d[3]))}
    blind = _blind(query, keyword, {k: docs[k][1] for k in cosine}, lambda ks: {k: docs[k][2] for k in ks})
    found = Evidence(
        keyword,
        cosine,
        {k: p for k, p in peak.items() if k in docs},
        exact,
        blind,
        {k: d[0] for k, d in docs.items()},
        {k: d[1] for k, d in docs.items()},
        {k: d[2] for k, d in docs.items()},
        started,
    )
    if evidence is not None:
        evidence.append(found)
        return []
    return fused(store, query, [found], limit=limit, hybrid=mode == "hybrid")


def traces_sensitive(
    store: Store,
    query: str,
    scope_hash: str,
    *,
    limit: int = 10,
    include_forgotten: bool = False,
    mode: str = "hybrid",
    embedder: Embedder | None = None,
    warn: Callable[[str], None] | None = None,
) -> list[TurnHit]:
    """Level 2 in a sensitive scope, under a grant: its sessions' turns are decrypted and
    searched in a private in-memory FTS table, like search_sensitive does for memories."""
    import sqlite3

    from memoryd.errors import CorruptFile
    from memoryd.textproc import segment

    check_mode(mode)
    if limit <= 0 or match_query(query) is None:
        return []
    states = states_for(include_forgotten)
    pool_size = max(limit, TRACE_POOL)
    near = _near(
        store, query, mode, embedder, warn, states, level=2, limit=turnrank.COSINE_POOL, sealed=scope_hash
    )
    dense = near is not None
    match = match_query(query) if not dense or mode == "hybrid" else None
    rows = store.list(scopes=[scope_hash], types=["session"], states=states)
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
        hits = (
            db.execute(
                "SELECT rowid, bm25(t) FROM t WHERE t MATCH ? ORDER BY 2 LIMIT ?", (match, pool_size)
            ).fetchall()
            if match
            else []
        )
    finally:
        db.close()

    def hit(i: int, score: float) -> TurnHit:
        slug, t = turns[i]
        return TurnHit(slug, t.seq, t.role, t.ts, t.ext_id, t.text, float(score))

    pool = [hit(i, score) for i, score in hits]
    if not dense:
        return turnrank.rank(query, pool, limit=limit, today=_today())
    assert near is not None
    everything = {(h.slug, h.seq): h for h in (hit(i, 0.0) for i in range(len(turns)))}
    cosines = {(slug, part): cos for slug, part, cos in near if (slug, part) in everything}
    wanted = [k for k in list(cosines)[: turnrank.DENSE_POOL] if cosines[k] >= DENSE_FLOOR]
    idents = fusion.identifiers(query) if mode == "hybrid" else []
    extra = [everything[k] for k in wanted]
    extra += [h for h in everything.values() if idents and fusion.verbatim(idents, h.text)]
    return _exact_first(
        query if mode == "hybrid" else "",
        turnrank.rank(query, pool, extra=extra, cosines=cosines, today=_today()),
    )[:limit]
