"""Text for search: CJK bigrams beside plain words, and queries built from text as people
type it.

FTS5's unicode61 tokenizer keeps a run of Hanzi as one token and trigram cannot match
two-character words, so Han runs are rewritten as overlapping bigrams (Lucene's CJK
analyzer does the same) before indexing and before querying. Works on any SQLite with
FTS5, needs no extension and no dictionary. Kana and hangul runs too, as Lucene's
CJKBigramFilter does: Japanese writes no spaces (このリポジトリではpnpmを was one token, so
neither リポジトリ nor pnpm found it) and Korean glues particles to its words (저장소에서는:
저장소 did not find it). A run of these scripts is bigrammed whole, Han and kana together.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple

_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
# Hiragana and katakana (less the middle dot ・, which parts words) and hangul syllables.
_KANA_HANGUL = "\u3041-\u30fa\u30fc-\u30ff\uac00-\ud7af"
_CJK = _HAN + _KANA_HANGUL
_HAN_RUN = re.compile(f"[{_CJK}]+")
_WORD = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+", re.UNICODE)
# An index written before kana and hangul were bigrammed holds them whole: migration 021
# lists such memories and memoryd.store re-indexes them from their files.

_STOPWORD_TEXT = """
a about above after again against all am an and any are as at be because been before being
below between both but by can cannot could did do does doing down during each few for from
further had has have having he her here hers herself him himself his how i if in into is it
its itself let me more most my myself no nor not of off on once only or other ought our ours
ourselves out over own same she should so some such than that the their theirs them
themselves then there these they this those through to too under until up very was we were
what when where which while who whom why will with would you your yours yourself yourselves
also just like might may must shall get got getting go going went gone make made kind sort
thing things something anything one ones s t d ll re ve m don doesn didn isn wasn aren
weren won wouldn shouldn couldn hasn haven hadn im ive id youre thats whats
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())

# Function characters: a bigram made only of these carries no topic.
_HAN_STOP = frozenset("的了吗呢吧啊是在和与我你他她它们这那么什怎哪个有就都也不要会能对把被给")


def bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def segment(text: str) -> str:
    """Rewrite Han, kana and hangul runs as space-separated bigrams; everything else is left
    as is. Decomposed text (NFD: hangul as jamo, が as か + ゙) is composed first, so it
    matches what was typed composed."""
    if text.isascii():
        return text
    text = unicodedata.normalize("NFC", text)
    if not _HAN_RUN.search(text):
        return text
    return _HAN_RUN.sub(lambda m: " " + " ".join(bigrams(m.group())) + " ", text)


def terms(text: str) -> list[str]:
    """Search terms of free text: lower-cased words without stopwords, Han bigrams."""
    if not text.isascii():
        text = unicodedata.normalize("NFC", text)  # as segment() indexes it
    out: list[str] = []
    for tok in _WORD.findall(text):
        if _HAN_RUN.fullmatch(tok):
            out.extend(b for b in bigrams(tok) if not all(c in _HAN_STOP for c in b))
            continue
        low = tok.lower()
        if low in STOPWORDS or (len(low) == 1 and low.isascii()):
            continue
        out.append(low)
    return out


def match_query(text: str) -> str | None:
    """An FTS5 MATCH expression from whatever was typed: each term quoted, OR-ed.

    Punctuation, quotes and FTS operators in the input are never syntax here, so no query
    raises and none returns nothing just because of a stray character.
    """
    seen: dict[str, None] = {}
    for term in terms(text):
        seen.setdefault(term, None)
    if not seen:
        return None
    parts = []
    for term in seen:
        quoted = '"' + term.replace('"', '""') + '"'
        # A lone Han character only occurs inside bigrams: match it as a prefix.
        parts.append(quoted + "*" if len(term) == 1 else quoted)
    return " OR ".join(parts)


def keywords(text: str, limit: int = 8) -> list[str]:
    """The most frequent meaningful words and Han bigrams: triggers for a session."""
    counts: Counter[str] = Counter()
    for term in terms(text):
        if term.isdigit() or (term.isascii() and len(term) < 3):
            continue
        counts[term] += 1
    han = [(t, n) for t, n in counts.items() if not t.isascii() and n >= 2]
    latin = [(t, n) for t, n in counts.items() if t.isascii()]
    ranked = sorted(latin + han, key=lambda item: (-item[1], item[0]))
    return [t for t, _ in ranked[:limit]]


