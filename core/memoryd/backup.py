"""Backups of the data directory (docs/backup.md): `backup` writes one gzip-compressed tar
holding a consistent snapshot of everything memoryd keeps, `restore` puts one back.

What goes in is everything under the home except what must not travel or is only of use
to the running processes: grants (time-limited access must never outlive its machine and
moment), lock files, logs, the tray's socket folder, temp files of interrupted writes, and
index.db's raw files (the index is copied with SQLite's online backup API instead, which
is the one consistent way to copy a live WAL database). Keys stay in the OS keyring.

Consistency: memoryd's background writers (consolidation, the capture worker, analysis)
are kept out by their own locks, and foreground writers (a `record`, an import) by the
audit lock, which every write takes last; the copy is then repeated until two passes agree
on which memory files and index rows exist, so a write caught half-way (file written,
row not yet) is never in the archive. The `backup` audit event is appended after the
snapshot, so the archive's own chain and its index's chain head agree.

A restore extracts into a temp directory beside the home, refusing anything unsafe (links,
devices, absolute or `..` paths, members the manifest does not name or that do not match
its sha256 and size), and only then renames it into place: a bad archive leaves the home
as it was. A home that holds memories is moved aside, never deleted.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import shutil
import sqlite3
import stat
import tarfile
import tempfile
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO, TYPE_CHECKING, Any

from memoryd import __version__, atomic, clock
from memoryd.errors import MemorydError, StorageError, UsageError
from memoryd.paths import DIR_MODE, FILE_MODE, Layout, ensure_dir

if TYPE_CHECKING:  # the store pulls in SQLAlchemy: a refused archive is told without it
    from memoryd.store import DoctorReport

FORMAT = "memoryd-backup"
VERSION = 1
MANIFEST = "manifest.json"
PREFIX = "home/"  # every data member is home/<path relative to the data directory>
INDEX = "index.db"
LOCK_WAIT = 300.0  # seconds to wait for a running consolidation or worker before giving up
MAX_PASSES = 30
MAX_MANIFEST_BYTES = 64 * 1024 * 1024
CHUNK = 1024 * 1024

# Top-level folders that never travel: grants are time-limited access to sensitive scopes
# (security: a restored grant would open a scope nobody granted here), logs and the tray's
# socket folder belong to the processes that wrote them.
EXCLUDED_DIRS = frozenset({"grants", "logs", "run"})
# The index is copied through SQLite's backup API; its raw files would be torn copies.
INDEX_FILES = frozenset({INDEX, f"{INDEX}-wal", f"{INDEX}-shm", f"{INDEX}-journal"})

Say = Callable[[str], None]


class BadArchive(MemorydError):
    """A file `restore` cannot use: not a memoryd backup, damaged, truncated or unsafe."""


def excluded(rel: str) -> bool:
    """Whether a path (relative to the home, `/`-separated) stays out of a backup."""
    parts = rel.split("/")
    if parts[0] in EXCLUDED_DIRS or (len(parts) == 1 and parts[0] in INDEX_FILES):
        return True
    name = parts[-1]
    return name.endswith(".lock") or atomic.is_temp(name)


def holds_memories(home: Path) -> bool:
    """The spec's test for a home a restore must not replace without --force."""
    scopes = home / "scopes"
    return (home / INDEX).exists() or (scopes.is_dir() and any(scopes.iterdir()))


# -- reports --------------------------------------------------------------------------
@dataclass
class BackupReport:
    path: str
    bytes: int
    sha256: str
    files: int
    memories: int
    scopes: int
    audit_events: int
    audit_head: dict[str, Any] | None
    spool_pending: int
    created_at: str
    # Sensitive scopes in the archive: their keys are not in it (they stay in the keyring).
    sensitive_scopes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "keys_included": False}


