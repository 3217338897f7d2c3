"""This device's side of a merge: `scan` turns the store into a State (the last merged
state plus what changed here since: edits, new memories, recalls, decay moves, deletions),
and `apply` makes the store say what a merged State says, one memory at a time, each
recorded in the sync ledger as it lands so that a sync killed half-way is finished by the
next one."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from memoryd import atomic, clock, crypto, faults, frontmatter, scope_links
from memoryd.db.engine import read_session, write_session
from memoryd.errors import CorruptFile, KeyUnavailable
from memoryd.frontmatter import Document
from memoryd.models import DecayState, MemoryType
from memoryd.sensitive import state as sensitive_state
from memoryd.store import Store, governance, kg, rebuilt_link
from memoryd.store import sync as ledger
from memoryd.store.files import ENC, MD, turns_from_text
from memoryd.sync import merge
from memoryd.sync.document import Decay, Entry, Head, State

BATCH = 500


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def rev_of(norm: str, turns: str) -> str:
    return sha(norm.encode("utf-8") + b"\0" + turns.encode("utf-8"))[:32]


def tombstone_rev(rev: str) -> str:
    return sha(b"deleted\0" + rev.encode())[:32]


def normalised(doc: Document) -> str:
    """The file with the counters every device keeps for itself zeroed: a recall or a
    decay move is not a new version."""
    meta = doc.meta.model_copy(
        update={"recall_count": 0, "last_recalled_at": None, "decay_state": DecayState.alive},
    )
    return frontmatter.render(Document(meta, doc.body))


@dataclass
class ScanReport:
    edited: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)


def _known(entry: Entry | None) -> set[str]:
    if entry is None:
        return set()
    return {r for h in entry.heads for r in (h.rev, *h.history)}


def _read_local(store: Store, path: Path, data: bytes) -> tuple[Document | None, str, str | None, bool]:
    """(document or None when sealed without its key, rev, turns for the head, sealed)."""
    files = store.files
    sealed = path.name.endswith(ENC)
    tpath = files.turns_path(path)
    tdata = tpath.read_bytes() if tpath.exists() else None
    if sealed:
        try:
            doc = files.read(path)
            plain_turns = "".join(t.to_json() + "\n" for t in files.read_turns(path))
        except KeyUnavailable:
            return None, "x" + sha(data + b"\0" + (tdata or b""))[:31], _b64(tdata), True
        return doc, rev_of(normalised(doc), plain_turns), _b64(tdata), True
    doc = files.read(path)
    turns = tdata.decode("utf-8", errors="replace") if tdata is not None else None
    return doc, rev_of(normalised(doc), turns or ""), turns, False


def _b64(data: bytes | None) -> str | None:
    return crypto.b64(data) if data is not None else None


def scan(store: Store, prev: State, device: str, report: ScanReport | None = None) -> State:
    """`prev` (the last merged state) plus this device's changes since it was applied."""
    report = report if report is not None else ScanReport()
    now = clock.now_iso()
    with read_session(store.engine) as s:
        applied = ledger.load(s)
    out = State(memories=dict(prev.memories), scopes=dict(prev.scopes), links=set(prev.links))
    seen: set[str] = set()
    for path in store.files.all_files(archived=True):
        slug = store.files.slug_of(path)
        seen.add(slug)
        data = path.read_bytes()
        a = applied.get(slug)
        if a is not None and not a.deleted and a.file_sha == sha(data):
            continue
        try:
            doc, rev, turns, sealed = _read_local(store, path, data)
        except (CorruptFile, OSError) as exc:
            report.unreadable.append(str(exc))
            continue
        entry = out.memories.get(slug)
        if doc is None and a is not None:
            continue  # sealed, no key here: this device cannot have changed it
        if (a is not None and rev == a.rev and not a.deleted) or (a is None and rev in _known(entry)):
            pass  # no new version: at most counters moved
        else:
            base = (*a.history, a.rev) if a is not None else ()
            scope_hash = store.files.scope_of(path) if doc is None else doc.meta.scope_hash
            mtype = doc.meta.type.value if doc else _type_of(path)
            when = doc.meta.updated_at or doc.meta.created_at if doc else None
            head = Head(
                rev=rev,
                history=tuple(sorted(set(base))),
                updated_at=clock.iso(when) if when else now,
                scope_hash=scope_hash,
                type=mtype,
                encrypted=sealed,
                content=crypto.b64(data) if sealed else normalised(doc),  # type: ignore[arg-type]
                turns=turns,
            )
            entry = merge.entry(entry, Entry((head,))) if entry else Entry((head,))
            report.edited.append(slug)
        assert entry is not None
        if doc is not None:
            entry = _counters(entry, doc, a, device, now)
        out.memories[slug] = entry
    for slug, a in applied.items():
        if slug in seen or a.deleted:
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
    _scan_scopes(store, out)
    return out


