"""The hash-chained audit log: one JSONL event per write.

this_hash = sha256(prev_hash || canonical JSON of the record without its hashes), so editing,
deleting, inserting or reordering a line breaks the chain from there on. The chain head
(last seq and hash) is also kept in index.db, so cutting the tail shows too. Appends are
serialised across processes by a file lock.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from filelock import FileLock

from memoryd.clock import now_iso
from memoryd.errors import AuditError
from memoryd.paths import FILE_MODE, Layout, ensure_dir

GENESIS = "sha256:" + "0" * 64
_TAIL_BYTES = 256 * 1024


class HeadStore(Protocol):
    def get_head(self) -> tuple[int, str] | None: ...
    def set_head(self, seq: int, this_hash: str, event_type: str, ts: str) -> None: ...


@dataclass(frozen=True)
class Event:
    seq: int
    ts: str
    actor: str
    event_type: str
    scope_hash: str | None
    target_id: str | None
    details: str
    prev_hash: str
    this_hash: str

    @property
    def details_obj(self) -> dict[str, Any]:
        try:
            value = json.loads(self.details)
        except json.JSONDecodeError:
            return {}
        return value if isinstance(value, dict) else {}

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def chain_hash(prev_hash: str, record: dict[str, Any]) -> str:
    body = {k: v for k, v in record.items() if k not in ("prev_hash", "this_hash")}
    digest = hashlib.sha256((prev_hash + canonical(body)).encode("utf-8")).hexdigest()
    return "sha256:" + digest


@dataclass(frozen=True)
class Verdict:
    ok: bool
    events: int
    first_bad_seq: int | None = None
    reason: str = ""


class AuditLog:
    def __init__(self, layout: Layout, head: HeadStore) -> None:
        self.path = layout.audit_log
        self.lock = FileLock(str(layout.audit_lock), mode=FILE_MODE)
        self.head = head

    def append(
        self,
        event_type: str,
        *,
        actor: str,
        scope_hash: str | None = None,
        target_id: str | None = None,
        details: dict[str, Any] | None = None,
        dedupe: str | None = None,
    ) -> Event:
        """Append one event. With `dedupe`, a retry after a crash that already wrote this
        event returns that event instead of writing it twice: it is looked for in the
        log's tail (256 KiB, some thousand events), since other writers may have logged
        theirs between the crash and the retry."""
        ensure_dir(self.path.parent)
        info = dict(details or {})
        if dedupe:
            info["dedupe"] = dedupe
        with self.lock:
            last = self._last_event()
            if dedupe and last is not None:
                hit = self._find_dedupe(dedupe)
                if hit is not None:
                    return hit
            record: dict[str, Any] = {
                "seq": (last.seq + 1) if last else 1,
                "ts": now_iso(),
                "actor": actor,
                "event_type": event_type,
                "scope_hash": scope_hash,
                "target_id": target_id,
                "details": canonical(info),
                "prev_hash": last.this_hash if last else GENESIS,
            }
            record["this_hash"] = chain_hash(record["prev_hash"], record)
            line = (canonical(record) + "\n").encode("utf-8")
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, FILE_MODE)
            try:
                os.write(fd, line)
                os.fsync(fd)
            finally:
                os.close(fd)
            self.head.set_head(record["seq"], record["this_hash"], event_type, record["ts"])
            return Event(**record)

    def _find_dedupe(self, key: str) -> Event | None:
        """The latest event in the tail carrying this dedupe key; called after
        `_last_event`, which has already dropped a torn final line. Only lines that
        contain the key's text are parsed."""
        with open(self.path, "rb") as fh:
            size = fh.seek(0, os.SEEK_END)
            start = max(0, size - _TAIL_BYTES)
            fh.seek(start)
            lines = fh.read().rstrip(b"\n").split(b"\n")
        if start > 0:
            lines = lines[1:]  # the first may be cut in the middle
        # A plain key appears verbatim in its line; any other is looked for by parsing.
        plain = key.isascii() and key.isprintable() and not any(c in key for c in '"\\')
        needle = key.encode("ascii") if plain else b""
        for raw in reversed(lines):
            if needle not in raw:
                continue
            with contextlib.suppress(AuditError):
                event = _parse(raw)
                if event.details_obj.get("dedupe") == key:
                    return event
        return None

    def _last_event(self) -> Event | None:
        """Read the tail. A final fragment without newline is an append that a crash cut
        short (never acknowledged): it is dropped. A damaged complete line is refused."""
        if not self.path.exists():
            return None
        with open(self.path, "r+b") as fh:
            size = fh.seek(0, os.SEEK_END)
            if size == 0:
                return None
            start = max(0, size - _TAIL_BYTES)
            fh.seek(start)
            chunk = fh.read()
            if not chunk.endswith(b"\n"):
                cut = chunk.rfind(b"\n")
                fh.truncate(start + cut + 1 if cut >= 0 else start)
                chunk = chunk[: cut + 1] if cut >= 0 else b""
                if not chunk:
                    return None if start == 0 else self._last_event()
            lines = chunk.rstrip(b"\n").split(b"\n")
            try:
                return _parse(lines[-1])
            except AuditError:
                raise AuditError(
                    f"the last line of {self.path} is damaged; run `memoryd audit verify`"
                ) from None

    def redact_scope(
        self, scope_hash: str, rename: dict[str, str], *, drop_keys: tuple[str, ...]
    ) -> dict[str, Any]:
        """When a scope becomes sensitive, its past events must not keep its words: old
        slugs become the new opaque ones and free-text details (`drop_keys`) go. The
        chain is recomputed from the first changed line and the previous head is kept in
        the `audit_redacted` event appended after, so the rewrite itself is on record.
        Refuses to touch a chain that does not verify."""
        verdict = self.verify()
        if not verdict.ok:
            raise AuditError(f"audit chain is broken at seq {verdict.first_bad_seq}; not rewriting it")
        with self.lock:
            if not self.path.exists():
                return {"rewritten": 0}
            lines = self.path.read_bytes().splitlines(keepends=True)
            out: list[bytes] = []
            prev, first_changed, changed, old_head = GENESIS, None, 0, None
            for raw in lines:
                record = json.loads(raw)
                old_head = record["this_hash"]
                if record.get("scope_hash") == scope_hash or record.get("target_id") in rename:
                    new = dict(record)
                    new["target_id"] = rename.get(record.get("target_id") or "", record.get("target_id"))
                    details = json.loads(record["details"]) if record.get("details") else {}
                    new["details"] = canonical(_scrub(details, rename, drop_keys))
                    if new != record:
                        record = new
                        changed += 1
                        first_changed = first_changed or record["seq"]
                if first_changed is not None:
                    record["prev_hash"] = prev
                    record["this_hash"] = chain_hash(prev, record)
                    raw = (canonical(record) + "\n").encode("utf-8")
                out.append(raw)
                prev = record["this_hash"]
            if not changed:
                return {"rewritten": 0}
            from memoryd import atomic

            atomic.write_bytes(self.path, b"".join(out))
            last = json.loads(out[-1])
            self.head.set_head(last["seq"], last["this_hash"], last["event_type"], last["ts"])
        self.append(
            "audit_redacted",
            actor="memoryd",
            scope_hash=scope_hash,
            details={"rewritten": changed, "from_seq": first_changed, "previous_head": old_head},
        )
        return {"rewritten": changed, "from_seq": first_changed}

    def events(self) -> Iterator[Event]:
        if not self.path.exists():
            return
        with open(self.path, "rb") as fh:
            for raw in fh:
                yield _parse(raw)

    def verify(self) -> Verdict:
        """Walk the whole chain; name the first seq where it breaks."""
        prev, expected, count = GENESIS, 1, 0
        hashes: dict[int, str] = {}
        if self.path.exists():
            with open(self.path, "rb") as fh:
                for raw in fh:
                    if not raw.endswith(b"\n"):
                        return Verdict(False, count, expected, "last line is cut short")
                    try:
                        record = json.loads(raw)
                        if not isinstance(record, dict):
                            raise ValueError
                    except ValueError:
                        return Verdict(False, count, expected, "line is not a JSON object")
                    seq = record.get("seq")
                    if seq != expected:
                        return Verdict(False, count, expected, f"expected seq {expected}, found {seq}")
                    if record.get("prev_hash") != prev:
                        return Verdict(False, count, expected, "prev_hash does not match the line before")
                    if record.get("this_hash") != chain_hash(prev, record):
                        return Verdict(False, count, expected, "this_hash does not match the content")
                    prev = record["this_hash"]
                    hashes[expected] = prev
                    expected += 1
                    count += 1
        head = self.head.get_head()
        if head is not None:
            head_seq, head_hash = head
            if head_seq > count:
                return Verdict(
                    False,
                    count,
                    count + 1,
                    f"log ends at seq {count}, but the index recorded seq {head_seq}: the tail was removed",
                )
            if head_seq and hashes.get(head_seq) != head_hash:
                return Verdict(False, count, head_seq, "hash differs from the one recorded in the index")
        return Verdict(True, count)


def _scrub(value: Any, rename: dict[str, str], drop_keys: tuple[str, ...]) -> Any:
    if isinstance(value, dict):
        return {
            k: ("[redacted]" if k in drop_keys else _scrub(v, rename, drop_keys)) for k, v in value.items()
        }
    if isinstance(value, list):
        return [_scrub(v, rename, drop_keys) for v in value]
    if isinstance(value, str):
        return rename.get(value, value)
    return value


def _parse(raw: bytes) -> Event:
    try:
        record = json.loads(raw)
        return Event(**{k: record[k] for k in Event.__dataclass_fields__})
    except (ValueError, KeyError, TypeError):
        raise AuditError("audit line is not a valid event") from None
