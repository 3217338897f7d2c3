"""What makes a scope sensitive on this machine: `scopes/<hash>/sensitive.json` (key
source, KDF parameters, a key check, the folder sealed; never the key) and the key
itself in the OS keyring (random keys) or derived from a passphrase. The `.memoryd-sensitive` marker in the
project is what the hook sees; this file is what the store trusts."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from memoryd import atomic, crypto, oskeyring
from memoryd.errors import CorruptFile, KeyUnavailable
from memoryd.paths import Layout

from . import content

SETTINGS = "sensitive.json"
SERVICE = "memoryd"
ROOT_SEALED_AS = "root"  # the name a sealed root is bound to (memoryd.sensitive.content)


@dataclass(frozen=True)
class Settings:
    """`root` is the project folder in the clear, as files written before version 2 held
    it; since then the folder is `sealed_root`, sealed with the scope's key: its name can
    itself be the secret ("acme-merger"), and this file lies in the data dir, its backups
    and (through sync) the sync folder. Keys.root() opens it where the key is at hand."""

    scope_hash: str
    root: str | None
    marked_at: str
    key_source: str  # random | passphrase
    key_check: str
    kdf: crypto.KdfParams | None = None
    sealed_root: str | None = None

    def as_dict(self) -> dict[str, Any]:
        where: dict[str, Any] = {"sealed_root": self.sealed_root} if self.sealed_root else {"root": self.root}
        return {
            "version": 2 if self.sealed_root else 1,
            "scope_hash": self.scope_hash,
            **where,
            "marked_at": self.marked_at,
            "key_source": self.key_source,
            "key_check": self.key_check,
            "kdf": self.kdf.as_dict() if self.kdf else None,
        }

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Settings:
        root, sealed = raw.get("root"), raw.get("sealed_root")
        if not isinstance(root, str | None) or not isinstance(sealed, str | None):
            raise TypeError("root")
        return cls(
            scope_hash=str(raw["scope_hash"]),
            root=None if sealed else root,
            marked_at=str(raw["marked_at"]),
            key_source=str(raw["key_source"]),
            key_check=str(raw["key_check"]),
            kdf=crypto.KdfParams.from_dict(raw["kdf"]) if raw.get("kdf") else None,
            sealed_root=sealed or None,
        )

    def with_root(self, key: bytes, root: str) -> Settings:
        """These settings with `root` sealed under `key` (and no clear copy)."""
        return replace(self, root=None, sealed_root=seal_root(key, self.scope_hash, root))

    def open_root(self, key: bytes) -> str | None:
        """The folder, given the scope's key (checked by the caller); None if not recorded."""
        if self.sealed_root:
            return str(content.open_value(key, self.scope_hash, ROOT_SEALED_AS, self.sealed_root)["root"])
        return self.root or None


def seal_root(key: bytes, scope_hash: str, root: str) -> str:
    return content.seal_value(key, scope_hash, ROOT_SEALED_AS, {"root": root})


def label(scope_hash: str, root: str | None) -> str:
    """How to name a sensitive scope whose folder this process cannot open."""
    return root or f"sensitive project {scope_hash}"


def settings_path(layout: Layout, scope_hash: str) -> Path:
    return layout.scope_dir(scope_hash) / SETTINGS


def load(layout: Layout, scope_hash: str) -> Settings | None:
    path = settings_path(layout, scope_hash)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(raw, dict):
            raise TypeError("not an object")
        return Settings.from_dict(raw)
    except FileNotFoundError:
        return None
    except (ValueError, KeyError, TypeError) as exc:
        raise CorruptFile(f"{path}: unreadable sensitive-scope settings ({exc.__class__.__name__})") from None


def save(layout: Layout, settings: Settings) -> None:
    atomic.write_text(
        settings_path(layout, settings.scope_hash), json.dumps(settings.as_dict(), indent=2) + "\n"
    )


def remove(layout: Layout, scope_hash: str) -> None:
    settings_path(layout, scope_hash).unlink(missing_ok=True)


UNMARKED = "unmarked.json"
_UNMARK_INFO = b"memoryd unmark proof v1"


def unmark_proof(key: bytes, scope_hash: str, unmarked_at: str) -> str:
    """What an unmarking carries through sync: the key check of the key it was made under
    and a MAC of its time under that key, which only a device holding it can make. A
    device file in the sync folder is anybody's to write, and an unmarking in one used to
    remove `sensitive.json` here."""
    sub = crypto.subkey(key, _UNMARK_INFO + b"\0" + scope_hash.encode())
    mac = hmac.new(sub, unmarked_at.encode("utf-8"), hashlib.sha256).hexdigest()
    return f"{crypto.key_check(key)}:{mac}"


def proof_verdict(key: bytes | None, scope_hash: str, unmarked_at: str, proof: object) -> str:
    """ "holds"; "fails" (made up, or for another time or scope); "unknown" where this
    device cannot judge: no key at hand, or the proof was made under another key (the
    scope's key rotated, or marked on each device with a key of its own)."""
    if key is None:
        return "unknown"
    if not isinstance(proof, str) or ":" not in proof:
        return "fails"
    check, _ = proof.split(":", 1)
    if not hmac.compare_digest(check, crypto.key_check(key)):
        return "unknown"
    return "holds" if hmac.compare_digest(unmark_proof(key, scope_hash, unmarked_at), proof) else "fails"


def save_unmarked(layout: Layout, scope_hash: str, unmarked_at: str, proof: str) -> None:
    """Kept beside the scope's files after `unmark`, when the key is gone, for the next
    sync to send (memoryd.sync.local)."""
    body = {"unmarked_at": unmarked_at, "proof": proof}
    atomic.write_text(layout.scope_dir(scope_hash) / UNMARKED, json.dumps(body) + "\n")


