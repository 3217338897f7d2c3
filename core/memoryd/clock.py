"""The one clock. `MEMORYD_NOW` (ISO-8601) pins it so decay and schedules test without
waiting. Access never follows it: grants are made and checked with `wall()`, the real
clock, so setting `MEMORYD_NOW` cannot create or extend a grant (SECURITY.md)."""

from __future__ import annotations

import os
from datetime import UTC, datetime

from memoryd.errors import UsageError


def now() -> datetime:
    """Current time in UTC, or `MEMORYD_NOW` when set."""
    pinned = os.environ.get("MEMORYD_NOW")
    if pinned:
        return parse_ts(pinned, what="MEMORYD_NOW")
    return datetime.now(UTC).replace(microsecond=0)


def wall() -> datetime:
    """The real current time in UTC, whatever `MEMORYD_NOW` says: what grants live by."""
    return datetime.now(UTC).replace(microsecond=0)


def parse_ts(text: str, what: str = "timestamp") -> datetime:
    """Parse ISO-8601 (a trailing Z allowed); naive values are taken as UTC."""
    try:
        value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(f"{what} is not an ISO-8601 time: {text!r}") from None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def iso(value: datetime) -> str:
    """Render as `2026-05-18T22:30:12Z`, the one format in files, index and audit."""
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def now_iso() -> str:
    return iso(now())
