"""`memoryd export`, `import` and `sync`. A sync folder holds one memories.json per device
(`memoryd-sync/<device id>.json`, written whole and renamed into place, so a replication
engine never sees half a file); each sync reads them all, merges them with this device's
state, applies the result here and writes this device's file. Nothing else is shared:
grants, the spool and the audit log stay on their device, and a sync is one audit event
in this device's chain."""

from __future__ import annotations

import json
import platform
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

from memoryd import atomic, clock, faults, frontmatter
from memoryd.envpaths import FILE_MODE
from memoryd.errors import CorruptFile, NotFound, UsageError
from memoryd.store import Store
from memoryd.sync import clean, document, local, merge
from memoryd.sync.document import Entry, Head, State

FOLDER = "memoryd-sync"


@dataclass
class SyncReport:
    folder: str | None
    device: str
    devices: list[str] = field(default_factory=list)
    sent: int = 0  # this device's edits and deletions since its last sync
    received: int = 0  # memories written or removed here
    conflicts: int = 0
    locked: int = 0
    skipped: list[str] = field(default_factory=list)
    memories: int = 0

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def sync_dir(home: Path) -> Path:
    return home / "sync"


def device(home: Path) -> dict[str, str]:
    """This device's id (made once) and name. A G-counter per device id is what makes
    recall counts add up, so two devices must never share one."""
    path = sync_dir(home) / "device.json"
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(raw.get("id"), str):
            return {"id": raw["id"], "name": str(raw.get("name", ""))}
    except (OSError, ValueError, AttributeError):
        pass
    me = {"id": uuid.uuid4().hex[:16], "name": platform.node() or "device"}
    atomic.write_text(path, json.dumps(me) + "\n")
    return me


FOLDERS = "folders.json"  # the sync folders this device wrote its file to


def remember_folder(home: Path, folder: Path) -> None:
    """Called by each sync: where this device's file lies, so that marking a scope sensitive
    can scrub it at once (memoryd.sync.scrub)."""
    known = folders(home)
    where = str(folder.resolve())
    if where not in known:
        atomic.write_text(sync_dir(home) / FOLDERS, json.dumps(sorted([*known, where])) + "\n")


