"""Data-dir locations as plain strings, for the agent hook: only `os`, so the hook path
pays for no pathlib, dataclasses or platformdirs import. `paths` builds on this."""

from __future__ import annotations

import contextlib
import os

APP = "memoryd"
DIR_MODE = 0o700
FILE_MODE = 0o600


def data_home() -> str:
    env = os.environ.get("MEMORYD_HOME")
    if env:
        return os.path.expanduser(env)
    import platformdirs

    return platformdirs.user_data_dir(APP, appauthor=False)


def spool_dir(home: str) -> str:
    return os.path.join(home, "spool")


def worker_lock(home: str) -> str:
    return os.path.join(spool_dir(home), ".worker.lock")


def ensure_dir(path: str) -> str:
    """Create a private directory and any missing parents, each 0700 (Path.mkdir gives
    parents the umask's mode, which would leave the data dir world-readable)."""
    if os.path.isdir(path):
        return path
    parent = os.path.dirname(os.path.abspath(path))
    if parent and parent != path and not os.path.isdir(parent):
        ensure_dir(parent)
    with contextlib.suppress(FileExistsError):
        os.mkdir(path, DIR_MODE)
    return path


MARKER = ".memoryd-sensitive"


def marker_above(path: str) -> str | None:
    """The nearest directory at or above `path` holding the sensitive marker: everything
    under a marked directory is sensitive. A few stat calls, cheap enough for the hook."""
    current = os.path.abspath(path)
    while True:
        if os.path.exists(os.path.join(current, MARKER)):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent
