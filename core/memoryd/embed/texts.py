"""Which texts of a memory get a vector. Level 1 (memories): the title with the start of
the body, then windows over the body and, for a captured session, its user turns (what
the user said carries the facts; LongMemEval's protocol keys on user turns); a memory is
scored by its best window. Level 2 (turns): each turn on its own.

Windows are a few hundred characters: a sentence encoder averages over its input, so a
whole session in one vector says little about any one thing in it."""

from __future__ import annotations

from collections.abc import Sequence

WINDOW = 400  # characters per window
STRIDE = 300  # windows overlap so a fact on a boundary is whole in one of them
MAX_WINDOWS = 64  # a huge memory is represented by its start, bounded in cost
TURN_CHARS = 1000


def windows(text: str, size: int = WINDOW, stride: int = STRIDE) -> list[str]:
    """Overlapping windows, cut at whitespace where one is near."""
    text = " ".join(text.split())
    if len(text) <= size:
        return [text] if text else []
    out: list[str] = []
    start = 0
    while start < len(text) and len(out) < MAX_WINDOWS:
        end = min(len(text), start + size)
        if end < len(text):
            cut = text.rfind(" ", start + size // 2, end)
            end = cut if cut > 0 else end
        out.append(text[start:end].strip())
        if end >= len(text):
            break
        nxt = text.find(" ", start + stride)
        start = nxt + 1 if 0 < nxt < end else start + stride
    return [w for w in out if w]


def memory_texts(title: str, body: str, user_turns: Sequence[str] = ()) -> list[str]:
    """Level-1 texts of one memory, first the title with the body's start."""
    head = " ".join(f"{title}. {body}".split())[:WINDOW]
    rest = windows(body) if len(body) > WINDOW else []
    turns = windows("\n".join(user_turns)) if user_turns else []
    out = list(dict.fromkeys([head, *rest, *turns]))
    return [t for t in out if t][:MAX_WINDOWS]


def turn_text(text: str) -> str:
    return " ".join(text.split())[:TURN_CHARS]
