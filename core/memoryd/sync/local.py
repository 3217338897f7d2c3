"""This device's side of a merge: `scan` turns the store into a State (the last merged
state plus what changed here since: edits, new memories, recalls, decay moves, deletions),
and `apply` makes the store say what a merged State says, one memory at a time, each
recorded in the sync ledger as it lands so that a sync killed half-way is finished by the
next one."""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memoryd import atomic, clock, crypto, faults, frontmatter, scope_links
from memoryd.db.engine import read_session, write_session
from memoryd.errors import CorruptFile, KeyUnavailable, UsageError
from memoryd.frontmatter import Document
from memoryd.models import DecayState, MemoryType
from memoryd.sensitive import state as sensitive_state
from memoryd.store import Store, governance, index, kg, rebuilt_link
from memoryd.store import sync as ledger
from memoryd.store.files import ENC, MD, MemoryFiles, turns_from_text
from memoryd.sync import merge, text
from memoryd.sync.document import Decay, Entry, Head, State

BATCH = 500
SEALED = "\0sealed"


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def rev_of(norm: str, turns: str) -> str:
    return sha(norm.encode("utf-8") + b"\0" + turns.encode("utf-8"))[:32]


def tombstone_rev(rev: str) -> str:
    return sha(b"deleted\0" + rev.encode())[:32]


@dataclass(frozen=True)
class Seen:
    """A file as the scan found it: what apply compares with before rewriting anything."""

    rev: str
    file_sha: str
    body_path: str
    recalls: int
    last_recalled_at: str | None
    decay_state: str


@dataclass
class ScanReport:
    edited: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    counted: list[str] = field(default_factory=list)  # only recalls or decay moved
    unreadable: list[str] = field(default_factory=list)
    seen: dict[str, Seen] = field(default_factory=dict)


def _known(entry: Entry | None) -> set[str]:
    if entry is None:
        return set()
    return {r for h in entry.heads for r in (h.rev, *h.history)}


@dataclass(frozen=True)
class Local:
    """One memory file read for the scan: `doc` is None when it is sealed and its key is
    not here (then `norm` is None and `rev` hashes the ciphertext)."""

    doc: Document | None
    norm: str | None
    rev: str
    turns: str | None  # for the head: text, or base64 ciphertext when sealed
    sealed: bool


def _parse(path: Path, plain: bytes) -> tuple[Document, str]:
    text = plain.decode("utf-8")
    doc = frontmatter.parse(text, where=str(path))
    if doc.meta.slug != MemoryFiles.slug_of(path):
        raise CorruptFile(f"{path}: slug {doc.meta.slug!r} does not match the file name")
    return doc, text


def _read_local(store: Store, path: Path, data: bytes) -> Local:
    files = store.files
    sealed = path.name.endswith(ENC)
    tpath = files.turns_path(path)
    tdata = tpath.read_bytes() if tpath.exists() else None
    try:
        if sealed:
            try:
                plain = files._open(path, data, "md")
                plain_turns = files._open(path, tdata, "turns").decode("utf-8") if tdata is not None else ""
            except KeyUnavailable:
                return Local(None, None, "x" + sha(data + b"\0" + (tdata or b""))[:31], _b64(tdata), True)
            doc, text_ = _parse(path, plain)
            norm = text.normalised(text_, doc)
            # Sealed and plaintext copies of one text are different versions, so marking a
            # project sensitive (or unmarking it) replaces the other kind everywhere.
            return Local(doc, norm, rev_of(norm, plain_turns + SEALED), _b64(tdata), True)
        doc, text_ = _parse(path, data)
    except UnicodeDecodeError:
        raise CorruptFile(f"{path}: not UTF-8 text") from None
    turns = tdata.decode("utf-8", errors="replace") if tdata is not None else None
    norm = text.normalised(text_, doc)
    return Local(doc, norm, rev_of(norm, turns or ""), turns, False)


