"""After `mark-sensitive`: this device's sync files stop holding the scope's plaintext at
once, not at the next sync. `sync/state.json` (the last merged state) and this device's
file in each sync folder it wrote to become what the next sync would make of them: the
scope's memories as sealed versions (the plaintext versions tombstoned, being renamed),
and any plaintext copy left of the scope (a conflict copy) replaced by a tombstone.

Each file is replaced whole (written aside, renamed), state.json first; a kill between
the two leaves the device file for the rerun of `mark-sensitive` or the next sync, both
of which write it again. Other devices' files are theirs: they drop the plaintext when
those devices sync (docs/security.md)."""

from __future__ import annotations

from pathlib import Path

from filelock import FileLock, Timeout

from memoryd import atomic, clock
from memoryd.envpaths import FILE_MODE
from memoryd.errors import UsageError
from memoryd.store import Store
from memoryd.sync import document, local, merge, run
from memoryd.sync.document import Entry, Head, State


def _tombstoned(entry: Entry, scope_hash: str, now: str) -> Entry:
    """Every plaintext version of the scope left in an entry becomes a deletion of it."""
    plain = [h for h in entry.heads if h.scope_hash == scope_hash and not h.encrypted and not h.deleted]
    if not plain:
        return entry
    tombs = [
        Head(
            rev=local.tombstone_rev(h.rev),
            history=tuple(sorted({*h.history, h.rev})),
            updated_at=now,
            scope_hash=h.scope_hash,
            type=h.type,
            deleted=True,
        )
        for h in plain
    ]
    return merge.entry(entry, Entry(tuple(tombs)))


def sealed_scope(store: Store, scope_hash: str, extra_folders: list[Path] | None = None) -> int:
    """Scrub this device's sync files of a just-sealed scope; returns the files rewritten."""
    home = store.layout.home
    if not (run.sync_dir(home) / "state.json").exists():
        return 0  # never synced: nothing to scrub
    lock = FileLock(str(run.sync_dir(home) / "sync.lock"), mode=FILE_MODE)
    try:
        lock.acquire(timeout=120)
    except Timeout:
        raise UsageError("a sync has been running for two minutes; run `memoryd sync` when it ends") from None
    try:
        me = run.device(home)
        scanned = local.scan(store, run.load_prev(home), me["id"])
        now = clock.now_iso()
        clean = State(
            memories={slug: _tombstoned(e, scope_hash, now) for slug, e in scanned.memories.items()},
            scopes=scanned.scopes,
            links=scanned.links,
        )
        run._save_prev(home, clean)
        written = 1
        targets = {Path(f) for f in run.folders(home)} | {Path(f) for f in extra_folders or []}
        for folder in sorted(targets):
            mine = folder / run.FOLDER / f"{me['id']}.json"
            if mine.exists():
                atomic.write_text(mine, document.dumps(clean, device=me, exported_at=now))
                written += 1
        return written
    finally:
        lock.release()
