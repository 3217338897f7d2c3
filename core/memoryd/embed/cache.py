"""The user-wide model cache: one file per model tag under user_cache_dir("memoryd")/models/
(or $MEMORYD_CACHE_DIR/models/), shared by every memoryd home of the user, so a model's slow
one-time preparation is paid once per machine rather than once per process.

A cache file is a pack: a small header (what is in it, where, and a CRC of each part) and
then the parts, 64-byte aligned so that arrays can be mapped in place. It is written to a
temporary name and renamed, so a reader sees a whole file or none; a truncated, corrupt or
foreign file fails `open_pack` and is rebuilt. Every byte is checked before it is used:
`open_pack` checks each part whole, except the parts the writer declared `lazy` (large
tables of which a process reads a little), which their reader checks piece by piece as it
first uses them. Cached data is derived from the installed
wheel, never trusted on its own: the header names the tag it was built for.

The whole-part check costs 15-20 ms (15 MB of CRC-32) of a cold search on a busy machine,
so it runs once per version of the file: after it passes, a stamp beside the pack
(`model.pack.checked`) records the file's device, inode, size, mtime and ctime and its
header's CRC, and an open that finds the same stamp skips the whole-part CRCs (the header,
tag, size and bounds are checked at every open, the lazy parts at every use). That is
sound for any change made through the file system: every write or truncation updates
mtime and ctime, ctime cannot be set back from user space (touch sets it to now), and a
pack written anew (a temporary file renamed) is another inode. A change within the same
clock tick as the last one could keep both times, so no stamp is recorded for a file
changed in the last RACY_SECONDS (git's rule for racily clean files): a later change then
lands on a later tick. What no stamp sees is damage beneath the file system (a failing
disk returning other bytes for an unchanged file); the pack is derived data, and the
table rows and tokenizer buckets a query uses are still checked each time.
"""

from __future__ import annotations

import contextlib
import marshal
import mmap
import os
import stat
import struct
import sys
import tempfile
import time
import zlib
from collections.abc import Iterable
from typing import Any

from memoryd import envpaths

MAGIC = b"MDPACK01"
_HEAD = struct.Struct("<8sQI")  # magic, header length, header CRC
ALIGN = 64
STALE_TMP_SECONDS = 3600.0
RACY_SECONDS = 2.0  # a file changed more recently than this gets no stamp (see above)
STAMP = "memoryd pack checked v1"


class BadPack(Exception):
    """The cache file is missing, truncated, corrupt or built for something else."""


def cache_dir() -> str:
    """$MEMORYD_CACHE_DIR, else the platform's user cache dir for memoryd (platformdirs'
    rule; on Linux computed without importing it, as memoryd.envpaths does)."""
    env = os.environ.get("MEMORYD_CACHE_DIR", "").strip()
    if env:
        return os.path.expanduser(env)
    if sys.platform.startswith("linux") and "ANDROID_DATA" not in os.environ:
        base = os.environ.get("XDG_CACHE_HOME", "").strip() or os.path.expanduser("~/.cache")
        return os.path.join(base, "memoryd")
    if sys.platform == "darwin":
        return os.path.join(os.path.expanduser("~/Library/Caches"), "memoryd")
    import platformdirs

    return platformdirs.user_cache_dir("memoryd", appauthor=False)


def models_dir() -> str:
    return os.path.join(cache_dir(), "models")


def checksum(data: Any) -> int:
    """CRC-32 of a whole part. (Sampling blocks of a large part, as before, left 99.9% of
    the 65 MB weight table unchecked: damage there embedded wrongly and silently.)"""
    return zlib.crc32(memoryview(data).cast("B"))


def _padding(offset: int) -> int:
    return -offset % ALIGN


def write_pack(
    path: str,
    tag: str,
    meta: dict[str, Any],
    parts: Iterable[tuple[str, Any]],
    lazy: Iterable[str] = (),
) -> None:
    """Write a pack atomically (temporary file in the same directory, then rename).
    `parts` are (name, bytes-like) pairs; `meta` holds only marshal-able values; `lazy`
    names parts `open_pack` does not check, because their reader checks what it uses
    (`Pack.checked`, or CRCs of its own pieces kept in another part). Raises OSError when
    the directory cannot be written."""
    folder = os.path.dirname(path)
    envpaths.ensure_dir(folder)
    _sweep_stale(folder)
    table: dict[str, tuple[int, int, int]] = {}
    blobs: list[memoryview] = []
    offset = 0
    for name, data in parts:
        view = memoryview(data).cast("B")
        table[name] = (offset, len(view), checksum(view))
        blobs.append(view)
        offset += len(view) + _padding(len(view))
    lazy_names = sorted(set(lazy))
    if not set(lazy_names) <= set(table):
        raise ValueError(f"lazy parts not in the pack: {sorted(set(lazy_names) - set(table))}")
    header = marshal.dumps({"tag": tag, "meta": meta, "parts": table, "body": offset, "lazy": lazy_names}, 4)
    head = _HEAD.pack(MAGIC, len(header), zlib.crc32(header)) + header
    head += b"\0" * _padding(len(head))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".pack")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(head)
            for view in blobs:
                fh.write(view)
                fh.write(b"\0" * _padding(len(view)))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _sweep_stale(folder: str) -> None:
    """Temporary files left by a writer that was killed (fresh ones may be another
    process's write in progress)."""
    with contextlib.suppress(OSError):
        now = time.time()
        for entry in os.scandir(folder):
            if entry.name.startswith(".tmp-"):
                with contextlib.suppress(OSError):
                    if now - entry.stat().st_mtime > STALE_TMP_SECONDS:
                        os.unlink(entry.path)


