"""The memories.json document (docs/sync.md, docs/memories.schema.json): what one device
knows of every memory. A memory is an entry with one or more heads (versions no other
version descends from); more than one head is a conflict the user settles. Counters that
every device bumps on its own (recalls, decay) sit beside the heads so that they never
make a version of their own."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memoryd import jsontext, safeopen
from memoryd.errors import UsageError

FORMAT = "memoryd-memories"
TYPES = ("session", "decision", "preference", "fact", "playbook", "warning")
_SLUG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,119}$")
_HASH = re.compile(r"^[0-9a-f]{12}$")
_REV = re.compile(r"^[0-9a-fx]{32}$")
_B64 = re.compile(r"^[A-Za-z0-9_-]*={0,2}$")  # memoryd.crypto.b64: urlsafe
VERSION = 1
# A memories.json bigger than this is refused (docs/sync.md): a whole store's export is far
# smaller, and json.loads would need several times as much memory.
MAX_BYTES = 1024 * 1024 * 1024
DECAY_ORDER = {"alive": 0, "dim": 1, "soft-forgotten": 2, "forgotten": 3}


@dataclass(frozen=True)
class Head:
    """One version of a memory. `rev` is a hash of its content (counters zeroed), so the
    same edit made on two devices is one version; `history` holds every rev it descends
    from. Deleted heads are tombstones and carry no content. An encrypted head's content
    is the sealed file, base64: it opens only where the scope's key is."""

    rev: str
    history: tuple[str, ...]
    updated_at: str
    scope_hash: str
    type: str
    deleted: bool = False
    encrypted: bool = False
    content: str | None = None
    turns: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "rev": self.rev,
            "history": list(self.history),
            "updated_at": self.updated_at,
            "scope_hash": self.scope_hash,
            "type": self.type,
            "deleted": self.deleted,
            "encrypted": self.encrypted,
            "content": self.content,
            "turns": self.turns,
        }


@dataclass(frozen=True)
class Decay:
    state: str
    at: str

    def key(self) -> tuple[str, int]:
        return (self.at, DECAY_ORDER.get(self.state, 0))


@dataclass(frozen=True)
class Entry:
    heads: tuple[Head, ...]  # sorted by rev
    recalls: dict[str, int] = field(default_factory=dict)  # device id -> recalls made there
    last_recalled_at: str | None = None
    decay: Decay | None = None

    @property
    def winner(self) -> Head:
        """Newest first, rev breaking ties: every device picks the same one."""
        return max(self.heads, key=lambda h: (h.updated_at, h.rev))

    @property
    def losers(self) -> list[Head]:
        w = self.winner
        return [h for h in self.heads if h.rev != w.rev]

    @property
    def recall_count(self) -> int:
        return sum(self.recalls.values())

    def as_dict(self) -> dict[str, Any]:
        return {
            "heads": [h.as_dict() for h in self.heads],
            "recalls": dict(sorted(self.recalls.items())),
            "last_recalled_at": self.last_recalled_at,
            "decay": {"state": self.decay.state, "at": self.decay.at} if self.decay else None,
        }


@dataclass
class State:
    """Everything merged: entries by slug, what is known of scopes (sensitivity settings,
    the git remote that auto-links them) and the scope links."""

    memories: dict[str, Entry] = field(default_factory=dict)
    scopes: dict[str, dict[str, Any]] = field(default_factory=dict)
    links: set[tuple[str, str]] = field(default_factory=set)

    def as_dict(self, *, device: dict[str, str] | None, exported_at: str) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "device": device,
            "exported_at": exported_at,
            "scopes": {h: self.scopes[h] for h in sorted(self.scopes)},
            "links": [list(p) for p in sorted(self.links)],
            "memories": {slug: self.memories[slug].as_dict() for slug in sorted(self.memories)},
        }


def dumps(state: State, *, device: dict[str, str] | None, exported_at: str) -> str:
    return json.dumps(state.as_dict(device=device, exported_at=exported_at), ensure_ascii=False) + "\n"


def load(path: Path) -> tuple[State, dict[str, Any]]:
    """Read and check a memories.json; any defect is one UsageError naming the file and the
    place, never a half-read state."""
    try:
        raw = jsontext.loads(safeopen.read_text(path, MAX_BYTES))  # too deep: ValueError; "\ud800": U+FFFD
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except (safeopen.NotRegularFile, safeopen.TooLarge) as exc:
        raise UsageError(f"{path}: {exc.strerror}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read ({exc.__class__.__name__})") from None
    except ValueError as exc:
        raise UsageError(f"{path}: not JSON ({exc})") from None
    return parse(raw, where=str(path)), raw


def _need(cond: bool, where: str, what: str) -> None:
    if not cond:
        raise UsageError(f"{where}: {what}")


def _str(v: Any) -> bool:
    return isinstance(v, str)


def _opt_str(v: Any) -> bool:
    return v is None or isinstance(v, str)


