"""The store: the only code that touches memory files or SQL.

Every write goes file (atomic) -> index transaction -> audit append, so a crash between
steps leaves nothing `reindex` cannot heal and never a half-written memory file.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import logging
import stat
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from memoryd import clock, crypto, envpaths, faults, paths, vectors
from memoryd.audit import AuditLog, Verdict
from memoryd.db.engine import open_index, read_session, write_session
from memoryd.errors import CorruptFile, KeyUnavailable, NotFound
from memoryd.frontmatter import Document
from memoryd.models import DecayState
from memoryd.paths import Layout
from memoryd.sensitive.keys import Keys
from memoryd.store import governance, index, kg
from memoryd.store.files import ENC, MemoryFiles, Turn
from memoryd.store.index import Hit, TurnHit
from memoryd.store.keywords import Keywords
from memoryd.store.writelock import WriteLock, serialised
from memoryd.vectors import Texts, Vectors

log = logging.getLogger(__name__)

__all__ = ["Hit", "Store", "Turn", "TurnHit"]


def fingerprint(body: str) -> str:
    return hashlib.sha1(body[:500].encode("utf-8")).hexdigest()


def same_text(a: Document, b: Document) -> bool:
    """The same memory text: type, title and the whole body, compared in NFC with runs of
    whitespace as one space (the fingerprint reads only the body's first 500 characters)."""

    def norm(text: str) -> str:
        return " ".join(unicodedata.normalize("NFC", text).split())

    return (a.meta.type, norm(a.meta.title), norm(a.body)) == (b.meta.type, norm(b.meta.title), norm(b.body))


def dura_mean(score: dict[str, float] | None) -> float | None:
    if not score:
        return None
    values = [float(score[k]) for k in ("D", "U", "R", "A") if k in score]
    return round(sum(values) / len(values), 4) if values else None


def analysis_fingerprint(extras: dict[str, Any]) -> str | None:
    """The body fingerprint an analysis was made of (frontmatter `analysis.fingerprint`):
    when the body changes, the session is due for analysis again."""
    analysis = extras.get("analysis")
    fp = analysis.get("fingerprint") if isinstance(analysis, dict) else None
    return str(fp) if fp else None


_WHOLE = "sha256:"


def analysis_digest(body: str) -> str:
    """What an analysis records of the body it scored: all of it. The duplicate fingerprint
    reads only the first 500 characters, and a recaptured session grows at its end."""
    return _WHOLE + hashlib.sha256(body.encode("utf-8")).hexdigest()


def analysed_current(recorded: str | None, body: str) -> bool:
    """Whether the analysis recorded as `recorded` was made of this body. Analyses from
    before the whole-body digest recorded the 500-character fingerprint: they still count
    (re-scoring every session on upgrade would spend an LLM budget on nothing new)."""
    if recorded is None:
        return False
    if recorded.startswith(_WHOLE):
        return recorded == analysis_digest(body)
    return recorded == fingerprint(body)


def _analyzed(analysed: str | None, body: str, index_fp: str) -> str | None:
    """The index compares analyzed_fingerprint with fingerprint (which is keyed in
    sensitive scopes): an up-to-date analysis is recorded as the index's own fingerprint,
    a stale one as what it was (never equal to it)."""
    if analysed is None:
        return None
    return index_fp if analysed_current(analysed, body) else analysed


MAX_MENTIONS = 1_000_000  # a hand-edited count beyond SQLite's integers must not stop a reindex


def links(doc: Document) -> tuple[dict[str, int], list[tuple[str, str, str]]]:
    """A memory's knowledge-graph rows as its frontmatter states them: {entity: mentions}
    from `observations` (counts in the `entity_mentions` extension), and (predicate,
    object, kind) from `relations` ("prefers:entity:library:solid"), `supersedes` and
    `superseded_by`. Entries that do not parse are left out, not fatal: files are edited."""
    from memoryd.kg import PREDICATES

    m = doc.meta
    counts = m.extras.get("entity_mentions")
    counts = counts if isinstance(counts, dict) else {}
    mentions: dict[str, int] = {}
    for eid in m.observations:
        if eid.startswith("entity:") and eid.count(":") >= 2:
            n = counts.get(eid, 1)
            mentions[eid] = min(n, MAX_MENTIONS) if isinstance(n, int) and n > 0 else 1
    relations: list[tuple[str, str, str]] = []
    for rel in m.relations:
        predicate, _, obj = rel.partition(":")
        if predicate in PREDICATES and obj:
            relations.append((predicate, obj, "entity" if obj.startswith("entity:") else "memory"))
    relations += [("supersedes", old, "memory") for old in m.supersedes]
    if m.superseded_by:
        relations.append(("superseded_by", m.superseded_by, "memory"))
    return mentions, relations


def rebuilt_link(newer: str, older: str, doc: Document) -> dict[str, Any]:
    """A chain row for a link the files state and the index lost (decided by the user:
    the files are what the user keeps)."""
    when = doc.meta.updated_at or doc.meta.created_at
    return {
        "newer_memory_id": newer,
        "older_memory_id": older,
        "entity_id": None,
        "confidence": 1.0,
        "decided_at": clock.iso(when),
        "decided_by": "user",
        "reason": "rebuilt from the memory files",
    }


def rolled_back(doc: Document, row: dict[str, Any] | None, path: Path) -> str | None:
    """A sealed file older than its index row says: replaced by an earlier ciphertext of
    its own (which still opens, being sealed to the same scope and slug). No memoryd write
    leaves a file older than its row (the file is written first, and a sealed file cannot
    be edited by hand), so this is a rollback. Caught: any rollback past an edit (a change
    of `updated_at`). Not caught: a rollback that only undoes recall counters, one made
    together with the index (a restored backup), or one followed by a reindex."""
    if row is None or not path.name.endswith(".md.enc"):
        return None
    m = doc.meta
    have = clock.iso(m.updated_at or m.created_at)
    want = row.get("updated_at") or row.get("created_at")
    if want and have < str(want):
        return (
            f"{path}: rolled back: the file is a version from {have}, the index records one from "
            f"{want} (an older ciphertext was put in its place)"
        )
    return None


def raw_connection(s: Any) -> Any:
    """The sqlite3 connection under a session, inside its transaction (for
    memoryd.vectors, which speaks sqlite3 directly)."""
    return s.connection().connection.driver_connection


def session_key(source: str, session_id: str) -> str:
    return f"{source}:{session_id}"


@dataclass
class ReindexReport:
    files: int = 0
    indexed: int = 0
    turns: int = 0
    skipped: list[str] = field(default_factory=list)
    by_type: dict[str, int] = field(default_factory=dict)
    # Sessions whose promotion proposal was lost with the index: due for analysis again.
    requeued: int = 0
    # Vectors (App.reindex's second phase): the model's tag, texts embedded, texts still
    # without a vector (sensitive scopes whose key is not at hand), and notes (a model
    # that could not be loaded).
    model: str | None = None
    embedded: int = 0
    vectors_missing: int = 0
    notes: list[str] = field(default_factory=list)


@dataclass
class DoctorReport:
    files_without_rows: list[str] = field(default_factory=list)
    rows_without_files: list[str] = field(default_factory=list)
    corrupt_files: list[str] = field(default_factory=list)
    temp_leftovers: list[str] = field(default_factory=list)
    spool_pending: int = 0
    spool_rejected: int = 0
    audit: Verdict | None = None
    # Sensitive scopes whose files could not be opened here (no key at hand).
    locked_scopes: list[str] = field(default_factory=list)
    missing_keys: list[str] = field(default_factory=list)
    # Sensitive scopes whose `.memoryd-sensitive` marker is gone from their root (say,
    # `git clean -fdx`): captures stay sealed (the hook asks the data dir too), but tools
    # that only look at the tree no longer see it. A warning: `mark-sensitive` puts it back.
    missing_markers: list[str] = field(default_factory=list)
    # Sensitive scopes whose settings file still holds the project folder in the clear
    # (written before it was sealed): a warning, sealed by the next capture worker or grant
    # that has the key (memoryd.sensitive.names.seal_settings).
    clear_roots: list[str] = field(default_factory=list)
    # Where the data dir was first opened, when it has moved (or is a copy) since: its
    # keyring entries (grant PIN, audit anchor, which sensitive scopes are its own) are
    # named by that place (memoryd.paths.keyring_id). A warning.
    moved_from: str | None = None
    # Sensitive scopes whose settings file names another key check than the one the OS
    # keyring holds for them (edited outside memoryd): refused until restored (a problem).
    settings_disowned: list[str] = field(default_factory=list)
    # Scopes marked sensitive here and never unmarked whose settings file is gone (the OS
    # keyring still anchors them): nothing of them is written until it is back (a problem).
    settings_lost: list[str] = field(default_factory=list)
    # Sensitive scopes whose sessions the person let the LLM provider score (scope hash ->
    # the provider and URL they allowed; memoryd.sensitive.llm_access). Information.
    llm_allowed: dict[str, str] = field(default_factory=dict)
    # `[llm] allow_sensitive = true` in config.toml: no longer read (a warning).
    llm_switch_ignored: bool = False
    # Vectors (a warning, not a problem: keyword search covers what has none): the model
    # configured, texts without a vector of it, vectors of another model or of no memory,
    # and memories indexed before vectors existed. `memoryd reindex` fixes all three.
    vectors_model: str | None = None
    vectors_missing: int = 0
    vectors_stale: int = 0
    vectors_invalid: int = 0  # clear rows that cannot be scored (wrong length, NaN): reindex replaces them
    vectors_unreferenced: int = 0

    @property
    def ok(self) -> bool:
        return not (
            self.files_without_rows
            or self.rows_without_files
            or self.corrupt_files
            or self.missing_keys
            or self.settings_disowned
            or self.settings_lost
            or (self.audit is not None and not self.audit.ok)
        )


class Store:
    def __init__(self, layout: Layout, engine: Engine) -> None:
        self.layout = layout
        self.engine = engine
        self.keys = Keys(layout)
        self.keys.sealed_rows = self._sealed_rows
        self.files = MemoryFiles(layout, self.keys)
        self.audit = AuditLog(layout, self)
        self._writes = WriteLock(layout.write_lock)
        self.vectors = Vectors(layout.index_db, source=self)
        # The warm keyword index (memoryd.store.keywords): long-lived processes only.
        self.keywords: Keywords | None = None
        # Scopes written through this Store since the last snapshot refresh.
        self.changed_scopes: set[str] = set()

    def _sealed_rows(self, scope_hash: str) -> bool:
        """Whether the index holds memories of the scope as a sensitive scope's (Keys.settings_lost)."""
        with read_session(self.engine) as s:
            return index.has_sealed_rows(s, scope_hash)

    def scope_hashes(self) -> set[str]:
        """Every scope with a memory in the index."""
        with read_session(self.engine) as s:
            return index.scope_hashes(s)

    def warm_keywords(self) -> Keywords:
        """Keep keyword search's postings in memory from the first search on (built in the
        background then; searches use SQL until it is ready). For long-lived processes: a
        short command would pay the build for one query. Not built at open, so a tray that
        is never asked to search holds no postings (68 MB at 100k memories)."""
        if self.keywords is None:
            self.keywords = Keywords(self.layout.index_db)
        return self.keywords

    def writing(self) -> contextlib.AbstractContextManager[None]:
        """Held around every read-change-write of a memory file (memoryd.store.writelock):
        hold it from the read when what is written back depends on what was read."""
        return self._writes.held()

    def writing_if_free(self) -> contextlib.AbstractContextManager[bool]:
        """The write lock if it is free right now (True), else not waited for (False)."""
        return self._writes.attempt()

    @classmethod
    def open(cls, layout: Layout) -> Store:
        layout.prepare()
        paths.note_location(layout.home)
        return cls(layout, open_index(layout.index_db))

    def resegment(self) -> int:
        """Re-index from their files the memories migration 021 listed (kana or hangul
        indexed before memoryd.textproc bigrammed them), if the write lock is free now: the
        capture worker and a long-lived process's preload call it, never a hook or a start-up
        that someone waits on. A file that does not read, or is no regular file, keeps its
        old words (doctor reports a damaged one); every listed memory leaves the list, so one
        bad file never holds up the rest or the next run. Returns how many were re-indexed."""
        with contextlib.closing(self.engine.raw_connection()) as con:
            pending = index.resegment_pending(con.driver_connection)
        if not pending:
            return 0
        done = 0
        with self._writes.attempt() as held:
            if not held:
                return 0
            for slug, body_path in pending:
                if body_path is None:
                    continue
                path = self.files.absolute(body_path)
                try:
                    if not stat.S_ISREG(path.stat().st_mode):  # a FIFO would block the read
                        raise CorruptFile(f"{body_path}: not a regular file")
                    self.index_files([path])
                    done += 1
                except Exception as exc:  # an upgrade step: never a reason to stop the rest
                    log.warning("%s keeps its old search words: %s: %s", slug, type(exc).__name__, exc)
            with write_session(self.engine) as s:
                index.resegment_done(s, [slug for slug, _ in pending])
        return done

    # -- audit head (HeadStore) -------------------------------------------------------
    def get_head(self) -> tuple[int, str] | None:
        with read_session(self.engine) as s:
            return index.get_head(s)

    def set_head(self, seq: int, this_hash: str, event_type: str, ts: str) -> None:
        with write_session(self.engine) as s:
            index.set_head(s, seq, this_hash, clock.now_iso())
            index.set_event_last(s, event_type, seq, ts)

    def last_runs(self) -> dict[str, str]:
        """When each kind of audited write last happened."""
        with read_session(self.engine) as s:
            return index.event_last(s)

    def _restore_head(self) -> None:
        """After the index is lost, take the chain head and last runs from the log as it
        stands (the log itself is checked by `audit verify`)."""
        last = None
        with write_session(self.engine) as s:
            for ev in self.audit.events():
                index.set_event_last(s, ev.event_type, ev.seq, ev.ts)
                last = ev
            if last is not None:
                index.set_head(s, last.seq, last.this_hash, clock.now_iso())

    # -- rows -------------------------------------------------------------------------
    def _row(
        self, doc: Document, path: Path, turns: Sequence[Turn] | None = None, *, checked: bool = False
    ) -> dict[str, Any]:
        """`checked`: the write path ran memoryd.suspect_doc.check, so the frontmatter's
        flag is complete; reindex and sync look at the text themselves."""
        from memoryd.suspect_doc import flagged, reasons

        m = doc.meta
        suspect = flagged(doc) if checked else reasons(doc, turns)
        sensitive = self.files.sensitive(m.scope_hash)
        fp = self._fingerprint(doc, sensitive)
        return {
            "slug": m.slug,
            "type": m.type.value,
            "scope_hash": m.scope_hash,
            "title": "" if sensitive else m.title,
            "source": m.source,
            "created_at": clock.iso(m.created_at),
            "updated_at": clock.iso(m.updated_at) if m.updated_at else None,
            "ttl_days": m.ttl_days,
            "decay_state": m.decay_state.value,
            "last_recalled_at": clock.iso(m.last_recalled_at) if m.last_recalled_at else None,
            "recall_count": m.recall_count,
            "fingerprint": fp,
            "body_path": self.files.relative(path),
            "scope_sensitive": 1 if sensitive else 0,
            "session_key": session_key(m.source, m.session_id) if m.session_id else None,
            "dura_score": json.dumps(m.dura_score, sort_keys=True) if m.dura_score else None,
            "dura_mean": dura_mean(m.dura_score),
            "analyzed_fingerprint": _analyzed(analysis_fingerprint(m.extras), doc.body, fp),
            "superseded_by": m.superseded_by,
            "suspect": json.dumps(suspect, ensure_ascii=False) if suspect else None,
        }

    def _fingerprint(self, doc: Document, sensitive: bool) -> str:
        if sensitive:  # no words in the index: a keyed fingerprint still finds duplicates
            key = self.keys.get(doc.meta.scope_hash)
            return "k:" + crypto.keyed_digest(key, doc.body[:500].encode())[:40]
        return fingerprint(doc.body)

    def recorded_as(self, doc: Document) -> str | None:
        """The slug of a live memory of `doc`'s scope with its type, title and body as
        `save` would write them (hidden characters stripped, secrets redacted), if there is
        one. Candidates come from the index's fingerprint (keyed in a sensitive scope, so
        nothing new lies on disk) and are read to compare the whole text. Hold `writing()`
        from this check to the save, or two writers may both find none."""
        probe = copy.deepcopy(doc)
        self._redact(probe, None, None)
        fp = self._fingerprint(probe, self.files.sensitive(probe.meta.scope_hash))
        with read_session(self.engine) as s:
            candidates = index.same_fingerprint(s, probe.meta.scope_hash, probe.meta.type.value, fp)
        for slug in candidates:
            try:
                other, _ = self.read(slug)
            except (NotFound, CorruptFile, KeyUnavailable):
                continue
            if same_text(other, probe):
                return slug
        return None

    def _index(
        self, s: Any, doc: Document, path: Path, turns: Sequence[Turn] | None, *, checked: bool = False
    ) -> None:
        """One memory's rows: the memory, its words, and its knowledge-graph links.

        The rule for everything derived from a memory (FTS words, graph rows, snapshots,
        exports, and embeddings or any index added later): nothing derived from a sensitive
        scope's plaintext lies on disk in the clear. Here a sensitive scope gets no words, no
        title, no graph rows and a keyed fingerprint; new derived data must be sealed with the
        scope key (memoryd.crypto) or left out, dropped by `sensitive.marking` when a scope is
        marked, and covered by the canary scan (tests/core/sensitive/test_derived.py)."""
        row = self._row(doc, path, turns, checked=checked)
        was = (
            raw_connection(s)
            .execute("SELECT scope_hash, type, scope_sensitive FROM memories WHERE slug = ?", (row["slug"],))
            .fetchall()
        )
        index.upsert_memory(
            s, row, doc.meta.triggers, self._fts(doc), list(turns) if turns is not None else None
        )
        moved = bool(was) and tuple(was[0]) != (row["scope_hash"], row["type"], row["scope_sensitive"])
        self._refs(s, doc, path, turns, bool(row["scope_sensitive"]), moved=moved)
        mentions, relations = ({}, []) if row["scope_sensitive"] else links(doc)
        kg.replace_for_memory(
            s,
            slug=doc.meta.slug,
            scope_hash=doc.meta.scope_hash,
            memory_type=doc.meta.type.value,
            seen_at=row["created_at"],
            mentions=mentions,
            relations=relations,
        )

    def _refs(
        self,
        s: Any,
        doc: Document,
        path: Path,
        turns: Sequence[Turn] | None,
        sensitive: bool,
        *,
        moved: bool = False,
    ) -> None:
        """Which texts of this memory get a vector (memoryd.vectors); the vectors
        themselves come later (`embed_vectors`), keyed by these fingerprints."""
        if turns is None:
            turns = self.files.read_turns(path)
        key = self.keys.get(doc.meta.scope_hash) if sensitive else None
        items = vectors.texts_of(doc.meta.title, doc.body, ((t.seq, t.role, t.text) for t in turns))
        vectors.write_refs(raw_connection(s), doc.meta.slug, items, key, moved=moved)

    def vector_texts(self, slug: str) -> Texts | None:
        """A memory's texts as `_refs` cut them, for embedding; None when it cannot be read
        here (gone, damaged, or a sensitive scope whose key is not at hand)."""
        try:
            doc, path = self.read(slug)
            turns = self.files.read_turns(path)
            key = self.keys.get(doc.meta.scope_hash) if self.files.sensitive(doc.meta.scope_hash) else None
        except (NotFound, CorruptFile, KeyUnavailable):
            return None
        items = vectors.texts_of(doc.meta.title, doc.body, ((t.seq, t.role, t.text) for t in turns))
        return Texts(doc.meta.scope_hash, key, items)

    def embed_vectors(
        self,
        embedder: Any,
        *,
        slugs: Sequence[str] | None = None,
        progress: Callable[[int, int], None] | None = None,
        batch: int = 64,
    ) -> int:
        """Embed what has no vector yet (of `slugs`, or everywhere), skipping sensitive
        scopes whose key is not at hand: their texts are embedded where the key is."""
        if embedder is None:
            return 0
        locked = sorted(self._locked_scopes())
        if slugs is None:
            self.backfill_refs(locked)
        return self.vectors.embed_missing(
            embedder, batch=batch, progress=progress, slugs=slugs, skip_scopes=locked
        )

    def backfill_refs(self, locked: Sequence[str] = (), *, batch: int = 200) -> int:
        """Refs for memories indexed before vectors existed (migration 017), so an upgraded
        store gets vectors from the worker without a reindex. Returns the memories done."""
        done, after = 0, ""
        while True:
            with read_session(self.engine) as s:
                todo = vectors.unreferenced(raw_connection(s), locked, batch, after)
            if not todo:
                return done
            after = todo[-1]
            with self.writing(), write_session(self.engine) as s:
                for slug in todo:
                    try:
                        doc, path = self.read(slug)
                        self._refs(s, doc, path, None, self.files.sensitive(doc.meta.scope_hash))
                    except (NotFound, CorruptFile, KeyUnavailable):  # doctor's business
                        continue
                    done += 1

    @staticmethod
    def _fts(doc: Document) -> dict[str, str]:
        m = doc.meta
        return {
            "title": m.title,
            "body": doc.body,
            "triggers": " ".join(m.triggers),
            "tags": " ".join(m.tags),
        }

    # -- writes -----------------------------------------------------------------------
    def changed(self, scope_hash: str) -> None:
        """A scope's content changed: its snapshot is stale until someone renders it
        (memoryd.snapshot; the marker tells `inject` if no one does)."""
        self.changed_scopes.add(scope_hash)
        folder = self.layout.scope_dir(scope_hash)
        if folder.is_dir():
            with contextlib.suppress(OSError):
                (folder / envpaths.SNAPSHOT_STALE).touch(mode=0o600)

    @serialised
    def save(
        self,
        doc: Document,
        *,
        event: str,
        actor: str,
        turns: Sequence[Turn] | None = None,
        details: dict[str, Any] | None = None,
        dedupe: str | None = None,
    ) -> Path:
        """Write one memory everywhere it lives, and audit it. Secrets are redacted first
        (memoryd.redact_doc): this is the one place every writer of memory content passes."""
        with read_session(self.engine) as s:
            old = index.get(s, doc.meta.slug)
        carried = (old or {}).get("suspect") or ()
        turns, details = self._redact(doc, turns, details, carried=carried)
        path = self.files.write(doc)
        if turns is not None:
            self.files.write_turns(path, list(turns))
        if old and old["body_path"] != self.files.relative(path):
            self.files.remove(self.files.absolute(old["body_path"]))
        with write_session(self.engine) as s:
            self._index(s, doc, path, turns, checked=True)
        self.changed(doc.meta.scope_hash)
        self._audit_doc(doc, event, actor, details, dedupe)
        return path

    def _redact(
        self,
        doc: Document,
        turns: Sequence[Turn] | None,
        details: dict[str, Any] | None,
        *,
        carried: Sequence[str] = (),
    ) -> tuple[Sequence[Turn] | None, dict[str, Any] | None]:
        """Strip hidden characters and flag a suspect memory (memoryd.suspect_doc), then
        redact it in place; the audit gets the reasons and the counts (never what). A new
        memory whose name holds a word of a secret is renamed; an existing one keeps its.
        Stripping goes first: a zero-width space inside a secret must not hide it."""
        from memoryd.redact_doc import scrub
        from memoryd.suspect_doc import check

        slug = doc.meta.slug
        turns, flagged = check(doc, turns, carried=carried)
        if flagged:
            details = {**(details or {}), "suspect": flagged}
        turns, counts = scrub(doc, turns, fresh=True)
        if doc.meta.slug != slug:
            with read_session(self.engine) as s:
                if index.get(s, slug) is not None or index.get(s, doc.meta.slug) is not None:
                    doc.meta.slug = slug
        if not counts:
            return turns, details
        details = dict(details or {})
        merged = dict(details.get("redactions") or {})
        for kind, n in counts.items():
            merged[kind] = merged.get(kind, 0) + n
        details["redactions"] = merged
        return turns, details

    def _audit_doc(
        self, doc: Document, event: str, actor: str, details: dict[str, Any] | None, dedupe: str | None
    ) -> None:
        self.audit.append(
            event,
            actor=actor,
            scope_hash=doc.meta.scope_hash,
            target_id=doc.meta.slug,
            details=details,
            dedupe=dedupe,
        )

    @serialised
    def save_many(
        self,
        docs: Iterable[tuple[Document, Sequence[Turn] | None]],
        *,
        actor: str,
        event: str = "import",
        batch: int = 500,
    ) -> int:
        """Bulk path for importers and benchmarks: files without per-file fsync, one
        transaction and one audit event per batch."""
        done = 0
        pending: list[tuple[Document, Path, Sequence[Turn] | None]] = []
        redacted: dict[str, int] = {}
        suspect: dict[str, list[str]] = {}

        def flush() -> None:
            if not pending:
                return
            with write_session(self.engine) as s:
                for doc, path, turns in pending:
                    self._index(s, doc, path, turns, checked=True)
            scopes = sorted({d.meta.scope_hash for d, _, _ in pending})
            for h in scopes:
                self.changed(h)
            self.audit.append(
                event,
                actor=actor,
                scope_hash=scopes[0] if len(scopes) == 1 else None,
                details={
                    "count": len(pending),
                    "scopes": scopes,
                    **({"redactions": dict(redacted)} if redacted else {}),
                    **({"suspect": dict(suspect)} if suspect else {}),
                },
            )
            pending.clear()
            redacted.clear()
            suspect.clear()

        for doc, turns in docs:
            turns, counts = self._redact(doc, turns, None)
            for kind, n in ((counts or {}).get("redactions") or {}).items():
                redacted[kind] = redacted.get(kind, 0) + n
            if (counts or {}).get("suspect"):
                suspect[doc.meta.slug] = counts["suspect"]  # type: ignore[index]
            path = self.files.write(doc, sync=False)
            if turns is not None:
                self.files.write_turns(path, list(turns), sync=False)
            pending.append((doc, path, turns))
            done += 1
            if len(pending) >= batch:
                flush()
        flush()
        return done

    def suspects(self, scopes: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """Memories flagged as suspect, with their reasons (row["suspect"])."""
        with read_session(self.engine) as s:
            return index.suspect_rows(s, scopes)

    @serialised
    def clear_suspect(self, slug: str, *, actor: str) -> list[str]:
        """A person vouches for a suspect memory as it stands (memoryd.suspect_doc.clear):
        the flag goes from the file and the index, audited with the reasons it had.
        Returns those reasons; UsageError when the memory was not suspect."""
        from memoryd.errors import UsageError
        from memoryd.suspect_doc import clear

        doc, path = self.read(slug)
        was = list(self.row(slug).get("suspect") or [])
        was = list(dict.fromkeys([*was, *clear(doc, self.files.read_turns(path))]))
        if not was:
            raise UsageError(f"{slug} is not marked suspect")
        path = self.files.write(doc)
        with write_session(self.engine) as s:
            self._index(s, doc, path, None)
        self.changed(doc.meta.scope_hash)
        self._audit_doc(doc, "suspect_clear", actor, {"reasons": was}, None)
        return was

    def check_unchecked(self, *, actor: str, limit: int | None = None) -> tuple[int, list[str]]:
        """Read once each memory indexed before the poison detector (migration 015): an
        attack is flagged and stripped through the write path (audited `suspect_check`),
        the rest is only marked read. A sealed scope whose key is not at hand waits, and
        does not count against `limit`. Returns (memories read, slugs flagged)."""
        import copy

        from memoryd.suspect_doc import check, flagged

        with read_session(self.engine) as s:
            rows = index.unchecked(s)
        read, found = 0, []
        locked: set[str] = set()
        for row in rows:
            if limit is not None and read >= limit:
                break
            if row["scope_hash"] in locked:
                continue
            try:
                doc, path = self.read(row["slug"])
                turns = self.files.read_turns(path) or None
            except KeyUnavailable:
                locked.add(row["scope_hash"])
                continue
            except (CorruptFile, NotFound):  # doctor's business; not read again here
                with write_session(self.engine) as s:
                    index.mark_checked(s, row["slug"])
                continue
            read += 1
            faults.fail("suspect_check:item")
            probe = copy.deepcopy(doc)
            _, new = check(probe, turns, carried=flagged(doc))
            if new:
                self.save(doc, event="suspect_check", actor=actor, turns=turns, details={"upgrade": True})
                found.append(row["slug"])
            else:
                with write_session(self.engine) as s:
                    index.mark_checked(s, row["slug"])
        return read, found

    def forget(self, slug: str, *, actor: str) -> Document:
        doc, path = self.read(slug)
        old_state = doc.meta.decay_state
        self.archive(doc, path, event="forget", actor=actor, details={"from_state": old_state.value})
        return doc

    def archive(
        self,
        doc: Document,
        path: Path,
        *,
        event: str,
        actor: str,
        details: dict[str, Any] | None = None,
        dedupe: str | None = None,
    ) -> Path:
        """Forgotten (seed 001): the file moves to forgotten/ and its index rows go. Each
        step can be repeated, so an interrupted archive finishes on the next run."""
        new_path = self.files.archive(doc, path)
        with write_session(self.engine) as s:
            governance.delete_memory(s, doc.meta.slug)
        self.changed(doc.meta.scope_hash)
        self._audit_doc(doc, event, actor, details, dedupe)
        return new_path

    # -- reads ------------------------------------------------------------------------
    def row(self, slug: str) -> dict[str, Any]:
        """The memory's index row. Its scope is what the gate checks, and its file what is
        read (and decrypted, with the key of the scope the file lies in): a row whose scope
        is not its file's is refused, or an edit of index.db could point a sensitive
        memory's row at an open scope and read it past the gate, unaudited (an outside
        test, 2026-11-28)."""
        with read_session(self.engine) as s:
            row = index.get(s, slug)
        if row is None:
            raise NotFound(f"no memory with slug {slug!r}")
        parts = str(row.get("body_path") or "").split("/")
        if len(parts) < 3 or parts[0] != "scopes" or parts[1] != row["scope_hash"]:
            raise CorruptFile(
                f"the index row of {slug} names scope {row['scope_hash']} but its file is "
                f"{row.get('body_path')} (index.db edited, or the file moved by hand): not read"
            )
        return row

    def rows(self, slugs: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The index rows of these slugs (missing ones left out), on a pooled sqlite3
        connection without an ORM session (a fifth of the cost; hybrid search asks once a query)."""
        with contextlib.closing(self.engine.raw_connection()) as con:
            return index.get_many(con.driver_connection, slugs)

    def turns_at(self, keys: Sequence[tuple[str, int]]) -> dict[tuple[str, int], TurnHit]:
        with read_session(self.engine) as s:
            return index.turns_at(s, keys)

    def traces_text(self, slug: str) -> str:
        """A session's indexed turns as one text ("" for other memories)."""
        with read_session(self.engine) as s:
            return index.stored_traces(s, slug)

    def traces_texts(self, slugs: Sequence[str]) -> dict[str, str]:
        """`traces_text` of many memories at once (a search's identifier check), as `rows`."""
        with contextlib.closing(self.engine.raw_connection()) as con:
            return index.stored_traces_many(con.driver_connection, slugs)

    def started(self, slugs: Sequence[str]) -> dict[str, str]:
        """When each of these sessions began (its first turn's time; memories without
        timestamped turns left out), as `rows`."""
        if not slugs:
            return {}
        with contextlib.closing(self.engine.raw_connection()) as con:
            return index.started(con.driver_connection, slugs)

    def read(self, slug: str) -> tuple[Document, Path]:
        row = self.row(slug)
        path = self.files.absolute(row["body_path"])
        doc = self.files.read(path)
        rolled = rolled_back(doc, row, path)
        if rolled:
            raise CorruptFile(rolled)
        return doc, path

    def slug_for_session(self, source: str, session_id: str) -> str | None:
        with read_session(self.engine) as s:
            return index.slug_for_session(s, session_key(source, session_id))

    def list(
        self,
        *,
        scopes: Sequence[str] | None = None,
        types: Sequence[str] | None = None,
        states: Sequence[str] | None = None,
        limit: int | None = None,
    ) -> list[dict[str, Any]]:
        with read_session(self.engine) as s:
            return index.list_rows(s, scopes=scopes, types=types, states=states, limit=limit)

    def search(
        self,
        match: str,
        *,
        scopes: Sequence[str] | None,
        types: Sequence[str] | None,
        states: Sequence[str] | None,
        limit: int,
    ) -> list[tuple[Hit, dict[str, Any]]]:
        if self.keywords is not None:
            got = self.keywords.search(match, scopes=scopes, types=types, states=states, limit=limit)
            if got is not None:
                return got
        with read_session(self.engine) as s:
            return index.search(s, match, scopes=scopes, types=types, states=states, limit=limit)

    def verbatim(
        self,
        needles: Sequence[str],
        *,
        scopes: Sequence[str] | None,
        types: Sequence[str] | None,
        states: Sequence[str] | None,
        limit: int,
    ) -> list[dict[str, Any]]:
        """Rows whose title or body holds a needle (lower case) as a substring (index.verbatim)."""
        with read_session(self.engine) as s:
            return index.verbatim(s, needles, scopes=scopes, types=types, states=states, limit=limit)

    def search_turns(
        self, match: str, *, scopes: Sequence[str] | None, states: Sequence[str] | None, limit: int
    ) -> list[TurnHit]:
        with read_session(self.engine) as s:
            return index.search_turns(s, match, scopes=scopes, states=states, limit=limit)

    def triggers(self, slug: str) -> list[str]:
        with read_session(self.engine) as s:
            return index.triggers_of(s, slug)

    def counts(self) -> dict[str, list[dict[str, Any]]]:
        with read_session(self.engine) as s:
            return index.counts(s)

    # -- recall -----------------------------------------------------------------------
    def record_recall(self, slugs: Sequence[str], trigger_hits: Iterable[tuple[str, str]]) -> None:
        """A hit or a get is a recall: counters, last_recalled_at, decay back to alive, in
        the index and in the file (files are the truth)."""
        now = clock.now()
        when = clock.iso(now)
        with write_session(self.engine) as s:
            for slug in slugs:
                index.mark_recalled(s, slug, when)
            index.trigger_hits(s, trigger_hits, now.strftime("%Y-%m-%d"))
        for slug in slugs:
            self.recall_file(slug, now)

    def recall_file(self, slug: str, now: datetime) -> None:
        """A recall's counters in the memory's file (memoryd.reader does the same for the
        files it can write without the model, and calls this for the others)."""
        with self.writing():  # a capture saved meanwhile is not written over
            try:
                doc, _path = self.read(slug)
            except (NotFound, CorruptFile, KeyUnavailable):
                return
            faults.pause("recall:read")
            doc.meta.recall_count += 1
            doc.meta.last_recalled_at = now
            if doc.meta.decay_state is not DecayState.forgotten:
                doc.meta.decay_state = DecayState.alive
            # No fsync: counters are bookkeeping that the index holds too, and a search
            # should not wait on ten disk flushes. The rename keeps the file whole.
            self.files.write(doc, sync=False)

    # -- maintenance ------------------------------------------------------------------
    def reindex(self, *, actor: str, progress: Callable[[int, int], None] | None = None) -> ReindexReport:
        """Rebuild everything derivable from the files, in one transaction: an error (or
        `progress` raising Cancelled) leaves the index as it was."""
        report = ReindexReport()
        seen: dict[str, str] = {}
        pairs: set[tuple[str, str]] = set()  # (newer, older) as the files state them
        locked = self._locked_scopes()
        with write_session(self.engine) as s:
            index.clear_derived(s, sorted(locked))
            kg.clear_derived(s)
            every = list(self.files.all_files())
            for n, path in enumerate(every, 1):
                if progress is not None:
                    progress(n, len(every))
                if self.files.scope_of(path) in locked:
                    continue
                report.files += 1
                rel = self.files.relative(path)
                try:
                    doc = self.files.read(path)
                except CorruptFile as exc:
                    report.skipped.append(str(exc))
                    continue
                if doc.meta.slug in seen:
                    report.skipped.append(
                        f"{rel}: slug {doc.meta.slug!r} already used by {seen[doc.meta.slug]}"
                    )
                    continue
                seen[doc.meta.slug] = rel
                turns = self.files.read_turns(path)
                self._index(s, doc, path, turns)
                for older in doc.meta.supersedes:  # a chain lost with the index, or edited by hand
                    kg.add_chain(s, rebuilt_link(doc.meta.slug, older, doc), replace=False)
                    pairs.add((doc.meta.slug, older))
                if doc.meta.superseded_by:
                    kg.add_chain(s, rebuilt_link(doc.meta.superseded_by, doc.meta.slug, doc), replace=False)
                    pairs.add((doc.meta.superseded_by, doc.meta.slug))
                report.indexed += 1
                report.turns += len(turns)
                report.by_type[doc.meta.type.value] = report.by_type.get(doc.meta.type.value, 0) + 1
            kg.forget_unmentioned(s)  # names no file holds any more (edited out by hand)
        self._reconcile_chain(set(seen), pairs)
        with write_session(self.engine) as s:
            index.resegment_clear(s)  # every file was indexed anew: nothing left to re-index
        for h in sorted(locked):
            report.skipped.append(
                f"scope {h}: sensitive and its key is not available here; its rows were kept"
            )
        if self.get_head() is None:
            self._restore_head()
        self.audit.append(
            "reindex",
            actor=actor,
            details={"files": report.files, "indexed": report.indexed, "skipped": len(report.skipped)},
        )
        return report

    def _reconcile_chain(self, indexed: set[str], pairs: set[tuple[str, str]]) -> None:
        """The supersedes chain as the files state it: a link either file names is kept (and
        the older one ranked as superseded even if only the newer file says so, as after a
        supersede cut short); a link no file names any more, between memories both read
        here, was taken back by hand and goes."""
        with write_session(self.engine) as s:
            for newer, older in sorted(pairs):
                kg.mark_superseded(s, older, newer)
            for newer, older in kg.chain_pairs(s):
                if newer in indexed and older in indexed and (newer, older) not in pairs:
                    kg.remove_chain(s, newer, older)

    def _locked_scopes(self) -> set[str]:
        """Sensitive scopes whose key this process cannot get (no keyring entry, or a
        passphrase scope without a live grant)."""
        from memoryd.errors import KeyUnavailable
        from memoryd.sensitive import state

        locked = set()
        for h in state.sensitive_hashes(self.layout):
            try:
                self.keys.get(h)
            except KeyUnavailable:
                locked.add(h)
        return locked

    def index_files(self, paths: Sequence[Path]) -> list[Document]:
        """Index memory files put back in place (an undo) as reindex does: rows, words,
        triggers, graph links and vector refs, in one transaction. Raises CorruptFile (and
        changes nothing in the index) when one does not read."""
        docs: list[Document] = []
        with write_session(self.engine) as s:
            for path in paths:
                doc = self.files.read(path)
                sensitive = self.files.sensitive(doc.meta.scope_hash)
                self._index(s, doc, path, None if sensitive else self.files.read_turns(path))
                docs.append(doc)
        for doc in docs:
            self.changed(doc.meta.scope_hash)
        return docs

    def reindex_scope(self, scope_hash: str) -> int:
        """Rebuild one scope's rows from its files (after it was encrypted or decrypted)."""
        seen: set[str] = set()
        with write_session(self.engine) as s:
            for path in self.files.all_files(scope_hash):
                doc = self.files.read(path)
                seen.add(doc.meta.slug)
                turns = None if self.files.sensitive(scope_hash) else self.files.read_turns(path)
                self._index(s, doc, path, turns)
            stale = [
                r["slug"]
                for r in index.list_rows(s, scopes=[scope_hash], types=None, states=None, limit=None)
                if r["slug"] not in seen
            ]
            for slug in stale:
                governance.delete_memory(s, slug)
        return len(seen)

    def doctor(self) -> DoctorReport:
        report = DoctorReport()
        with read_session(self.engine) as s:
            rows = index.all_body_paths(s)
            stamps = index.sealed_stamps(s)
        on_disk = set()
        locked = self._locked_scopes()
        report.locked_scopes = sorted(locked)
        for path in self.files.all_files():
            rel = self.files.relative(path)
            on_disk.add(rel)
            if self.files.scope_of(path) in locked:
                if rel not in rows:
                    report.files_without_rows.append(rel)
                continue
            try:
                doc = self.files.read(path)
                if path.name.endswith(ENC):
                    self.files.read_turns(path)  # a damaged sealed sidecar is damage too
                    rolled = rolled_back(doc, stamps.get(doc.meta.slug), path)
                    if rolled:
                        raise CorruptFile(rolled)
            except CorruptFile as exc:
                report.corrupt_files.append(str(exc))
                continue
            if rel not in rows:
                report.files_without_rows.append(rel)
        report.rows_without_files = sorted(
            f"{slug} ({rel})" for rel, slug in rows.items() if rel not in on_disk
        )
        report.temp_leftovers = [self.files.relative(p) for p in self.files.temp_leftovers()]
        spool = self.layout.spool
        if spool.exists():
            report.spool_pending = sum(1 for p in spool.glob("*.json"))
        if self.layout.spool_rejected.exists():
            report.spool_rejected = sum(1 for _ in self.layout.spool_rejected.iterdir())
        report.audit = self.audit.verify()
        report.missing_markers, report.clear_roots = self._missing_markers()
        report.moved_from = paths.moved_from(self.layout.home)
        for h in sorted(self.keys.tampered | {h for h in self._sensitive_hashes() if self._disowned(h)}):
            report.settings_disowned.append(h)
        return report

    def _sensitive_hashes(self) -> set[str]:
        from memoryd.sensitive import state

        return state.sensitive_hashes(self.layout)

    def _disowned(self, scope_hash: str) -> bool:
        self.keys.settings(scope_hash)
        return scope_hash in self.keys.tampered

    def _missing_markers(self) -> tuple[list[str], list[str]]:
        """Sensitive scopes whose marker is gone from their folder (where the folder can be
        opened here), and those whose settings keep the folder in the clear."""
        from memoryd.envpaths import MARKER
        from memoryd.sensitive import state

        out, clear = [], []
        for h in sorted(state.sensitive_hashes(self.layout)):
            try:
                settings = state.load(self.layout, h)
            except CorruptFile:
                continue
            if settings is not None and settings.root and not settings.sealed_root:
                clear.append(h)
            found = self.keys.root(h) if settings is not None else None
            root = Path(found) if found else None
            if root is not None and root.is_dir() and not (root / MARKER).exists():
                out.append(f"{h} ({root})")
        return out, clear
