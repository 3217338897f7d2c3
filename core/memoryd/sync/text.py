"""A version's content is the memory file's text with the counters each device keeps for
itself zeroed. Done on the text (three frontmatter lines), not by a YAML round trip: it is
~20x cheaper at sync's scale, and a file's bytes travel exactly as written, so every
device that applies a version writes the same bytes."""

from __future__ import annotations

import re

from memoryd import frontmatter
from memoryd.frontmatter import Document
from memoryd.models import DecayState

FENCE = "---\n"
_KEYS = ("recall_count", "last_recalled_at", "decay_state")
_LINE = {k: re.compile(rf"^{k}:[^\n]*$", re.M) for k in (*_KEYS, "scope_hash")}


def _split(text: str) -> tuple[str, str] | None:
    if not text.startswith(FENCE):
        return None
    end = text.find("\n" + FENCE, len(FENCE) - 1)
    if end < 0:
        return None
    return text[: end + 1], text[end + 1 :]


def _sub(head: str, key: str, value: str) -> str | None:
    new, n = _LINE[key].subn(f"{key}: {value}", head, count=1)
    return new if n == 1 else None


def with_counters(text: str, recalls: int, last_recalled_at: str | None, decay_state: str) -> str | None:
    """The text with these counters, written as the YAML dumper writes them; None when a
    counter line is missing (a file not written by memoryd: the caller re-renders it)."""
    parts = _split(text)
    if parts is None:
        return None
    head: str | None = parts[0]
    for key, value in (
        ("recall_count", str(recalls)),
        ("last_recalled_at", f"'{last_recalled_at}'" if last_recalled_at else "null"),
        ("decay_state", decay_state),
    ):
        head = _sub(head, key, value) if head is not None else None
    return head + parts[1] if head is not None else None


def with_scope(text: str, scope_hash: str) -> str:
    parts = _split(text)
    if parts is None:
        return text
    head = _sub(parts[0], "scope_hash", scope_hash)
    return head + parts[1] if head is not None else text


def normalised(text: str, doc: Document) -> str:
    """`text` (whose parse is `doc`) with the counters zeroed."""
    fast = with_counters(text, 0, None, DecayState.alive.value)
    if fast is not None:
        return fast
    zero = {"recall_count": 0, "last_recalled_at": None, "decay_state": DecayState.alive}
    meta = doc.meta.model_copy(update=zero)
    return frontmatter.render(Document(meta, doc.body))
