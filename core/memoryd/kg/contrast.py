"""Negation and contrast around a name (issue 21): which names a sentence leaves behind
("instead of SQLite", "moved away from SQLite", "not npm", "Poetry is deprecated",
"不再用 Vue", "用 Y 而不是 X", "弃用 Webpack", "X 被 Y 取代") and which it says stay
("jobs stay in Postgres", "继续用 Redis").

The graph has no predicate for what a memory left: a name left behind is written
`mentions` (and kept in Extraction.replaced for the supersedes check), never `uses` or
`prefers`. A new predicate would reach every reader of the graph for little gain."""

from __future__ import annotations

import re
from collections.abc import Sequence

Span = tuple[int, int]  # a name's start and end in the text

_W = r"[A-Za-z][\w'-]*"
# What may stand between a cue and the name it is about ("instead of the old SQLite").
_TIGHT = re.compile(
    r"(?:\s|\b(?:the|a|an|our|my|their|its|this|that|old|legacy|existing|current|using|use|with|"
    r"on|in|of|any|all|for|from)\b|[\"'`(]|用|使用|采用|了|掉|再|的|是|在|去|选)*",
    re.I,
)
# A verb phrase ending in a preposition: "no longer deploy with Jenkins".
_VERB_THEN = re.compile(
    rf"\s*(?:{_W}\s+){{0,3}}?(?:with|in|on|using|via|through|by)\b" + _TIGHT.pattern, re.I
)
# One word more after a strong contrast: "instead of hand-written Ansible playbooks".
_ONE = re.compile(r"\s*[\w-]+" + _TIGHT.pattern, re.I)

# Cue, and how far it reaches: the first name after it, with only its gap between.
_AFTER: list[tuple[re.Pattern[str], tuple[re.Pattern[str], ...]]] = [
    (
        re.compile(r"\b(?:instead\s+of|rather\s+than|in\s+place\s+of|away\s+from)\b", re.I),
        (_TIGHT, _ONE),
    ),
    (
        re.compile(
            r"\b(?:without|no\s+more|"
            r"(?:took|take[sn]?|taking)\s+over\s+from|mov(?:e|ed|es|ing)\s+on\s+from|"
            r"(?:got|get|getting)\s+rid\s+of|(?:give|gave|giving)\s+up(?:\s+on)?|"
            r"(?:phas|ripp?|swapp?|switch)\w*\s+out(?:\s+of)?|replac\w*|swapp?\w*|trad(?:e|ed|ing)|"
            r"dropp?\w*|abandon\w*|ditch\w*|deprecat\w*|retir\w*|sunset\w*|remov\w*|uninstall\w*|"
            r"quit\w*|avoid\w*|ban(?:ned|s)?|previously|formerly|used\s+to(?:\s+(?:use|run|be))?|"
            r"(?:tried|trialled|tested)(?=[^.;]{0,40}\bbut\b)|"
            r"over)\b",
            re.I,
        ),
        (_TIGHT,),
    ),
    (
        re.compile(
            r"\b(?:no\s+longer|not\s+any\s*more|never|don'?t|do\s+not|does\s+not|doesn'?t|won'?t|"
            r"will\s+not|should\s*n[o']t|must\s*n[o']t|nobody\s+should|no\s+one\s+should|stop\w*|"
            r"not(?!\s+(?:only|just|yet|sure|all)\b))\b",
            re.I,
        ),
        (_TIGHT, _VERB_THEN),
    ),
    (
        re.compile(r"\b(?:mov|migrat|switch|port|get|got|getting|transition|came|come)\w*\b", re.I),
        (re.compile(rf"(?:\s+{_W}){{0,4}}?\s+off(?:\s+of)?" + _TIGHT.pattern, re.I),),
    ),
    (
        re.compile(
            r"不再|别|不要|禁止|避免|切勿|绝不|不用|不使用|没有?用|弃用|放弃|抛弃|淘汰|停用|去掉|移除|"
            r"告别|而不是|而非|不是|不选|代替|取代|替代|替换|以前|原来|原先|过去|曾经|迁出|迁离|"
            r"干掉|删掉|拿掉|下线|与其"
        ),
        (_TIGHT,),
    ),
]