def _b64(data: bytes | None) -> str | None:
    return crypto.b64(data) if data is not None else None


def scan(store: Store, prev: State, device: str, report: ScanReport | None = None) -> State:
    """`prev` (the last merged state) plus this device's changes since it was applied."""
    report = report if report is not None else ScanReport()
    now = clock.now_iso()
    with read_session(store.engine) as s:
        applied = ledger.load(s)
        pending = ledger.load_pending(s)
    out = State(memories=dict(prev.memories), scopes=dict(prev.scopes), links=set(prev.links))
    seen: set[str] = set()
    locked: set[str] = set()  # sealed scopes whose key is not here: one keyring look each
    for path in store.files.all_files(archived=True):
        slug = store.files.slug_of(path)
        seen.add(slug)
        rel = store.files.relative(path)
        p = pending.get(slug)
        if p is not None and p[1] and rel != p[1] and store.files.absolute(p[1]).exists():
            continue  # the old place of a move a cut-short sync had begun: the new one counts
        data = path.read_bytes()
        digest = sha(data)
        a = applied.get(slug)
        by_sync = p is not None and p[0] == digest  # written by a sync cut short before its ledger
        if not by_sync and a is not None and not a.deleted and a.file_sha == digest and slug in out.memories:
            continue
        sealed_locked = path.name.endswith(ENC) and store.files.scope_of(path) in locked
        if sealed_locked and (a is not None or by_sync):
            continue
        try:
            found = _read_local(store, path, data)
        except (CorruptFile, OSError) as exc:
            report.unreadable.append(str(exc))
            continue
        doc, rev, sealed = found.doc, found.rev, found.sealed
        if doc is None:
            locked.add(store.files.scope_of(path))
        entry = out.memories.get(slug)
        if doc is None and (a is not None or by_sync):
            continue  # sealed, no key here: this device cannot have changed it
        if entry is not None and (
            by_sync or (rev in _known(entry) and (a is None or a.deleted or rev != a.rev))
        ):
            # A version the merge knows, written here by a sync (perhaps one cut short):
            # the counters in the file are what that sync applied, not recalls made here.
            decay_now = entry.decay.state if entry.decay else DecayState.alive.value
            own = entry.recalls.get(device, 0)
            a = ledger.Applied(
                slug, rev, (), False, None, None, entry.recall_count, entry.last_recalled_at, decay_now, own
            )
        elif entry is not None and a is not None and rev == a.rev and not a.deleted:
            pass  # no new version: at most counters moved
        else:  # an edit here, or a memory the merged state lacks (state.json lost): a version
            base = {*a.history, a.rev} - {rev} if a is not None else set()
            scope_hash = store.files.scope_of(path) if doc is None else doc.meta.scope_hash
            mtype = doc.meta.type.value if doc else _type_of(path)
            when = doc.meta.updated_at or doc.meta.created_at if doc else None
            head = Head(
                rev=rev,
                history=tuple(sorted(base)),
                updated_at=clock.iso(when) if when else now,
                scope_hash=scope_hash,
                type=mtype,
                encrypted=sealed,
                content=crypto.b64(data) if sealed else found.norm,
                turns=found.turns,
            )
            entry = merge.entry(entry, Entry((head,))) if entry else Entry((head,))
            report.edited.append(slug)
        assert entry is not None
        if doc is not None:
            before = entry
            entry = _counters(entry, doc, a, device, now, path)
            if entry != before and slug not in report.edited:
                report.counted.append(slug)
            m = doc.meta
            lra = clock.iso(m.last_recalled_at) if m.last_recalled_at else None
            report.seen[slug] = Seen(rev, digest, rel, m.recall_count, lra, m.decay_state.value)
        out.memories[slug] = entry
    for slug, a in applied.items():
        if slug in seen or a.deleted or slug in pending:  # pending: a sync cut short moved it
            continue
        entry = out.memories.get(slug)
        if entry is None:
            continue
        last = next((h for h in entry.heads if h.rev == a.rev), entry.winner)
        tomb = Head(
            rev=tombstone_rev(a.rev),
            history=tuple(sorted({*a.history, a.rev})),
            updated_at=now,
            scope_hash=last.scope_hash,
            type=last.type,
            deleted=True,
        )
        out.memories[slug] = merge.entry(entry, Entry((tomb,)))
        report.deleted.append(slug)
    _scan_scopes(store, out, now)
    return out


