"""Marking a scope sensitive and back, rotating its key, and the recovery file.

Marking encrypts every memory of the scope (the forgotten/ archive too), renames
readable slugs to opaque ones, seals pending proposals, rewrites the scope's past audit
events without its words, drops its words from the index and then compacts SQLite
(FTS merge, WAL checkpoint, VACUUM) so no free page keeps them. Each step can be run
again: a mark interrupted anywhere finishes when run again.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from sqlalchemy import text

from memoryd import atomic, clock, crypto, frontmatter, inject, vectors
from memoryd.db.engine import write_session
from memoryd.errors import CorruptFile, KeyUnavailable, MemorydError, UsageError
from memoryd.scope import MARKER, Scope
from memoryd.store import Store, raw_connection, trash
from memoryd.store import governance as gsql
from memoryd.store import index as isql
from memoryd.store.files import ENC, MD

from . import content, gate, grants, llm_access, names, state

OPAQUE = re.compile(r"^(?:\d{4}-\d{2}-\d{2}|m)-[0-9a-f]{12}$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")
RECOVERY_FORMAT = "memoryd-key-recovery"


def opaque(key: bytes, slug: str) -> str:
    """The name a memory takes in a sensitive scope: its date and a keyed hash of the old
    name, so the same slug always maps to the same new one (a rerun finds its own work)."""
    if OPAQUE.match(slug):
        return slug
    date = _DATE.match(slug)
    return f"{date.group(0) if date else 'm'}-{crypto.keyed_digest(key, slug.encode())[:12]}"


@dataclass
class MarkReport:
    scope_hash: str
    root: str
    key_source: str
    encrypted: int = 0
    renamed: int = 0
    audit_rewritten: int = 0
    resumed: bool = False
    warnings: list[str] = field(default_factory=list)


def mark(
    store: Store,
    scope: Scope,
    *,
    passphrase: str | None,
    actor: str = "cli",
    progress: Callable[[int, int], None] | None = None,
) -> MarkReport:
    """Encrypt a scope; `progress(done, total)` before each batch may raise Cancelled, which
    stops between batches with every memory readable and the scope marked: running it
    again finishes (as after a kill)."""
    h = store.layout
    settings = state.load(h, scope.hash)
    if settings is None:
        try:
            owner = store.keys.owner(scope.hash)
        except KeyUnavailable:  # no keyring (a passphrase scope): nothing to overwrite there
            owner = None
        if owner is not None and not store.keys.owned_here(scope.hash):
            # marked by another data dir on this machine: a new key would overwrite its key
            raise UsageError(
                f"{scope.root} is a sensitive scope of another memoryd data dir on this machine; "
                "move it here with `memoryd key export` there and `memoryd key import` here"
            )
        if owner is not None:
            # Marked here and never unmarked (unmark removes the owner), yet its settings
            # are gone: a new key would replace the person's (a review, 2026-11-28: an agent
            # moved sensitive.json away and marked the folder again with its own passphrase).
            raise UsageError(
                f"{scope.root} is marked sensitive in this data dir, but its settings file "
                f"(scopes/{scope.hash}/sensitive.json) is missing: restore it from a backup, or "
                "`memoryd key import` the scope's recovery file"
            )
        if passphrase is not None:
            params = crypto.KdfParams.fresh()
            key = crypto.derive(passphrase, params)
        else:
            params, key = None, crypto.new_key()
            state.keyring_set(state.key_entry(scope.hash), key)  # fails first if there is no keyring
        settings = state.Settings(
            scope_hash=scope.hash,
            root=None,
            marked_at=clock.now_iso(),
            key_source="passphrase" if params else "random",
            key_check=crypto.key_check(key),
            kdf=params,
            sealed_root=state.seal_root(key, scope.hash, str(scope.root)),
        )
        state.save(h, settings)
        store.keys.set_anchor(scope.hash, settings.key_check)
        store.keys.claim(scope.hash)
        state.drop_unmarked(h, scope.hash)  # an old unmarking's proof must not outlive this marking
        with contextlib.suppress(KeyUnavailable):  # a consent left from before is not the person's now
            state.keyring_delete(llm_access.entry(store, scope.hash))
        # The plaintext snapshot goes before anything slow: a kill after this point
        # leaves no readable summary of the scope behind (memoryd.snapshot reseals it).
        # Under the snapshot's lock: a render begun before the state file existed lands
        # before this unlink, and one begun after it seals.
        from filelock import FileLock

        folder = h.scope_dir(scope.hash)
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        with FileLock(str(folder / ".snapshot.lock"), timeout=60):
            (folder / inject.SNAPSHOT).unlink(missing_ok=True)
        resumed = False
    else:
        if settings.key_source == "passphrase":
            if passphrase is None:
                raise UsageError("this scope is protected by a passphrase: give it to finish marking")
            assert settings.kdf is not None
            key = crypto.derive(passphrase, settings.kdf)
            trusted = store.keys.settings(scope.hash)  # the key check the keyring vouches for
            if trusted is not None and crypto.key_check(key) != trusted.key_check:
                raise KeyUnavailable("wrong passphrase for this scope")
        else:
            key = store.keys.get(scope.hash)
        resumed = True
    store.keys.forget(scope.hash)
    store.keys.remember(scope.hash, key)
    root = settings.open_root(key) or str(scope.root)
    if not settings.sealed_root:  # a file from before the folder was sealed
        state.save(h, settings.with_root(key, root))
        store.keys.forget(scope.hash)
        store.keys.remember(scope.hash, key)
    report = MarkReport(scope.hash, root, settings.key_source, resumed=resumed)
    with write_session(store.engine) as s:
        s.exec(
            text(
                "INSERT INTO sensitive_scopes (scope_hash, marked_at, key_source) VALUES (:h, :at, :src) "
                "ON CONFLICT(scope_hash) DO UPDATE SET key_source = excluded.key_source"
            ),
            params={"h": scope.hash, "at": settings.marked_at, "src": settings.key_source},
        )
    try:
        atomic.write_text(
            scope.root / MARKER,
            "# memoryd: this directory and everything under it is a sensitive scope.\n"
            f"scope_hash = {scope.hash}\n",
        )
    except OSError as exc:
        report.warnings.append(
            f"could not write {scope.root / MARKER} ({exc.strerror}); captures from here "
            "are still encrypted, but the hook will not know to keep them out of the spool"
        )
    # Words out of the index first: while the files are being encrypted (or after a
    # kill, until the rerun) nothing of the scope is listed or found without a grant.
    # Under the write lock (the one every vectors batch takes to commit) from the scrub to
    # the compaction: a batch that read the scope's texts before the mark commits before
    # the scrub (its clear rows are then sealed, dropped and vacuumed) or after it all,
    # when its fingerprints are no longer referred to and it writes nothing.
    with store.writing():
        names.seal_row(store, scope.hash, root, key)
        _scrub_index(store, scope.hash)
        _seal_proposals(store, scope.hash, key)
        trash.drop_scope(store.layout, scope.hash)  # no clear copy stays behind in undo's trash
        clear = _scope_slugs(store, scope.hash)
        _encrypt_files(store, scope.hash, key, report, progress)
        rename = _audit_renames(store, scope.hash, key)
        rename.update({n: opaque(key, n) for n in clear if n != opaque(key, n)})
        _rename_review(store, rename)  # before the audit: a rerun finds the same names there
        report.audit_rewritten = store.audit.redact_scope(scope.hash, rename, drop_keys=("reason", "title"))[
            "rewritten"
        ]
        store.audit.append(
            "mark_sensitive",
            actor=actor,
            scope_hash=scope.hash,
            details={"key_source": settings.key_source, "encrypted": report.encrypted, "resumed": resumed},
        )
        store.vectors.gc()  # the clear vectors of the scope (unless a plain memory has the same text)
        compact(store)
    return report


BATCH = 200


def _encrypt_files(
    store: Store,
    scope_hash: str,
    key: bytes,
    report: MarkReport,
    progress: Callable[[int, int], None] | None = None,
) -> None:
    """In batches: write the sealed files (no fsync each), flush them to disk at once,
    move the index rows in one transaction, and only then delete the plaintext. A crash
    leaves every memory in at least one readable form; a rerun finishes the batch."""
    todo = [p for p in store.files.all_files(scope_hash, archived=True) if not p.name.endswith(ENC)]
    for i in range(0, len(todo), BATCH):
        if progress is not None:
            progress(i, len(todo))  # before a batch: a Cancelled here leaves no batch half done
        _encrypt_batch(store, key, todo[i : i + BATCH], report)


def _encrypt_batch(store: Store, key: bytes, batch: list[Path], report: MarkReport) -> None:
    files = store.files
    done: list[tuple[Path, str, str, Any, Path, bool]] = []
    turns_of: dict[Path, list[Any]] = {}
    scope_hash = files.scope_of(batch[0]) if batch else ""
    for path in batch:
        plain = _read_plain(path)
        turns = files.read_turns(path)
        old = plain.meta.slug
        new = opaque(key, old)
        plain.meta.slug = new
        if plain.meta.promoted_from:
            plain.meta.promoted_from = opaque(key, plain.meta.promoted_from)
        plain.meta.supersedes = [opaque(key, x) for x in plain.meta.supersedes]
        if plain.meta.superseded_by:
            plain.meta.superseded_by = opaque(key, plain.meta.superseded_by)
        new_path = files.write(plain, sync=False)
        if turns:
            files.write_turns(new_path, turns, sync=False)
        turns_of[new_path] = turns
        done.append((path, old, new, plain, new_path, path.parent.name == "forgotten"))
    os.sync()  # every sealed file is on disk before any plaintext goes
    with write_session(store.engine) as s:
        for _path, old, new, plain, new_path, archived in done:
            if not archived:
                s.exec(
                    text("UPDATE memories SET session_key = NULL WHERE slug = :old AND slug != :new"),
                    params={"old": old, "new": new},
                )
                isql.upsert_memory(s, store._row(plain, new_path), [], {}, None)
                # Its vectors sealed under keyed fingerprints (no new embedding); the clear
                # rows go with the clear refs at the end of the mark (`gc`, then VACUUM).
                con = raw_connection(s)
                items = vectors.texts_of(plain.meta.title, plain.body, _turn_texts(turns_of[new_path]))
                vectors.carry(con, items, (scope_hash, None), (scope_hash, key))
                vectors.write_refs(con, new, items, key)
                for table, col in (
                    ("promotions", "source_session_slug"),
                    ("recall_stats", "slug"),
                    ("supersedes_chain", "newer_memory_id"),
                    ("supersedes_chain", "older_memory_id"),
                    ("pending_supersedes", "newer_memory_id"),
                    ("pending_supersedes", "older_memory_id"),
                ):
                    s.exec(
                        text(f"UPDATE OR IGNORE {table} SET {col} = :new WHERE {col} = :old"),
                        params={"old": old, "new": new},
                    )
            if old != new:
                gsql.delete_memory(s, old)
    for path, old, new, *_ in done:
        for p in (path, store.files.turns_path(path)):
            p.unlink(missing_ok=True)
        report.encrypted += 1
        report.renamed += old != new


def _turn_texts(turns: list[Any]) -> list[tuple[int, str, str]]:
    return [(t.seq, t.role, t.text) for t in turns]


def _read_plain(path: Path) -> frontmatter.Document:
    return frontmatter.parse_bytes(path.read_bytes(), where=str(path))


def _seal_proposals(store: Store, scope_hash: str, key: bytes) -> None:
    with write_session(store.engine) as s:
        for row in gsql.promotions(s, status=None, scopes=[scope_hash]):
            if content.is_sealed(row["proposed_body"]):
                continue
            sealed = content.seal_proposal(key, scope_hash, row)
            s.exec(
                text(
                    "UPDATE promotions SET proposed_title = '', proposed_body = :b, "
                    "proposed_triggers = '[]', reasoning = NULL WHERE id = :id"
                ),
                params={"b": sealed["proposed_body"], "id": row["id"]},
            )


def _scrub_index(store: Store, scope_hash: str) -> None:
    """Words of the scope outside memory rows: trigger statistics, knowledge-graph rows
    (mentions, relations, the reasons given for its supersedes, and entities no other
    scope names)."""
    from memoryd.store import kg

    with write_session(store.engine) as s:
        for table in ("trigger_stats", "relations"):
            s.exec(text(f"DELETE FROM {table} WHERE scope_hash = :h"), params={"h": scope_hash})
        slugs = [
            r[0]
            for r in s.exec(text("SELECT slug FROM memories WHERE scope_hash = :h"), params={"h": scope_hash})
        ]
        for slug in slugs:
            kg.remove_memory(s, slug)
        kg.forget_unmentioned(s)
        for table in ("supersedes_chain", "pending_supersedes"):
            s.exec(
                text(
                    f"UPDATE {table} SET reason = NULL, entity_id = NULL WHERE newer_memory_id IN "
                    "(SELECT slug FROM memories WHERE scope_hash = :h) OR older_memory_id IN "
                    "(SELECT slug FROM memories WHERE scope_hash = :h)"
                ),
                params={"h": scope_hash},
            )
        # Clear refs go now (the scope drops out of `similar` at once); the clear vectors
        # stay until the files are sealed, which carry them over, then `gc` drops them.
        vectors.drop_clear_refs(raw_connection(s), slugs)
        for slug in slugs:
            isql.drop_words(s, slug)
            s.exec(text("DELETE FROM triggers WHERE slug = :slug"), params={"slug": slug})
            s.exec(
                text("UPDATE memories SET title = '', scope_sensitive = 1 WHERE slug = :slug"),
                params={"slug": slug},
            )


def _audit_renames(store: Store, scope_hash: str, key: bytes) -> dict[str, str]:
    """Every readable slug the scope's past events name, with its opaque name (computed,
    not remembered, so an interrupted mark rewrites the same way)."""
    names: set[str] = set()
    for ev in store.audit.events():
        if ev.scope_hash != scope_hash:
            continue
        if ev.target_id and not ev.target_id.isdigit():
            names.add(ev.target_id)
        details = ev.details_obj
        for k in ("session", "from", "into", "merged_from", "older", "newer"):
            v = details.get(k)
            names.update([v] if isinstance(v, str) else v if isinstance(v, list) else [])
    return {n: opaque(key, n) for n in names if n != opaque(key, n)}


def _scope_slugs(store: Store, scope_hash: str) -> list[str]:
    with write_session(store.engine) as s:
        rows = s.exec(text("SELECT slug FROM memories WHERE scope_hash = :h"), params={"h": scope_hash})
        return [r[0] for r in rows]


def _rename_review(store: Store, rename: dict[str, str]) -> None:
    """The undo history and the "not duplicates" decisions name memories by slug (paths
    too): they take the opaque names, so no title word stays in the index and a decision
    still holds for the renamed memories. Undo of a merge or approval there then finds
    its trash emptied (`trash.drop_scope`) and says so."""
    from memoryd.audit import rename_tokens

    if not rename:
        return

    def group(key: str) -> str:
        return " ".join(sorted(rename.get(x, x) for x in key.split(" ")))

    with write_session(store.engine) as s:
        for rid, kind, target, detail in s.exec(
            text("SELECT id, kind, target, detail FROM review_actions")
        ).all():
            new_target = group(target) if kind == "not_duplicates" else rename_tokens(target, rename)
            new_detail = rename_tokens(detail or "{}", rename)
            if (new_target, new_detail) != (target, detail):
                s.exec(
                    text("UPDATE review_actions SET target = :t, detail = :d WHERE id = :id"),
                    params={"t": new_target, "d": new_detail, "id": rid},
                )
        for key, scope, at in s.exec(
            text("SELECT group_key, scope_hash, decided_at FROM not_duplicates")
        ).all():
            new_key = group(key)
            if new_key != key:
                s.exec(text("DELETE FROM not_duplicates WHERE group_key = :k"), params={"k": key})
                s.exec(
                    text(
                        "INSERT OR IGNORE INTO not_duplicates (group_key, scope_hash, decided_at) "
                        "VALUES (:k, :s, :at)"
                    ),
                    params={"k": new_key, "s": scope, "at": at},
                )


def compact(store: Store) -> None:
    """Leave no deleted words in FTS segments, SQLite free pages or the WAL."""
    raw = store.engine.raw_connection()
    try:
        cur = raw.cursor()
        for fts in ("memories_fts", "turns_fts"):
            cur.execute(f"INSERT INTO {fts}({fts}) VALUES('optimize')")
        raw.commit()
        cur.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        cur.execute("VACUUM")
        cur.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        cur.close()
    finally:
        raw.close()


# -- unmark, rotate ---------------------------------------------------------------------
def unmark(store: Store, scope: Scope, *, actor: str = "cli") -> int:
    settings = state.load(store.layout, scope.hash)
    if settings is None:
        raise UsageError(f"{scope.root} is not a sensitive scope")
    gate.check_or_raise(store, scope.hash, actor=actor, what="unmark")
    key = store.keys.get(scope.hash)
    root = settings.open_root(key) or (str(scope.root) if scope.root.is_absolute() else None)
    trash.drop_scope(store.layout, scope.hash)  # sealed copies would not come back as plain files
    files = store.files
    count = 0
    texts: list[list[tuple[int, int, str]]] = []  # each memory's, to open its vectors
    for path in list(files.all_files(scope.hash, archived=True)):
        if not path.name.endswith(ENC):
            continue
        doc = files.read(path)
        turns = files.read_turns(path)
        texts.append(vectors.texts_of(doc.meta.title, doc.body, _turn_texts(turns)))
        plain = path.with_name(path.name[: -len(ENC)] + MD)
        atomic.write_text(plain, frontmatter.render(doc))
        if turns:
            atomic.write_text(files.turns_path(plain), "".join(t.to_json() + "\n" for t in turns))
        files.remove(path)
        count += 1
    with store.writing():  # no vectors batch commits between the refs' change and gc
        with write_session(store.engine) as s:
            for row in gsql.promotions(s, status=None, scopes=[scope.hash]):
                if content.is_sealed(row["proposed_body"]):
                    opened = content.open_proposal(key, scope.hash, row)
                    s.exec(
                        text(
                            "UPDATE promotions SET proposed_title = :t, proposed_body = :b, "
                            "proposed_triggers = :tr, reasoning = :r WHERE id = :id"
                        ),
                        params={
                            "t": opened["proposed_title"],
                            "b": opened["proposed_body"],
                            "tr": json.dumps(opened["proposed_triggers"], ensure_ascii=False),
                            "r": opened["reasoning"],
                            "id": row["id"],
                        },
                    )
            s.exec(text("DELETE FROM sensitive_scopes WHERE scope_hash = :h"), params={"h": scope.hash})
            for items in texts:  # plain again: the vectors need no new embedding
                vectors.carry(raw_connection(s), items, (scope.hash, key), (scope.hash, None))
        if root is not None:
            names.unseal_row(store, scope.hash, root)
        from memoryd.profile import identity

        identity.unseal_scope(store, scope.hash, key, None)  # what it withheld from the profile
        when = clock.now_iso()
        state.save_unmarked(store.layout, scope.hash, when, state.unmark_proof(key, scope.hash, when))
        state.remove(store.layout, scope.hash)
        store.keys.forget(scope.hash)
        store.reindex_scope(scope.hash)
        store.vectors.gc()
    for entry in (
        state.key_entry(scope.hash),
        state.grant_entry(scope.hash),
        state.owner_entry(scope.hash),
        state.check_entry(scope.hash),
        llm_access.entry(store, scope.hash),  # marked again later, it starts without consent
    ):
        with contextlib.suppress(KeyUnavailable):
            state.keyring_delete(entry)
    if root is not None:
        (Path(root) / MARKER).unlink(missing_ok=True)
    grants.revoke(store.keys, scope.hash, None)
    store.audit.append("unmark_sensitive", actor=actor, scope_hash=scope.hash, details={"decrypted": count})
    return count


def rotate(store: Store, scope: Scope, *, new_passphrase: str | None, actor: str = "cli") -> int:
    settings = state.load(store.layout, scope.hash)
    if settings is None:
        raise UsageError(f"{scope.root} is not a sensitive scope")
    gate.check_or_raise(store, scope.hash, actor=actor, what="rotate-key")
    old = store.keys.get(scope.hash)
    trash.drop_scope(store.layout, scope.hash)  # sealed to the old key, which goes
    texts: list[list[tuple[int, int, str]]] = []  # each memory's, to re-seal its vectors
    next_entry = state.key_entry(scope.hash) + ":next"
    if settings.key_source == "random":
        new = state.keyring_get(next_entry) or crypto.new_key()
        state.keyring_set(next_entry, new)  # kept until every file is under it
        params = None
    else:
        if not new_passphrase:
            raise UsageError("a passphrase scope needs the new passphrase")
        params = crypto.KdfParams.fresh()
        new = crypto.derive(new_passphrase, params)
    files = store.files
    count = 0
    for path in list(files.all_files(scope.hash, archived=True)):
        if not path.name.endswith(ENC):
            continue
        store.keys.use(scope.hash, old)
        try:
            doc, turns = files.read(path), files.read_turns(path)
        except CorruptFile:  # DecryptError under the old key
            store.keys.use(scope.hash, new)  # already rotated by an interrupted run
            doc, turns = files.read(path), files.read_turns(path)
        store.keys.use(scope.hash, new)
        files.write(doc)
        if turns:
            files.write_turns(path, turns)
        texts.append(vectors.texts_of(doc.meta.title, doc.body, _turn_texts(turns)))
        count += 1
    with write_session(store.engine) as s:
        for row in gsql.promotions(s, status=None, scopes=[scope.hash]):
            if content.is_sealed(row["proposed_body"]):
                opened = content.open_proposal(old, scope.hash, row)
                resealed = content.seal_proposal(new, scope.hash, opened)
                s.exec(
                    text("UPDATE promotions SET proposed_body = :b WHERE id = :id"),
                    params={"b": resealed["proposed_body"], "id": row["id"]},
                )
        names.reseal(raw_connection(s), scope.hash, old, new)
    from memoryd.profile import identity

    identity.unseal_scope(store, scope.hash, old, new)  # what it withheld from the profile
    root = settings.open_root(old)
    new_settings = state.Settings(
        settings.scope_hash,
        None,
        settings.marked_at,
        settings.key_source,
        crypto.key_check(new),
        params or settings.kdf,
        sealed_root=state.seal_root(new, scope.hash, root) if root else None,
    )
    if settings.key_source == "random":
        grants.resign(store.keys, scope.hash, old, new)  # the live grants stay, signed anew
        state.keyring_set(state.key_entry(scope.hash), new)
    with store.writing():  # not between a worker's check and save of the older file (seal_settings)
        state.save(store.layout, new_settings)
    store.keys.set_anchor(scope.hash, new_settings.key_check)
    if settings.key_source == "random":
        state.keyring_delete(next_entry)
    else:
        state.keyring_delete(state.grant_entry(scope.hash))
        grants.revoke(store.keys, scope.hash, None)
    store.keys.forget(scope.hash)
    store.keys.remember(scope.hash, new)
    with store.writing():  # no vectors batch commits between the refs' change and gc
        with write_session(store.engine) as s:  # re-sealed, not embedded anew
            for items in texts:
                vectors.carry(raw_connection(s), items, (scope.hash, old), (scope.hash, new))
        store.reindex_scope(scope.hash)  # fingerprints are keyed: recompute them
        store.vectors.gc()
    store.audit.append("rotate_key", actor=actor, scope_hash=scope.hash, details={"files": count})
    return count


# -- recovery file ----------------------------------------------------------------------
def export_key(store: Store, scope: Scope, out: Path, *, passphrase: str, actor: str = "cli") -> None:
    settings = state.load(store.layout, scope.hash)
    if settings is None:
        raise UsageError(f"{scope.root} is not a sensitive scope")
    gate.check_or_raise(store, scope.hash, actor=actor, what="key-export")
    key = store.keys.get(scope.hash)
    params = crypto.KdfParams.fresh()
    wrap = crypto.derive(passphrase, params)
    blob = crypto.seal(wrap, key, scope_hash=scope.hash, slug="recovery", kind="key")
    root = settings.open_root(key)
    data = {
        "format": RECOVERY_FORMAT,
        "version": 2,
        "scope_hash": scope.hash,
        # the folder sealed with the scope's key, as in sensitive.json: the file is kept
        # somewhere else, and the folder's name can be the secret
        "sealed_root": state.seal_root(key, scope.hash, root) if root else None,
        "key_source": settings.key_source,
        "key_check": settings.key_check,
        "kdf": params.as_dict(),
        "sealed_key": crypto.b64(blob),
        "exported_at": clock.now_iso(),
    }
    if out.exists():
        raise UsageError(f"{out} exists; choose another --out")
    atomic.write_text(out, json.dumps(data, indent=2) + "\n")
    store.audit.append("key_export", actor=actor, scope_hash=scope.hash, details={})


def import_key(store: Store, file: Path, *, passphrase: str, actor: str = "cli") -> str:
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
        if data.get("format") != RECOVERY_FORMAT:
            raise ValueError
        h = str(data["scope_hash"])
        params = crypto.KdfParams.from_dict(data["kdf"])
        blob = crypto.unb64(data["sealed_key"])
    except (OSError, ValueError, KeyError, TypeError):
        raise UsageError(f"{file}: not a memoryd key recovery file") from None
    wrap = crypto.derive(passphrase, params)
    try:
        key = crypto.open_sealed(wrap, blob, scope_hash=h, slug="recovery", kind="key", where=str(file))
    except Exception:
        raise KeyUnavailable("wrong passphrase for this recovery file (or the file was changed)") from None
    settings = store.keys.settings(h)  # its key check as the keyring vouches for it
    check = settings.key_check if settings else data.get("key_check")
    if crypto.key_check(key) != check:
        raise KeyUnavailable(f"the recovered key does not match scope {h}")
    state.keyring_set(state.key_entry(h), key)
    if settings is None or h in store.keys.tampered:  # none, or edited outside memoryd
        at = settings.marked_at if settings else clock.now_iso()
        fresh = state.Settings(h, None, at, "random", crypto.key_check(key))
        root = _recovered_root(fresh, data, key)
        state.save(store.layout, fresh.with_root(key, root) if root else fresh)
        state.drop_unmarked(store.layout, h)  # marked again by this key: an old unmarking is history
        store.keys.tampered.discard(h)
    store.keys.set_anchor(h, crypto.key_check(key))
    store.keys.claim(h)  # the recovery file and its passphrase: the person moves it here
    store.keys.forget(h)
    store.audit.append("key_import", actor=actor, scope_hash=h, details={})
    return h


def _recovered_root(settings: state.Settings, data: dict[str, Any], key: bytes) -> str | None:
    """The folder a recovery file names: sealed (version 2) or in the clear (version 1)."""
    sealed = data.get("sealed_root")
    if isinstance(sealed, str) and sealed:
        try:
            return replace(settings, sealed_root=sealed).open_root(key)
        except (MemorydError, ValueError, KeyError, TypeError):
            return None
    root = data.get("root")
    return root if isinstance(root, str) and root else None


def missing_keys(store: Store) -> list[str]:
    """Sensitive scopes whose random key is not in the keyring (doctor's warning)."""
    out = []
    for h in sorted(state.sensitive_hashes(store.layout)):
        s = state.load(store.layout, h)
        if s is None or s.key_source != "random":
            continue
        try:
            present = state.keyring_get(state.key_entry(h)) is not None
        except KeyUnavailable:
            present = False
        if not present:
            out.append(h)
    return out


def status(store: Store) -> list[dict[str, Any]]:
    out = []
    for h in sorted(state.sensitive_hashes(store.layout)):
        s = state.load(store.layout, h)
        if s:
            out.append(
                {
                    "scope_hash": h,
                    "root": store.keys.root(h),  # None where it cannot be opened here
                    "key_source": s.key_source,
                    "marked_at": s.marked_at,
                }
            )
    return out