# Cue right after a name: "Poetry is deprecated", "Memcached已经下线了", "X -> Y".
_BEFORE = [
    re.compile(
        r"^(?:\s*,?\s*(?:which|that)\s+)?\s*(?:is|was|are|were|has\s+been|have\s+been|had\s+been|got|gets|"
        r"will\s+be|is\s+being|'s)\s+(?:now\s+|already\s+|officially\s+|also\s+|being\s+)?"
        r"(?:deprecated|dropped|retired|removed|gone|replaced|phased\s+out|sunset|obsolete|out\b|dead|"
        r"ripped\s+out|swapped\s+out|abandoned|banned|no\s+longer|not\s+(?:used|needed|allowed)|legacy|"
        r"overkill|too\s+(?:heavy|slow|complex|complicated|expensive))",
        re.I,
    ),
    re.compile(r"^\s+(?:used\s+to|isn'?t\s+(?:used|needed)|is\s+not\s+(?:used|needed))\b", re.I),
    re.compile(r"^\s*(?:->|→|=>)"),
    re.compile(
        r"^(?:\s+[A-Za-z]\w*)?\s*(?:已经|已|都|也|现在|目前|就|已被)*\s*(?:弃用|废弃|淘汰|下线|停用|移除|去掉|"
        r"退役|不用了|不用|不再|不需要|换掉|被[^，。；,;]{0,24}?(?:取代|替代|替换|淘汰|干掉)|"
        r"改用|换成|改成|换为|切换到|迁移到|迁到|切到)"
    ),
]

# Names the memory says stay: "jobs stay in Postgres", "keep Redis", "继续用 Redis".
_KEEP_AFTER = re.compile(
    r"\b(?:stay\w*|remain\w*|keep\w*|kept|still)\b|继续|仍然|仍旧|依然|还是|保留|留在|还在",
    re.I,
)
_KEEP_BEFORE = re.compile(r"^\s+(?:stays?|remains?|is\s+kept|keeps\s+\w+ing)\b|^\s*(?:保留|不变|照旧)", re.I)

_AND = re.compile(r"\s*(?:,\s*)?(?:and|or|nor|&|和|与|跟|及|以及|、|,|，)\s*", re.I)


def _after(text: str, hits: Sequence[Span], cue_end: int, gaps: Sequence[re.Pattern[str]]) -> int | None:
    for i, (start, _end) in enumerate(hits):
        if start < cue_end:
            continue
        gap = text[cue_end:start]
        return i if any(g.fullmatch(gap) for g in gaps) else None
    return None


def _chain(text: str, hits: Sequence[Span], picked: set[int]) -> set[int]:
    """A name joined to a picked one by "and" / "和" goes with it ("dropped Flake8 and Black",
    "Flake8和Black都不用了")."""
    out = set(picked)
    changed = True
    while changed:
        changed = False
        for i in range(len(hits) - 1):
            a, b = hits[i], hits[i + 1]
            if (i in out) != (i + 1 in out) and _AND.fullmatch(text[a[1] : b[0]]):
                out |= {i, i + 1}
                changed = True
    return out


def left_behind(text: str, hits: Sequence[Span]) -> set[int]:
    """Indexes into `hits` (sorted spans in `text`) of the names `text` leaves behind."""
    out: set[int] = set()
    for cue, gaps in _AFTER:
        for m in cue.finditer(text):
            i = _after(text, hits, m.end(), gaps)
            if i is not None:
                out.add(i)
    for i, (_start, end) in enumerate(hits):
        rest = text[end : end + 60]
        if any(p.match(rest) for p in _BEFORE):
            out.add(i)
    return _chain(text, hits, out)


def kept(text: str, hits: Sequence[Span]) -> set[int]:
    """Indexes of the names `text` says stay as they are."""
    out: set[int] = set()
    for m in _KEEP_AFTER.finditer(text):
        i = _after(text, hits, m.end(), (_TIGHT, _VERB_THEN))
        if i is not None:
            out.add(i)
    for i, (_start, end) in enumerate(hits):
        if _KEEP_BEFORE.match(text[end : end + 40]):
            out.add(i)
    return _chain(text, hits, out)


# Where one clause ends and the next begins: a stance ("use") reaches its own clause only.
# A Chinese comma parts clauses (lists take 、); an English one often parts a list.
_CLAUSE = re.compile(
    r"[;:；：，]|,?(?<!\s)\s+(?:so|because|since|but|while|whereas|although|though|after|once)\s+|"
    r"，?(?:所以|因为|但是|但|不过|而且|然后|因此)"
)


def clauses(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for m in _CLAUSE.finditer(text):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(text)))
    return spans
