"""A rough, offline token count, used only to bound what is sent and to budget it.

No tokenizer ships with memoryd (tiktoken would mean a download, and each provider counts
differently anyway), so the estimate is deliberately simple and errs on the high side:
ASCII about 4 characters per token, CJK (Han, kana, Hangul) 1 token per character, any
other non-ASCII character half a token (accents, Cyrillic, emoji split into several
tokens). The provider's reported usage, not this, is what gets billed and logged."""

from __future__ import annotations

import math
import re

MARK = "\n[...trimmed]"

_CJK = re.compile(
    "[\u1100-\u11ff\u3040-\u30ff\u3100-\u312f\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf"
    "\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003134f]"
)
# Where a cut reads naturally: line ends first, then sentence ends (Latin and CJK).
_SENTENCE_END = re.compile(r"[.!?;](?=\s)|[。！？；]")


def _cost(ch: str) -> float:
    if ch.isascii():
        return 0.25
    return 1.0 if _CJK.match(ch) else 0.5


def estimate(text: str) -> int:
    """Estimated tokens in `text` (see the module docstring for the rule)."""
    return math.ceil(sum(_cost(ch) for ch in text))


def trim(text: str, max_tokens: int) -> str:
    """`text` cut to about `max_tokens`, at a line or sentence end when one is near, the cut
    marked with MARK. The result's estimate never exceeds max_tokens."""
    if estimate(text) <= max_tokens:
        return text
    budget = max_tokens - sum(_cost(ch) for ch in MARK)
    if budget <= 0:
        return ""
    spent, end = 0.0, 0
    for ch in text:
        spent += _cost(ch)
        if spent > budget:
            break
        end += 1
    head = text[:end]
    # Prefer a boundary in the last quarter of what fits, so a cut never loses much.
    floor = end * 3 // 4
    line = head.rfind("\n")
    if line >= floor:
        return head[:line].rstrip() + MARK
    sentences = [m.end() for m in _SENTENCE_END.finditer(head) if m.end() >= floor]
    if sentences:
        return head[: sentences[-1]] + MARK
    space = head.rfind(" ")
    if space >= floor:
        return head[:space].rstrip() + MARK
    return head + MARK
