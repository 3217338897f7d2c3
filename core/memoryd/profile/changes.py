"""What a month changed, as values (issue 22 item 6): the report's sections for the tray to
word in the user's language and for `--json`, instead of a unified diff to decode.

From the memory store and the knowledge graph, outside sensitive projects (the report is
plaintext, like the profile): long-term memories written in the month (preferences apart),
preferences and other memories superseded in the month (old -> new), entities first seen
in the month or last seen in the month before. The raw diff of the profile across the month
rides along for whoever wants it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from memoryd import clock, locale_text
from memoryd.db.engine import read_session
from memoryd.kinds import LONG_TERM_TYPES, MemoryType
from memoryd.models import VISIBLE_STATES
from memoryd.store import Store
from memoryd.store import profile as psql


@dataclass(frozen=True)
class Memo:
    """A memory as the report names it."""

    slug: str
    type: str
    title: str


@dataclass(frozen=True)
class Replacement:
    older: Memo
    newer: Memo
    decided_by: str
    confidence: float


@dataclass(frozen=True)
class Entity:
    name: str
    type: str


@dataclass(frozen=True)
class MonthChanges:
    period: str
    versions: list[int] = field(default_factory=list)  # the month's version numbers
    preferences_added: list[Memo] = field(default_factory=list)
    preferences_dropped: list[Memo] = field(default_factory=list)  # superseded in the month
    superseded: list[Replacement] = field(default_factory=list)  # every type, old -> new
    added: list[Memo] = field(default_factory=list)  # other long-term memories written in the month
    entities_new: list[Entity] = field(default_factory=list)
    entities_gone: list[Entity] = field(default_factory=list)
    diff: str = ""  # the profile before the month -> its last version in the month

    @property
    def decisions_superseded(self) -> list[Replacement]:
        return [r for r in self.superseded if r.older.type == MemoryType.decision.value]

    def added_of(self, kind: str) -> list[Memo]:
        return [m for m in self.added if m.type == kind]

    @property
    def counts(self) -> dict[str, int]:
        return {
            "versions": len(self.versions),
            "preferences_added": len(self.preferences_added),
            "preferences_dropped": len(self.preferences_dropped),
            "superseded": len(self.superseded),
            "decisions_superseded": len(self.decisions_superseded),
            "added": len(self.added),
            "entities_new": len(self.entities_new),
            "entities_gone": len(self.entities_gone),
        }

    @property
    def empty(self) -> bool:
        return not any(v for k, v in self.counts.items())

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "counts": self.counts}


def of_month(
    store: Store, period: str, start: datetime, end: datetime, prev: datetime, lang: str = locale_text.EN
) -> MonthChanges:
    """The month [start, end) against the one before [prev, start); the diff's label for
    the profile before the month in `lang` (the report file shows it)."""
    from memoryd.profile import identity

    a, b, p = clock.iso(start), clock.iso(end), clock.iso(prev)
    with read_session(store.engine) as s:
        versions = psql.versions_between(s, a, b)
        before = psql.last_before(s, a)
        chain = psql.supersedes_between(s, a, b)
        new_entities = psql.entities_added(s, a, b)
        gone_entities = psql.entities_dropped(s, p, a)
    hidden = store.keys.sensitive

    def plain(row: dict[str, Any]) -> bool:
        return not row.get("scope_sensitive") and not hidden(row["scope_hash"])

    long_term = {t.value for t in LONG_TERM_TYPES}
    written = [
        r
        for r in store.list(types=sorted(long_term), states=list(VISIBLE_STATES))
        if a <= r["created_at"] < b and plain(r)
    ]
    written.sort(key=lambda r: (r["created_at"], r["slug"]))
    known = store.rows([slug for c in chain for slug in (c["older_memory_id"], c["newer_memory_id"])])
    superseded = []
    for c in chain:
        older, newer = known.get(c["older_memory_id"]), known.get(c["newer_memory_id"])
        if older is None or newer is None or not plain(older) or not plain(newer):
            continue  # forgotten since, or of a sensitive project
        superseded.append(
            Replacement(_memo(older), _memo(newer), str(c["decided_by"]), float(c["confidence"]))
        )
    old = before["content_md"] if before else ""
    new = versions[-1]["content_md"] if versions else old
    last = f"v{versions[-1]['version_num']}" if versions else ""

    def entities(rows: list[dict[str, Any]]) -> list[Entity]:
        return [
            Entity(e["name"], e["type"]) for e in rows if not (e["scope_hash"] and hidden(e["scope_hash"]))
        ]

    pref = MemoryType.preference.value
    return MonthChanges(
        period=period,
        versions=[int(v["version_num"]) for v in versions],
        preferences_added=[_memo(r) for r in written if r["type"] == pref],
        preferences_dropped=[r.older for r in superseded if r.older.type == pref],
        superseded=superseded,
        added=[_memo(r) for r in written if r["type"] != pref],
        entities_new=entities(new_entities),
        entities_gone=entities(gone_entities),
        diff=identity.diff(old, new, locale_text.text("report.before_month", lang), last) if versions else "",
    )


def _memo(row: dict[str, Any]) -> Memo:
    return Memo(str(row["slug"]), str(row["type"]), " ".join(str(row["title"] or row["slug"]).split()))