def _type_of(path: Path) -> str:
    folder = path.parent.name
    for t in MemoryType:
        if t.folder == folder:
            return t.value
    return MemoryType.session.value


def _counters(entry: Entry, doc: Document, a: ledger.Applied | None, device: str, now: str) -> Entry:
    m = doc.meta
    recalls = dict(entry.recalls)
    base = a.recalls if a is not None and a.recalls >= 0 else (0 if a is None else m.recall_count)
    if m.recall_count > base:
        recalls[device] = recalls.get(device, 0) + m.recall_count - base
    lra = clock.iso(m.last_recalled_at) if m.last_recalled_at else None
    last = max(x for x in (entry.last_recalled_at, lra) if x) if (entry.last_recalled_at or lra) else None
    decay = entry.decay
    state = m.decay_state.value
    if a is None or a.decay_state != state:
        at = lra if state == "alive" and lra and (a is None or lra != a.last_recalled_at) else now
        decay = merge._decay(decay, Decay(state, at))
    return replace(entry, recalls=recalls, last_recalled_at=last, decay=decay)


def _scan_scopes(store: Store, out: State) -> None:
    for h in sorted(sensitive_state.sensitive_hashes(store.layout)):
        settings = sensitive_state.load(store.layout, h)
        if settings is not None:
            info = {"sensitive": settings.as_dict(), "remote": None}
            out.scopes[h] = merge._scope(out.scopes.get(h, {}), info)
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


def apply(
    store: Store, merged: State, *, only: set[str] | None = None, progress: Callable[[], None] | None = None
) -> ApplyReport:
    report = ApplyReport()
    _apply_scopes(store, merged)
    canonical = _apply_links(store, merged)
    with read_session(store.engine) as s:
        applied = ledger.load(s)
    batch: list[tuple[Any, ...]] = []

    def flush() -> None:
        if not batch:
            return
        with write_session(store.engine) as s:
            for kind, *rest in batch:
                if kind == "index":
                    doc, path, turns = rest
                    store._index(s, doc, path, turns)
                    for older in doc.meta.supersedes:
                        kg.add_chain(s, rebuilt_link(doc.meta.slug, older, doc), replace=False)
                        kg.mark_superseded(s, older, doc.meta.slug)
                    if doc.meta.superseded_by:
                        kg.add_chain(
                            s, rebuilt_link(doc.meta.superseded_by, doc.meta.slug, doc), replace=False
                        )
                        kg.mark_superseded(s, doc.meta.slug, doc.meta.superseded_by)
                elif kind == "drop":
                    governance.delete_memory(s, rest[0])
                else:
                    ledger.put(s, [rest[0]])
        for h in report.scopes:
            store.changed(h)
        batch.clear()

    for slug in sorted(only if only is not None else merged.memories):
        entry = merged.memories.get(slug)
        if entry is None:
            continue
        if _apply_one(store, slug, entry, applied.get(slug), canonical, batch, report):
            faults.point("sync:apply")
            if progress is not None:
                progress()
        if len(batch) >= BATCH:
            flush()
    flush()
    return report


def _apply_one(
    store: Store,
    slug: str,
    entry: Entry,
    a: ledger.Applied | None,
    canonical: dict[str, str],
    batch: list[tuple[Any, ...]],
    report: ApplyReport,
) -> bool:
    files = store.files
    w = entry.winner
    if w.deleted:
        if a is not None and a.deleted:
            return False
        old = _local_path(store, slug, a)
        if old is not None:
            files.remove(old)
            report.removed += 1
            report.scopes.add(files.scope_of(old))
        batch.append(("drop", slug))
        batch.append(("ledger", ledger.Applied(slug, w.rev, w.history, True, None, None, 0, None, None)))
        return old is not None
    total = entry.recall_count
    lra = entry.last_recalled_at
    decay = entry.decay.state if entry.decay else DecayState.alive.value
    scope_hash = canonical.get(w.scope_hash, w.scope_hash)
    if w.encrypted:
        scope_hash = w.scope_hash  # sealed to its own scope: never re-homed
    mtype = MemoryType(w.type)
    sealed_here = files.sensitive(scope_hash)
    ext = ENC if (w.encrypted or sealed_here) else MD
    target = files.folder(scope_hash, mtype, DecayState(decay)) / (slug + ext)
    rel = files.relative(target)
    if (
        a is not None
        and not a.deleted
        and a.rev == w.rev
        and a.recalls == total
        and a.last_recalled_at == lra
        and a.decay_state == decay
        and a.body_path == rel
        and target.exists()
    ):
        return False
    old = _local_path(store, slug, a)
    doc, turns = _document(store, w, target)
    if doc is None:  # sealed and no key here: the ciphertext as it came
        atomic.write_bytes(target, crypto.unb64(w.content or ""), sync=False)
        if w.turns is not None:
            atomic.write_bytes(files.turns_path(target), crypto.unb64(w.turns), sync=False)
        recalls = -1
        report.locked += 1
    else:
        doc.meta.recall_count = total
        doc.meta.last_recalled_at = clock.parse_ts(lra) if lra else None
        doc.meta.decay_state = DecayState(decay)
        doc.meta.scope_hash = scope_hash
        target = _write(store, doc, turns, target)
        rel = files.relative(target)
        recalls = total
        if decay == DecayState.forgotten.value:
            batch.append(("drop", slug))
        elif not (w.encrypted or sealed_here) or _has_key(store, scope_hash):
            batch.append(("index", doc, target, None if files.sensitive(scope_hash) else (turns or [])))
    if old is not None and old != target:
        files.remove(old)
    report.written += 1
    if (a is None and old is None) or (a is not None and a.rev != w.rev):
        report.arrived += 1
    report.scopes.add(scope_hash)
    file_sha = sha(target.read_bytes())
    batch.append(
        ("ledger", ledger.Applied(slug, w.rev, w.history, False, file_sha, rel, recalls, lra, decay))
    )
    return True