class Pack:
    """An open pack: its parts are read-only views of one shared mapping of the file."""

    def __init__(self, path: str, buf: mmap.mmap, base: int, header: dict[str, Any]) -> None:
        self.path = path
        self.meta: dict[str, Any] = header["meta"]
        self._buf = buf
        self._base = base
        self._parts: dict[str, tuple[int, int, int]] = header["parts"]
        self.lazy: frozenset[str] = frozenset(header["lazy"])

    def names(self) -> list[str]:
        return list(self._parts)

    def part(self, name: str) -> memoryview:
        try:
            offset, length, _ = self._parts[name]
        except KeyError:
            raise BadPack(f"no part {name!r}") from None
        start = self._base + offset
        return memoryview(self._buf)[start : start + length]

    def checked(self, name: str) -> memoryview:
        """A part after checking it whole: for a lazy part read all at once."""
        view = self.part(name)
        if checksum(view) != self._parts[name][2]:
            raise BadPack(f"part {name!r} is corrupt")
        return view


def open_pack(path: str, tag: str) -> Pack:
    """Map a pack and check it: magic, header CRC, the tag it was built for, its size, and
    each part's CRC but the lazy ones'. Raises BadPack for anything amiss, OSError never
    escapes."""
    try:
        with open(path, "rb") as fh:
            st = os.fstat(fh.fileno())
            size = st.st_size
            if size < _HEAD.size:
                raise BadPack("truncated")
            buf = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except FileNotFoundError:
        raise BadPack("not built yet") from None
    except (OSError, ValueError) as exc:
        raise BadPack(f"unreadable: {exc}") from None
    magic, hlen, hcrc = _HEAD.unpack_from(buf, 0)
    if magic != MAGIC or _HEAD.size + hlen > size:
        raise BadPack("not a memoryd model pack")
    raw = buf[_HEAD.size : _HEAD.size + hlen]
    if zlib.crc32(raw) != hcrc:
        raise BadPack("header checksum mismatch")
    try:
        header = marshal.loads(raw)
    except (EOFError, ValueError, TypeError) as exc:
        raise BadPack(f"bad header: {exc}") from None
    if not isinstance(header, dict) or header.get("tag") != tag:
        raise BadPack("built for another model or version")
    base = _HEAD.size + hlen
    base += _padding(base)
    stamp = stamp_of(st, hcrc)
    checked = _stamped(path, stamp)
    try:
        if base + header["body"] != size:
            raise BadPack("size mismatch (truncated or foreign)")
        pack = Pack(path, buf, base, header)
        for name, (offset, length, crc) in pack._parts.items():
            if offset + length > header["body"]:
                raise BadPack(f"part {name!r} is out of bounds")
            if not checked and name not in pack.lazy and checksum(pack.part(name)) != crc:
                raise BadPack(f"part {name!r} is corrupt")
    except (KeyError, TypeError, ValueError) as exc:
        raise BadPack(f"bad header: {exc}") from None
    if not checked:
        _record(path, st, stamp)
    return pack


def stamp_path(path: str) -> str:
    return path + ".checked"


def stamp_of(st: os.stat_result, header_crc: int) -> str:
    """What identifies this version of a pack file (see the module docstring)."""
    return (
        f"{STAMP} {st.st_dev} {st.st_ino} {st.st_size} {st.st_mtime_ns} {st.st_ctime_ns} {header_crc:08x}\n"
    )


def _stamped(path: str, stamp: str) -> bool:
    """The pack's parts were checked whole in this very version of the file."""
    try:
        # Non-blocking and a regular file only: a FIFO put at this path would hang every
        # model load in open() (red team); a device or directory is no stamp either.
        fd = os.open(stamp_path(path), os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        return os.read(fd, len(stamp) + 1).decode("ascii") == stamp
    except (OSError, ValueError):
        return False
    finally:
        os.close(fd)


def _record(path: str, st: os.stat_result, stamp: str) -> None:
    """Note that this version was checked whole, unless it changed too recently to tell
    a later change by its times; silently nothing when the folder cannot be written."""
    if time.time_ns() - max(st.st_mtime_ns, st.st_ctime_ns) < RACY_SECONDS * 1e9:
        return
    folder = os.path.dirname(path)
    with contextlib.suppress(OSError):
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".checked")
        try:
            with os.fdopen(fd, "w", encoding="ascii") as fh:
                fh.write(stamp)
            os.replace(tmp, stamp_path(path))
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
