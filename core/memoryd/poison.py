"""Poisoned memories: text aimed at a future AI, planted in what an agent read.

A web page, an issue or a file an agent reads is captured into memory and handed to later
sessions; "ignore previous instructions", a fake SYSTEM line, invisible Unicode tag
characters or bidi overrides would reach a future agent as if the user had said them.
`inspect` strips the invisible and bidi controls and says why a text reads as an
instruction to an AI; the store marks such a memory `suspect` and keeps it away from the
start-up snapshot, the exports and automatic promotion until a person clears it.

Standard library only: the write path and the worker import it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Unicode tag characters (U+E0000-U+E007F), bidi embeddings/overrides/isolates, and the
# zero-width characters used to hide text from a reader but not from a model.
_HIDDEN = re.compile("[\U000e0000-\U000e007f\u202a-\u202e\u2066-\u2069\u200b-\u200f\u2060-\u2064\ufeff]")

_INSTRUCTION = re.compile(
    r"ignore (?:all )?(?:the )?(?:previous|prior|above) instructions"
    r"|忽略(?:之前|以上|前面)的?(?:所有)?指令",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Verdict:
    text: str  # the text with invisible and bidi controls removed
    reasons: tuple[str, ...] = ()  # empty when nothing instruction-like or hidden was found

    @property
    def suspect(self) -> bool:
        return bool(self.reasons)


def inspect(text: str) -> Verdict:
    """Strip hidden characters; say why the text reads as aimed at an AI (if it does)."""
    reasons: list[str] = []
    cleaned, hidden = _HIDDEN.subn("", text)
    if hidden:
        reasons.append(f"hidden characters ({hidden} removed)")
    if _INSTRUCTION.search(cleaned):
        reasons.append("instructions aimed at an AI")
    return Verdict(cleaned, tuple(reasons))
