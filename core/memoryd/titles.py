"""Titles a person would write: the statement itself, without the lead-in people type to an
agent ("Remember:", "Warning for the future:", "记住："), cut at a clause or word boundary.

A cut never splits a word: in English it falls on a space; in Chinese between two Han
characters (or at a clause mark), never inside an ASCII word, file name or version.
"""

from __future__ import annotations

import re
import unicodedata

LIMIT = 80
ELLIPSIS = "…"

# The lead-ins below are matched at a position (pattern.match(text, pos)), so they have no
# "^": strip_filler walks past them without copying the rest of the text each time.
# A label and up to a few words before a colon: "Warning for the future:", "Note to self:".
_LABEL = re.compile(
    r"(?:warning|warn|caution|gotcha|pitfall|note|nb|n\.b\.|fyi|psa|tip|hint|reminder|remember|"
    r"important|heads[- ]up|decision|preference|rule|convention|fact|info|lessons?(?: learned)?|"
    r"careful|be careful|watch out|don'?t forget|first|second|third|fourth|fifth|lastly|finally|"
    r"tl;?dr|summary|context|btw|ps|p\.s\.)\b[\w '’-]{0,40}?(?:\s*[:：]|\s+[—–])\s*",
    re.I,
)
_ZH_LABEL = re.compile(
    r"(?:请)?(?:记住|记得|注意|提醒|警告|重要|备注|温馨提示|小贴士|决定|结论|总结|补充|说明|经验|教训|"
    r"偏好|规则|约定|事实|有个坑|一个坑|踩坑|坑|小心|当心|顺便说一下|顺便|另外|还有|对了)[^：:，,。]{0,8}?[：:，,]\s*"
)
# The same labels in the other languages keyterms reads (memoryd.stopwords.foreign): German,
# French, Spanish, Portuguese, Italian, Dutch, Russian, Japanese, Korean ("Achtung:",
# "Attention :", "Ojo:", "Важно:", "注意：", "주의:").
_OTHER_LABEL = re.compile(
    r"(?:achtung|vorsicht|wichtig|hinweis|notiz|merke?(?: dir)?|erinnerung|tipp|entscheidung|regel|"
    r"attention|important|rappel|remarque|astuce|décision|règle|à retenir|"
    r"ojo|cuidado|importante|nota|recuerda|recordatorio|aviso|consejo|decisión|regla|atención|"
    r"atenção|lembrete|lembre-se|dica|decisão|regra|"
    r"attenzione|ricorda|promemoria|avviso|consiglio|decisione|regola|"
    r"let op|belangrijk|opmerking|onthoud|waarschuwing|besluit|"
    r"внимание|важно|осторожно|заметка|напоминание|запомни|совет|решение|правило|"
    r"メモ|覚えておいて|覚えて|備忘録|ルール|"
    r"주의|중요|참고|메모|기억해(?: 줘| 주세요)?|결정|규칙)"
    r"(?:\s*[:：]|\s+[—–])\s*",
    re.I,
)
# Lead-ins without a colon: "Remember that ...", "FYI ...", "请记住...".
_LEAD_IN = re.compile(
    r"(?:(?:please\s+)?remember\s+to\s+|(?:please\s+)?(?:remember|note|keep in mind)(?:\s+that)?\s+(?=\S)|"
    r"don'?t forget(?:\s+that)?\s+(?:to\s+)?|fyi,?\s+|btw,?\s+|by the way,?\s+|just so you know,?\s+|"
    r"for the record,?\s+|for future reference,?\s+|heads[- ]up,?\s+|one more thing,?\s+|also,\s+|"
    r"oh,? and\s+|ok(?:ay)?,\s+|so,\s+)",
    re.I,
)
# Not before a colon or comma: "注意：" is a label (_ZH_LABEL takes it, mark and all). The
# group is atomic: "注意一下，" must not fall back to "注意" and leave "一下，" behind.
_ZH_LEAD_IN = re.compile(r"(?:请)?(?>记住|记得|注意一下|注意|提醒一下|顺便说一下|顺便|对了)(?=[^\s：:，,])")
_MARKER = re.compile(r"\s*(?:[-*•>]+\s*|\d{1,3}[.)、]\s*|[①-⑳]\s*|#+\s+)")
_TRAILING = ".,;:，。；：、 "
_CLAUSE = ",;:，；：、"
# Words a title should not end on once it is cut.
_DANGLING_TEXT = (
    "a an the and or but nor of to in on at by for with from into onto than that which who as "
    "is are was were be so if then because while during before after about over under via per "
    "my our your their its this these those 的 和 与 或 及 在 把 被"
)
_DANGLING = frozenset(_DANGLING_TEXT.split())
# Words that begin a sentence in lower case only because the writer did not capitalise
# them (a first word not among these, "pnpm", "npm", "git", is kept as written).
_STARTER_TEXT = """
    a an the this that these those it its we i you they he she our my your their there here
    always never don't dont do does did not no please just only also so but and or if when
    whenever before after first then next finally make use run keep put add avoid prefer stop
    start check write read set store deploy install build test push pull merge commit call
    switch move rename remove delete drop create open close send ask tell let let's lets
    should must can could would will may might be is are was were have has had from in on
    at for with by to of as every each all any some one two three staging production prod
"""
_STARTERS = frozenset(_STARTER_TEXT.split())