@dataclass
class RestoreReport:
    home: str
    archive: str
    files: int
    bytes: int
    memories: int
    scopes: int
    audit_events: int
    created_at: str
    source_home: str
    moved_aside: str | None
    doctor: DoctorReport

    @property
    def missing_keys(self) -> list[str]:
        return list(self.doctor.missing_keys)

    @property
    def ok(self) -> bool:
        """Doctor's verdict, except that a key missing from this machine's keyring is a
        step left to the user (`memoryd key import`), not a failed restore."""
        d = self.doctor
        return not (
            d.files_without_rows
            or d.rows_without_files
            or d.corrupt_files
            or (d.audit is not None and not d.audit.ok)
        )

    def as_dict(self) -> dict[str, Any]:
        d = self.doctor
        doctor = {k: v for k, v in d.__dict__.items() if k != "audit"}
        doctor["audit"] = d.audit.__dict__ if d.audit else None
        doctor["ok"] = d.ok
        out = {k: v for k, v in self.__dict__.items() if k != "doctor"}
        return {**out, "doctor": doctor, "missing_keys": self.missing_keys, "ok": self.ok}


# -- locks ----------------------------------------------------------------------------
def _lock_paths(layout: Layout) -> list[tuple[str, Path]]:
    """The locks to hold, in the order every other holder takes them (consolidation holds
    its own lock, then the worker's, then analysis; the audit lock is always taken last),
    so holding them all cannot deadlock with anyone."""
    from memoryd.fallback import lock_path

    return [
        ("a consolidation", Path(lock_path(layout))),
        ("the capture worker", layout.worker_lock),
        ("an analysis", layout.analysis_lock),
        ("a write", layout.audit_lock),
    ]


@contextlib.contextmanager
def _quiet(layout: Layout, wait: float, say: Say, *, only_existing: bool = False) -> Iterator[None]:
    """Hold the writers' locks. `only_existing`: do not create lock files (a home being
    moved aside is left exactly as it was)."""
    from filelock import FileLock, Timeout

    with contextlib.ExitStack() as stack:
        for what, path in _lock_paths(layout):
            if only_existing and not path.exists():
                continue
            ensure_dir(path.parent)
            lock = FileLock(str(path), mode=FILE_MODE)
            try:
                lock.acquire(timeout=0)
            except Timeout:
                say(f"waiting for {what} to finish in {layout.home}")
                try:
                    lock.acquire(timeout=wait)
                except Timeout:
                    raise StorageError(
                        f"{what} is still running in {layout.home} after {wait:.0f} s; try again later"
                    ) from None
            stack.callback(lock.release)
        yield


# -- backup ---------------------------------------------------------------------------
@dataclass
class _Copied:
    key: tuple[int, int, int]  # inode, mtime_ns, size when copied: a change shows on the next pass
    sha256: str
    size: int
    mtime: float


def _copy(src: str, dest: Path) -> _Copied | None:
    """Copy one regular file into the staging folder, hashing the bytes copied. None when it
    went away or is not a regular file (sockets, links)."""
    try:
        fd = os.open(src, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            return None
        ensure_dir(dest.parent)
        digest, size = hashlib.sha256(), 0
        out_fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0), FILE_MODE)
        with os.fdopen(out_fd, "wb") as out:
            while chunk := fh.read(CHUNK):
                digest.update(chunk)
                out.write(chunk)
                size += len(chunk)
    return _Copied((st.st_ino, st.st_mtime_ns, st.st_size), digest.hexdigest(), size, st.st_mtime)


