"""The trash: memory files a review action took away (a merge's dropped memories, an
approval undone), kept byte for byte so the action can be undone, and emptied after the
retention (the consolidation's decay phase, `memoryd decay-sweep`).

An entry is `trash/<id>/` holding `manifest.json`, the moved files under `files/` at
their path in the data dir (`files/scopes/<hash>/facts/<slug>.md`, turns beside them),
and copies of files the action rewrote under `before/`. Files move by rename within the
data dir; a sealed `.md.enc` stays sealed (its bytes move, nothing is decrypted), and it
opens again at its old place, being sealed to its scope and slug. The trash is outside
scopes/, so no listing, search, reindex or injection sees it."""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from memoryd import atomic, clock
from memoryd.envpaths import ensure_dir
from memoryd.errors import UsageError
from memoryd.paths import Layout
from memoryd.store.files import MemoryFiles

if TYPE_CHECKING:
    from memoryd.audit import AuditLog

RETENTION_DAYS = 30
MANIFEST = "manifest.json"


def new_entry(layout: Layout, *, kind: str, scopes: Sequence[str]) -> str:
    """A new, empty entry; its id is what the action records."""
    if layout.trash.exists() and not layout.trash.is_dir():
        raise UsageError(f"{layout.trash} is a file, not the trash folder: move it away and try again")
    ensure_dir(str(layout.trash))
    name = f"{clock.now().strftime('%Y%m%dT%H%M%SZ')}-{secrets.token_hex(4)}"
    folder = layout.trash / name
    folder.mkdir(mode=0o700)
    manifest = {"created_at": clock.now_iso(), "kind": kind, "scopes": sorted(set(scopes))}
    atomic.write_text(folder / MANIFEST, json.dumps(manifest, sort_keys=True) + "\n")
    return name


_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")


def entry(layout: Layout, name: str) -> Path | None:
    """The entry's folder; None when there is none by that name (or the name, read from
    the index, is not one an entry can have: nothing outside trash/ is ever touched)."""
    if not _NAME.match(name or ""):
        return None
    folder = layout.trash / name
    return folder if (folder / MANIFEST).is_file() else None


def confined(layout: Layout, body_path: str) -> str:
    """A memory's path as the index gives it, refused unless it lies under scopes/: a
    hand-edited index must not make a move or a write land anywhere else."""
    p = PurePosixPath(body_path)
    ok = not p.is_absolute() and len(p.parts) >= 3 and p.parts[0] == "scopes" and ".." not in p.parts
    if ok:
        try:
            (layout.home / body_path).resolve().relative_to(layout.scopes.resolve())
        except (ValueError, OSError):
            ok = False
    if not ok:
        raise UsageError(
            f"{body_path!r} lies outside the data directory's memories (was index.db edited? "
            "`memoryd reindex` rebuilds it); nothing was changed"
        )
    return body_path


def _with_turns(files: MemoryFiles, path: Path) -> list[Path]:
    return [path, files.turns_path(path)]


def move_in(files: MemoryFiles, name: str, body_path: str) -> None:
    """A memory file (and its turns) from its place into the entry, by rename."""
    confined(files.layout, body_path)
    src = files.absolute(body_path)
    dst = files.layout.trash / name / "files" / body_path
    for a, b in zip(_with_turns(files, src), _with_turns(files, dst), strict=True):
        if a.exists():
            ensure_dir(str(b.parent))
            os.replace(a, b)


def trashed(files: MemoryFiles, name: str, body_path: str) -> Path:
    """Where a moved file lies in the entry (readable there: same scope folder and name)."""
    confined(files.layout, body_path)
    return files.layout.trash / name / "files" / body_path


def move_out(files: MemoryFiles, name: str, body_path: str) -> None:
    """Back to its place, turns too; the rename keeps the bytes as they were."""
    confined(files.layout, body_path)
    src = trashed(files, name, body_path)
    dst = files.absolute(body_path)
    for a, b in zip(_with_turns(files, src), _with_turns(files, dst), strict=True):
        if a.exists():
            ensure_dir(str(b.parent))
            os.replace(a, b)


def keep_before(files: MemoryFiles, name: str, body_path: str) -> None:
    """A copy of a file the action is about to rewrite (its bytes: ciphertext stays so)."""
    confined(files.layout, body_path)
    src = files.absolute(body_path)
    dst = files.layout.trash / name / "before" / body_path
    atomic.write_bytes(dst, src.read_bytes())


def before_path(files: MemoryFiles, name: str, body_path: str) -> Path:
    """Where the copy lies (readable there: same scope folder and name)."""
    confined(files.layout, body_path)
    return files.layout.trash / name / "before" / body_path


def before(files: MemoryFiles, name: str, body_path: str) -> bytes | None:
    path = before_path(files, name, body_path)
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def remove(layout: Layout, name: str) -> None:
    folder = entry(layout, name)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


def _created(folder: Path) -> datetime | None:
    try:
        return clock.parse_ts(json.loads((folder / MANIFEST).read_text("utf-8"))["created_at"])
    except Exception:  # unreadable or malformed: judged by the folder's age
        return None


def _scopes(folder: Path) -> list[str]:
    try:
        return list(json.loads((folder / MANIFEST).read_text("utf-8")).get("scopes") or [])
    except (OSError, ValueError, AttributeError):
        return []


def purge(
    layout: Layout,
    *,
    days: int = RETENTION_DAYS,
    now: datetime | None = None,
    dry_run: bool = False,
    audit: AuditLog | None = None,
    actor: str = "memoryd",
) -> int:
    """Empty the entries older than the retention; returns how many went (or would go,
    `dry_run`), logged as `trash_emptied` when `audit` is given and any went: the undo of
    their actions ends there. An entry whose manifest cannot be read (an interrupted
    creation) goes by its folder's age."""
    root = layout.trash
    if not root.is_dir():
        return 0
    cutoff = (now or clock.now()) - timedelta(days=days)
    gone = 0
    for folder in sorted(root.iterdir()):
        if not folder.is_dir():
            continue
        created = _created(folder)
        if created is None:
            with contextlib.suppress(OSError):
                created = datetime.fromtimestamp(folder.stat().st_mtime, tz=cutoff.tzinfo)
        if created is not None and created < cutoff:
            if not dry_run:
                shutil.rmtree(folder, ignore_errors=True)
            gone += 1
    if gone and audit is not None and not dry_run:
        audit.append("trash_emptied", actor=actor, details={"entries": gone, "days": days})
    return gone


def drop_scope(layout: Layout, scope_hash: str) -> int:
    """Empty the entries of a scope whose files change form (marked or unmarked sensitive,
    key rotated): trashed files of the old form must neither stay in the clear nor come
    back sealed to a key the scope no longer has. Their undo then says the trash is gone."""
    root = layout.trash
    if not root.is_dir():
        return 0
    gone = 0
    for folder in sorted(root.iterdir()):
        if folder.is_dir() and _holds(layout, folder, scope_hash):
            shutil.rmtree(folder, ignore_errors=True)
            gone += 1
    return gone


def _holds(layout: Layout, folder: Path, scope_hash: str) -> bool:
    """Whether an entry holds files of the scope: its manifest says so, or (a manifest
    damaged or missing must not keep plaintext behind) a file lies under its folder."""
    if scope_hash in _scopes(folder):
        return True
    inside = layout.scope_dir(scope_hash).relative_to(layout.home)
    return any((folder / part / inside).exists() for part in ("files", "before"))
