"""When the open windows must read again because access to sensitive projects changed.

A grant can be given or revoked by the tray, by the command line (a PIN) or answered for an
agent, each in its own process; and it can run out by time while a window shows it. Grants
live as files in the data folder's grants/ directory, so watching that directory catches
every grant and revoke from anywhere (the desktop only watches it, never reads it: the
facts come from core). Only that directory: the data folder around it changes with every
process that opens the store. Core makes it when it opens the store (the first check of the
grants does); until it exists, watching is retried. For expiry, one single-shot timer is
armed to the next moment a live grant ends, after each check of the grants: no polling.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

from memoryd.app import Memoryd
from memoryd_desktop.ops import Ops

log = logging.getLogger("memoryd.tray")

SETTLE_MS = 250  # file events come in bursts (write, rename, prune): one check for them
PAST_EXPIRY_MS = 500  # core calls a grant live while expires_at > now: be safely past it
LONGEST_WAIT_MS = 3_600_000  # re-check at least hourly (QTimer's int range, clock changes)
RETRY_WATCH_MS = 5_000  # the grants folder is missing (a data folder not made yet, or moved)


def parse_time(text: object) -> datetime | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def next_expiry(grants: list[dict[str, Any]], now: datetime) -> datetime | None:
    """The soonest `expires_at` still ahead of `now` (task grants have none)."""
    ends = [t for t in (parse_time(g.get("expires_at")) for g in grants) if t is not None and t > now]
    return min(ends, default=None)


def wait_ms(until: datetime, now: datetime) -> int:
    ms = int((until - now).total_seconds() * 1000) + PAST_EXPIRY_MS
    return max(0, min(ms, LONGEST_WAIT_MS))


class GrantWatch(QObject):
    """`changed` when the set of live grants may differ: the grants directory changed, or
    the next expiry passed. Started by the first window that follows it."""

    changed = Signal()

    def __init__(self, facade: Memoryd, ops: Ops, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.facade = facade
        self.ops = ops
        self.folder = facade.layout.grants
        self.watcher = QFileSystemWatcher(self)
        self.watcher.directoryChanged.connect(self._folder_changed)
        self.settle = QTimer(self)
        self.settle.setSingleShot(True)
        self.settle.setInterval(SETTLE_MS)
        self.settle.timeout.connect(self._settled)
        self.expiry = QTimer(self)  # to the next grant's end
        self.expiry.setSingleShot(True)
        self.expiry.timeout.connect(self._expired)
        self.retry = QTimer(self)  # to watch the grants folder once it exists
        self.retry.setSingleShot(True)
        self.retry.setInterval(RETRY_WATCH_MS)
        self.retry.timeout.connect(self._watch)
        self.started = False
        self._checking = False
        self._again = False

    def start(self) -> None:
        if self.started:
            return
        self.started = True
        self._watch()
        self.check()

    def stop(self) -> None:
        self.started = False
        self.settle.stop()
        self.expiry.stop()
        self.retry.stop()
        if self.watcher.directories():
            self.watcher.removePaths(self.watcher.directories())

    def _watch(self) -> None:
        """The grants folder; while it is missing, look again later. A folder that comes
        back (moved away, restored) is a new one to watch, so a gone one is let go."""
        if not self.started:
            return
        if str(self.folder) in self.watcher.directories():
            if self.folder.is_dir():
                return
            self.watcher.removePath(str(self.folder))
        if not self.folder.is_dir() or not self.watcher.addPath(str(self.folder)):
            self.retry.start()

    def _folder_changed(self, _path: str) -> None:
        self._watch()
        self.settle.start()

    def _settled(self) -> None:
        if self.started:
            self.changed.emit()
            self.check()

    def _expired(self) -> None:
        if self.started:
            log.info("a grant to a sensitive project ran out")
            self.changed.emit()
            self.check()

    def check(self) -> None:
        """Ask core for the live grants (off the GUI thread) and arm the expiry timer."""
        if self._checking:
            self._again = True
            return
        self._checking = True
        self.ops.run(self.facade.grants, self._checked, self._check_failed)

    def _checked(self, grants: list[dict[str, Any]]) -> None:
        self._checking = False
        if self._again:
            self._again = False
            self.check()
            return
        if not self.started:
            return
        self._watch()  # reading the grants opened the store, which makes their folder
        now = datetime.now(UTC)
        until = next_expiry(grants, now)
        if until is None:
            self.expiry.stop()
        else:
            self.expiry.start(wait_ms(until, now))

    def _check_failed(self, exc: BaseException) -> None:
        self._checking = False
        log.warning("could not read the live grants: %s", exc)
