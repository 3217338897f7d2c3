"""Reading a file whose path came from outside (a hook payload, an import argument, another
tool's store): regular files only, opened without blocking, read up to a bound.

A path can name a FIFO (open() waits forever for a writer), a character device such as
/dev/zero (an endless read) or a directory. Every such path is refused with a
`NotRegularFile`, an OSError, so callers' existing `except OSError` turns it into a logged
skip. Symlinks are followed on purpose: a link to a regular file is a legitimate transcript;
a symlink loop fails in open() with ELOOP, an OSError too.

Standard library only: the capture worker and the importers use it.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import BinaryIO

MB = 1024 * 1024
# O_NONBLOCK: opening a FIFO for reading returns at once instead of waiting for a writer
# (it is refused right after, by fstat). O_NOCTTY: a terminal device never becomes ours.
_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class NotRegularFile(OSError):
    """The path names something other than a regular file; nothing was read."""


class TooLarge(OSError):
    """The file is bigger than the bound its reader set; nothing was read."""


def size_text(n: int) -> str:
    """A byte count as a person reads it: 8.9 MB, 256 KB, 512 bytes."""
    if n >= MB:
        return f"{n / MB:.1f}".removesuffix(".0") + " MB"
    if n >= 1024:
        return f"{n / 1024:.1f}".removesuffix(".0") + " KB"
    return f"{n} bytes"


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """Open `path` for binary reading if it is a regular file, without ever blocking."""
    fd = os.open(path, _FLAGS)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
            raise NotRegularFile(errno.EINVAL, f"{kind}, not a regular file", os.fspath(path))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)  # a regular file never blocks; plain reads from here on
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bytes(path: str | os.PathLike[str], limit: int) -> bytes:
    """The whole of a regular file of at most `limit` bytes; TooLarge past that."""
    with open_regular(path) as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise TooLarge(
            errno.EFBIG, f"larger than {size_text(limit)}, the limit for this file", os.fspath(path)
        )
    return data


def read_text(path: str | os.PathLike[str], limit: int, encoding: str = "utf-8") -> str:
    """read_bytes, decoded (UnicodeDecodeError as str.decode raises it)."""
    return read_bytes(path, limit).decode(encoding)