def _type_of(path: Path) -> str:
    folder = path.parent.name
    for t in MemoryType:
        if t.folder == folder:
            return t.value
    return MemoryType.session.value


def _counters(
    entry: Entry, doc: Document, a: ledger.Applied | None, device: str, now: str, path: Path
) -> Entry:
    m = doc.meta
    recalls = dict(entry.recalls)
    # This device's share is set, not added to: what it was when the file was written plus
    # the recalls since, so scanning twice before the merged state lands counts them once.
    base = a.recalls if a is not None and a.recalls >= 0 else (0 if a is None else m.recall_count)
    if m.recall_count > base:
        mine = (a.own if a is not None else 0) + m.recall_count - base
        recalls[device] = max(recalls.get(device, 0), mine)
    lra = clock.iso(m.last_recalled_at) if m.last_recalled_at else None
    last = max(x for x in (entry.last_recalled_at, lra) if x) if (entry.last_recalled_at or lra) else None
    decay = entry.decay
    state = m.decay_state.value
    recalled = lra is not None and (a is None or a.last_recalled_at is None or lra > a.last_recalled_at)
    if recalled and state == DecayState.alive.value:  # a recall here: alive as of then
        decay = merge._decay(decay, Decay(state, lra))  # type: ignore[arg-type]
    elif a is None or a.decay_state != state:  # a decay move or a forget: when the file changed
        try:
            changed = clock.iso(datetime.fromtimestamp(path.stat().st_mtime, UTC))
        except OSError:
            changed = now
        decay = merge._decay(decay, Decay(state, min(now, changed)))
    return replace(entry, recalls=recalls, last_recalled_at=last, decay=decay)


def _scan_scopes(store: Store, out: State, now: str) -> None:
    here = sensitive_state.sensitive_hashes(store.layout)
    for h in sorted(here):
        settings = sensitive_state.load(store.layout, h)
        if settings is not None:
            info = {"sensitive": settings.as_dict(), "remote": None}
            out.scopes[h] = merge._scope(out.scopes.get(h, {}), info)
    for h in sorted(sensitive_state.unmarked_hashes(store.layout) - here):  # by `unmark`, with its proof
        done = sensitive_state.load_unmarked(store.layout, h)
        if done is not None:
            out.scopes[h] = merge._scope(
                out.scopes.get(h, {}), {"unmarked_at": done[0], "unmark_proof": done[1]}
            )
    for h, info in sorted(out.scopes.items()):
        if h not in here and merge.sensitive_now(info):  # had it (apply_scopes wrote it): unmarked here
            # some other way than `unmark`: sent, but no other device takes it unproved
            out.scopes[h] = merge._scope(info, {"unmarked_at": now})
    links = scope_links.load(store.layout.home)
    out.links |= links.links
    for h, url in links.remotes.items():
        out.scopes[h] = merge._scope(out.scopes.get(h, {}), {"sensitive": None, "remote": url})


# -- apply ----------------------------------------------------------------------------
@dataclass
class ApplyReport:
    written: int = 0
    removed: int = 0
    arrived: int = 0  # written with a version this device did not have on disk
    locked: int = 0  # sealed memories written as they came: no key here to index them
    scopes: set[str] = field(default_factory=set)
    keys: dict[str, bool] = field(default_factory=dict)  # is each sealed scope's key here
    skipped: list[str] = field(default_factory=list)


