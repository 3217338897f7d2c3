"""Sentence splitting for what people type to agents: English and Chinese, prose and lists.

A dot ends a sentence only when whitespace (or the end, or a Han character) follows it, so
domain names (Fly.io), versions (v1.2.3, 3.11), file names (billing.py) and decimals (2.5)
stay whole; abbreviations (e.g., i.e., vs.) and list markers ("1. ") are not ends either.
Chinese ends (。！？；) need no space after them. Inline `code` is never split.
"""

from __future__ import annotations

import bisect
import re
import unicodedata

# A mark that may end a sentence, with the closing quotes or brackets that belong to it.
_END = re.compile(r"(?:[。！？；]+|[!?]+|\.{2,}|…+|\.)[\"'”’)\]）」』]*")
_CLOSERS = "\"'”’)]）」』"
_CJK_ENDS = frozenset("。！？；")
# Words that end in a dot without ending the sentence.
_ABBREVIATION_TEXT = "eg ie vs cf approx mr mrs ms dr prof jr sr inc ltd fig eq al viz resp esp etc nr no"
_ABBREVIATIONS = frozenset(_ABBREVIATION_TEXT.split())
_INITIALS = re.compile(r"(?:^|[\s(])(?:[A-Za-z]\.)+[A-Za-z]$")  # e.g / i.e / U.S before the dot
_LAST_WORD = re.compile(r"([A-Za-z]+)$")
_LIST_MARKER = re.compile(r"(?:^\s*(?:[-*•>]+\s+)?|[:：]\s*)(?:\d{1,3}|[a-zA-Z])[.)]$")
_ITEM = re.compile(r"^\s*(?:[-*•>]|\d{1,3}[.)、]|[①-⑳]|第[一二三四五六七八九十\d]+步)")
_FENCE = re.compile(r"^\s*(```|~~~)")


_LOOK_BACK = 80


def _wide(ch: str) -> bool:
    return unicodedata.east_asian_width(ch) in ("W", "F")


def _code_spans(line: str) -> list[tuple[int, int]]:
    return [m.span() for m in re.finditer(r"`[^`]*`", line)]


def _is_end(line: str, start: int, end: int) -> bool:
    mark = line[start:end].rstrip(_CLOSERS)
    after = line[end : end + 1]
    if mark[0] in _CJK_ENDS:
        return True
    if after and not (after.isspace() or _wide(after)):
        return False  # Fly.io, v1.2.3, 2.5, billing.py, what?!x
    if mark != ".":
        return True
    # What decides is just before the dot: a window keeps a long line linear. The NUL
    # stands for the cut-off text, so `^` in the patterns never matches inside a line.
    before = line[:start] if start <= _LOOK_BACK else "\x00" + line[start - _LOOK_BACK : start]
    if _LIST_MARKER.search(before + "."):
        return False  # "1. Run the tests"
    if _INITIALS.search(before):
        return False  # "e.g." "i.e." "U.S."
    word = _LAST_WORD.search(before)
    if word and word.group(1).lower() in _ABBREVIATIONS:
        nxt = line[end:].lstrip()[:1]
        if word.group(1).lower() == "no":
            return not nxt.isdigit()  # "No. 5"
        if word.group(1).lower() == "etc":
            return not nxt.islower()  # "etc. and" goes on; "etc. Then" ends
        return False
    return True


def _split_line(line: str) -> list[str]:
    spans = _code_spans(line)
    starts = [a for a, _ in spans]
    out, begin = [], 0
    for m in _END.finditer(line):
        i = bisect.bisect_right(starts, m.start()) - 1  # the one span that could hold it
        if i >= 0 and m.start() < spans[i][1]:
            continue
        if _is_end(line, m.start(), m.end()):
            out.append(line[begin : m.end()])
            begin = m.end()
    out.append(line[begin:])
    return out


def _lines(text: str) -> list[str]:
    """Lines of text, with a hard-wrapped sentence joined again: a line that goes on in
    lower case after one that did not end in punctuation belongs to it."""
    out: list[str] = []
    for raw in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = raw.strip()
        if not line:
            out.append("")
            continue
        prev = out[-1] if out else ""
        wrapped = prev and line[0].islower() and line[0].isascii() and not _ITEM.match(line)
        if wrapped and prev[-1] not in ".!?:;。！？；：":
            out[-1] = f"{prev} {line}"
            continue
        out.append(line)
    return out


def split(text: str, *, code: bool = True) -> list[str]:
    """The sentences of `text` in order, stripped; a list item or a line is never joined
    to the next one. With code=False, fenced code blocks are left out."""
    if not code:
        kept, fenced = [], False
        for line in text.splitlines():
            if _FENCE.match(line):
                fenced = not fenced
                continue
            if not fenced:
                kept.append(line)
        text = "\n".join(kept)
    out: list[str] = []
    for line in _lines(text):
        for piece in _split_line(line):
            piece = piece.strip()
            if any(ch.isalnum() for ch in piece):
                out.append(piece)
    return out


def first(text: str) -> str:
    """The first sentence of `text`, its whitespace flattened ("" when it has none)."""
    found = split(" ".join(text.split()))
    return found[0] if found else ""