def parse(raw: Any, *, where: str) -> State:
    _need(isinstance(raw, dict), where, "not a memories.json document (expected an object)")
    _need(raw.get("format") == FORMAT, where, f"not a memories.json document (format is not {FORMAT!r})")
    version = raw.get("version")
    _need(isinstance(version, int), where, "version: missing")
    _need(version <= VERSION, where, f"version {version} is newer than this memoryd reads ({VERSION})")
    state = State()
    scopes = raw.get("scopes", {})
    _need(isinstance(scopes, dict), where, "scopes: expected an object")
    for h, info in scopes.items():
        _need(_HASH.match(h) is not None, where, f"scopes: {h[:40]!r} is not a scope hash")
        _need(isinstance(info, dict), where, f"scopes.{h}: expected an object")
        sens = info.get("sensitive")
        _need(sens is None or _settings_ok(sens), where, f"scopes.{h}.sensitive: not a sensitive.json")
        _need(_opt_str(info.get("remote")), where, f"scopes.{h}.remote: expected a string or null")
        _need(_opt_str(info.get("unmarked_at")), where, f"scopes.{h}.unmarked_at: expected a time or null")
        proof = info.get("unmark_proof")
        _need(_opt_str(proof), where, f"scopes.{h}.unmark_proof: expected a string or null")
        state.scopes[h] = {
            "sensitive": sens,
            "unmarked_at": info.get("unmarked_at"),
            "unmark_proof": proof if info.get("unmarked_at") else None,
            "remote": info.get("remote"),
        }
    links = raw.get("links", [])
    _need(isinstance(links, list), where, "links: expected a list")
    for i, pair in enumerate(links):
        ok = isinstance(pair, list) and len(pair) == 2 and all(_str(x) and _HASH.match(x) for x in pair)
        _need(ok, where, f"links[{i}]: expected two scope hashes")
        a, b = sorted(pair)
        state.links.add((a, b))
    memories = raw.get("memories", {})
    _need(isinstance(memories, dict), where, "memories: expected an object keyed by slug")
    for slug, e in memories.items():
        _need(
            _SLUG.match(slug) is not None and ".." not in slug,
            where,
            f"memories: {slug[:60]!r} is not a slug",
        )
        state.memories[slug] = _entry(e, f"{where}: memories.{slug}")
    return state


def _settings_ok(sens: Any) -> bool:
    from memoryd import crypto

    if not isinstance(sens, dict) or sens.get("key_source") not in ("random", "passphrase"):
        return False
    if not all(_str(sens.get(k)) for k in ("marked_at", "key_check")):
        return False
    if not all(sens.get(k) is None or isinstance(sens[k], str) for k in ("root", "sealed_root")):
        return False
    try:
        if sens.get("kdf") is not None:
            crypto.KdfParams.from_dict(sens["kdf"])
    except (KeyError, TypeError, ValueError):
        return False
    return sens["key_source"] == "random" or sens.get("kdf") is not None


def _entry(e: Any, where: str) -> Entry:
    _need(isinstance(e, dict), where, "expected an object")
    heads_raw = e.get("heads")
    _need(isinstance(heads_raw, list) and heads_raw, where, "heads: expected a non-empty list")
    heads = []
    for i, h in enumerate(heads_raw):
        w = f"{where}.heads[{i}]"
        _need(isinstance(h, dict), w, "expected an object")
        for key in ("rev", "updated_at", "scope_hash", "type"):
            _need(_str(h.get(key)), w, f"{key}: expected a string")
        _need(_HASH.match(h["scope_hash"]) is not None, w, "scope_hash: expected 12 hex digits")
        _need(h["type"] in TYPES, w, f"type: one of {', '.join(TYPES)}")
        _need(_REV.match(h["rev"]) is not None, w, "rev: expected 32 hex digits")
        hist = h.get("history", [])
        ok = isinstance(hist, list) and all(_str(x) and _REV.match(x) for x in hist)
        _need(ok, w, "history: expected a list of revs")
        deleted = bool(h.get("deleted", False))
        _need(_opt_str(h.get("content")) and _opt_str(h.get("turns")), w, "content/turns: expected text")
        _need(deleted or h.get("content") is not None, w, "content: missing (only a deleted head has none)")
        if h.get("encrypted"):
            for key in ("content", "turns"):
                _need(h.get(key) is None or _B64.match(h[key]) is not None, w, f"{key}: not base64")
        heads.append(
            Head(
                rev=h["rev"],
                history=tuple(sorted(set(hist))),
                updated_at=h["updated_at"],
                scope_hash=h["scope_hash"],
                type=h["type"],
                deleted=deleted,
                encrypted=bool(h.get("encrypted", False)),
                content=h.get("content"),
                turns=h.get("turns"),
            )
        )
    recalls = e.get("recalls", {})
    ok = isinstance(recalls, dict) and all(isinstance(v, int) and v >= 0 for v in recalls.values())
    _need(ok, where, "recalls: expected an object of counts")
    _need(_opt_str(e.get("last_recalled_at")), where, "last_recalled_at: expected a timestamp or null")
    decay = e.get("decay")
    if decay is not None:
        ok = isinstance(decay, dict) and _str(decay.get("state")) and decay["state"] in DECAY_ORDER
        ok = ok and _str(decay.get("at"))
        _need(ok, where, "decay: expected {state, at}")
    return Entry(
        heads=tuple(sorted(heads, key=lambda h: h.rev)),
        recalls=dict(recalls),
        last_recalled_at=e.get("last_recalled_at"),
        decay=Decay(decay["state"], decay["at"]) if decay else None,
    )
