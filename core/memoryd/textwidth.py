"""Display width for terminal tables: a Chinese character takes two columns and a combining
mark none, so `str.ljust` and `len` misalign a table as soon as a title is not ASCII.
Standard library only (unicodedata), usable from any module."""

from __future__ import annotations

import unicodedata

ELLIPSIS = "…"


def char_width(ch: str) -> int:
    """Columns one character takes: 0 for a combining mark or a zero-width format
    character, 2 for East Asian Wide and Fullwidth, else 1."""
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def width(text: str) -> int:
    return sum(char_width(ch) for ch in text)


def pad(text: str, cols: int) -> str:
    """`text` followed by spaces up to `cols` display columns (as is when already wider)."""
    return text + " " * max(0, cols - width(text))


def fit(text: str, cols: int) -> str:
    """`text` cut to at most `cols` display columns, with an ellipsis when cut; never in the
    middle of a wide character, and a combining mark stays with the character it marks."""
    if width(text) <= cols:
        return text
    room = cols - width(ELLIPSIS)
    used = 0
    end = 0
    for i, ch in enumerate(text):
        w = char_width(ch)
        if used + w > room:
            break
        used += w
        end = i + 1
    while end < len(text) and char_width(text[end]) == 0:  # the base's combining marks
        end += 1
    return text[:end] + ELLIPSIS
