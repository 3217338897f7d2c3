"""How errors and times are worded for the user, shared by every window (one rule each)."""

from __future__ import annotations

import re

from PySide6.QtCore import QDateTime, Qt

from memoryd.errors import MemorydError

_LIST_SPLIT = re.compile(r"[,，、;；]")  # English and Chinese list separators


def describe(exc: BaseException) -> str:
    """Our own errors already speak to the user; anything else also names its type."""
    return str(exc) if isinstance(exc, MemorydError) else f"{type(exc).__name__}: {exc}"


def local_time(iso: str | None) -> str:
    """A stored UTC timestamp as local time, to the minute; unparsable text as stored."""
    if not iso:
        return ""
    moment = QDateTime.fromString(iso, Qt.DateFormat.ISODate)
    return moment.toLocalTime().toString("yyyy-MM-dd HH:mm") if moment.isValid() else iso


def parse_triggers(text: str) -> list[str]:
    """A comma separated line (English or Chinese commas, 、 and semicolons) to a clean,
    ordered list: blanks and duplicates dropped. Triggers and tags alike."""
    return list(dict.fromkeys(t.strip() for t in _LIST_SPLIT.split(text) if t.strip()))
