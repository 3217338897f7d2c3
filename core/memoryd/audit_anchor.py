"""The audit chain's anchor in the OS keyring, the way Certificate Transparency signs its
tree heads: a plain hash chain can be recomputed by anyone who can write the log, a MAC
under a key they do not hold cannot.

One keyring entry per data directory (service "memoryd", user `audit-anchor:<id>`, the id
derived from the directory's real path, so nothing in the data dir chooses which entry is
read) holds a JSON value: the HMAC key, the seq from which every event must carry a MAC
(`from`), the head (seq and hash of the last event memoryd appended) and, once an append
found the log shorter than that head, the break it saw (`broken`: kept, so later appends
cannot bury a removed tail). Everything an attacker who edits files would need to change
lives where they cannot write; someone who can read the keyring can forge it all (the
honest limit, docs/security.md).

No keyring (keyring's fail backend, a headless box): nothing here is used and the chain
stays a plain hash chain, as before; `audit verify` says so.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import Enum
from pathlib import Path
from typing import Any

from memoryd import oskeyring
from memoryd.paths import keyring_id

SERVICE = "memoryd"
MAC_PREFIX = "hmac-sha256:"


class Status(Enum):
    UNREACHABLE = "unreachable"  # no OS keyring here (or it cannot be reached)
    MISSING = "missing"  # a keyring, but no anchor for this data dir
    DAMAGED = "damaged"  # an entry that is not an anchor
    PRESENT = "present"


@dataclass(frozen=True)
class Anchor:
    key: bytes
    from_seq: int
    head_seq: int
    head_hash: str
    broken: dict[str, Any] | None = None

    def mac(self, this_hash: str) -> str:
        return MAC_PREFIX + hmac.new(self.key, this_hash.encode("utf-8"), hashlib.sha256).hexdigest()

    def mac_ok(self, this_hash: str, mac: Any) -> bool:
        return isinstance(mac, str) and hmac.compare_digest(self.mac(this_hash), mac)

    def advanced(self, seq: int, this_hash: str) -> Anchor:
        return replace(self, head_seq=seq, head_hash=this_hash)

    def to_json(self) -> str:
        return json.dumps(
            {
                "v": 1,
                "key": base64.b64encode(self.key).decode("ascii"),
                "from": self.from_seq,
                "seq": self.head_seq,
                "hash": self.head_hash,
                "broken": self.broken,
            },
            sort_keys=True,
        )

    @classmethod
    def from_json(cls, text: str) -> Anchor:
        raw = json.loads(text)
        key = base64.b64decode(raw["key"], validate=True)
        broken = raw.get("broken")
        if len(key) != 32 or not isinstance(broken, dict | None):
            raise ValueError("not an audit anchor")
        return cls(key, int(raw["from"]), int(raw["seq"]), str(raw["hash"]), broken)

    @classmethod
    def new(cls, from_seq: int, head_seq: int, head_hash: str) -> Anchor:
        return cls(secrets.token_bytes(32), from_seq, head_seq, head_hash)


def entry_for(home: Path) -> str:
    return "audit-anchor:" + keyring_id(home)


class AnchorStore:
    """Reads and writes one data dir's anchor. A keyring found unreachable once is not
    asked again by this process (each call is a D-Bus round trip, or a timeout)."""

    def __init__(self, home: Path) -> None:
        self.entry = entry_for(home)
        self._unreachable = False

    @staticmethod
    def _call(fn: Callable[[Any], Any]) -> Any:
        """One keyring call, with the retries of memoryd.oskeyring.call: one dropped call
        must not leave this process taking the keyring for unreachable."""
        import keyring

        return oskeyring.call(lambda: fn(keyring))

    def load(self) -> tuple[Status, Anchor | None]:
        if self._unreachable:
            return Status.UNREACHABLE, None
        try:
            value = self._call(lambda kr: kr.get_password(SERVICE, self.entry))
        except Exception:  # NoKeyringError, a dead bus, a locked or broken backend
            self._unreachable = True
            return Status.UNREACHABLE, None
        if not value:
            return Status.MISSING, None
        try:
            return Status.PRESENT, Anchor.from_json(value)
        except (ValueError, KeyError, TypeError):
            return Status.DAMAGED, None

    def save(self, anchor: Anchor) -> bool:
        """False when the keyring refused (the event stays written; verify will say)."""
        if self._unreachable:
            return False
        try:
            self._call(lambda kr: kr.set_password(SERVICE, self.entry, anchor.to_json()))
        except Exception:  # as in load: never let the keyring stop a write
            self._unreachable = True
            return False
        return True
