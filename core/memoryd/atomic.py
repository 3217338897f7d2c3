"""Atomic file writes: temp file in the same folder, fsync, rename. A crash leaves the old
file or the new one, never half of either."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from memoryd.paths import FILE_MODE, ensure_dir


def write_bytes(path: Path, data: bytes, *, sync: bool = True) -> None:
    ensure_dir(path.parent)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if sync:
                fh.flush()
                os.fsync(fh.fileno())
        os.chmod(tmp, FILE_MODE)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    if sync:
        _fsync_dir(path.parent)


def write_text(path: Path, text: str, *, sync: bool = True) -> None:
    write_bytes(path, text.encode("utf-8"), sync=sync)


def _fsync_dir(folder: Path) -> None:
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
