"""Where memoryd keeps things. `MEMORYD_HOME` and `MEMORYD_CONFIG` override the platform
defaults, so tests and users with unusual setups never touch the real directories."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from memoryd import envpaths
from memoryd.envpaths import APP, DIR_MODE, FILE_MODE

__all__ = ["APP", "DIR_MODE", "FILE_MODE", "Layout", "config_file", "data_home", "ensure_dir", "layout"]


def data_home() -> Path:
    return Path(envpaths.data_home())


def config_file() -> Path:
    return Path(envpaths.config_file())


def keyring_id(home: Path) -> str:
    """Names this data dir's own entries in the OS keyring (the audit anchor, the grant
    PIN): derived from its real path, so nothing inside the data dir chooses which entry is
    read, and another data dir's entries are never taken for this one's."""
    import hashlib

    real = os.path.realpath(home)
    return hashlib.sha256(real.encode("utf-8")).hexdigest()[:24]


LOCATION = "location"  # the real path a data dir was first opened at


def note_location(home: Path) -> None:
    """Remember where this data dir was first opened, once: its keyring entries (keyring_id)
    are named by that place, and after a move or copy they are not found. The file only
    lets errors and doctor say so; nothing is granted by it (an agent may write it)."""
    path = home / LOCATION
    if not path.exists():
        from memoryd import atomic

        atomic.write_text(path, os.path.realpath(home) + "\n")


def moved_from(home: Path) -> str | None:
    """The place this data dir was first opened at, when that is not where it is now."""
    try:
        first = (home / LOCATION).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return first if first and first != os.path.realpath(home) else None


def ensure_dir(path: Path) -> Path:
    """Create a private directory (0700), and its missing parents 0700 too."""
    envpaths.ensure_dir(str(path))
    return path


@dataclass(frozen=True)
class Layout:
    """The fixed shape of a data directory."""

    home: Path

    @property
    def index_db(self) -> Path:
        return self.home / "index.db"

    @property
    def scopes(self) -> Path:
        return self.home / "scopes"

    def scope_dir(self, scope_hash: str) -> Path:
        return self.scopes / scope_hash

    @property
    def profile(self) -> Path:
        return self.home / "profile"

    @property
    def audit_dir(self) -> Path:
        return self.home / "audit"

    @property
    def audit_log(self) -> Path:
        return self.audit_dir / "audit.jsonl"

    @property
    def audit_lock(self) -> Path:
        return self.audit_dir / "audit.lock"

    @property
    def grants(self) -> Path:
        return self.home / "grants"

    @property
    def spool(self) -> Path:
        return Path(envpaths.spool_dir(str(self.home)))

    @property
    def spool_rejected(self) -> Path:
        return self.spool / "rejected"

    @property
    def worker_lock(self) -> Path:
        return Path(envpaths.worker_lock(str(self.home)))

    @property
    def analysis_lock(self) -> Path:
        return self.home / "analysis.lock"

    @property
    def write_lock(self) -> Path:
        return self.home / "write.lock"

    @property
    def trash(self) -> Path:
        """What a review action removed (a merge's dropped memories, an approval undone),
        kept for its undo until the retention passes (memoryd.store.trash). Outside
        scopes/, so nothing that lists, searches, indexes or injects memories sees it."""
        return self.home / "trash"

    @property
    def logs(self) -> Path:
        return self.home / "logs"

    def prepare(self) -> Layout:
        """First use creates what is needed; there is no separate init step. The grants
        folder too, though it may stay empty: the tray watches it, and only it."""
        dirs = (self.home, self.scopes, self.profile, self.audit_dir, self.grants, self.spool, self.logs)
        for d in dirs:
            ensure_dir(d)
        return self


def layout() -> Layout:
    return Layout(data_home())
