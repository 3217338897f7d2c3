"""Time-limited grants (seed 000/002): `grants/<scope_hash>.json`, written atomically,
never synced, checked with the one clock at read time."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from datetime import timedelta

from memoryd import atomic, clock
from memoryd.errors import UsageError
from memoryd.paths import Layout

DURATIONS = {"once": timedelta(seconds=90), "session": timedelta(hours=8), "task": None}


@dataclass(frozen=True)
class Grant:
    scope_hash: str
    duration: str
    granted_at: str
    expires_at: str | None
    task: str | None = None

    def live(self) -> bool:
        return self.expires_at is None or clock.parse_ts(self.expires_at) > clock.now()

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def _path(layout: Layout, scope_hash: str):  # type: ignore[no-untyped-def]
    return layout.grants / f"{scope_hash}.json"


def _read(layout: Layout, scope_hash: str) -> list[Grant]:
    try:
        raw = json.loads(_path(layout, scope_hash).read_text(encoding="utf-8"))
        return [Grant(**g) for g in raw.get("grants", [])]
    except FileNotFoundError:
        return []
    except (ValueError, TypeError, AttributeError):
        return []  # a damaged grant file grants nothing


def _write(layout: Layout, scope_hash: str, grants: list[Grant]) -> None:
    path = _path(layout, scope_hash)
    if not grants:
        path.unlink(missing_ok=True)
        return
    atomic.write_text(path, json.dumps({"grants": [g.as_dict() for g in grants]}, indent=2) + "\n")


def live(layout: Layout, scope_hash: str) -> list[Grant]:
    return [g for g in _read(layout, scope_hash) if g.live()]


def add(layout: Layout, scope_hash: str, duration: str, task: str | None) -> Grant:
    if duration not in DURATIONS:
        raise UsageError(f"--duration must be one of {', '.join(DURATIONS)}")
    if duration == "task" and not (task and task.strip()):
        raise UsageError(
            "--duration task needs --task NAME (revoke it with `memoryd revoke PATH --task NAME`)"
        )
    if duration != "task" and task:
        raise UsageError("--task goes with --duration task")
    now = clock.now()
    span = DURATIONS[duration]
    grant = Grant(
        scope_hash=scope_hash,
        duration=duration,
        granted_at=clock.iso(now),
        expires_at=clock.iso(now + span) if span else None,
        task=task.strip() if task else None,
    )
    keep = [g for g in live(layout, scope_hash) if not (g.duration == "task" and g.task == grant.task)]
    _write(layout, scope_hash, [*keep, grant])
    return grant


def revoke(layout: Layout, scope_hash: str, task: str | None) -> list[Grant]:
    """Revoke one task's grant, or with no task every grant of the scope."""
    current = _read(layout, scope_hash)
    gone = [g for g in current if task is None or g.task == task]
    if task is not None and not gone:
        raise UsageError(f"no grant for task {task!r} on this scope")
    _write(layout, scope_hash, [g for g in current if g not in gone and g.live()])
    return gone


def all_live(layout: Layout) -> list[Grant]:
    if not layout.grants.exists():
        return []
    out: list[Grant] = []
    for path in sorted(layout.grants.glob("*.json")):
        out += live(layout, path.stem)
    return out