def load_unmarked(layout: Layout, scope_hash: str) -> tuple[str, str] | None:
    """(when, proof) of this device's last unmarking of the scope; None when there was
    none or the file does not read as one (the proof is checked where it arrives)."""
    try:
        data = json.loads((layout.scope_dir(scope_hash) / UNMARKED).read_text(encoding="utf-8"))
        return str(data["unmarked_at"]), str(data["proof"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def drop_unmarked(layout: Layout, scope_hash: str) -> None:
    """Marked again (mark, key import): a review (2026-11-28) exported the key, unmarked,
    imported the key back, deleted the settings file, and the old unmarking's proof, still
    valid under that key, let the scope be written in the clear (Keys.settings_lost)."""
    (layout.scope_dir(scope_hash) / UNMARKED).unlink(missing_ok=True)


def unmarked_hashes(layout: Layout) -> set[str]:
    if not layout.scopes.exists():
        return set()
    return {p.parent.name for p in layout.scopes.glob(f"*/{UNMARKED}")}


def sensitive_hashes(layout: Layout) -> set[str]:
    if not layout.scopes.exists():
        return set()
    return {p.parent.name for p in layout.scopes.glob(f"*/{SETTINGS}")}


_HASH = re.compile(r"[0-9a-f]{12}")


def is_sensitive(layout: Layout, scope_hash: str) -> bool:
    """`scope_hash in sensitive_hashes(layout)`, with one stat instead of a walk over every
    scope's folder (a search asks it for its one scope each time)."""
    if _HASH.fullmatch(scope_hash) is None:  # not a hash's shape: no path built from it
        return scope_hash in sensitive_hashes(layout)
    return settings_path(layout, scope_hash).exists()


# -- the OS keyring -----------------------------------------------------------------------
def _keyring() -> Any:
    import keyring

    return keyring


def _unavailable(exc: Exception) -> KeyUnavailable:
    kr = _keyring()
    try:
        backend = type(kr.get_keyring()).__module__ + "." + type(kr.get_keyring()).__name__
    except Exception:  # reporting only
        backend = "unknown"
    # What a Secret Service says went wrong helps; NoKeyringError's text (install keyrings.alt)
    # would mislead, and the way around it follows anyway.
    said = " ".join(str(exc).split()) if oskeyring.passing(exc) else ""
    if len(said) > 160:
        said = said[:160].rsplit(" ", 1)[0] + " …"
    return KeyUnavailable(
        f"no usable OS keyring (backend {backend}: {exc.__class__.__name__}{': ' + said if said else ''}); "
        "start a Secret Service "
        "(e.g. gnome-keyring) or KWallet, or protect the scope with --passphrase instead"
    )


def keyring_set(entry: str, value: bytes) -> None:
    kr = _keyring()
    try:
        oskeyring.call(lambda: kr.set_password(SERVICE, entry, crypto.b64(value)))
    except oskeyring.unavailable() as exc:
        raise _unavailable(exc) from None


def keyring_get(entry: str) -> bytes | None:
    kr = _keyring()
    try:
        value = oskeyring.call(lambda: kr.get_password(SERVICE, entry))
    except oskeyring.unavailable() as exc:
        raise _unavailable(exc) from None
    return crypto.unb64(value) if value else None


def keyring_delete(entry: str) -> None:
    kr = _keyring()
    try:
        oskeyring.call(lambda: kr.delete_password(SERVICE, entry))
    except kr.errors.PasswordDeleteError:
        return
    except oskeyring.unavailable() as exc:
        raise _unavailable(exc) from None


def key_entry(scope_hash: str) -> str:
    return f"scope-key:{scope_hash}"


def grant_entry(scope_hash: str) -> str:
    """A passphrase scope's derived key, cached while a grant lives (removed on revoke
    or expiry), so the user types the passphrase once per grant, not once per read."""
    return f"grant-key:{scope_hash}"


def check_entry(scope_hash: str) -> str:
    """The scope's key check as memoryd last set it (mark, rotate, key import): what
    `sensitive.json` says is trusted only where this agrees. A review (2026-11-28) found
    an agent could rewrite the settings file (key source passphrase, its own KDF salt and
    key check), grant itself with its own passphrase, and read every capture sealed under
    that key from then on (memoryd.sensitive.keys.Keys.settings)."""
    return f"scope-check:{scope_hash}"


def guarded_entry(data_dir_id: str) -> str:
    """Set once a data dir has had a random-key scope (memoryd.paths.keyring_id): its first
    grant PIN then needs the tray, however its scopes' files are hidden at that moment (a
    review, 2026-11-28, moved sensitive.json away, set a PIN, and moved it back)."""
    return f"random-scopes:{data_dir_id}"


def owner_entry(scope_hash: str) -> str:
    """Which data dir a sensitive scope belongs to (memoryd.paths.keyring_id of the one
    that marked it, or imported its key). The scope's other entries are named by its hash
    alone, which any data dir on this machine computes from the folder: without an owner,
    an agent could copy sensitive.json into a data dir of its own, set that one's grant
    PIN (it has no scopes yet), and grant itself the scope there (memoryd.sensitive.keys)."""
    return f"scope-owner:{scope_hash}"


def epoch_entry(scope_hash: str) -> str:
    """Random bytes mixed into the scope's grant-record key and replaced at every revoke,
    so a copy of a revoked grant's record, saved while it lived, grants nothing after."""
    return f"grant-epoch:{scope_hash}"


def keyring_get_quiet(entry: str) -> bytes | None:
    """For optional caches: no keyring simply means nothing cached."""
    try:
        return keyring_get(entry)
    except KeyUnavailable:
        return None
