"""Time-limited grants (seed 000/002, issue 18): `grants/<scope_hash>.json`, written
atomically, never synced.

Each record carries an HMAC under a key derived (HKDF) from the scope's own key, which
lives in the OS keyring or comes from the passphrase: a record written or edited by hand
grants nothing, and forging one needs what already decrypts the scope. Lifetimes follow
the real clock (`clock.wall`), never `MEMORYD_NOW`, so the test clock cannot create or
extend access. Expired records are pruned whenever a scope's grants are read."""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Protocol

from memoryd import atomic, clock, crypto
from memoryd.errors import UsageError
from memoryd.paths import Layout


class Keys(Protocol):
    """What grant records need of the scopes' keys (memoryd.sensitive.keys.Keys is it; it
    reads grants to know which keys to cache, so this module does not import it)."""

    layout: Layout

    def grant_key(self, scope_hash: str) -> bytes | None: ...
    def epoch(self, scope_hash: str) -> bytes: ...
    def new_epoch(self, scope_hash: str) -> None: ...
    def sensitive(self, scope_hash: str) -> bool: ...


DURATIONS = {"once": timedelta(seconds=90), "session": timedelta(hours=8), "task": None}
FORGED = "grant record fails its check"
_INFO = b"memoryd grant record v1"


@dataclass(frozen=True)
class Grant:
    scope_hash: str
    duration: str
    granted_at: str
    expires_at: str | None
    task: str | None = None
    mac: str = field(default="", repr=False)

    def live(self, now: datetime | None = None) -> bool:
        at = now or clock.wall()
        if clock.parse_ts(self.granted_at) > at:
            return False  # from the future: a genuine record is never made so
        return self.expires_at is None or clock.parse_ts(self.expires_at) > at

    def as_dict(self) -> dict[str, object]:
        """What listings show: the record without its MAC."""
        out = asdict(self)
        out.pop("mac")
        return out


@dataclass(frozen=True)
class Found:
    live: list[Grant]
    refused: int  # records that fail their check: written or edited by hand, or damaged


def record_key(scope_key: bytes, scope_hash: str, epoch: bytes = b"") -> bytes:
    """The MAC key of a scope's grant records, derived from its key and the scope's current
    revocation epoch (never stored)."""
    return crypto.subkey(scope_key, _INFO + b"\0" + scope_hash.encode() + b"\0" + epoch)


def _mac(key: bytes, g: Grant) -> str:
    body = json.dumps(
        [1, g.scope_hash, g.duration, g.granted_at, g.expires_at, g.task], separators=(",", ":")
    ).encode("utf-8")
    return hmac.new(key, body, hashlib.sha256).hexdigest()


def _authentic(key: bytes, scope_hash: str, g: Grant) -> bool:
    return (
        g.scope_hash == scope_hash
        and g.duration in DURATIONS
        and hmac.compare_digest(g.mac.encode("ascii", "replace"), _mac(key, g).encode("ascii"))
    )


def _path(layout: Layout, scope_hash: str) -> Path:
    return layout.grants / f"{scope_hash}.json"


