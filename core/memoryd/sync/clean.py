"""Secrets never enter memory, whichever device wrote them: a version that arrives from
another device's file or an imported memories.json (written by an older memoryd, or edited
by hand) goes through the store's redaction pass (memoryd.redact_doc) before it is merged,
so neither the memory files nor `sync/state.json` nor this device's own file hold it.
The same step strips hidden characters (memoryd.suspect_doc); text aimed at an AI is
flagged by this device's index, with this device's clearances.

A version that redaction changes becomes a new version descending from the one that came:
the merge then prefers it on every device, and a device that had the secret replaces it at
its next sync. Redaction is idempotent, so the same incoming version always gives the same
redacted one, and redacted versions never flip back and forth. Sealed versions are left as
they are: their text is unreadable here, and encrypted at rest everywhere."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from memoryd import frontmatter
from memoryd.errors import MemorydError
from memoryd.redact_doc import scrub
from memoryd.store.files import turns_from_text
from memoryd.suspect_doc import check
from memoryd.sync import local, text
from memoryd.sync.document import Head, State


def redacted(state: State) -> tuple[State, int]:
    """`state` with every readable version redacted, and how many versions changed."""
    changed = 0
    memories = {}
    for slug, entry in state.memories.items():
        heads = tuple(_head(h) for h in entry.heads)
        if heads == entry.heads:
            memories[slug] = entry
            continue
        changed += sum(1 for a, b in zip(heads, entry.heads, strict=True) if a is not b)
        memories[slug] = replace(entry, heads=tuple(sorted(heads, key=lambda h: h.rev)))
    return replace(state, memories=memories), changed


def _head(head: Head) -> Head:
    if head.deleted or head.encrypted or head.content is None:
        return head
    try:
        doc = frontmatter.parse(head.content, where="sync")
    except MemorydError:
        return head  # not a memory: the apply step skips it with its own message
    turns = turns_from_text(head.turns) if head.turns is not None else None
    was = _texts(doc, turns)
    # Hidden characters stripped (and the version flagged for them), as the store does for
    # its own writes; idempotent like redaction, so no flip-flops. Other text aimed at an
    # AI is flagged by each device's index (memoryd.suspect_doc.reasons) with its own
    # clearances: a version that arrives carries no clearance this device's person did not give.
    turns, flagged = check(doc, turns, flag=False)
    clean, counts = scrub(doc, turns, fresh=False)
    if not counts and not flagged and _texts(doc, clean) == was:
        return head
    content = text.normalised(frontmatter.render(doc), doc)
    turns_text = None if clean is None else "".join(t.to_json() + "\n" for t in clean)
    return replace(
        head,
        content=content,
        turns=turns_text,
        history=tuple(sorted({*head.history, head.rev})),
        rev=local.rev_of(content, turns_text or ""),
    )


def _texts(doc: frontmatter.Document, turns: list[Any] | None) -> tuple[Any, ...]:
    m = doc.meta
    return (m.title, doc.body, m.triggers, m.tags, m.category, [t.text for t in turns or ()])
