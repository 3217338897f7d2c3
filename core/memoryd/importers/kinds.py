"""Which memoryd type a free-text memory from another system is, by what it says.

Neighbouring systems store plain statements ("User prefers tabs", "Never push to main",
"用户对花生过敏"); memoryd's types let the snapshot put constraints first. The rules are
keyword cues in English and Chinese, checked most specific first; anything else is a fact.
Documented in docs/importers.md.
"""

from __future__ import annotations

import re

from memoryd.models import MemoryType

_RULES: tuple[tuple[MemoryType, re.Pattern[str]], ...] = (
    (
        MemoryType.warning,
        re.compile(
            r"\b(never|don'?t|do not|avoid|beware|careful|warning|must not|mustn'?t|allerg\w*)\b"
            r"|禁止|不要|切勿|避免|小心|注意|警告|过敏|千万",
            re.IGNORECASE,
        ),
    ),
    (
        MemoryType.decision,
        re.compile(
            r"\b(decided|decision|we chose|chosen|going with|switched to)\b|决定|选用|改用|采用", re.I
        ),
    ),
    (
        MemoryType.preference,
        re.compile(
            r"\b(prefers?|preferred|likes?|loves?|dislikes?|hates?|favou?rite|wants?)\b"
            r"|喜欢|讨厌|偏好|更愿意|习惯用|希望",
            re.IGNORECASE,
        ),
    ),
    (
        MemoryType.playbook,
        re.compile(
            r"\b(how to|steps?|to fix|workaround|run `|first .* then)\b|步骤|做法|方法是|先.*再", re.I
        ),
    ),
)


def guess(text: str) -> MemoryType:
    for mtype, pattern in _RULES:
        if pattern.search(text):
            return mtype
    return MemoryType.fact


def tag(text: str) -> str:
    """A heading as a tag: lower case, words joined by '-', CJK kept."""
    words = re.findall(r"[\w\u4e00-\u9fff]+", text.lower())
    return "-".join(words)[:40]