def _sync(home: Path, stage: Path, staged: dict[str, _Copied]) -> int:
    """Bring the staging copy up to date with the home: copy what is new or changed since
    the last pass, drop what is gone. Returns how many files changed."""
    seen: set[str] = set()
    changed = 0
    for dirpath, dirnames, filenames in os.walk(home):
        base = Path(dirpath).relative_to(home).as_posix()
        prefix = "" if base == "." else base + "/"
        dirnames[:] = sorted(
            d for d in dirnames if not excluded(prefix + d) and not os.path.islink(os.path.join(dirpath, d))
        )
        for name in sorted(filenames):
            rel = prefix + name
            if excluded(rel):
                continue
            full = os.path.join(dirpath, name)
            try:
                st = os.lstat(full)
            except FileNotFoundError:
                continue
            if not stat.S_ISREG(st.st_mode):
                continue
            old = staged.get(rel)
            if old is not None and old.key == (st.st_ino, st.st_mtime_ns, st.st_size):
                seen.add(rel)
                continue
            copied = _copy(full, stage / rel)
            if copied is None:
                continue
            seen.add(rel)
            staged[rel] = copied
            changed += 1
    for rel in set(staged) - seen:
        (stage / rel).unlink(missing_ok=True)
        del staged[rel]
        changed += 1
    return changed


def _backup_index(src: sqlite3.Connection, dest: Path) -> None:
    tmp = dest.with_name(dest.name + ".new")
    tmp.unlink(missing_ok=True)
    dst = sqlite3.connect(tmp)
    try:
        src.backup(dst)  # one step: a single read transaction, so one consistent state
    finally:
        dst.close()
    os.replace(tmp, dest)


def _rows(db: Path) -> frozenset[str]:
    con = sqlite3.connect(db)
    try:
        return frozenset(r[0] for r in con.execute("SELECT body_path FROM memories"))
    except sqlite3.DatabaseError:
        return frozenset()
    finally:
        con.close()


def _memory_files(stage: Path) -> frozenset[str]:
    from memoryd.store.files import MemoryFiles

    files = MemoryFiles(Layout(stage))
    return frozenset(files.relative(p) for p in files.all_files())


def _staged(root: Path, rel: str) -> Path:
    """Where a file sits in the staging folder: the home's files in a mirror under home/,
    the index copy beside it (so no file of the home can be mistaken for it)."""
    return root / INDEX if rel == INDEX else root / "home" / rel


def _snapshot(layout: Layout, root: Path, wait: float, say: Say) -> dict[str, _Copied]:
    """Copy the home into the staging folder `root` while the writers are held, until two
    passes agree on the memory files and the index rows (doctor's view of consistency)."""
    home, stage = layout.home, root / "home"
    staged: dict[str, _Copied] = {}
    with _quiet(layout, wait, say):
        src = sqlite3.connect(layout.index_db.absolute().as_uri() + "?mode=rw", uri=True, timeout=60)
        try:
            backed: int | None = None
            rows: frozenset[str] = frozenset()
            previous: tuple[frozenset[str], frozenset[str]] | None = None
            for attempt in range(MAX_PASSES):
                _sync(home, stage, staged)
                version = int(src.execute("PRAGMA data_version").fetchone()[0])
                if version != backed:
                    _backup_index(src, root / INDEX)
                    backed, rows = version, _rows(root / INDEX)
                shape = (_memory_files(stage), rows)
                if shape == previous:
                    break
                previous = shape
                # let a write caught between its file and its row reach the audit lock
                time.sleep(min(0.05 * (attempt + 1), 0.5))
            else:
                raise StorageError(
                    "the data directory kept changing during the backup; nothing was written, try again"
                )
        except sqlite3.Error as exc:
            raise StorageError(f"cannot read {layout.index_db}: {exc}") from None
        finally:
            src.close()
    _copy_index_record(root, staged)
    return staged


def _copy_index_record(root: Path, staged: dict[str, _Copied]) -> None:
    path = root / INDEX
    for leftover in (f"{INDEX}-wal", f"{INDEX}-shm"):
        (root / leftover).unlink(missing_ok=True)
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(CHUNK):
            digest.update(chunk)
    st = path.stat()
    key = (st.st_ino, st.st_mtime_ns, st.st_size)
    staged[INDEX] = _Copied(key, digest.hexdigest(), st.st_size, time.time())