def snippet(body: str, query: str, width: int = 160, *, words: Sequence[str] | None = None) -> str:
    """A short window of the original text around the first query term found. `words`:
    the query's terms, when the caller already has them (one search, ten snippets)."""
    flat = " ".join(body.split())
    low = flat.lower()
    pos = -1
    for term in terms(query) if words is None else words:
        pos = low.find(term)
        if pos >= 0:
            break
    start = max(0, pos - width // 3) if pos >= 0 else 0
    piece = flat[start : start + width]
    return ("…" if start > 0 else "") + piece + ("…" if start + width < len(flat) else "")


# -- dates people write in questions -------------------------------------------------------
_MONTH_TEXT = "january february march april may june july august september october november december"
_MONTHS = _MONTH_TEXT.split()
_MONTH_OF = {m: i + 1 for i, m in enumerate(_MONTHS)} | {
    m[:3]: i + 1 for i, m in enumerate(_MONTHS) if m != "may"
}
_MONTH_OF["sept"] = 9
_ORD = r"(?:st|nd|rd|th)?"
_EN_DATE = re.compile(
    rf"\b(?:(\d{{1,2}}){_ORD}\s+(?:of\s+)?)?({'|'.join(sorted(_MONTH_OF, key=len, reverse=True))})\b\.?"
    rf"(?:\s+(\d{{1,2}}){_ORD}\b)?(?:,?\s+(\d{{4}})\b)?",
    re.I,
)
_NUM_DATE = re.compile(r"\b(\d{4})[-/.](\d{1,2})(?:[-/.](\d{1,2}))?\b")
_ZH_DATE = re.compile(r"(?:(\d{4})\s*年)?\s*(?:(\d{1,2})\s*月)(?:\s*(\d{1,2})\s*[日号])?|(\d{4})\s*年")
_YEAR = re.compile(r"\b(19\d\d|20\d\d)\b")
# "may" is a month only next to a number or after a word that introduces a time.
_MAY_CONTEXT = re.compile(
    r"\b(?:in|of|early|late|mid|since|until|till|before|after|during|last|next)\s+$", re.I
)


class DateRef(NamedTuple):
    """A calendar date a query mentions; parts it leaves open are None."""

    year: int | None
    month: int | None
    day: int | None


def _ref(year: str | None, month: int | None, day: str | None) -> DateRef | None:
    y = int(year) if year else None
    d = int(day) if day else None
    if y is not None and not 1900 <= y <= 2100:
        y = None
    if month is not None and not 1 <= month <= 12:
        return None
    if d is not None and not 1 <= d <= 31:
        d = None
    if y is None and month is None:
        return None
    return DateRef(y, month, d)


def dates(text: str) -> list[DateRef]:
    """Dates mentioned in free text: 'October 13, 2023', '3 June', 'in May', '2023-05-08',
    '2023年5月8日', a bare year. Relative dates ('last week') are not resolved."""
    found: list[DateRef] = []
    taken: list[tuple[int, int]] = []

    def add(ref: DateRef | None, span: tuple[int, int]) -> None:
        if ref is not None and not any(a < span[1] and span[0] < b for a, b in taken):
            found.append(ref)
            taken.append(span)

    for m in _NUM_DATE.finditer(text):
        add(_ref(m.group(1), int(m.group(2)), m.group(3)), m.span())
    for m in _ZH_DATE.finditer(text):
        if m.group(4):
            add(_ref(m.group(4), None, None), m.span())
        else:
            add(_ref(m.group(1), int(m.group(2)), m.group(3)), m.span())
    for m in _EN_DATE.finditer(text):
        word = m.group(2).lower()
        month = _MONTH_OF[word]
        numbers = m.group(1) or m.group(3) or m.group(4)
        if word not in _MONTHS and not numbers:
            continue  # 'mar', 'jan' alone are too often something else
        if word == "may" and not numbers and not _MAY_CONTEXT.search(text[: m.start()]):
            continue
        add(_ref(m.group(4), month, m.group(1) or m.group(3)), m.span())
    for m in _YEAR.finditer(text):
        add(_ref(m.group(1), None, None), m.span())
    return found


def date_match(refs: list[DateRef], ts: str | None) -> float:
    """How well an ISO timestamp fits the best of `refs`: the share of the parts a
    reference names that agree (year, month, day), 0.0 when any named year or month
    disagrees."""
    if not refs or not ts or len(ts) < 10:
        return 0.0
    try:
        year, month, day = int(ts[0:4]), int(ts[5:7]), int(ts[8:10])
    except ValueError:
        return 0.0
    best = 0.0
    for ref in refs:
        if (ref.year is not None and ref.year != year) or (ref.month is not None and ref.month != month):
            continue
        named = sum(p is not None for p in ref)
        agree = (ref.year is not None) + (ref.month is not None) + (ref.day is not None and ref.day == day)
        best = max(best, agree / named)
    return best