@dataclass
class Plan:
    """What applying one memory takes: the ledger row (recorded, as pending, before any
    file is touched: a kill between the two can then not pass a written file off as this
    device's own recalls), the files to write and remove, then its index rows."""

    row: ledger.Applied
    old: ledger.Applied | None = None  # the row it replaces
    expect: tuple[Path, str] | None = None  # the file as the scan (or ledger) saw it
    writes: list[tuple[Path, bytes]] = field(default_factory=list)
    removes: list[Path] = field(default_factory=list)
    index: tuple[Document, Path, list[Any] | None] | None = None
    drop: bool = False


def apply(
    store: Store,
    merged: State,
    device: str,
    *,
    seen: dict[str, Seen] | None = None,
    only: set[str] | None = None,
    progress: Callable[[], None] | None = None,
) -> ApplyReport:
    """`seen`: the scan's findings, so a file already holding what the merge says (a
    memory made here, a sync cut short after writing it) is recorded, not rewritten."""
    report = ApplyReport()
    apply_scopes(store, merged)
    canonical = _apply_links(store, merged)
    with read_session(store.engine) as s:
        applied = ledger.load(s)
        pending = set(ledger.load_pending(s))
        paths = {slug: rel for rel, slug in index.all_body_paths(s).items()}
    plans: list[Plan] = []
    for slug in sorted(only if only is not None else merged.memories):
        entry = merged.memories.get(slug)
        if entry is None:
            continue
        try:
            plan = _plan(
                store,
                slug,
                entry,
                applied.get(slug),
                (seen or {}).get(slug),
                device,
                canonical,
                report,
                pending=slug in pending,
                indexed=paths.get(slug),
            )
        except (CorruptFile, UsageError, ValueError, KeyError, TypeError) as exc:
            # One bad version (a damaged or hand-made file) is skipped, not the whole sync.
            report.skipped.append(f"{slug}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}")
            continue
        if plan is not None:
            plans.append(plan)
        if len(plans) >= BATCH:
            _run(store, plans, report, progress)
            plans = []
    _run(store, plans, report, progress)
    return report


def _run(store: Store, plans: list[Plan], report: ApplyReport, progress: Callable[[], None] | None) -> None:
    if not plans:
        return
    moving = [p for p in plans if p.writes or p.removes]
    with write_session(store.engine) as s:
        ledger.put_pending(
            s, [(p.row.slug, sha(p.writes[0][1]) if p.writes else None, p.row.body_path) for p in moving]
        )
    changed: set[str] = set()
    for p in moving:
        if p.expect is not None and _sha_or_none(p.expect[0]) != p.expect[1]:
            # Written by someone else since the scan: left alone, the next sync takes it
            # as this device's edit (and merges it) instead of overwriting it.
            changed.add(p.row.slug)
            report.skipped.append(f"{p.row.slug}: changed during the sync; the next sync sends it")
            continue
        for path, data in p.writes:
            atomic.write_bytes(path, data, sync=False)
        for path in p.removes:
            store.files.remove(path)
        faults.point("sync:apply")
        if progress is not None:
            progress()
    with write_session(store.engine) as s:
        for p in plans:
            if p.row.slug in changed:
                continue
            if p.drop:
                governance.delete_memory(s, p.row.slug)
            if p.index is not None:
                doc, path, turns = p.index
                store._index(s, doc, path, turns)
                for older in doc.meta.supersedes:
                    kg.add_chain(s, rebuilt_link(doc.meta.slug, older, doc), replace=False)
                    kg.mark_superseded(s, older, doc.meta.slug)
                if doc.meta.superseded_by:
                    kg.add_chain(s, rebuilt_link(doc.meta.superseded_by, doc.meta.slug, doc), replace=False)
                    kg.mark_superseded(s, doc.meta.slug, doc.meta.superseded_by)
        ledger.put(s, [p.row for p in plans if p.row.slug not in changed])
        ledger.clear_pending(s, [p.row.slug for p in moving])
    for h in report.scopes:
        store.changed(h)


