"""The hash-chained audit log: one JSONL event per write.

this_hash = sha256(prev_hash || canonical JSON of the record without its hashes and MAC), so
editing, deleting, inserting or reordering a line breaks the chain from there on. The chain
head (last seq and hash) is also kept in index.db, so cutting the tail shows too. Appends are
serialised across processes by a file lock.

Anyone who can write the files can recompute all of that, so where an OS keyring exists the
chain is anchored in it (audit_anchor.py): each event from the anchor's first seq carries
mac = HMAC-SHA256(key, this_hash), and the keyring keeps the head, which only memoryd moves.
An event's time is never earlier than the one before it, whatever the clock says.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Protocol

from filelock import FileLock

from memoryd import clock
from memoryd.audit_anchor import Anchor, AnchorStore, Status
from memoryd.errors import AuditError, UsageError
from memoryd.paths import FILE_MODE, Layout, ensure_dir

GENESIS = "sha256:" + "0" * 64
_UNHASHED = ("prev_hash", "this_hash", "mac")  # the MAC is over this_hash, so outside it
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
    mac: str | None = None

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
    body = {k: v for k, v in record.items() if k not in _UNHASHED}
    digest = hashlib.sha256((prev_hash + canonical(body)).encode("utf-8")).hexdigest()
    return "sha256:" + digest


@dataclass(frozen=True)
class Verdict:
    ok: bool
    events: int
    first_bad_seq: int | None = None
    reason: str = ""
    # From which seq the OS keyring's key vouches for every event (None: not anchored).
    anchored_from: int | None = None
    # What the check could and could not vouch for, in plain words (always set).
    anchor: str = ""


class AuditLog:
    def __init__(self, layout: Layout, head: HeadStore) -> None:
        self.path = layout.audit_log
        self.lock = FileLock(str(layout.audit_lock), mode=FILE_MODE)
        self.head = head
        self.anchors = AnchorStore(layout.home)

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
        info = _redacted(dict(details or {}))
        if dedupe:
            info["dedupe"] = dedupe
        with self.lock:
            last = self._last_event()
            if dedupe and last is not None:
                hit = self._find_dedupe(dedupe)
                if hit is not None:
                    return hit
            seq = (last.seq + 1) if last else 1
            anchor = self._anchor_for_append(last, seq)
            record: dict[str, Any] = {
                "seq": seq,
                "ts": _not_before(clock.now_iso(), last.ts if last else None),
                "actor": actor,
                "event_type": event_type,
                "scope_hash": scope_hash,
                "target_id": target_id,
                "details": canonical(info),
                "prev_hash": last.this_hash if last else GENESIS,
            }
            record["this_hash"] = chain_hash(record["prev_hash"], record)
            if anchor is not None:
                record["mac"] = anchor.mac(record["this_hash"])
            line = (canonical(record) + "\n").encode("utf-8")
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, FILE_MODE)
            try:
                os.write(fd, line)
                os.fsync(fd)
            finally:
                os.close(fd)
            if anchor is not None:  # after the line: a crash between leaves the log ahead, never behind
                self.anchors.save(anchor.advanced(seq, record["this_hash"]))
            self.head.set_head(record["seq"], record["this_hash"], event_type, record["ts"])
            return Event(**record)

    def _anchor_for_append(self, last: Event | None, seq: int) -> Anchor | None:
        """The keyring's anchor, read afresh (another process may have appended), made on
        the first append that finds a keyring. A log that ends before the anchor's head
        lost its tail: that is written into the anchor for good, since this append and
        the ones after would otherwise cover the gap. None: no keyring, no MAC."""
        status, anchor = self.anchors.load()
        end, end_hash = (last.seq, last.this_hash) if last else (0, GENESIS)
        if status is Status.MISSING:
            anchor = Anchor.new(from_seq=seq, head_seq=end, head_hash=end_hash)
            # saved before the line: the key must exist before anything carries its MAC
            return anchor if self.anchors.save(anchor) else None
        if anchor is None:
            return None
        if anchor.broken is None:
            broken = _head_mismatch(anchor, end, end_hash)
            if broken is not None:
                anchor = replace(anchor, broken={"seq": broken[0], "reason": broken[1]})
        return anchor

    def _find_dedupe(self, key: str) -> Event | None:
        """The latest event in the tail carrying this dedupe key, unless a later one (an
        undo) `cancels` it; called after
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
                details = event.details_obj
                if details.get("dedupe") == key:
                    return event
                cancels = details.get("cancels")
                if isinstance(cancels, list) and key in cancels:
                    return None  # undone since: the same decision again is a new event
        return None

    def _last_event(self) -> Event | None:
        """Read the last line, however long (backwards from the end until a newline). A
        final fragment without newline is an append that a crash cut short (never
        acknowledged): it is dropped. A damaged complete line is refused."""
        if not self.path.exists():
            return None
        with open(self.path, "r+b") as fh:
            size = fh.seek(0, os.SEEK_END)
            if size == 0:
                return None
            fh.seek(size - 1)
            if fh.read(1) != b"\n":
                cut = _line_start(fh, size)  # where the torn fragment begins
                fh.truncate(cut)
                size = cut
                if size == 0:
                    return None
            start = _line_start(fh, size - 1)
            fh.seek(start)
            line = fh.read(size - start)
            try:
                return _parse(line)
            except AuditError:
                raise AuditError(
                    f"the last line of {self.path} is damaged; run `memoryd audit verify`"
                ) from None

    def redact_scope(
        self, scope_hash: str, rename: dict[str, str], *, drop_keys: tuple[str, ...]
    ) -> dict[str, Any]:
        """When a scope becomes sensitive, its past events must not keep its words: old
        slugs become the new opaque ones and free-text details (`drop_keys`) go. The
        chain is recomputed from the first changed line, anchored events get fresh MACs
        and the keyring's head follows, and the previous head is kept in the
        `audit_redacted` event appended after, so the rewrite itself is on record.
        Refuses to touch a chain that does not verify."""
        verdict = self.verify()
        if not verdict.ok:
            raise AuditError(f"audit chain is broken at seq {verdict.first_bad_seq}; not rewriting it")
        with self.lock:
            if not self.path.exists():
                return {"rewritten": 0}
            _, anchor = self.anchors.load()
            lines = self.path.read_bytes().splitlines(keepends=True)
            out: list[bytes] = []
            prev, first_changed, changed, old_head = GENESIS, None, 0, None
            for raw in lines:
                record = json.loads(raw)
                old_head = record["this_hash"]
                own = record.get("scope_hash") == scope_hash or record.get("target_id") in rename
                if own or _mentions(raw, rename):  # another scope's event naming one: names only
                    new = dict(record)
                    new["target_id"] = rename.get(record.get("target_id") or "", record.get("target_id"))
                    details = json.loads(record["details"]) if record.get("details") else {}
                    new["details"] = canonical(_scrub(details, rename, drop_keys if own else ()))
                    if new != record:
                        record = new
                        changed += 1
                        first_changed = first_changed or record["seq"]
                if first_changed is not None:
                    record["prev_hash"] = prev
                    record["this_hash"] = chain_hash(prev, record)
                    record.pop("mac", None)
                    if anchor is not None and record["seq"] >= anchor.from_seq:
                        record["mac"] = anchor.mac(record["this_hash"])
                    raw = (canonical(record) + "\n").encode("utf-8")
                out.append(raw)
                prev = record["this_hash"]
            if not changed:
                return {"rewritten": 0}
            from memoryd import atomic

            atomic.write_bytes(self.path, b"".join(out))
            last = json.loads(out[-1])
            if anchor is not None:
                self.anchors.save(anchor.advanced(last["seq"], last["this_hash"]))
            self.head.set_head(last["seq"], last["this_hash"], last["event_type"], last["ts"])
        self.append(
            "audit_redacted",
            actor="memoryd",
            scope_hash=scope_hash,
            details={"rewritten": changed, "from_seq": first_changed, "previous_head": old_head},
        )
        return {"rewritten": changed, "from_seq": first_changed}

    def adopt_restored(self) -> dict[str, Any] | None:
        """After `memoryd restore` put back a log that ends before the keyring's head (the
        backup is older than the last write here), memoryd itself moves the anchor back to
        the restored end, keeping the key when the restored MACs are under it and making a
        new one (anchored from the next event) when they are not (a backup from another
        machine). A chain whose hashes are broken is left alone for `doctor` to report.
        Returns what was replaced, for the `restore` event; None when nothing changed."""
        with self.lock:
            _, anchor = self.anchors.load()
            if anchor is None:
                return None
            last = self._last_event()
            end, end_hash = (last.seq, last.this_hash) if last else (0, GENESIS)
            if anchor.broken is None and (end, end_hash) == (anchor.head_seq, anchor.head_hash):
                return None
            walk = self._walk(anchor)
            if walk.bad is not None and walk.bad_kind == "chain":
                return None
            if walk.bad is None:
                new, key = replace(anchor, head_seq=end, head_hash=end_hash, broken=None), "kept"
            else:
                new, key = Anchor.new(from_seq=end + 1, head_seq=end, head_hash=end_hash), "new"
            if not self.anchors.save(new):
                return None
            return {
                "previous_anchor_seq": anchor.head_seq,
                "previous_anchor_hash": anchor.head_hash,
                "previous_break_seq": (anchor.broken or {}).get("seq"),
                "restored_end_seq": end,
                "key": key,
                "anchored_from": new.from_seq,
            }

    def events(self) -> Iterator[Event]:
        if not self.path.exists():
            return
        with open(self.path, "rb") as fh:
            for raw in fh:
                yield _parse(raw)

    def _walk(self, anchor: Anchor | None) -> _Walk:
        """The chain line by line: hashes, and from the anchor's first seq on, MACs and
        times that never run backwards. Stops at the first bad line."""
        walk = _Walk()
        prev, prev_ts = GENESIS, None
        if not self.path.exists():
            return walk
        expected = 1
        with open(self.path, "rb") as fh:
            for raw in fh:
                if not raw.endswith(b"\n"):
                    return walk.fail(expected, "last line is cut short")
                try:
                    record = json.loads(raw)
                    if not isinstance(record, dict):
                        raise ValueError
                except ValueError:
                    return walk.fail(expected, "line is not a JSON object")
                seq = record.get("seq")
                if seq != expected:
                    return walk.fail(expected, f"expected seq {expected}, found {seq}")
                if record.get("prev_hash") != prev:
                    return walk.fail(expected, "prev_hash does not match the line before")
                if record.get("this_hash") != chain_hash(prev, record):
                    return walk.fail(expected, "this_hash does not match the content")
                mac = record.get("mac")
                walk.macs += mac is not None
                if anchor is not None and expected >= anchor.from_seq:
                    if mac is None:
                        return walk.fail(
                            expected,
                            f"no MAC, though the chain is anchored from seq {anchor.from_seq}: appended, "
                            "or its MAC stripped, by someone without the OS keyring's key",
                            kind="mac",
                        )
                    if not anchor.mac_ok(record["this_hash"], mac):
                        return walk.fail(
                            expected,
                            "MAC does not match: written or rewritten without the OS keyring's key",
                            kind="mac",
                        )
                    if expected > anchor.from_seq and _earlier(record.get("ts"), prev_ts):
                        return walk.fail(expected, "its time is earlier than the event before it", kind="mac")
                prev, prev_ts = record["this_hash"], record.get("ts")
                walk.hashes[expected] = prev
                expected += 1
                walk.count += 1
        return walk

    def verify(self) -> Verdict:
        """Walk the whole chain; name the first seq where it breaks, and say plainly what
        the OS keyring's anchor could vouch for."""
        status, anchor = self.anchors.load()
        walk = self._walk(anchor)
        count = walk.count
        found: list[tuple[int, str]] = [walk.bad] if walk.bad else []
        if status is Status.DAMAGED:
            found.append((1, "the OS keyring's audit anchor for this data dir is not readable"))
        if anchor is not None and anchor.broken:
            found.append((int(anchor.broken.get("seq") or 1), str(anchor.broken.get("reason") or "")))
        if walk.bad is None and anchor is not None:
            mismatch = _head_mismatch(anchor, count, walk.hashes.get(anchor.head_seq, GENESIS), exact=False)
            if mismatch is not None:
                found.append(mismatch)
        head = self.head.get_head()
        if walk.bad is None and head is not None:
            head_seq, head_hash = head
            if head_seq > count:
                reason = f"log ends at seq {count}, but the index recorded seq {head_seq}"
                found.append((count + 1, reason + ": the tail was removed"))
            elif head_seq and walk.hashes.get(head_seq) != head_hash:
                found.append((head_seq, "hash differs from the one recorded in the index"))
        note = _anchor_note(status, anchor, walk.macs)
        anchored_from = anchor.from_seq if anchor is not None else None
        if found:
            seq, reason = min(found, key=lambda f: f[0])
            return Verdict(False, count, seq, reason, anchored_from, note)
        return Verdict(True, count, None, "", anchored_from, note)


