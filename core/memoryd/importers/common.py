"""What every importer shares: items in, memories out, idempotently.

Each imported item has a key that is stable in its origin (a session id, a record id, a
hash of a MEMORY.md bullet). The key is kept as the memory's `session_id` with the
importer's source, so a rerun finds the memory it wrote before (in the index, and after
a reindex from the files too) and updates it only if the content changed. Slugs derive
from the key as well, so the same item always lands in the same file. Writes go through
Store.save_many: one transaction and one audit event per batch, not per memory.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from memoryd import clock, slugs
from memoryd.frontmatter import Document
from memoryd.jsontext import without_surrogates
from memoryd.keyterms import keywords
from memoryd.models import DecayState, Frontmatter, MemoryType, default_ttl
from memoryd.redact import Redactor
from memoryd.scope import Scope, resolve
from memoryd.store import Store
from memoryd.store.files import Turn

BATCH = 500
# Frontmatter key: a hash of the title, body and tags as last imported, so a rerun can
# tell an origin that changed (update) from a memory the user edited (keep).
IMPORT_FP = "import_fingerprint"
TITLE_CHARS = 80
# Bounds on one file read from another tool's store (through memoryd.safeopen, regular files
# only): a note (MEMORY.md, a daily log, an entity) and a store file of many records.
MAX_NOTE_BYTES = 16 * 1024 * 1024
MAX_STORE_BYTES = 256 * 1024 * 1024


def unreadable(exc: Exception) -> str:
    """Why a file was skipped, in a few words (`a FIFO, not a regular file`)."""
    return (exc.strerror if isinstance(exc, OSError) else None) or exc.__class__.__name__


@dataclass
class ImportReport:
    source: str
    imported: int = 0
    updated: int = 0
    unchanged: int = 0
    malformed: int = 0  # lines or rows that could not be read as an item
    skipped: list[str] = field(default_factory=list)  # items read but not imported, with why
    scopes: set[str] = field(default_factory=set)

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "imported": self.imported,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "malformed": self.malformed,
            "skipped": len(self.skipped),
            "skipped_items": self.skipped,
            "scopes": sorted(self.scopes),
        }

    def summary(self) -> str:
        parts = [f"imported {self.imported}", f"updated {self.updated}", f"unchanged {self.unchanged}"]
        if self.malformed:
            parts.append(f"malformed {self.malformed} (skipped)")
        if self.skipped:
            parts.append(f"skipped {len(self.skipped)}")
        return f"{self.source}: " + ", ".join(parts)


@dataclass
class Item:
    key: str
    type: MemoryType
    title: str
    body: str
    created_at: datetime
    scope: Scope
    tags: list[str] = field(default_factory=list)
    triggers: list[str] | None = None  # None: derived from title and body
    turns: Sequence[Turn] | None = None
    decay_state: DecayState = DecayState.alive
    category: str | None = None


def first_line(text: str, limit: int = TITLE_CHARS) -> str:
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    # Redact first, cut after: a cut can leave a secret without what shows it is one.
    line = Redactor()(line.lstrip("#-*> ").strip())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def text_key(*parts: str) -> str:
    """A stable key for an item that has no id of its own: a hash of what identifies it."""
    return hashlib.sha256("\x00".join(parts).encode("utf-8")).hexdigest()[:20]


def parse_when(value: Any, fallback: datetime) -> datetime:
    if isinstance(value, str) and value.strip():
        try:
            return clock.parse_ts(value)
        except Exception:  # a bad timestamp costs the item its date, not its import
            return fallback
    return fallback


Progress = Callable[[int, int], None]


def stderr_progress(label: str) -> Progress | None:
    """A one-line progress bar on stderr for a person at a terminal; nothing otherwise."""
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        width = 30
        filled = width * done // max(total, 1)
        end = "\n" if done >= total else ""
        sys.stderr.write(f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}{end}")
        sys.stderr.flush()

    return show


class Writer:
    """Turns Items into memories: new ones created, changed ones updated, the rest left."""

    def __init__(self, store: Store, source: str, *, actor: str = "cli") -> None:
        self.store = store
        self.source = source
        self.actor = actor
        self.report = ImportReport(source)
        self._pending: list[tuple[Document, Sequence[Turn] | None]] = []
        self._seen: set[str] = set()
        # Transcripts were redacted by the capture parser; notes and records from other
        # stores were not: secrets in a MEMORY.md bullet never reach a memory file either.
        self._redact = Redactor()

    def _slug(self, item: Item, title: str) -> str:
        if item.type is MemoryType.session:
            slug = slugs.for_session(self.source, item.key, item.created_at)
        else:
            digest = text_key(self.source, item.key)[:8]
            words = slugs._ascii_words(title, 40)  # the redacted title: names reach the index
            slug = "-".join(p for p in (item.created_at.strftime("%Y-%m-%d"), words, digest) if p)
        if self.store.keys.sensitive(item.scope.hash):
            from memoryd.sensitive.marking import opaque

            return opaque(self.store.keys.get(item.scope.hash), slug)
        return slugs.validate(slug)

    def put(self, item: Item) -> None:
        # A source decoded leniently (surrogateescape, a raw \xed\xa0\x80 in an id) can
        # hand over lone surrogates, which no UTF-8 file or SQLite text can hold.
        item = replace(
            item,
            key=without_surrogates(item.key),
            title=without_surrogates(item.title),
            body=without_surrogates(item.body),
            tags=without_surrogates(list(item.tags)),
        )
        if item.scope.marked and not self.store.keys.sensitive(item.scope.hash):
            # Marked sensitive (say, a fresh clone) with no key on this machine: writing it
            # would be plaintext. The user marks it (or imports the key) and imports again.
            self.report.skipped.append(
                f"{item.key}: {item.scope.root} is marked sensitive and has no key here "
                f"(run `memoryd mark-sensitive {item.scope.root}` first)"
            )
            return
        if item.key in self._seen:  # the origin holds the same item twice
            self.report.skipped.append(f"{item.key}: duplicate in the source")
            return
        self._seen.add(item.key)
        body = self._redact(item.body if item.body.endswith("\n") else item.body + "\n")
        title = self._redact(" ".join(item.title.split())) or first_line(body) or item.key
        triggers = item.triggers
        if triggers is None:  # no store rarity: an import writes thousands, a query each would add minutes
            triggers = keywords(f"{title} {body}", 8)
        tags = list(dict.fromkeys([self.source, *item.tags]))[:12]
        existing = self.store.slug_for_session(self.source, item.key)
        imported = text_key(title, body, *tags)  # what this import would write
        if existing:
            doc, _ = self.store.read(existing)
            m = doc.meta
            last = m.extras.get(IMPORT_FP)  # what the previous import wrote
            if isinstance(last, str) and last != text_key(m.title, doc.body, *m.tags):
                # Edited since it was imported: the user's version stands.
                self.report.skipped.append(f"{item.key}: edited since the last import, kept as it is")
                return
            if last == imported or (m.title, doc.body, m.tags) == (title, body, tags):
                self.report.unchanged += 1
                return
            # The type stays: the user may have retyped it, and the file stays in its folder.
            m.title, m.tags, m.triggers = title, tags, triggers
            m.updated_at = clock.now()
            setattr(m, IMPORT_FP, imported)
            self._pending.append((Document(meta=m, body=body), item.turns))
            self.report.updated += 1
        else:
            meta = Frontmatter(
                title=title,
                slug=self._slug(item, title),
                type=item.type,
                scope_hash=item.scope.hash,
                source=self.source,
                created_at=item.created_at,
                updated_at=item.created_at,
                tags=tags,
                triggers=triggers,
                category=item.category,
                ttl_days=default_ttl(item.type),
                decay_state=item.decay_state,
                last_recalled_at=item.created_at,
                session_id=item.key,
                **{IMPORT_FP: imported},
            )
            self._pending.append((Document(meta=meta, body=body), item.turns))
            self.report.imported += 1
        if item.scope.hash not in self.report.scopes:  # once per project an import writes to
            from memoryd.sensitive import names

            names.note(self.store, item.scope)
        self.report.scopes.add(item.scope.hash)
        if len(self._pending) >= BATCH:
            self.flush()

    def flush(self) -> None:
        if self._pending:
            self.store.save_many(self._pending, actor=self.actor, event="import")
            self._pending = []

    def finish(self) -> ImportReport:
        self.flush()
        return self.report


def scope_of(path: str | Path | None, override: Scope | None) -> Scope:
    """The scope an item belongs to: --scope when given, else the directory the origin
    recorded (which may no longer exist: its scope is still the one it had)."""
    if override is not None:
        return override
    from memoryd import paths, scope_links

    found = resolve(Path.cwd()) if not path else resolve(path, must_exist=False)
    return scope_links.apply(paths.data_home(), found)  # a linked project's memories live under one hash
