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
changed attack text does. The fingerprint is keyed with a secret of this data dir
(`suspect-clear.key`): a clearance is a person's word on this device, and a file that
arrives by import or sync cannot bring one it made up (an outside test forged one with
a plain hash). Another device checks a synced memory again and asks its own person.

Standard library only (with memoryd.poison): the capture worker imports it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import os
from collections.abc import Iterable, Sequence
from typing import Any

from memoryd.poison import TOGETHER, Verdict, inspect, read_together

KEY = "suspect"
CLEARED = "suspect_cleared"
_JOINED = "title+body"  # fingerprint key of the title and body read together
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
    return hmac.new(_device_key(), f"{where}\0{text}".encode(), hashlib.sha256).hexdigest()[:20]


_keys: dict[str, bytes] = {}


def _device_key() -> bytes:
    """This data dir's clearance key, made on first use (0600, never synced or exported)."""
    from memoryd import envpaths

    path = os.path.join(envpaths.ensure_dir(envpaths.data_home()), "suspect-clear.key")
    if path not in _keys:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, envpaths.FILE_MODE)
        except FileExistsError:
            pass
        else:  # first use: written whole before anyone reads it (O_EXCL: one writer)
            with os.fdopen(fd, "wb") as fh:
                fh.write(os.urandom(32))
                fh.flush()
                os.fsync(fh.fileno())
        with open(path, "rb") as fh:
            key = fh.read()
        if len(key) != 32:  # damaged or half-written: clearances made with it cannot be checked
            raise OSError(f"{path} is damaged: remove it (earlier clearances are then asked again)")
        _keys[path] = key
    return _keys[path]


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
    if not out:
        out += _together(inspect(doc.meta.title), inspect(doc.body), done)
    return out


def _together(title: Verdict, body: Verdict, done: set[str]) -> list[str]:
    """The title and body read together as the snapshot shows them ("title: body"): an
    attack split between the two is whole there. Only when neither piece is suspect alone
    (flagged or cleared): then the pair adds nothing the pieces' own flags do not say."""
    if title.suspect or body.suspect:
        return []
    found = read_together([title.text, body.text])
    if not found or _fp(_JOINED, f"{title.text}\0{body.text}") in done:
        return []
    return [f"title and body: {_kind(r.removeprefix(TOGETHER))}" for r in found]


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
    doc: Any, turns: Sequence[Any] | None, *, carried: Sequence[str] = (), flag: bool = True
) -> tuple[list[Any] | None, list[str]]:
    """Strip hidden characters in place, flag the memory, and return its turns stripped
    with the reasons newly found (not those it already carried). `carried`: reasons the
    index holds for this slug, kept when a writer built the document afresh. One pass of
    the detector per piece: the importers write thousands of memories through here.
    `flag=False` flags only pieces that held hidden characters (stripping hides that they
    did): sync leaves the rest to each device's index (`reasons`), so a memory cleared on
    one device is not re-flagged into a new version on the other."""
    done = cleared(doc)
    new: list[str] = []

    def look(label: str, key: str, text: str, verdict: Verdict | None = None) -> str:
        verdict = verdict or inspect(text)
        # flag=False: only what stripping removes is flagged here, since nobody can see it after
        if (flag or verdict.text != text) and verdict.suspect and _fp(key, verdict.text) not in done:
            new.extend(f"{label}: {_kind(r)}" for r in verdict.reasons)
        return verdict.text

    def look_list(label: str, items: list[str]) -> list[str]:
        joined = "\n".join(items)
        if look(label, label, joined) == joined:
            return items
        return list(dict.fromkeys(inspect(t).text for t in items))

    m = doc.meta
    title, body = inspect(m.title), inspect(doc.body)
    m.title = look("title", "title", m.title, title)
    doc.body = look("body", "body", doc.body, body)
    if flag and not new:
        new += _together(title, body, done)
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
    title, body = inspect(doc.meta.title), inspect(doc.body)
    if _together(title, body, set()):
        done.add(_fp(_JOINED, f"{title.text}\0{body.text}"))
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
