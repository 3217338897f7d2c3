"""The store's poisoning pass (memoryd.poison applied to a whole memory): every memory the
store writes (`Store.save`, `save_many`) comes through here, next to the redaction pass,
so capture, record, update, MCP `mem_record`, promotions, importers and whatever writes
memories next get it without code of their own.

Hidden and bidi characters are stripped from the title, body, triggers, tags, category
and raw turns. Text that reads as aimed at an AI marks the memory `suspect` in its
frontmatter (`suspect: [reason, ...]`), which the index copies (migration 014): a suspect
memory stays out of the start-up snapshot, the MEMORY.md exports and the promotion queue
until a person clears it (`memoryd suspect clear`) or forgets it.

A flag sticks: the text that raised it is stripped of its hidden characters, so a later
write would not find them again, and an agent must not be able to launder a memory by
rewriting it. Clearing keeps a fingerprint of each flagged piece as it stood
(`suspect_cleared`), so the same text does not flag the memory again while new or
changed attack text does.

Standard library only (with memoryd.poison): the capture worker imports it.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterable, Sequence
from typing import Any

from memoryd.poison import inspect

KEY = "suspect"
CLEARED = "suspect_cleared"
HELD_ANALYSIS = "held_suspect"  # in `analysis`: made while suspect (memoryd.governance.analyze)
MAX_REASONS = 12  # a session with fifty poisoned tool results needs no fifty lines


def _kind(reason: str) -> str:
    """The reason without the detector's quote of the text (`... AI: 'Ignore previous
    instructions'`): the flag lives in the index, the audit log and the digest email, none
    of which may hold a sensitive scope's words, nor hand the attack text on."""
    for mark in (": '", ': "'):
        if mark in reason:
            return reason[: reason.index(mark)]
    return reason


def _fp(where: str, text: str) -> str:
    return hashlib.sha256(f"{where}\0{text}".encode()).hexdigest()[:20]


def _pieces(doc: Any, turns: Sequence[Any] | None) -> Iterable[tuple[str, str, str]]:
    """(label, fingerprint key, text) for each part of a memory an agent may be shown."""
    m = doc.meta
    yield "title", "title", m.title
    yield "body", "body", doc.body
    if m.triggers:
        yield "triggers", "triggers", "\n".join(m.triggers)
    if m.tags:
        yield "tags", "tags", "\n".join(m.tags)
    if m.category:
        yield "category", "category", m.category
    for t in turns or ():
        if t.text:
            yield f"turn {t.seq} ({t.role})", f"turn:{t.role}", t.text


def cleared(doc: Any) -> set[str]:
    value = doc.meta.extras.get(CLEARED)
    return {str(v) for v in value} if isinstance(value, list) else set()


def flagged(doc: Any) -> list[str]:
    """The reasons the memory's frontmatter gives (empty: not suspect)."""
    value = doc.meta.extras.get(KEY)
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value] if isinstance(value, list) else []


def detect(doc: Any, turns: Sequence[Any] | None) -> list[str]:
    """Reasons found in the memory's text now, pieces a person cleared left out."""
    done = cleared(doc)
    out: list[str] = []
    for label, key, text in _pieces(doc, turns):
        verdict = inspect(text)
        if verdict.suspect and _fp(key, verdict.text) not in done:
            out += [f"{label}: {_kind(r)}" for r in verdict.reasons]
    return out


def reasons(doc: Any, turns: Sequence[Any] | None) -> list[str]:
    """What the index records: the frontmatter's flag and what the text shows now (a
    synced or hand-edited file is flagged though nobody wrote it through the store)."""
    return _merge(flagged(doc), detect(doc, turns))


def _merge(*groups: Iterable[str]) -> list[str]:
    seen = list(dict.fromkeys(r for g in groups for r in g))
    if len(seen) <= MAX_REASONS:
        return seen
    return [*seen[: MAX_REASONS - 1], f"and {len(seen) - MAX_REASONS + 1} more"]


def check(
    doc: Any, turns: Sequence[Any] | None, *, carried: Sequence[str] = ()
) -> tuple[list[Any] | None, list[str]]:
    """Strip hidden characters in place, flag the memory, and return its turns stripped
    with the reasons newly found (not those it already carried). `carried`: reasons the
    index holds for this slug, kept when a writer built the document afresh. One pass of
    the detector per piece: the importers write thousands of memories through here."""
    done = cleared(doc)
    new: list[str] = []

    def look(label: str, key: str, text: str) -> str:
        verdict = inspect(text)
        if verdict.suspect and _fp(key, verdict.text) not in done:
            new.extend(f"{label}: {_kind(r)}" for r in verdict.reasons)
        return verdict.text

    def look_list(label: str, items: list[str]) -> list[str]:
        joined = "\n".join(items)
        if look(label, label, joined) == joined:
            return items
        return list(dict.fromkeys(inspect(t).text for t in items))

    m = doc.meta
    m.title = look("title", "title", m.title)
    doc.body = look("body", "body", doc.body)
    if m.triggers:
        m.triggers = look_list("triggers", m.triggers)
    if m.tags:
        m.tags = look_list("tags", m.tags)
    if m.category:
        m.category = look("category", "category", m.category)
    out = None
    if turns is not None:
        out = []
        for t in turns:
            text = look(f"turn {t.seq} ({t.role})", f"turn:{t.role}", t.text) if t.text else t.text
            out.append(t if text == t.text else dataclasses.replace(t, text=text))
    before = _merge(flagged(doc), carried)
    after = _merge(before, new)
    if after:
        setattr(m, KEY, after)
    return out, [r for r in after if r not in before]


def clear(doc: Any, turns: Sequence[Any] | None) -> list[str]:
    """A person read the memory and vouches for it as it stands: the flag goes, and each
    flagged piece's fingerprint is kept so the same text does not raise it again. Returns
    the reasons that were cleared."""
    was = flagged(doc)
    done = cleared(doc)
    for _label, key, text in _pieces(doc, turns):
        verdict = inspect(text)
        if verdict.suspect:
            done.add(_fp(key, verdict.text))
    extras = doc.meta.model_extra if doc.meta.model_extra is not None else {}
    extras.pop(KEY, None)
    if done:
        extras[CLEARED] = sorted(done)
    analysis = extras.get("analysis")
    if isinstance(analysis, dict) and analysis.get(HELD_ANALYSIS):
        # Scored by rules and kept from the promotion queue while it was suspect: without
        # its analysis the session is due again (the index compares fingerprints), and the
        # next worker run or consolidation analyses and proposes it like any other.
        extras.pop("analysis")
    return was
