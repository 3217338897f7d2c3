"""Hybrid ranking: keyword (bm25) relevance and dense cosines fused into one order.

Measured on LongMemEval_S (issue 20): a weighted sum of per-query min-max normalised scores,
0.3 x keyword + 0.7 x dense, beat either alone and beat reciprocal rank fusion; a candidate
keyword search did not match gets keyword part 0. Min-max makes the two scales comparable
within one query only, which is all a ranking needs.

A sentence encoder blurs identifiers (ERR_PNPM_PEER_DEP, vite.config.ts, JIRA-1234, 1.4.2)
into their neighbours, yet a user who types one wants the memory that has it: a memory
holding an identifier of the query verbatim ranks above every memory that does not.

Keyword search cannot match across languages: a Chinese question shares no token with an
English memory, an English question none with a German one. Counting that absence as a
keyword part of 0 pushed the memory a question was about below memories in the question's
own language that merely shared a word with it (issue 20's bilingual set: hybrid top-3
across languages 72% against dense alone's 81%).
For a candidate written in another language than the query (another writing system, or
another Latin-script language by its function words), keyword search has no evidence
either way, so its keyword part is its dense part: it ranks by meaning alone.

Pure functions over plain mappings, so the product and bench/ share them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Hashable, Iterable, Mapping
from typing import TypeVar

from memoryd.language import LATIN, latin_language

K = TypeVar("K", bound=Hashable)

KEYWORD_WEIGHT = 0.3
DENSE_WEIGHT = 0.7
# Added per identifier held verbatim: above the best fused score times the best rank factor.
EXACT_STEP = 2.0

# Tokens a plain word never looks like (ASCII rules, so a Han character next to one is a
# boundary): a ticket (#1234, JIRA-1234), a version (1.4.2, v18.2), a file name with an
# extension (vite.config.ts, src/app.py), snake_case or an error code (ERR_PNPM_PEER_DEP),
# letters with digits (E0382, TS2345) and camelCase (useEffect).
_IDENTIFIER = re.compile(
    r"""
    (?<![\w#])\#\d+\b
  | \b[A-Z][A-Z0-9]+-\d+\b
  | (?<![\w.])v?\d+(?:\.\d+)+(?:-[0-9A-Za-z.]+)?(?![\w.])
  | (?<![\w.])(?:[\w-]+/)*[\w-]{2,}(?:\.[\w-]+)*\.[A-Za-z][A-Za-z0-9]{0,7}\b
  | \b[A-Za-z0-9]*[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b
  | \b_[A-Za-z0-9_]+\b
  | \b[A-Za-z]+\d[A-Za-z0-9]*\b
  | \b[a-z]+[A-Z][A-Za-z0-9]*\b
    """,
    re.VERBOSE | re.ASCII,
)


def minmax(scores: Mapping[K, float]) -> dict[K, float]:
    """Scores mapped onto [0, 1] within this query; all equal (one candidate, say) map to 1."""
    if not scores:
        return {}
    lo, hi = min(scores.values()), max(scores.values())
    if hi - lo <= 1e-12:
        return dict.fromkeys(scores, 1.0)
    return {k: (v - lo) / (hi - lo) for k, v in scores.items()}


def fuse(
    keyword: Mapping[K, float],
    dense: Mapping[K, float],
    *,
    keyword_weight: float = KEYWORD_WEIGHT,
    dense_weight: float = DENSE_WEIGHT,
    blind: Collection[K] = (),
) -> dict[K, float]:
    """One score per candidate of either list, higher is better. `keyword` holds
    relevance (higher is better: negate bm25), `dense` cosines; a candidate missing from
    one list gets 0 for that part, except one in `blind` (keyword search could not have
    matched it: another language than the query's), whose keyword part is at least its
    dense part. When keyword search matched nothing it has no say: every candidate's
    keyword part is 0, `blind` or not, and meaning alone orders them."""
    kw, dn = minmax(keyword), minmax(dense)
    blind = blind if keyword else ()
    keys = dict.fromkeys([*keyword, *dense])
    out = {}
    for k in keys:
        k_part, d_part = kw.get(k, 0.0), dn.get(k, 0.0)
        if k in blind:
            k_part = max(k_part, d_part)
        out[k] = keyword_weight * k_part + dense_weight * d_part
    return out


# How much of a body is read where the title does not tell its language: a few sentences
# hold enough function words, and a long session's body is not scanned whole.
BODY_CHARS = 400

# Letters by writing system; a word of a spaced script counts as much as two CJK characters
# (a Chinese word is about two characters long). Japanese writes Han characters among its
# kana; a text is Japanese when at least a quarter of its CJK characters are kana.
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_KANA = re.compile(r"[\u3040-\u30ff]")
_HANGUL = re.compile(r"[\uac00-\ud7af]")
_ASCII_LETTER = re.compile(r"[A-Za-z]")
_SPACED = {
    "latin": re.compile(r"[A-Za-z\u00c0-\u024f]+"),
    "cyrillic": re.compile(r"[\u0400-\u04ff]+"),
    "greek": re.compile(r"[\u0370-\u03ff]+"),
    "arabic": re.compile(r"[\u0600-\u06ff]+"),
    "hebrew": re.compile(r"[\u0590-\u05ff]+"),
}
# A letter of each script that has a language of its own to memoryd.stopwords.foreign.
LETTER_OF = {"cyrillic": _SPACED["cyrillic"], "kana": _KANA, "hangul": _HANGUL}


def script(text: str) -> str | None:
    """The writing system most of `text` is in ("han", "kana" for Japanese, "hangul",
    "latin", "cyrillic"...), None when it has no letters. Keyword search matches within one."""
    if text.isascii():  # most titles: no other script's letters can be there (six scans saved)
        return "latin" if _ASCII_LETTER.search(text) else None
    han, kana = len(_HAN.findall(text)), len(_KANA.findall(text))
    counts = {"kana" if kana * 4 >= han + kana else "han": (han + kana) / 2}
    counts["hangul"] = len(_HANGUL.findall(text)) / 2
    counts.update({name: len(rx.findall(text)) for name, rx in _SPACED.items()})
    best = max(counts, key=lambda name: counts[name])
    return best if counts[best] > 0 else None


def language(text: str) -> str | None:
    """What keyword search can match `text` with: its writing system, and for the Latin
    script the language its function words tell (memoryd.language), else "latin"."""
    found = script(text)
    if found == "latin":
        return latin_language(text) or "latin"
    return found


def apart(one: str | None, other: str | None) -> bool:
    """Two texts of these `language`s share no words keyword search could match: other
    writing systems, or two Latin-script languages told apart (one of unknown language
    could be either)."""
    if one is None or other is None or one == other:
        return False
    unknown = {one, other} - LATIN
    return not (unknown == {"latin"} and len({one, other} & LATIN) == 1)


def other_language(
    query: str, titles: Mapping[K, str], bodies: Callable[[list[K]], Mapping[K, str]] | None = None
) -> set[K]:
    """The candidates written in another language than the query (judged by their `titles`):
    keyword search cannot judge them. A title's words are read only where its script alone
    does not tell (both Latin, the query's language known); a title too short to tell is
    read again with its body, from `bodies` (given the undecided keys), where there is one."""
    mine = language(query)
    if mine is None:
        return set()
    out, unsure = set(), []
    for k, title in titles.items():
        theirs = script(title)
        if theirs == "latin" and mine in LATIN:
            theirs = latin_language(title)
            if theirs is None:
                unsure.append(k)
                continue
        if apart(mine, theirs):
            out.add(k)
    if unsure and bodies is not None:
        more = bodies(unsure)
        for k in unsure:
            if apart(mine, latin_language(f"{titles[k]}\n{more.get(k, '')[:BODY_CHARS]}") or "latin"):
                out.add(k)
    return out


def identifiers(query: str) -> list[str]:
    """The identifier-like tokens of a query, in order, without repeats."""
    found = (m.group().rstrip(".") for m in _IDENTIFIER.finditer(query))
    return list(dict.fromkeys(t for t in found if len(t) >= 2))


def _pattern(ident: str) -> re.Pattern[str]:
    # Whole token only: ERR_X must not match ERR_X_Y, #12 not #123, 1.2 not 1.2.3.
    return re.compile(rf"(?<![\w#]){re.escape(ident)}(?![\w]|[.-]\w)", re.ASCII | re.IGNORECASE)


def verbatim(idents: Iterable[str], text: str) -> int:
    """How many of the identifiers occur in `text` as whole tokens (case aside)."""
    return sum(1 for ident in idents if _pattern(ident).search(text))


def held(idents: Iterable[str], text: str) -> list[str]:
    """The identifiers that occur in `text` as whole tokens (case aside). Texts joined by
    a line break hold what the parts hold: an identifier never spans one."""
    return [ident for ident in idents if _pattern(ident).search(text)]


def order(
    scores: Mapping[K, float],
    *,
    factors: Mapping[K, float] | None = None,
    exact: Mapping[K, int] | None = None,
) -> list[tuple[K, float]]:
    """Candidates best first with their final score: `scores` (at most 1, as `fuse` gives)
    times the candidate's rank factor (memoryd.search.factor: long-term above session, decay
    state, superseded), plus EXACT_STEP per identifier of the query it holds verbatim. The
    step is above any fused score, so whoever merges results by score (the facade, with
    sensitive scopes' results) keeps exact matches first. Ties keep the given order."""
    factors = factors or {}
    exact = exact or {}
    final = {k: s * factors.get(k, 1.0) + EXACT_STEP * exact.get(k, 0) for k, s in scores.items()}
    pos = {k: i for i, k in enumerate(scores)}
    ranked = sorted(final, key=lambda k: (-final[k], pos[k]))
    return [(k, final[k]) for k in ranked]