def _read(layout: Layout, scope_hash: str) -> tuple[list[Grant], int]:
    """(records, damaged): what parses as a record, and how many entries did not."""
    try:
        raw = json.loads(_path(layout, scope_hash).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return [], 0
    except (ValueError, UnicodeDecodeError, OSError):
        return [], 1
    entries = raw.get("grants") if isinstance(raw, dict) else None
    if not isinstance(entries, list):
        return [], 1
    out: list[Grant] = []
    damaged = 0
    for entry in entries:
        try:
            g = Grant(**entry)
            fields = asdict(g)
            optional = ("expires_at", "task")
            if not all(isinstance(v, str) or (k in optional and v is None) for k, v in fields.items()):
                raise TypeError("not a string")  # e.g. `"mac": null` in a hand-made record
            clock.parse_ts(g.granted_at)
            if g.expires_at is not None:
                clock.parse_ts(g.expires_at)
            out.append(g)
        except (TypeError, UsageError):
            damaged += 1
    return out, damaged


def _write(layout: Layout, scope_hash: str, grants: list[Grant]) -> None:
    path = _path(layout, scope_hash)
    if not grants:
        path.unlink(missing_ok=True)
        return
    atomic.write_text(path, json.dumps({"grants": [asdict(g) for g in grants]}, indent=2) + "\n")


def has_records(layout: Layout, scope_hash: str) -> bool:
    return _path(layout, scope_hash).exists()


def check(keys: Keys, scope_hash: str, *, drop_refused: bool = False) -> Found:
    """The scope's live, authentic grants. Expired records leave the file; records that
    fail their check leave it too when `drop_refused` (the gate, which audits them).
    Without the scope's key nothing can be told apart: nothing is live, nothing pruned.
    Inside `keys.outbound()` nothing is live either (what is built there leaves the machine)."""
    if keys.sending:
        return Found([], 0)
    records, damaged = _read(keys.layout, scope_hash)
    if not records and not damaged:
        return Found([], 0)
    key = keys.grant_key(scope_hash)
    if key is None:
        return Found([], 0)
    now = clock.wall()
    good = [g for g in records if _authentic(key, scope_hash, g)]
    bad = [g for g in records if g not in good]
    live = [g for g in good if g.live(now)]
    keep = live + ([] if drop_refused else bad)
    if len(keep) != len(records) or (damaged and drop_refused):
        _write(keys.layout, scope_hash, keep)
    return Found(live, len(bad) + damaged)


def live(keys: Keys, scope_hash: str) -> list[Grant]:
    return check(keys, scope_hash).live


def add(keys: Keys, scope_hash: str, duration: str, task: str | None) -> Grant:
    """Sign and store a grant made now, by the real clock. The caller has confirmed the
    person (a PIN, a passphrase or the tray's dialog) before this."""
    if duration not in DURATIONS:
        raise UsageError(f"--duration must be one of {', '.join(DURATIONS)}")
    if duration == "task" and not (task and task.strip()):
        raise UsageError(
            "--duration task needs --task NAME (revoke it with `memoryd revoke PATH --task NAME`)"
        )
    if duration != "task" and task:
        raise UsageError("--task goes with --duration task")
    key = keys.grant_key(scope_hash)
    if key is None:
        from memoryd.errors import KeyUnavailable

        raise KeyUnavailable(f"the key of scope {scope_hash} is not here: a grant cannot be signed")
    now = clock.wall()
    span = DURATIONS[duration]
    unsigned = Grant(
        scope_hash=scope_hash,
        duration=duration,
        granted_at=clock.iso(now),
        expires_at=clock.iso(now + span) if span else None,
        task=task.strip() if task else None,
    )
    grant = Grant(**{**asdict(unsigned), "mac": _mac(key, unsigned)})
    keep = [g for g in live(keys, scope_hash) if not (g.duration == "task" and g.task == grant.task)]
    _write(keys.layout, scope_hash, [*keep, grant])
    return grant


def revoke(keys: Keys, scope_hash: str, task: str | None) -> list[Grant]:
    """Revoke one task's grant, or with no task every grant of the scope. The scope's
    epoch is replaced and the grants that stay are signed anew, so a copy of a revoked
    record (saved while it lived, then put back) fails its check."""
    current = live(keys, scope_hash)
    gone = current if task is None else [g for g in current if g.task == task]
    if task is not None and not gone:
        raise UsageError(f"no grant for task {task!r} on this scope")
    keys.new_epoch(scope_hash)
    key = keys.grant_key(scope_hash)
    keep = [g for g in current if g not in gone]
    _write(keys.layout, scope_hash, [replace(g, mac=_mac(key, g)) for g in keep] if key else [])
    return gone


def resign(keys: Keys, scope_hash: str, old_key: bytes, new_key: bytes) -> None:
    """Key rotation: the live grants stay, signed under the new key's record key."""
    records, _ = _read(keys.layout, scope_hash)
    epoch = keys.epoch(scope_hash)
    old, new = record_key(old_key, scope_hash, epoch), record_key(new_key, scope_hash, epoch)
    kept = []
    for g in records:
        if _authentic(old, scope_hash, g) and g.live():
            kept.append(Grant(**{**asdict(g), "mac": _mac(new, g)}))
    _write(keys.layout, scope_hash, kept)


def all_live(keys: Keys) -> list[Grant]:
    if not keys.layout.grants.exists():
        return []
    out: list[Grant] = []
    for path in sorted(keys.layout.grants.glob("*.json")):
        if keys.sensitive(path.stem):
            out += live(keys, path.stem)
    return out