def _wide(ch: str) -> bool:
    return unicodedata.east_asian_width(ch) in ("W", "F")


def _token(ch: str) -> bool:
    """Part of a space-delimited token (an English word, a file name, a version)."""
    return not ch.isspace() and not _wide(ch)


def strip_filler(text: str) -> str:
    """`text` without the lead-ins of a note to an agent, repeated ("FYI, remember: ...").
    It moves an index past each round of lead-ins rather than cutting them off the text:
    a copy per round made "1. " repeated n times cost n copies of the text (quadratic)."""
    out = text.strip()
    pos = 0
    while True:
        before = pos
        for pattern in (_MARKER, _LABEL, _ZH_LABEL, _OTHER_LABEL, _LEAD_IN, _ZH_LEAD_IN):
            m = pattern.match(out, pos)
            if m:
                pos = m.end()
        while pos < len(out) and out[pos].isspace():
            pos += 1
        if pos == before or pos == len(out):  # nothing more to drop, or all of it was lead-ins
            return out[before:]


def _cut_at(text: str, i: int) -> bool:
    return 0 < i < len(text) and not (_token(text[i - 1]) and _token(text[i]))


def clip(text: str, limit: int = LIMIT) -> str:
    """`text` flattened to one line and at most `limit` characters: whole when it fits,
    else cut at a clause mark in its second half (a whole clause, no ellipsis) or else at
    the last word boundary, with an ellipsis. A single token longer than the limit (a URL)
    is the only thing cut inside."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    budget = limit - len(ELLIPSIS)
    cuts = [i for i in range(1, budget + 1) if _cut_at(flat, i)]
    clause = [i for i in cuts if flat[i - 1] in _CLAUSE and i >= budget * 0.6]
    if clause:  # a whole clause states the point: no ellipsis
        return _tidy_end(flat[: clause[-1]])
    head = flat[: cuts[-1]] if cuts else flat[:budget]  # else one token longer than a title
    return _tidy_end(head) + ELLIPSIS


def _tidy_end(head: str) -> str:
    """No dangling "and the" or clause mark before the ellipsis."""
    head = head.rstrip(_TRAILING + "-–—(")
    while True:
        parts = head.rsplit(" ", 1)
        if len(parts) == 2 and parts[1].lower() in _DANGLING and len(parts[0]) >= 20:
            head = parts[0].rstrip(_TRAILING + "-–—(")
            continue
        if head and head[-1] in "的和与或及在把被" and len(head) > 10 and _wide(head[-2]):
            head = head[:-1]
            continue
        return head


def capitalise(text: str) -> str:
    """Upper-case the first letter when the first word is a common word the writer left in
    lower case; a name or identifier ("pnpm", "iOS", "gRPC") stays as written."""
    if any(_wide(ch) for ch in text):
        return text  # a Chinese title: "staging 的端口是 5433" stays as written
    m = re.match(r"([a-z][a-z'’]*)(?=$|[\s,;:.!?])", text)
    if m and m.group(1).replace("’", "'") in _STARTERS:
        return text[0].upper() + text[1:]
    return text


def make(text: str, limit: int = LIMIT) -> str:
    """A title from one sentence: without filler, capitalised, without its closing
    period, at most `limit` characters and cut only at a boundary."""
    core = strip_filler(" ".join(text.split()))
    core = core.strip().strip("\"'“”‘’「」").strip()
    core = capitalise(core).rstrip(_TRAILING)
    return clip(core, limit)
