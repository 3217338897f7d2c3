"""Level-2 (turn) ranking: a raw turn is short and leans on what surrounds it.

A question rarely shares its words with the one turn that answers it ("What activities has
Melanie done with her family?" against "Melanie: Yesterday I took the kids to the
museum"), so a turn is ranked by its own relevance and by what it carries:

* its neighbours: the question before an answer, the reply after a statement;
* its session: a turn from a session that matches the query as a whole (level 1) or holds
  the best-matching turn is more likely to be the one;
* who spoke: when the query names a speaker, that speaker's turns (a leading "Name:");
* when: a date the query names lifts turns of that date, as do days its time words
  point back to ("last week", 三天前: memoryd.timewords, given today), and a query that
  asks when something happened lifts turns that say when ("last week", "yesterday", "in May");
* dense similarity, when vectors are available: the turn's cosine with the query and its
  best neighbour's, fused with the keyword part by per-query min-max normalised weights.

The weights were chosen on LoCoMo conversations 0-4 only and checked on 5-9
(docs/benchmarks.md); each is a round share, and the neighbourhood of the chosen point is
flat, so they are not fitted to those questions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import date
from functools import lru_cache
from typing import TYPE_CHECKING

from memoryd import timewords
from memoryd.textproc import date_match, dates, terms

if TYPE_CHECKING:  # the store (and SQLAlchemy) stays off the read path's imports
    from memoryd.store.index import TurnHit

Key = tuple[str, int]  # (session slug, turn seq)

# Candidates fetched by bm25 and, in hybrid search, by cosine; cosines are read deeper
# than the candidates so a candidate's neighbours have theirs. The lifts below can only
# reach a turn that is a candidate: on LoCoMo's dev split, pools of 200 / 200 / 300 gave
# turn recall@10 0.756, 300 0.763, 400 0.768, 800 0.768 (traces at 100k memories in one
# scope: p50 95 -> 110 ms from 200 to 400).
TRACE_POOL = 400
DENSE_POOL = 400
COSINE_POOL = 600
# Keyword part: a turn's bm25 relevance plus shares of its best neighbour's and of its
# session's best turn's.
NEIGHBOUR_SHARE = 0.3
SESSION_SHARE = 0.6
# Dense part: a turn's cosine plus a share of its best neighbour's.
DENSE_NEIGHBOUR_SHARE = 0.6
# Fusion of the two normalised parts. Turns are short, so words count for more here than
# at level 1 (0.3 / 0.7): on LoCoMo dense alone ranks turns far worse than bm25.
KEYWORD_WEIGHT = 0.6
DENSE_WEIGHT = 0.4
# Lifts added to the fused score (which lies in [0, 1]).
LEVEL1_SHARE = 0.3  # x the session's normalised level-1 relevance
SPEAKER_LIFT = 0.3  # the query names the turn's speaker
DATE_LIFT = 0.3  # x how well the turn's date fits a date the query names
TIME_LIFT = 0.2  # the query asks when, and the turn says when


_SPEAKER = re.compile(r"^\s*([^\W\d_][\w.'-]*(?: [^\W\d_][\w.'-]*){0,2})\s*[:：]\s")
_ASKS_WHEN = re.compile(
    r"\b(?:when|what (?:year|month|day|date|time)|how long ago|since when)\b"
    r"|什么时候|何时|哪天|哪一天|哪年|哪一年|几月|几号",
    re.I,
)
_SAYS_WHEN = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|last|next|ago|recently|earlier|later|soon|week|weekend|"
    r"month|year|years|since|(?:mon|tues|wednes|thurs|fri|satur|sun)day|january|february|march|"
    r"april|may|june|july|august|september|october|november|december|(?:19|20)\d\d)\b"
    r"|昨天|今天|明天|前天|上周|下周|上个月|下个月|去年|明年|最近|周末|[0-9一二三四五六七八九十]+\s*[年月日号]"
)


def speaker(text: str) -> str | None:
    """The name a turn starts with ("Caroline: ..."), as chat logs and imports write it."""
    m = _SPEAKER.match(text[:60])
    if not m or any(w[0].islower() for w in m.group(1).split()):
        return None  # "note to self: ..." names no one
    return m.group(1)


@lru_cache(maxsize=1024)
def _name_terms(who: str) -> frozenset[str]:
    return frozenset(terms(who))


def names_speaker(query_terms: set[str], text: str) -> bool:
    """The query names the turn's speaker (every word of the name)."""
    who = speaker(text)
    named = _name_terms(who) if who else frozenset()
    return bool(named) and named <= query_terms