@dataclass
class _Walk:
    count: int = 0
    macs: int = 0
    bad: tuple[int, str] | None = None
    bad_kind: str = ""  # chain | mac
    hashes: dict[int, str] = field(default_factory=dict)

    def fail(self, seq: int, reason: str, kind: str = "chain") -> _Walk:
        self.bad, self.bad_kind = (seq, reason), kind
        return self


def _head_mismatch(
    anchor: Anchor, end: int, hash_at_head: str, *, exact: bool = True
) -> tuple[int, str] | None:
    """Whether a log that ends at `end` (its event at the anchor's head seq having
    `hash_at_head`) still holds the head the keyring recorded. An append knows only the
    last event's hash (`exact`: checked when the log ends at the head); verify knows all."""
    if end < anchor.head_seq:
        return (
            end + 1,
            f"log ends at seq {end}, but the OS keyring's anchor recorded seq {anchor.head_seq}: "
            "the tail was removed",
        )
    at_head = end == anchor.head_seq if exact else end >= anchor.head_seq
    if anchor.head_seq and at_head and hash_at_head != anchor.head_hash:
        return anchor.head_seq, "hash differs from the one the OS keyring's anchor recorded"
    return None


def _anchor_note(status: Status, anchor: Anchor | None, macs: int) -> str:
    plain = "only the hash chain was checked, which anyone who can write the files can recompute"
    if anchor is not None:
        note = f"anchored by this data dir's OS keyring key from seq {anchor.from_seq}"
        if anchor.from_seq > 1:
            note += f"; seq 1-{anchor.from_seq - 1} (older, or restored from elsewhere): hash chain only"
        return note
    if status is Status.DAMAGED:
        return "the OS keyring's audit anchor for this data dir is not readable: " + plain
    if macs and status is Status.MISSING:
        return (
            f"not anchored: {macs} events carry MACs, but this data dir's key is missing from the OS "
            f"keyring (restored on another machine, or the entry was deleted), so they cannot be checked; "
            + plain
        )
    if macs:
        return (
            f"not anchored here: {macs} events carry MACs, but no OS keyring can be reached, so no key "
            "exists to check them; " + plain
        )
    if status is Status.MISSING:
        return "not anchored: no OS keyring key exists for this data dir yet (made at the next write); " + (
            plain
        )
    return "not anchored: no OS keyring key exists (there is no OS keyring here); " + plain