def _plan(
    store: Store,
    slug: str,
    entry: Entry,
    a: ledger.Applied | None,
    seen: Seen | None,
    device: str,
    canonical: dict[str, str],
    report: ApplyReport,
    *,
    pending: bool = False,
    indexed: str | None = None,
) -> Plan | None:
    files = store.files
    w = entry.winner
    old = _local_path(store, a, indexed)
    expect = None
    if seen is not None:
        expect = (files.absolute(seen.body_path), seen.file_sha)
    elif (
        a is not None
        and a.file_sha
        and old is not None
        and a.body_path == files.relative(old)
        and not pending
    ):
        expect = (old, a.file_sha)
    if w.deleted:
        if a is not None and a.deleted and not pending:
            return None
        plan = Plan(
            ledger.Applied(slug, w.rev, w.history, True, None, None, 0, None, None), a, expect, drop=True
        )
        if old is not None:
            plan.removes.append(old)
            report.removed += 1
            report.scopes.add(files.scope_of(old))
        return plan
    total = entry.recall_count
    own = entry.recalls.get(device, 0)
    lra = entry.last_recalled_at
    decay = entry.decay.state if entry.decay else DecayState.alive.value
    scope_hash = canonical.get(w.scope_hash, w.scope_hash)
    if w.encrypted:
        scope_hash = w.scope_hash  # sealed to its own scope: never re-homed
    mtype = MemoryType(w.type)  # ValueError for a type this memoryd does not know: skipped
    sealed_here = files.sensitive(scope_hash)
    ext = ENC if (w.encrypted or sealed_here) else MD
    target = files.folder(scope_hash, mtype, DecayState(decay)) / (slug + ext)
    rel = files.relative(target)
    if (
        a is not None
        and not a.deleted
        and not pending
        and a.rev == w.rev
        and a.body_path == rel
        and target.exists()
        and (
            (a.recalls == total and a.last_recalled_at == lra and a.decay_state == decay)
            or (a.recalls < 0 and not _has_key(store, scope_hash, report))  # still no key: as it is
        )
    ):
        return None
    if (
        seen is not None
        and not pending
        and seen.rev == w.rev
        and seen.recalls == total
        and seen.last_recalled_at == lra
        and seen.decay_state == decay
        and seen.body_path == rel
    ):
        return Plan(ledger.Applied(slug, w.rev, w.history, False, seen.file_sha, rel, total, lra, decay, own))
    plain, turns_text = _document(store, slug, w)
    plan = Plan(ledger.Applied(slug, w.rev, w.history, False, None, rel, total, lra, decay, own), a, expect)
    if plain is None:  # sealed and no key here: the ciphertext as it came
        plan.writes.append((target, crypto.unb64(w.content or "")))
        if w.turns is not None:
            plan.writes.append((files.turns_path(target), crypto.unb64(w.turns)))
        plan.row = replace(plan.row, recalls=-1)
        report.locked += 1
    elif sealed_here and not w.encrypted and not _has_key(store, scope_hash, report):
        # A plaintext version of a scope that is sensitive here, and no key to seal it: not
        # written (a red-team test, 2026-11-28, found it lying in the scope's folder in the
        # clear); a later sync with the key writes it sealed.
        report.locked += 1
        return None
    else:
        body = text.with_counters(plain, total, lra, decay)
        if body is None:  # not memoryd's own rendering: through the YAML dumper once
            doc = frontmatter.parse(plain, where=f"sync: {slug}")
            doc.meta.recall_count = total
            doc.meta.last_recalled_at = clock.parse_ts(lra) if lra else None
            doc.meta.decay_state = DecayState(decay)
            body = frontmatter.render(doc)
        body = text.with_scope(body, scope_hash) if scope_hash != w.scope_hash else body
        doc = frontmatter.parse(body, where=f"sync: {slug}")
        if doc.meta.slug != slug or doc.meta.scope_hash != scope_hash:
            raise CorruptFile(f"its content names {doc.meta.slug!r} in scope {doc.meta.scope_hash}")
        target, writes = _encoded(store, doc, body, turns_text, target)
        plan.writes += writes
        rel = files.relative(target)
        if decay == DecayState.forgotten.value:
            plan.drop = True
        elif not (w.encrypted or sealed_here) or _has_key(store, scope_hash, report):
            turns = turns_from_text(turns_text) if turns_text is not None else []
            plan.index = (doc, target, None if files.sensitive(scope_hash) else turns)
    if old is not None and old != target:
        plan.removes.append(old)
    report.written += 1
    if (a is None and old is None) or (a is not None and a.rev != w.rev):
        report.arrived += 1
    report.scopes.add(scope_hash)
    file_sha: str | None = sha(plan.writes[0][1])
    if target.name.endswith(ENC) != w.encrypted:
        # Sealed here but not in the version (or the other way round): left for the next
        # scan to find, which makes the sealed (or plaintext) copy a version of its own.
        file_sha = None
    plan.row = replace(plan.row, file_sha=file_sha, body_path=rel)
    return plan


