"""What a decision is about, as opposed to what it chooses (issue 21): "Use Postgres for the
job queue" is about the job queue, "Switch the frontend from Vue to React" about the
frontend, "前端框架改用React" about 前端框架. Two decisions that both pick a database are
no supersede unless they pick it for the same thing.

A subject is a tuple of words (English, lightly stemmed) or of Han chunks; one subject
matches another when every word of the shorter has its match in the longer ("frontend"
and "frontend framework", "前端" and "前端框架"), not one shared word ("job queue" and
"message queue" are not the same thing)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

Subject = tuple[str, ...]

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_WORD = re.compile(r"[A-Za-z][\w'-]*")
_SKIP_WORDS = """the a an our my their its this that these those all any every each some both new
    old only your his her local main own whole entire same other"""
_SKIP = frozenset(_SKIP_WORDS.split())
_END_WORDS = """of in on at to from with by because since so but when if instead rather now and or
    is are was were be been than until per via over into onto off away across it we they which
    that who where while as for here there too also just again then not no"""
_END = frozenset(_END_WORDS.split())
_FOR = re.compile(r"\b(?:for|as)\s+", re.I)
_MOVE = re.compile(
    r"\b(?:switch|mov|migrat|port|rewrit|rewrote|chang|convert|replatform|rebuil|transition)\w*\s+", re.I
)
_MOVE_END = re.compile(r"\s*\b(?:from|to|off|away|onto|over)\b", re.I)
_LEAD = re.compile(
    r"^\s*(?:[-*>#]\s*)?(?:the\s+|our\s+)?(?P<s>(?:[A-Za-z][\w'-]*\s+){0,3}[A-Za-z][\w'-]*)\s+"
    r"(?:moves?|moved|is\s+moving|go(?:es)?|runs?\s+on|lives?\s+in|(?:is|are)\s+(?:stored|kept|built|"
    r"written|served|bundled|managed|covered|published|queued|reported|shipped|handled|run)\b)",
    re.I,
)
_CN_VERB = (
    r"(?:改用|换用|换成|改成|切换到|迁移到|迁到|使用|采用|选用|统一用|都用|一律用|跑在|部署在|放在|存在|"
    r"用|选|存)"
)
_CN_LEAD = re.compile(
    rf"(?:^|[，。；,;：:\s])(?P<s>[A-Za-z0-9\u3400-\u4dbf\u4e00-\u9fff]{{1,12}}?){_CN_VERB}"
)
_CN_FOR = re.compile(r"(?:用来做|用于|作为|当作|做)(?P<s>[\u3400-\u4dbf\u4e00-\u9fff]{1,10})")
_CN_TRIM_HEAD = re.compile(r"^(?:以后|今后|现在|我们|统一|全部|一律|都|也|还是|继续|把|的|请|要)+")
_CN_TRIM_TAIL = re.compile(r"(?:都|也|还是|统一|一律|全部|就|要|会|改|是|的|里|上|了|再)+$")
_CN_STOP = re.compile(r"[用了的是在把被从到和与]")
_CLAUSE = re.compile(r"[.!?。！？;；\n]+")
_KEEP = re.compile(r"\b(?:stay\w*|remain\w*|still|keep\w*|kept)\b|继续|仍然|依然|还是|保留|留在|还在", re.I)


def _stem(word: str) -> str:
    w = word.lower().removesuffix("'s")
    if len(w) > 5 and w.endswith("ing"):
        w = w[:-3]
    elif len(w) > 4 and w.endswith("ies"):
        w = w[:-3] + "y"
    elif len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        w = w[:-1]
    if len(w) > 4 and w.endswith("e"):
        w = w[:-1]
    return w


def _words(text: str, names: frozenset[str], *, until: re.Pattern[str] | None = None) -> Subject:
    """The phrase at the start of `text`: words up to a function word or punctuation."""
    out: list[str] = []
    pos = 0
    while True:
        m = re.compile(r"\s*").match(text, pos)
        pos = m.end() if m else pos
        w = _WORD.match(text, pos)
        if w is None or len(out) >= 4:
            break
        low = w.group().lower()
        if low in _END:
            break
        pos = w.end()
        if low in _SKIP and not out:
            continue
        if low not in names and low not in _SKIP:
            out.append(_stem(w.group()))
    if until is not None and not until.match(text, pos):
        return ()
    return tuple(out)


def _han(chunk: str, names: frozenset[str]) -> Subject:
    chunk = chunk.lower()
    for n in names:
        chunk = chunk.replace(n, " ")
    parts = []
    for piece in chunk.split():
        piece = _CN_TRIM_TAIL.sub("", _CN_TRIM_HEAD.sub("", piece))
        if (len(piece) >= 2 and not _CN_STOP.search(piece)) or re.fullmatch(r"[A-Za-z0-9]{2,}", piece):
            parts.append(piece.lower())
    return tuple(parts)


def _from(text: str, names: frozenset[str]) -> list[Subject]:
    out: list[Subject] = []
    for m in _FOR.finditer(text):
        out.append(_words(text[m.end() :], names))
    for m in _MOVE.finditer(text):
        out.append(_words(text[m.end() :], names, until=_MOVE_END))
    for clause in _CLAUSE.split(text):
        m = _LEAD.match(clause)
        if m is not None:
            out.append(_words(m.group("s"), names))
    if _HAN.search(text):
        for m in _CN_LEAD.finditer(text):
            out.append(_han(m.group("s"), names))
        for m in _CN_FOR.finditer(text):
            out.append(_han(m.group("s"), names))
    return list(dict.fromkeys(s for s in out if s))


def subjects(title: str, body: str, names: Iterable[str] = ()) -> list[Subject]:
    """What a memory is about: from its title, else from the first sentences of its body
    that do not say something stays ("jobs stay in Postgres" is about what is kept)."""
    lowered = frozenset(w for n in names for w in (n.lower(), *n.lower().split()))
    found = _from(title, lowered)
    if found:
        return found
    sentences = [s for s in _CLAUSE.split(body) if s.strip() and not _KEEP.search(s)]
    return _from(". ".join(sentences[:3]), lowered)


def _same_token(a: str, b: str) -> bool:
    if a == b:
        return True
    return bool(_HAN.search(a) and _HAN.search(b)) and (a in b or b in a)


def _covers(small: Subject, big: Subject) -> bool:
    return all(any(_same_token(a, b) for b in big) for a in small)


def same(a: Sequence[Subject], b: Sequence[Subject]) -> bool | None:
    """Whether two memories are about the same thing; None when one says nothing about it."""
    if not a or not b:
        return None
    for x in a:
        for y in b:
            small, big = (x, y) if len(x) <= len(y) else (y, x)
            if _covers(small, big):
                return True
    return False


def describe(found: Sequence[Subject]) -> str:
    return "; ".join(" ".join(s) for s in found[:2])