def _facts(root: Path) -> dict[str, Any]:
    """Counts and the chain head of the snapshot, read from the staged copy."""
    stage = root / "home"
    con = sqlite3.connect(root / INDEX)
    try:
        memories = int(con.execute("SELECT COUNT(*) FROM memories").fetchone()[0])
        scopes = int(con.execute("SELECT COUNT(DISTINCT scope_hash) FROM memories").fetchone()[0])
        try:
            row = con.execute("SELECT seq, this_hash FROM audit_head WHERE id = 1").fetchone()
        except sqlite3.OperationalError:
            row = None
    finally:
        con.close()
    log = stage / "audit" / "audit.jsonl"
    events = 0
    if log.exists():
        with open(log, "rb") as fh:
            events = sum(1 for _ in fh)
    sensitive = sorted(p.parent.name for p in (stage / "scopes").glob("*/sensitive.json"))
    spool = stage / "spool"
    pending = sum(1 for p in spool.glob("*.json")) if spool.is_dir() else 0
    return {
        "memories": memories,
        "scopes": scopes,
        "audit_events": events,
        "audit_head": {"seq": row[0], "hash": row[1]} if row else None,
        "sensitive_scopes": sensitive,
        "spool_pending": pending,
    }


def _check_out(layout: Layout, out: Path, force: bool) -> Path:
    out = Path(os.path.abspath(out.expanduser()))
    if not out.parent.is_dir():
        raise UsageError(f"{out.parent} does not exist; create it or choose another --out")
    if out.is_dir():
        raise UsageError(f"{out} is a directory; --out names the archive file to write")
    if out.exists() and not force:
        raise UsageError(f"{out} exists; choose another --out or pass --force to replace it")
    home = Path(os.path.realpath(layout.home))
    if Path(os.path.realpath(out.parent)).is_relative_to(home):
        raise UsageError(f"--out must be outside the data directory {layout.home}")
    return out


def _write_archive(out: Path, root: Path, staged: dict[str, _Copied], manifest: dict[str, Any]) -> str:
    """The archive, atomically (temp file beside it, fsync, rename); its sha256."""
    tmp = out.parent / f".tmp-{os.getpid()}-{os.urandom(6).hex()}.part"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), FILE_MODE)
    try:
        with os.fdopen(fd, "wb") as raw:
            with tarfile.open(fileobj=raw, mode="w:gz", format=tarfile.PAX_FORMAT, compresslevel=6) as tar:
                data = json.dumps(manifest, indent=2, sort_keys=True).encode("utf-8")
                tar.addfile(_info(MANIFEST, len(data), time.time()), io.BytesIO(data))
                for rel in sorted(staged):
                    c = staged[rel]
                    with open(_staged(root, rel), "rb") as fh:
                        tar.addfile(_info(PREFIX + rel, c.size, c.mtime), fh)
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(tmp, out)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):
        atomic._fsync_dir(str(out.parent))
    digest = hashlib.sha256()
    with open(out, "rb") as fh:
        while chunk := fh.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _info(name: str, size: int, mtime: float) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.size, info.mtime, info.mode = size, int(max(mtime, 0)), FILE_MODE
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    return info