def _has_key(store: Store, scope_hash: str) -> bool:
    try:
        store.keys.get(scope_hash)
        return True
    except KeyUnavailable:
        return False


def _local_path(store: Store, slug: str, a: ledger.Applied | None) -> Path | None:
    """Where this memory's file is now: the ledger says, or the index (a memory this
    device had before it ever synced)."""
    candidates = []
    if a is not None and a.body_path:
        candidates.append(store.files.absolute(a.body_path))
    with read_session(store.engine) as s:
        from memoryd.store import index

        row = index.get(s, slug)
    if row is not None:
        candidates.append(store.files.absolute(row["body_path"]))
    return next((p for p in candidates if p.exists()), None)


def _document(store: Store, head: Head, target: Path) -> tuple[Document | None, list[Any] | None]:
    files = store.files
    if head.encrypted:
        where = files.folder(head.scope_hash, MemoryType(head.type), DecayState.alive) / (target.name)
        try:
            data = files._open(where, crypto.unb64(head.content or ""), "md")
            turns = None
            if head.turns is not None:
                turns = turns_from_text(files._open(where, crypto.unb64(head.turns), "turns").decode("utf-8"))
        except KeyUnavailable:
            return None, None
        return frontmatter.parse_bytes(data, where=f"sync: {target.name}"), turns
    doc = frontmatter.parse(head.content or "", where=f"sync: {target.name}")
    return doc, turns_from_text(head.turns) if head.turns is not None else None


def _write(store: Store, doc: Document, turns: list[Any] | None, target: Path) -> Path:
    """Through the files layer (which seals in a sensitive scope); a plaintext version of
    a scope that is sensitive here but whose key is not, stays as plaintext as it came
    (sealing it needs the key; `memoryd mark-sensitive` seals it once the key is here)."""
    files = store.files
    try:
        path = files.write(doc, sync=False)
        if turns is not None:
            files.write_turns(path, turns, sync=False)
        return path
    except KeyUnavailable:
        path = target.with_name(doc.meta.slug + MD)
        atomic.write_text(path, frontmatter.render(doc), sync=False)
        if turns is not None:
            atomic.write_text(files.turns_path(path), "".join(t.to_json() + "\n" for t in turns), sync=False)
        return path


def _apply_scopes(store: Store, merged: State) -> None:
    for h, info in sorted(merged.scopes.items()):
        sens = info.get("sensitive")
        if not sens or sensitive_state.load(store.layout, h) is not None:
            continue
        kdf = sens.get("kdf")
        settings = sensitive_state.Settings(
            scope_hash=h,
            root=str(sens.get("root", "")),
            marked_at=str(sens.get("marked_at", "")),
            key_source=str(sens.get("key_source", "random")),
            key_check=str(sens.get("key_check", "")),
            kdf=crypto.KdfParams.from_dict(kdf) if kdf else None,
        )
        store.layout.scope_dir(h).mkdir(parents=True, exist_ok=True, mode=0o700)
        sensitive_state.save(store.layout, settings)
        store.keys.forget(h)


def _apply_links(store: Store, merged: State) -> dict[str, str]:
    home = store.layout.home
    links = scope_links.load(home)
    links.links |= merged.links
    for h, info in merged.scopes.items():
        if info.get("remote") and h not in links.remotes:
            links.remotes[h] = str(info["remote"])
    sensitive = {h for h, i in merged.scopes.items() if i.get("sensitive")}
    sensitive |= sensitive_state.sensitive_hashes(store.layout)
    canonical = links.canonical_map(exclude=sensitive)
    if links.links or links.remotes:
        scope_links.save(home, links, canonical)
    return canonical