def asks_when(query: str) -> bool:
    return bool(_ASKS_WHEN.search(query))


def says_when(text: str) -> bool:
    who = speaker(text)
    body = text.split(":", 1)[1] if who else text  # the speaker's name is no time word
    return bool(_SAYS_WHEN.search(body.lower()))


def minmax(scores: Mapping[Key, float]) -> dict[Key, float]:
    """Scores onto [0, 1] within one query; all equal map to 1."""
    if not scores:
        return {}
    lo, hi = min(scores.values()), max(scores.values())
    if hi - lo <= 1e-12:
        return dict.fromkeys(scores, 1.0)
    return {k: (v - lo) / (hi - lo) for k, v in scores.items()}


def _near(values: Mapping[Key, float], key: Key) -> float:
    slug, seq = key
    return max(values.get((slug, seq - 1), 0.0), values.get((slug, seq + 1), 0.0))


def rank(
    query: str,
    pool: Sequence[TurnHit],
    *,
    extra: Iterable[TurnHit] = (),
    cosines: Mapping[Key, float] | None = None,
    sessions: Mapping[str, float] | None = None,
    limit: int | None = None,
    today: date | None = None,
) -> list[TurnHit]:
    """Turns best first, their score the final one negated (lower is better, as bm25).

    `pool` holds the bm25 hits (score = bm25, lower is better); `extra` more candidates,
    found by cosine (their own score is ignored); `cosines` the query's cosine for as many
    turns as are known, candidates and their neighbours; `sessions` level-1 relevance of
    session memories (higher is better); `limit` how many to return (all by default);
    `today` what the query's time words count back from (none given: they are not read)."""
    cands: dict[Key, TurnHit] = {}
    for h in [*pool, *extra]:
        cands.setdefault((h.slug, h.seq), h)
    if not cands:
        return []
    rel = {(h.slug, h.seq): -h.score for h in pool}
    best: dict[str, float] = {}
    for (slug, _), r in rel.items():
        best[slug] = max(best.get(slug, 0.0), r)
    keyword = {
        k: rel.get(k, 0.0) + NEIGHBOUR_SHARE * _near(rel, k) + SESSION_SHARE * best.get(k[0], 0.0)
        for k in cands
    }
    kw = minmax(keyword)
    if cosines:
        dense = minmax({k: cosines.get(k, 0.0) + DENSE_NEIGHBOUR_SHARE * _near(cosines, k) for k in cands})
        fused = {k: KEYWORD_WEIGHT * kw[k] + DENSE_WEIGHT * dense[k] for k in cands}
    else:
        fused = kw
    level1 = minmax({(s, 0): v for s, v in (sessions or {}).items()})
    refs = dates(query)
    days = timewords.spans(query, today) if today is not None else []
    qterms = set(terms(query))
    when = asks_when(query)

    def final(k: Key, h: TurnHit) -> float:
        s = fused[k] + LEVEL1_SHARE * level1.get((k[0], 0), 0.0)
        if refs or days:
            s += DATE_LIFT * max(date_match(refs, h.ts), float(timewords.held_on(h.ts, days)))
        if names_speaker(qterms, h.text):
            s += SPEAKER_LIFT
        if when and says_when(h.text):
            s += TIME_LIFT
        return s

    scored = sorted(
        ((final(k, h), i, h) for i, (k, h) in enumerate(cands.items())), key=lambda x: (-x[0], x[1])
    )
    return [replace(h, score=round(-s, 4)) for s, _, h in scored[:limit]]