def backup(
    layout: Layout,
    out: Path,
    *,
    force: bool = False,
    actor: str = "cli",
    wait: float = LOCK_WAIT,
    progress: Say | None = None,
) -> BackupReport:
    """Write the data directory of `layout` to `out` (a .tar.gz) and audit it."""
    say = progress or (lambda _text: None)
    out = _check_out(layout, out, force)
    if not layout.index_db.is_file():
        raise StorageError(f"nothing to back up: {layout.home} has no {INDEX}")
    root = Path(tempfile.mkdtemp(prefix=".memoryd-backup-", dir=out.parent))
    try:
        staged = _snapshot(layout, root, wait, say)
        facts = _facts(root)
        created = clock.now_iso()
        manifest = {
            "format": FORMAT,
            "version": VERSION,
            "created_at": created,
            "memoryd_version": __version__,
            "home": str(layout.home),
            "files": {rel: {"sha256": c.sha256, "size": c.size} for rel, c in sorted(staged.items())},
            "audit_head": facts["audit_head"],
            "counts": {k: facts[k] for k in ("memories", "scopes", "audit_events", "spool_pending")},
            "sensitive_scopes": facts["sensitive_scopes"],
            "keys_included": False,
        }
        sha = _write_archive(out, root, staged, manifest)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    size = out.stat().st_size
    from memoryd.store import Store

    store = Store.open(layout)
    try:
        store.audit.append(
            "backup",
            actor=actor,
            details={
                "out": str(out),
                "bytes": size,
                "sha256": sha,
                "files": len(staged),
                "memories": facts["memories"],
                "audit_head_seq": (facts["audit_head"] or {}).get("seq"),
            },
        )
    finally:
        store.engine.dispose()
    return BackupReport(
        path=str(out),
        bytes=size,
        sha256=sha,
        files=len(staged),
        memories=facts["memories"],
        scopes=facts["scopes"],
        audit_events=facts["audit_events"],
        audit_head=facts["audit_head"],
        spool_pending=facts["spool_pending"],
        created_at=created,
        sensitive_scopes=facts["sensitive_scopes"],
    )


# -- restore --------------------------------------------------------------------------
def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or exc.__class__.__name__
    return text[:200]


def _check_rel(rel: str, what: str) -> None:
    """A relative path that stays inside the folder it is extracted into."""
    bad = (
        not rel
        or rel.startswith("/")
        or "\\" in rel
        or any(ord(c) < 32 for c in rel)
        or (os.name == "nt" and ":" in rel)
    )
    if not bad:
        parts = PurePosixPath(rel).parts
        bad = PurePosixPath(rel).as_posix() != rel or any(p in ("", ".", "..") for p in parts)
    if bad:
        raise BadArchive(f"{what} {rel!r} is not a safe relative path: refused")


def _manifest(tar: tarfile.TarFile, member: tarfile.TarInfo | None) -> dict[str, Any]:
    if member is None or member.name != MANIFEST or not member.isreg():
        raise BadArchive("it does not start with manifest.json: not a memoryd backup")
    if member.size > MAX_MANIFEST_BYTES:
        raise BadArchive("its manifest.json is implausibly large")
    reader = tar.extractfile(member)
    assert reader is not None
    try:
        data = json.loads(reader.read())
    except (ValueError, UnicodeDecodeError):
        raise BadArchive("its manifest.json is not JSON") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BadArchive(f"its manifest is not a {FORMAT} manifest")
    if data.get("version") != VERSION:
        raise BadArchive(
            f"backup format version {data.get('version')!r} is not one this memoryd reads (version {VERSION})"
        )
    files = data.get("files")
    if not isinstance(files, dict) or INDEX not in files:
        raise BadArchive(f"its manifest lists no files or no {INDEX}")
    for rel, entry in files.items():
        _check_rel(rel, "manifest entry")
        if excluded(rel) and rel != INDEX:
            raise BadArchive(f"its manifest names {rel!r}, which never belongs in a backup")
        ok = (
            isinstance(entry, dict)
            and isinstance(entry.get("sha256"), str)
            and len(entry["sha256"]) == 64
            and all(c in "0123456789abcdef" for c in entry["sha256"])
            and type(entry.get("size")) is int
            and entry["size"] >= 0
        )
        if not ok:
            raise BadArchive(f"its manifest entry for {rel!r} has no valid sha256 and size")
    return data