def _ts(value: Any) -> datetime | None:
    try:
        return clock.parse_ts(value) if isinstance(value, str) else None
    except UsageError:
        return None


def _earlier(ts: Any, before: Any) -> bool:
    a, b = _ts(ts), _ts(before)
    return a is not None and b is not None and a < b


def _not_before(now: str, last: str | None) -> str:
    """Audit times never run backwards: a clock set back (or `MEMORYD_NOW` in the past)
    cannot back-date an event before the chain's last one."""
    return last if last is not None and _earlier(now, last) else now


def _redacted(value: Any) -> Any:
    """Every string of an event's details through the secret rules: most are memoryd's own
    words and ids, but some are the person's (a rejection's `--reason`, a task name), and
    "it contains my token" is a likely reason to reject (an outside test, 2026-11-28)."""
    from memoryd.redact import Redactor

    try:
        redact = Redactor()
    except Exception:  # a broken config.toml: the event is still written, with the built-in rules
        redact = Redactor(())

    def walk(v: Any) -> Any:
        if isinstance(v, str):
            return redact(v)
        if isinstance(v, dict):
            return {k: walk(x) for k, x in v.items()}
        if isinstance(v, list | tuple):
            return [walk(x) for x in v]
        return v

    return walk(value)


def _scrub(value: Any, rename: dict[str, str], drop_keys: tuple[str, ...]) -> Any:
    if isinstance(value, dict):
        return {
            k: ("[redacted]" if k in drop_keys else _scrub(v, rename, drop_keys)) for k, v in value.items()
        }
    if isinstance(value, list):
        return [_scrub(v, rename, drop_keys) for v in value]
    if isinstance(value, str):
        return rename_tokens(rename.get(value, value), rename)
    return value


