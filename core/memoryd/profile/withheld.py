"""Identity versions and monthly reports withheld for a sensitive project (issue 22 item 7).

A scope marked sensitive used to delete every version and report that drew on it; the
window then said "only one version so far" with no reason. Now their words are sealed in
place with the scope's key (the row stays, so the count and the numbers stay), hidden from
every listing, and opened again for whoever holds a live grant on every sensitive project
they drew on: the same gate every reader passes.

A sealed value is `withheld:<scope hash>:` + a sealed JSON object of the row's words, bound
to the scope and the row's name (`profile-version:3`, `change-report:2026-11`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from memoryd.store import Store

PREFIX = "withheld:"
VERSION_FIELDS = ("content_md", "diff_from_prev", "change_summary")
REPORT_FIELDS = ("content_md",)


@dataclass(frozen=True)
class Withheld:
    """What the listings left out for want of a grant, and the projects that would open it."""

    versions: int = 0
    reports: int = 0
    scopes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def version_name(num: int) -> str:
    return f"profile-version:{num}"


def report_name(period: str) -> str:
    return f"change-report:{period}"


def sealed_by(value: str | None) -> str | None:
    """The scope whose key sealed this value, or None for plain text."""
    if not value or not value.startswith(PREFIX):
        return None
    return value[len(PREFIX) :].split(":", 1)[0]


def seal(key: bytes, scope_hash: str, name: str, row: dict[str, Any], fields: tuple[str, ...]) -> str:
    from memoryd.sensitive import content

    words = {f: row.get(f) for f in fields}
    return f"{PREFIX}{scope_hash}:" + content.seal_value(key, scope_hash, name, words)


def open_words(key: bytes, name: str, value: str) -> dict[str, Any]:
    from memoryd.sensitive import content

    scope_hash, sealed = value[len(PREFIX) :].split(":", 1)
    return content.open_value(key, scope_hash, name, sealed)


def needs(store: Store, row: dict[str, Any]) -> list[str]:
    """Every sensitive scope a withheld row needs a grant for: the one that sealed it and any
    other sensitive one it drew on."""
    sealer = sealed_by(row.get("content_md"))
    drawn = json.loads(row.get("source_scopes") or "[]")
    return sorted({h for h in drawn if store.keys.sensitive(h)} | ({sealer} if sealer else set()))


def readable(store: Store, row: dict[str, Any], name: str) -> dict[str, Any] | None:
    """The row with its words opened when every grant it needs is live; None when one is
    missing (or the key cannot open it). Plain rows pass through."""
    from memoryd.errors import MemorydError
    from memoryd.sensitive import gate

    sealer = sealed_by(row.get("content_md"))
    if sealer is None:
        return row
    if not all(gate.allowed(store, h) for h in needs(store, row)):
        return None
    try:
        words = open_words(store.keys.get(sealer), name, row["content_md"])
    except MemorydError:
        return None
    return {**row, **words, "withheld_by": needs(store, row)}


def check(store: Store, row: dict[str, Any], name: str, *, actor: str) -> dict[str, Any]:
    """One withheld row asked for by number: through the gate (audited, may ask the tray)."""
    from memoryd.sensitive import gate

    sealer = sealed_by(row.get("content_md"))
    if sealer is None:
        return row
    for h in needs(store, row):
        gate.check_or_raise(store, h, actor=actor, what="profile", target=name)
    words = open_words(store.keys.get(sealer), name, row["content_md"])
    return {**row, **words, "withheld_by": needs(store, row)}