def _member(member: tarfile.TarInfo, files: dict[str, Any], seen: set[str]) -> str:
    """The home-relative path of a data member, after every safety check."""
    name = member.name
    if member.issym() or member.islnk():
        raise BadArchive(f"member {name!r} is a link: refused")
    if not member.isreg():
        raise BadArchive(f"member {name!r} is not a regular file: refused")
    if not name.startswith(PREFIX):
        raise BadArchive(f"member {name!r} is outside home/: refused")
    rel = name[len(PREFIX) :]
    _check_rel(rel, "member")
    if rel not in files:
        raise BadArchive(f"member {name!r} is not in the manifest: refused")
    if rel in seen:
        raise BadArchive(f"member {name!r} appears twice: refused")
    if member.size != files[rel]["size"]:
        raise BadArchive(f"member {name!r} has {member.size} bytes, the manifest says {files[rel]['size']}")
    return rel


_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)


def _write_member(src: IO[bytes], rel: str, dest: Path, expected: str, mtime: float) -> None:
    try:
        ensure_dir(dest.parent)
        fd = os.open(dest, _NEW_FILE, FILE_MODE)
    except OSError as exc:
        raise StorageError(f"cannot write {dest}: {exc.strerror or exc}") from None
    digest = hashlib.sha256()
    with os.fdopen(fd, "wb") as out:
        while chunk := src.read(CHUNK):  # a read error is the archive's: the caller says so
            digest.update(chunk)
            try:
                out.write(chunk)
            except OSError as exc:
                raise StorageError(f"cannot write {dest}: {exc.strerror or exc}") from None
    if digest.hexdigest() != expected:
        raise BadArchive(f"{rel}: its content does not match the manifest's sha256 (damaged or altered)")
    with contextlib.suppress(OSError, OverflowError, ValueError):
        os.utime(dest, (mtime, mtime))


def _open_tar(archive: Path) -> tarfile.TarFile:
    try:
        return tarfile.open(archive, mode="r|gz")  # a stream: members in order, manifest first
    except FileNotFoundError:
        raise UsageError(f"{archive}: no such file") from None
    except (tarfile.TarError, EOFError, zlib.error, OSError) as exc:
        raise BadArchive(f"not a gzip-compressed tar ({_one_line(exc)})") from None


def _extract(archive: Path, stage: Path) -> tuple[dict[str, Any], int]:
    """Every member into `stage`, checked; the manifest and the bytes written."""
    total = 0
    with _open_tar(archive) as tar:
        members = iter(tar)
        manifest = _manifest(tar, next(members, None))
        files: dict[str, Any] = manifest["files"]
        seen: set[str] = set()
        for member in members:
            rel = _member(member, files, seen)
            reader = tar.extractfile(member)
            assert reader is not None
            _write_member(reader, rel, stage / rel, files[rel]["sha256"], member.mtime)
            seen.add(rel)
            total += member.size
        missing = sorted(set(files) - seen)
        if missing:
            raise BadArchive(
                f"it is truncated: {len(missing)} file(s) of the manifest are missing (first: {missing[0]})"
            )
    return manifest, total


def _check_index(db: Path) -> None:
    try:
        con = sqlite3.connect(db)
        try:
            verdict = con.execute("PRAGMA quick_check").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error as exc:
        raise BadArchive(f"its {INDEX} does not open ({_one_line(exc)})") from None
    if verdict != "ok":
        raise BadArchive(f"its {INDEX} is damaged ({verdict})")


def _private(root: Path) -> None:
    """Restored files 0600, folders 0700, whatever the archive or the umask said."""
    os.chmod(root, DIR_MODE)
    for dirpath, dirnames, filenames in os.walk(root):
        for d in dirnames:
            os.chmod(os.path.join(dirpath, d), DIR_MODE)
        for f in filenames:
            os.chmod(os.path.join(dirpath, f), FILE_MODE)


def _aside(home: Path) -> Path:
    stamp = clock.now().strftime("%Y%m%dT%H%M%SZ")
    target = home.with_name(f"{home.name}.before-restore-{stamp}")
    n = 2
    while target.exists() or target.is_symlink():
        target = home.with_name(f"{home.name}.before-restore-{stamp}-{n}")
        n += 1
    return target