def _has_key(store: Store, scope_hash: str, report: ApplyReport) -> bool:
    if scope_hash not in report.keys:
        try:
            store.keys.get(scope_hash)
            report.keys[scope_hash] = True
        except KeyUnavailable:
            report.keys[scope_hash] = False
    return report.keys[scope_hash]


def _local_path(store: Store, a: ledger.Applied | None, indexed: str | None) -> Path | None:
    """Where this memory's file is now: the ledger says, or the index (a memory this
    device had before it ever synced)."""
    for rel in (a.body_path if a is not None else None, indexed):
        if rel and store.files.absolute(rel).exists():
            return store.files.absolute(rel)
    return None


def _sha_or_none(path: Path) -> str | None:
    try:
        return sha(path.read_bytes())
    except FileNotFoundError:
        return None


def _document(store: Store, slug: str, head: Head) -> tuple[str | None, str | None]:
    """The version's file text and turns text; (None, None) when it is sealed and its key
    is not here."""
    if not head.encrypted:
        return head.content or "", head.turns
    files = store.files
    where = files.folder(head.scope_hash, MemoryType(head.type), DecayState.alive) / (slug + ENC)
    try:
        plain = files._open(where, crypto.unb64(head.content or ""), "md").decode("utf-8")
        turns = None
        if head.turns is not None:
            turns = files._open(where, crypto.unb64(head.turns), "turns").decode("utf-8")
    except KeyUnavailable:
        return None, None
    return plain, turns


def _encoded(
    store: Store, doc: Document, body: str, turns: str | None, target: Path
) -> tuple[Path, list[tuple[Path, bytes]]]:
    """Where the files layer puts it and the bytes, sealed in a sensitive scope (whose key
    the caller has checked is here; a key gone since leaves it as it came)."""
    files = store.files
    path = files.path_for(doc)
    if path.name.endswith(ENC):
        try:
            out = [(path, files._seal(path, body.encode("utf-8"), "md"))]
            if turns is not None:
                out.append((files.turns_path(path), files._seal(path, turns.encode("utf-8"), "turns")))
            return path, out
        except KeyUnavailable:
            path = target.with_name(doc.meta.slug + MD)
    out = [(path, body.encode("utf-8"))]
    if turns is not None:
        out.append((files.turns_path(path), turns.encode("utf-8")))
    return path, out


