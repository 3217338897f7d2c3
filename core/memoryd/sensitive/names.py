"""Project names in the store (memoryd.projects), kept as a sensitive scope needs them.

A sensitive project's folder name can itself be the secret ("acme-merger"), so its row
holds neither name nor root in the clear: both are sealed with the scope's key, bound to
the scope (memoryd.sensitive.content), and opened only for a caller holding a live grant.
Without one, lists show "sensitive project" and the short hash: the same rule as the
memories' titles, which a list shows as "(sensitive: grant to read)".
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable

from memoryd import clock, envpaths, projects
from memoryd.db.engine import write_session
from memoryd.errors import KeyUnavailable, MemorydError
from memoryd.scope import Scope
from memoryd.store import Store, raw_connection

from . import content, grants, keys, state

SEALED_AS = "project"  # the name the sealed value is bound to


def seal(key: bytes, scope_hash: str, root: str) -> str:
    return content.seal_value(key, scope_hash, SEALED_AS, {"root": root})


def open_root(key: bytes, scope_hash: str, sealed: str) -> str:
    return str(content.open_value(key, scope_hash, SEALED_AS, sealed)["root"])


def note(store: Store, scope: Scope) -> None:
    """A write path resolved `scope`: remember its root. One read when nothing changed.
    A sensitive scope's row is sealed (with the key this process already has for the
    write); a folder marked but not yet made sensitive is not named at all. Under the
    store's write lock, which a mark holds while it seals the row: a note that began
    before the mark is sealed by it, one after it sees the scope sensitive."""
    with store.writing():
        _note(store, scope)


def _note(store: Store, scope: Scope) -> None:
    root = str(scope.root)
    sensitive = store.keys.sensitive(scope.hash)
    if scope.marked and not sensitive:
        return
    with store.engine.connect() as c:
        now_row = projects.row(c.connection.driver_connection, scope.hash)
    if sensitive:
        if now_row is not None and now_row.sealed is not None:
            return
        try:
            with keys.no_prompt():  # the write had the key; `memoryd scope` asks for none
                key = store.keys.get(scope.hash)
        except KeyUnavailable:
            return
        sealed = seal(key, scope.hash, root)
        with write_session(store.engine) as s:
            projects.put_sealed(raw_connection(s), scope.hash, scope.kind, sealed, clock.now_iso())
        return
    if envpaths.sensitive_root(str(store.layout.home), root) is not None:
        # Below a sensitive root (a repository there, the marker deleted): its path names
        # the sensitive folder, so neither name nor root is kept.
        if now_row is not None and now_row.root is None and now_row.sealed is None:
            return
        with write_session(store.engine) as s:
            projects.put_withheld(raw_connection(s), scope.hash, scope.kind, clock.now_iso())
        return
    if now_row is not None and now_row.sealed is None and now_row.root == root and now_row.kind == scope.kind:
        return
    with write_session(store.engine) as s:
        projects.put_clear(raw_connection(s), scope.hash, root, scope.kind, clock.now_iso())


def seal_row(store: Store, scope_hash: str, root: str, key: bytes) -> None:
    """Marking: the scope's clear row (if any) becomes a sealed one, and the scopes below
    its root (folders that had a scope of their own before) keep no name or root, whose
    path holds the sensitive folder's name; the compaction that ends a mark (checkpoint,
    VACUUM) leaves the old bytes nowhere."""
    with write_session(store.engine) as s:
        con = raw_connection(s)
        projects.withhold_below(con, root, scope_hash)
        found = projects.row(con, scope_hash)
        if found is not None and found.sealed is not None:
            return
        kind = found.kind if found is not None else "dir"
        projects.put_sealed(con, scope_hash, kind, seal(key, scope_hash, root), clock.now_iso())


def claim_unowned(store: Store) -> int:
    """Claim for this data dir every sensitive scope here that nobody owns yet (marked
    before owners were recorded: memoryd.sensitive.keys), and anchor the key check of each
    of its own that has none yet (marked before anchors). Returns how many it claimed."""
    claimed = 0
    for h in sorted(state.sensitive_hashes(store.layout)):
        claimed += store.keys.claim_unowned(h)
        if store.keys.owned_here(h):
            store.keys.anchor_unanchored(h)
    return claimed


def seal_settings(store: Store) -> int:
    """Settings files from before their folder was sealed (memoryd.sensitive.state) sealed
    now, where the key is at hand without asking (a random key in the OS keyring, a
    passphrase scope's under a live grant); the others wait for a later run. Under the
    write lock, which unmarking holds while it removes the file: never held up for, as a
    later drain does as well. Returns how many were sealed."""
    done = 0
    for h in sorted(state.sensitive_hashes(store.layout)):
        found = state.load(store.layout, h)
        if found is None or found.sealed_root or not found.root or store.keys.root(h) is None:
            continue  # nothing to seal, or a folder that is not the scope's (edited by hand)
        key = store.keys.at_hand(h)
        if key is None:
            continue
        with store.writing_if_free() as held:
            now = state.load(store.layout, h) if held else None
            if now is not None and now.root and not now.sealed_root and now.key_check == found.key_check:
                state.save(store.layout, now.with_root(key, now.root))
                done += 1
    if done:
        store.keys.refresh()
    return done


def reseal(con: object, scope_hash: str, old: bytes, new: bytes) -> None:
    """Key rotation: the sealed row under the new key (inside the rotation's transaction)."""
    found = projects.row(con, scope_hash)  # type: ignore[arg-type]
    if found is None or found.sealed is None:
        return
    try:
        root = open_root(old, scope_hash, found.sealed)
    except MemorydError:  # already under the new key (an interrupted rotation run again)
        return
    projects.put_sealed(con, scope_hash, found.kind, seal(new, scope_hash, root), clock.now_iso())  # type: ignore[arg-type]


def unseal_row(store: Store, scope_hash: str, root: str) -> None:
    """Unmarking: the row back in the clear."""
    with write_session(store.engine) as s:
        con = raw_connection(s)
        found = projects.row(con, scope_hash)
        kind = found.kind if found is not None else "dir"
        projects.put_clear(con, scope_hash, root, kind, clock.now_iso())


def names(store: Store, hashes: Iterable[str]) -> dict[str, projects.Project]:
    """A Project for each hash: sealed names opened where a live grant allows, withheld
    elsewhere; a hash never seen shows as itself."""
    wanted = list(dict.fromkeys(hashes))
    with store.engine.connect() as c:
        found = projects.rows(c.connection.driver_connection)
    sensitive = state.sensitive_hashes(store.layout)
    opened: dict[str, str] = {}
    for r in found:
        if r.sealed is None or r.scope_hash not in sensitive:
            continue
        with contextlib.suppress(MemorydError), keys.no_prompt():
            if grants.live(store.keys, r.scope_hash):
                opened[r.scope_hash] = open_root(store.keys.get(r.scope_hash), r.scope_hash, r.sealed)
    return projects.describe(found, wanted, opened=opened, sensitive=sensitive)
