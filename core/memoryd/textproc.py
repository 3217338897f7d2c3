"""Text for search: CJK bigrams beside plain words, and queries built from text as people
type it.

FTS5's unicode61 tokenizer keeps a run of Hanzi as one token and trigram cannot match
two-character words, so Han runs are rewritten as overlapping bigrams (Lucene's CJK
analyzer does the same) before indexing and before querying. Works on any SQLite with
FTS5, needs no extension and no dictionary.
"""

from __future__ import annotations

import re
from collections import Counter

_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_HAN_RUN = re.compile(f"[{_HAN}]+")
_WORD = re.compile(rf"[{_HAN}]+|[^\W_{_HAN}]+", re.UNICODE)

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
    """Rewrite Han runs as space-separated bigrams; everything else is left as is."""
    if not _HAN_RUN.search(text):
        return text
    return _HAN_RUN.sub(lambda m: " " + " ".join(bigrams(m.group())) + " ", text)


def terms(text: str) -> list[str]:
    """Search terms of free text: lower-cased words without stopwords, Han bigrams."""
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


def snippet(body: str, query: str, width: int = 160) -> str:
    """A short window of the original text around the first query term found."""
    flat = " ".join(body.split())
    low = flat.lower()
    pos = -1
    for term in terms(query):
        pos = low.find(term)
        if pos >= 0:
            break
    start = max(0, pos - width // 3) if pos >= 0 else 0
    piece = flat[start : start + width]
    return ("…" if start > 0 else "") + piece + ("…" if start + width < len(flat) else "")
