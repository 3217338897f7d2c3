"""memoryd backup / restore: the whole data directory in one archive, and back (docs/backup.md)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from memoryd.cli import output


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    b = sub.add_parser(
        "backup",
        parents=[common],
        help="write the data directory to one .tar.gz (a consistent snapshot)",
        description="Memories, index (copied with SQLite's backup API), audit log, profile, sensitive "
        "scopes (still encrypted) and captures waiting in the spool, with a manifest of sha256 sums. "
        "Grants, logs and lock files are left out, and keys stay in the OS keyring: keep each "
        "sensitive scope's `memoryd key export` file too. Writers wait while the snapshot is taken. "
        "Example: memoryd backup --out ~/memoryd-2026-11-23.tar.gz",
    )
    b.add_argument("--out", required=True, type=Path, metavar="FILE", help="the archive to write")
    b.add_argument("--force", action="store_true", help="replace FILE if it exists")
    b.set_defaults(handler=run_backup)

    r = sub.add_parser(
        "restore",
        parents=[common],
        help="put a backup back into the data directory ($MEMORYD_HOME), then check it",
        description="Checks every file against the archive's manifest before anything is replaced; "
        "a damaged archive changes nothing. A data directory that holds memories is refused unless "
        "--force, which moves it aside to <home>.before-restore-<time> (never deleted). Ends with "
        "the checks of `memoryd doctor`; exit 1 if they find a problem. "
        "Example: memoryd restore ~/memoryd-2026-11-23.tar.gz",
    )
    r.add_argument("file", type=Path, metavar="FILE", help="an archive `memoryd backup` wrote")
    r.add_argument(
        "--force", action="store_true", help="move a data directory holding memories aside and restore"
    )
    r.set_defaults(handler=run_restore)


def _size(n: int) -> str:
    value = float(n)
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{n} bytes" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{n} bytes"


def _plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def run_backup(args: argparse.Namespace) -> int:
    from memoryd import backup, paths

    rep = backup.backup(paths.layout(), args.out, force=args.force, progress=output.note)
    if args.json:
        output.emit_json(rep.as_dict())
        return 0
    output.line(f"backup written to {rep.path} ({_size(rep.bytes)})")
    output.line(
        f"  {_plural(rep.memories, 'memory', 'memories')} in "
        f"{_plural(rep.scopes, 'scope')}, {_plural(rep.audit_events, 'audit event')}, "
        f"{_plural(rep.files, 'file')}"
        + (f"; {_plural(rep.spool_pending, 'capture')} waiting in the spool" if rep.spool_pending else "")
    )
    output.line(
        "  left out: grants, logs, lock files; keys are not in the archive (they stay in the OS keyring)"
    )
    if rep.sensitive_scopes:
        output.line(
            f"  {_plural(len(rep.sensitive_scopes), 'sensitive scope')}: on another machine its key must "
            "come back with `memoryd key import FILE` (write FILE now with `memoryd key export`)"
        )
    return 0


def run_restore(args: argparse.Namespace) -> int:
    from memoryd import backup, paths

    rep = backup.restore(paths.layout(), args.file, force=args.force, progress=output.note)
    if args.json:
        output.emit_json(rep.as_dict())
        return 0 if rep.ok else 1
    output.line(f"restored {rep.archive} (taken {rep.created_at}) into {rep.home}")
    if rep.moved_aside:
        output.line(f"  the data directory that was there is now {rep.moved_aside}")
    output.line(
        f"  {_plural(rep.memories, 'memory', 'memories')} in "
        f"{_plural(rep.scopes, 'scope')}, {_plural(rep.audit_events, 'audit event')}, "
        f"{_plural(rep.files, 'file')}"
    )
    d = rep.doctor
    if d.spool_pending:
        output.line(
            f"  {_plural(d.spool_pending, 'capture')} waiting in the spool: the next command takes them in"
        )
    for h in rep.missing_keys:
        output.line(
            f"  sensitive scope {h}: its key is not in this machine's keyring, so its memories cannot be "
            "read yet; restore it with `memoryd key import FILE` (the file `memoryd key export` wrote)"
        )
    problems = [
        (title, items)
        for title, items in (
            ("files without index rows", d.files_without_rows),
            ("index rows without files", d.rows_without_files),
            ("damaged files", d.corrupt_files),
        )
        if items
    ]
    for title, items in problems:
        output.line(f"doctor: {title}: {len(items)}")
        for item in items[:20]:
            output.line(f"  {item}")
    if d.audit is not None and not d.audit.ok:
        output.line(f"doctor: audit chain BROKEN at seq {d.audit.first_bad_seq}: {d.audit.reason}")
    if rep.ok:
        output.line(
            f"doctor: no problems (audit chain intact, {_plural(d.audit.events if d.audit else 0, 'event')})"
        )
        return 0
    output.line(
        "doctor: problems found; `memoryd reindex` heals index drift, `memoryd doctor` shows them again"
    )
    return 1