def folders(home: Path) -> list[str]:
    try:
        raw = json.loads((sync_dir(home) / FOLDERS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [str(x) for x in raw if isinstance(x, str)] if isinstance(raw, list) else []


def _state_path(home: Path) -> Path:
    return sync_dir(home) / "state.json"


def load_prev(home: Path) -> State:
    path = _state_path(home)
    if not path.exists():
        return State()
    try:
        return document.load(path)[0]
    except UsageError:
        # A damaged state is rebuilt from the files (every file a head): nothing is lost,
        # at worst a version shows up as a conflict copy.
        return State()


def _save_prev(home: Path, merged: State) -> None:
    atomic.write_text(_state_path(home), document.dumps(merged, device=None, exported_at=clock.now_iso()))
    _save_conflicts(home, merged)


def _lock(home: Path) -> FileLock:
    lock = FileLock(str(sync_dir(home) / "sync.lock"), mode=FILE_MODE)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise UsageError("a sync, import or conflict resolution is already running") from None
    return lock


def _worker_lock(store: Store) -> FileLock:
    """Hold off the capture worker while files are read and rewritten."""
    lock = FileLock(str(store.layout.worker_lock), mode=FILE_MODE)
    try:
        lock.acquire(timeout=60)
    except Timeout:
        raise UsageError("the capture worker has been busy for a minute; try the sync again") from None
    return lock


def _with(home: Path, store: Store, fn: Any) -> Any:
    sync_dir(home).mkdir(parents=True, exist_ok=True, mode=0o700)
    lock = _lock(home)
    try:
        worker = _worker_lock(store)
        try:
            return fn()
        finally:
            worker.release()
    finally:
        lock.release()


def _conflicted(merged: State) -> int:
    return sum(1 for e in merged.memories.values() if len(e.heads) > 1)


def sync(store: Store, folder: Path, *, actor: str = "cli") -> SyncReport:
    home = store.layout.home
    if not folder.is_dir():
        raise UsageError(f"sync folder {folder} does not exist: create it or give --folder")
    shared = folder / FOLDER
    me = device(home)
    report = SyncReport(str(folder), me["id"])

    def run() -> SyncReport:
        prev = load_prev(home)
        scanned = local.ScanReport()
        mine = local.scan(store, prev, me["id"], scanned)
        report.sent = len(scanned.edited) + len(scanned.deleted) + len(scanned.counted)
        report.skipped += scanned.unreadable
        report.skipped += local.vet_unmarkings(store, mine)  # what an earlier sync kept unchecked
        parts = [mine]
        shared.mkdir(parents=True, exist_ok=True, mode=0o700)
        for path in sorted(shared.glob("*.json")):
            if atomic.is_temp(path.name) or path.stem == me["id"]:
                continue
            try:
                part = clean.redacted(document.load(path)[0])[0]
                report.skipped += local.vet_unmarkings(store, part)
                parts.append(part)
                report.devices.append(path.stem)
            except UsageError as exc:
                report.skipped.append(str(exc))
        merged = merge.states(parts)
        report.skipped += local.apply_scopes(store, merged)
        _save_prev(home, merged)
        faults.point("sync:merged")
        applied = local.apply(store, merged, me["id"], seen=scanned.seen)
        faults.point("sync:applied")
        report.received = applied.arrived + applied.removed
        report.skipped += applied.skipped
        report.locked = applied.locked
        report.conflicts = _conflicted(merged)
        report.memories = sum(1 for e in merged.memories.values() if not e.winner.deleted)
        text = document.dumps(merged, device=me, exported_at=clock.now_iso())
        atomic.write_text(shared / f"{me['id']}.json", text)
        remember_folder(home, folder)
        faults.point("sync:written")
        store.audit.append(
            "sync",
            actor=actor,
            details={
                "device": me["id"],
                "devices": len(report.devices),
                "sent": report.sent,
                "received": report.received,
                "conflicts": report.conflicts,
            },
        )
        return report

    return _with(home, store, run)  # type: ignore[no-any-return]


# -- export / import --------------------------------------------------------------------
def export_state(store: Store, scopes: list[str] | None) -> State:
    """What this device would send, without recording anything (export is read-only)."""
    me = device(store.layout.home)
    state = local.scan(store, load_prev(store.layout.home), me["id"])
    if scopes is None:
        return state
    from memoryd import scope_links

    keep = set(scopes)
    moved = scope_links.mapping(store.layout.home)
    return State(
        memories={
            s: e
            for s, e in state.memories.items()
            if moved.get(e.winner.scope_hash, e.winner.scope_hash) in keep
        },
        scopes={h: i for h, i in state.scopes.items() if h in keep},
        links={p for p in state.links if p[0] in keep or p[1] in keep},
    )


def export(store: Store, out: Path, *, scopes: list[str] | None, force: bool = False) -> int:
    if out.exists() and not force:
        raise UsageError(f"{out} exists; choose another --out or pass --force")
    if not out.parent.is_dir():
        raise UsageError(f"folder {out.parent} does not exist")
    state = export_state(store, scopes)
    me = device(store.layout.home)
    atomic.write_text(out, document.dumps(state, device=me, exported_at=clock.now_iso()))
    return sum(1 for e in state.memories.values() if not e.winner.deleted)


@dataclass
class ImportReport:
    memories: int
    written: int
    conflicts: int
    locked: int
    held: list[str] = field(default_factory=list)  # unmarkings not taken (apply_scopes)


def import_file(store: Store, file: Path, *, actor: str = "cli") -> ImportReport:
    incoming, raw = document.load(file)
    incoming = clean.redacted(incoming)[0]
    home = store.layout.home

    def run() -> ImportReport:
        me = device(home)
        scanned = local.ScanReport()
        mine = local.scan(store, load_prev(home), me["id"], scanned)
        held = local.vet_unmarkings(store, mine) + local.vet_unmarkings(store, incoming)
        merged = merge.states([mine, incoming])
        held += local.apply_scopes(store, merged)
        _save_prev(home, merged)
        applied = local.apply(store, merged, me["id"], seen=scanned.seen)
        n = sum(1 for e in incoming.memories.values() if not e.winner.deleted)
        src = raw.get("device") or {}
        store.audit.append(
            "import",
            actor=actor,
            details={
                "format": document.FORMAT,
                "from_device": src.get("id") if isinstance(src, dict) else None,
                "memories": n,
                "written": applied.written,
                "conflicts": _conflicted(merged),
            },
        )
        return ImportReport(n, applied.written, _conflicted(merged), applied.locked, held)

    return _with(home, store, run)  # type: ignore[no-any-return]


# -- conflicts ----------------------------------------------------------------------------
def _title(head: Head) -> str:
    if head.deleted:
        return "(deleted)"
    if head.encrypted or not head.content:
        return "(sealed)"
    for line in head.content.splitlines():
        if line.startswith("title:"):
            return line[6:].strip().strip("'\"")
    return ""


def _summary(slug: str, e: Entry) -> dict[str, Any]:
    w = e.winner
    return {
        "slug": slug,
        "scope_hash": w.scope_hash,
        "kept": {"rev": w.rev, "updated_at": w.updated_at, "title": _title(w), "deleted": w.deleted},
        "copies": [
            {"rev": h.rev, "updated_at": h.updated_at, "title": _title(h), "deleted": h.deleted}
            for h in sorted(e.losers, key=lambda h: (h.updated_at, h.rev), reverse=True)
        ],
    }


def _save_conflicts(home: Path, merged: State) -> None:
    rows = [_summary(slug, e) for slug, e in sorted(merged.memories.items()) if len(e.heads) > 1]
    atomic.write_text(sync_dir(home) / "conflicts.json", json.dumps(rows, ensure_ascii=False) + "\n")


def conflicts(home: Path, scopes: list[str] | None = None) -> list[dict[str, Any]]:
    """Memories with conflict copies, newest copy first (cheap: the digest reads it)."""
    try:
        rows = json.loads((sync_dir(home) / "conflicts.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(rows, list):
        return []
    return [r for r in rows if isinstance(r, dict) and (scopes is None or r.get("scope_hash") in scopes)]


def show(home: Path, slug: str) -> list[dict[str, Any]]:
    e = load_prev(home).memories.get(slug)
    if e is None or len(e.heads) < 2:
        raise NotFound(f"{slug} has no conflict copies")
    w = e.winner
    return [{**h.as_dict(), "kept": h.rev == w.rev, "fields": _fields(h)} for h in (w, *e.losers)]


def _fields(head: Head) -> dict[str, Any] | None:
    """A version as a person compares it (title, type, triggers, tags, body), for a
    window that shows it side by side; None when there is no readable content."""
    if head.deleted or head.encrypted or not head.content:
        return None
    try:
        doc = frontmatter.parse(head.content, where=f"{head.rev[:8]}")
    except CorruptFile:
        return None
    meta = doc.meta
    return {
        "title": meta.title,
        "type": meta.type.value,
        "triggers": list(meta.triggers),
        "tags": list(meta.tags),
        "body": doc.body,
    }


def resolve(store: Store, slug: str, take: str | None, *, actor: str = "cli") -> str:
    """Settle a conflict: the chosen version (the kept one unless `take` names a copy's
    rev or a prefix of it) becomes the one version, descending from all the others, so
    every device drops the copies at its next sync."""
    home = store.layout.home

    def run() -> str:
        me = device(home)
        merged = local.scan(store, load_prev(home), me["id"])
        e = merged.memories.get(slug)
        if e is None or len(e.heads) < 2:
            raise NotFound(f"{slug} has no conflict copies")
        if take is None:
            chosen = e.winner
        else:
            found = [h for h in e.heads if h.rev.startswith(take)]
            if len(found) != 1:
                raise UsageError(
                    f"--take {take}: matches {len(found)} of {slug}'s versions (memoryd sync show)"
                )
            chosen = found[0]
        others = {r for h in e.heads if h.rev != chosen.rev for r in (h.rev, *h.history)}
        head = Head(**{**chosen.__dict__, "history": tuple(sorted(set(chosen.history) | others))})
        if chosen.rev != e.winner.rev:  # the chosen copy must also win the file everywhere
            head = Head(**{**head.__dict__, "updated_at": max(clock.now_iso(), e.winner.updated_at)})
            head = _rehashed(head)
            head = Head(**{**head.__dict__, "history": tuple(sorted({*head.history, chosen.rev}))})
        merged.memories[slug] = merge.entry(Entry((head,)), Entry((), e.recalls, e.last_recalled_at, e.decay))
        _save_prev(home, merged)
        local.apply(store, merged, me["id"], only={slug})  # the chosen version is rewritten: no `seen`
        store.audit.append(
            "sync_resolve",
            actor=actor,
            scope_hash=head.scope_hash,
            target_id=slug,
            details={"kept": head.rev, "dropped": len(e.heads) - 1},
        )
        return head.rev

    return _with(home, store, run)  # type: ignore[no-any-return]


def _rehashed(head: Head) -> Head:
    """A copy taken over the kept version is a new edit (its time is now), so its rev is
    that of its new content."""
    if head.deleted or head.encrypted or head.content is None:
        return Head(**{**head.__dict__, "rev": local.sha((head.rev + head.updated_at).encode())[:32]})
    from memoryd import frontmatter
    from memoryd.sync import text

    doc = frontmatter.parse(head.content, where="conflict copy")
    doc.meta.updated_at = clock.parse_ts(head.updated_at)
    norm = text.normalised(frontmatter.render(doc), doc)
    return Head(**{**head.__dict__, "content": norm, "rev": local.rev_of(norm, head.turns or "")})
