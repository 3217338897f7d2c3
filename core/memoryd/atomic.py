"""Atomic file writes: temp file in the same folder, fsync, rename. A crash leaves the old
file or the new one, never half of either."""

from __future__ import annotations

import contextlib
import os

from memoryd.envpaths import FILE_MODE, ensure_dir

# Standard library `os` only: the agent hook writes its spool file through this module.
_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)


def write_bytes(path: str | os.PathLike[str], data: bytes, *, sync: bool = True) -> None:
    target = os.fspath(path)
    folder = os.path.dirname(target) or "."
    ensure_dir(folder)
    tmp = os.path.join(folder, f".tmp-{os.getpid()}-{os.urandom(6).hex()}.part")
    fd = os.open(tmp, _FLAGS, FILE_MODE)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    if sync:
        _fsync_dir(folder)


def write_text(path: str | os.PathLike[str], text: str, *, sync: bool = True) -> None:
    write_bytes(path, text.encode("utf-8"), sync=sync)


def _fsync_dir(folder: str) -> None:
    if os.name != "posix":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def is_temp(name: str) -> bool:
    """Leftovers of an interrupted write, which readers skip and doctor cleans."""
    return name.startswith(".tmp-") and name.endswith(".part")