def _swap(layout: Layout, home: Path, stage: Path, wait: float, say: Say) -> Path | None:
    """Put `stage` where the home is; an occupied home is renamed aside first (its writers'
    locks held meanwhile, so no consolidation or worker is cut off mid-write)."""
    if not home.exists():
        os.rename(stage, home)
        return None
    if home.is_dir() and not any(home.iterdir()):
        os.rmdir(home)
        os.rename(stage, home)
        return None
    moved = _aside(home)
    with _quiet(Layout(home), wait, say, only_existing=True):
        os.rename(home, moved)
        try:
            os.rename(stage, home)
        except OSError as exc:
            os.rename(moved, home)
            raise StorageError(f"cannot move the restored data into {home}: {exc.strerror or exc}") from None
    return moved


def restore(
    layout: Layout,
    archive: Path,
    *,
    force: bool = False,
    actor: str = "cli",
    wait: float = LOCK_WAIT,
    progress: Say | None = None,
) -> RestoreReport:
    """Replace the data directory of `layout` with the backup `archive`, then check it as
    `doctor` does and audit the restore."""
    say = progress or (lambda _text: None)
    archive = Path(os.path.abspath(archive.expanduser()))
    if not archive.is_file():
        raise UsageError(f"{archive}: no such file")
    home = Path(os.path.realpath(layout.home))
    if holds_memories(home) and not force:
        raise UsageError(
            f"{layout.home} already holds memories; `memoryd restore --force` moves it aside to "
            f"{home.name}.before-restore-<time> and restores into a fresh one"
        )
    ensure_dir(home.parent)
    stage = Path(tempfile.mkdtemp(prefix=f".{home.name}.restore-", dir=home.parent))
    try:
        try:
            manifest, total = _extract(archive, stage)
        except (tarfile.TarError, EOFError, zlib.error, OSError, UnicodeDecodeError) as exc:
            # OSError here is the gzip layer (a bad CRC or header); writes raise StorageError
            raise BadArchive(f"damaged or truncated ({_one_line(exc)})") from None
        _check_index(stage / INDEX)
        Layout(stage).prepare()
        _private(stage)
        moved = _swap(layout, home, stage, wait, say)
    except BadArchive as exc:
        shutil.rmtree(stage, ignore_errors=True)
        raise BadArchive(f"{archive} cannot be restored: {exc}") from None
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    from memoryd import doctor as doctor_mod
    from memoryd.store import Store

    store = Store.open(layout)
    try:
        # The archive's log ends before this data dir's last write: memoryd moves the OS
        # keyring's audit anchor back to it itself (and says so in the `restore` event).
        anchor = store.audit.adopt_restored()
        doctor = doctor_mod.run(store)
        counts = store.counts()
        report = RestoreReport(
            home=str(layout.home),
            archive=str(archive),
            files=len(manifest["files"]),
            bytes=total,
            memories=sum(int(r["n"]) for r in counts["by_type"]),
            scopes=len(counts["by_scope"]),
            audit_events=doctor.audit.events if doctor.audit else 0,
            created_at=str(manifest.get("created_at") or ""),
            source_home=str(manifest.get("home") or ""),
            moved_aside=str(moved) if moved else None,
            doctor=doctor,
        )
        store.audit.append(
            "restore",
            actor=actor,
            details={
                "archive": str(archive),
                "created_at": report.created_at,
                "files": report.files,
                "moved_aside": report.moved_aside,
                "doctor_ok": report.ok,
                "missing_keys": len(report.missing_keys),
                "audit_anchor": anchor,
            },
        )
    finally:
        store.engine.dispose()
    return report


__all__ = [
    "FORMAT",
    "VERSION",
    "BackupReport",
    "BadArchive",
    "RestoreReport",
    "backup",
    "excluded",
    "holds_memories",
    "restore",
]