def vet_unmarkings(store: Store, incoming: State) -> list[str]:
    """Drop from another device's state the unmarkings this device can tell are not real:
    a proof that fails under the scope's key at hand here, or a time ahead of this clock
    by more than a day. Run before the merge, which keeps only the latest unmarking and
    cannot check one: a forged later one would hide a true one. Returns what it dropped."""
    from datetime import timedelta

    dropped: list[str] = []
    horizon = clock.iso(clock.now() + timedelta(days=1))
    for h, info in incoming.scopes.items():
        when = info.get("unmarked_at")
        if not when:
            continue
        if str(when) > horizon:
            verdict = "fails"
        elif sensitive_state.load(store.layout, h) is None:
            continue
        else:
            verdict = sensitive_state.proof_verdict(
                store.keys.at_hand(h), h, str(when), info.get("unmark_proof")
            )
        if verdict == "fails":
            incoming.scopes[h] = {**info, "unmarked_at": None, "unmark_proof": None}
            dropped.append(f"scope {h}: an unmarking without a valid proof, refused; it stays sensitive")
    return dropped


def apply_scopes(store: Store, merged: State) -> list[str]:
    """Sensitivity as merged. Run before the merged state is saved: a scan then never
    takes a marking this device has not written yet for an unmarking. Returns why each
    unmarking that was not taken stays out (the scope stays sensitive here).

    An unmarking is taken only with a proof made under the scope's key (any process can
    write a device file into the sync folder): where this device cannot check it (no key
    at hand, a proof under another key), it waits, and the scope stays sensitive, or
    becomes so when its marking had not reached this device yet (a review, 2026-11-28:
    a forged unmarking dated after the marking kept the marking from arriving, and the
    project's memories were written and synced in the clear)."""
    held: list[str] = []
    for h, info in sorted(merged.scopes.items()):
        marking = info.get("sensitive")
        if not marking:
            continue
        mine = sensitive_state.load(store.layout, h)
        if merge.sensitive_now(info) is None:  # unmarked after that marking
            when = str(info["unmarked_at"])
            if mine is not None and mine.marked_at >= when:
                continue
            done = sensitive_state.load_unmarked(store.layout, h)
            if mine is None and done is not None and done[0] >= when:
                continue  # this device unmarked it, or took that unmarking, already
            key = store.keys.at_hand(h) if mine is not None else None
            proof = info.get("unmark_proof")
            verdict = sensitive_state.proof_verdict(key, h, when, proof)
            if verdict == "holds" and mine is not None:
                # unmarked on another device; kept as this device's own, to pass on
                sensitive_state.save_unmarked(store.layout, h, when, str(proof))
                sensitive_state.remove(store.layout, h)
                with contextlib.suppress(KeyUnavailable):  # the anchor of a marking now undone
                    sensitive_state.keyring_delete(sensitive_state.check_entry(h))
                store.keys.forget(h)
                store.keys.forget(h)
                continue
            if verdict == "fails":
                held.append(f"scope {h}: an unmarking without a valid proof, refused; it stays sensitive")
                merged.scopes[h] = {**info, "unmarked_at": None, "unmark_proof": None}
            else:
                held.append(f"scope {h}: unmarked on another device; taken once this device can check it")
        if mine is not None:
            continue
        # as checked by memoryd.sync.document (the folder sealed, or in the clear as a
        # device from before sealing wrote it)
        settings = sensitive_state.Settings.from_dict({**marking, "scope_hash": h})
        store.layout.scope_dir(h).mkdir(parents=True, exist_ok=True, mode=0o700)
        sensitive_state.save(store.layout, settings)
        store.keys.forget(h)
        # Marked on another device: the plaintext start-up snapshot goes (it is rendered
        # again, sealed, once the key is here).
        (store.layout.scope_dir(h) / "snapshot.md").unlink(missing_ok=True)
    return held


def _apply_links(store: Store, merged: State) -> dict[str, str]:
    home = store.layout.home
    links = scope_links.load(home)
    links.links |= merged.links
    for h, info in merged.scopes.items():
        if info.get("remote") and h not in links.remotes:
            links.remotes[h] = str(info["remote"])
    sensitive = {h for h, i in merged.scopes.items() if merge.sensitive_now(i)}
    sensitive |= sensitive_state.sensitive_hashes(store.layout)
    canonical = links.canonical_map(exclude=sensitive)
    if links.links or links.remotes:
        scope_links.save(home, links, canonical)
    return canonical