_TOKEN = re.compile(r"[A-Za-z0-9._-]+")  # what a slug is made of (memoryd.slugs)


def _renamed(token: str, rename: dict[str, str]) -> str | None:
    """The token's new form when it is a slug, or a slug and an extension (`<slug>.md`)."""
    if token in rename:
        return rename[token]
    cut = token.find(".")
    while cut > 0:
        if token[:cut] in rename:
            return rename[token[:cut]] + token[cut:]
        cut = token.find(".", cut + 1)
    return None


def rename_tokens(value: str, rename: dict[str, str]) -> str:
    """Slugs inside a string (a dedupe key `merge:<slug>:<slug>`, a path
    `scopes/<hash>/facts/<slug>.md`, a group `a b c`) take their new names; only whole
    slugs, never part of a longer one."""
    if not rename:
        return value
    return _TOKEN.sub(lambda m: _renamed(m.group(0), rename) or m.group(0), value)


def _mentions(raw: bytes, rename: dict[str, str]) -> bool:
    return any(_renamed(t, rename) for t in _TOKEN.findall(raw.decode("utf-8", "replace")))


def _line_start(fh: Any, end: int) -> int:
    """Where the line holding the byte before `end` begins: after the last newline before
    `end`, read backwards in steps, so a line of any length is found whole."""
    pos = end
    while pos > 0:
        step = min(_TAIL_BYTES, pos)
        fh.seek(pos - step)
        cut = fh.read(step).rfind(b"\n")
        if cut >= 0:
            return pos - step + cut + 1
        pos -= step
    return 0


def _parse(raw: bytes) -> Event:
    try:
        record = json.loads(raw)
        event = Event(**{k: record[k] for k in Event.__dataclass_fields__ if k != "mac"})
        mac = record.get("mac")
        return replace(event, mac=mac) if isinstance(mac, str) else event
    except (ValueError, KeyError, TypeError):
        raise AuditError("audit line is not a valid event") from None
