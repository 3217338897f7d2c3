"""What makes a scope sensitive on this machine: `scopes/<hash>/sensitive.json` (key
source, KDF parameters, a key check; never the key) and the key itself in the OS keyring
(random keys) or derived from a passphrase. The `.memoryd-sensitive` marker in the
project is what the hook sees; this file is what the store trusts."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memoryd import atomic, crypto, oskeyring
from memoryd.errors import CorruptFile, KeyUnavailable
from memoryd.paths import Layout

SETTINGS = "sensitive.json"
SERVICE = "memoryd"


@dataclass(frozen=True)
class Settings:
    scope_hash: str
    root: str
    marked_at: str
    key_source: str  # random | passphrase
    key_check: str
    kdf: crypto.KdfParams | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "version": 1,
            "scope_hash": self.scope_hash,
            "root": self.root,
            "marked_at": self.marked_at,
            "key_source": self.key_source,
            "key_check": self.key_check,
            "kdf": self.kdf.as_dict() if self.kdf else None,
        }


def settings_path(layout: Layout, scope_hash: str) -> Path:
    return layout.scope_dir(scope_hash) / SETTINGS


def load(layout: Layout, scope_hash: str) -> Settings | None:
    path = settings_path(layout, scope_hash)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return Settings(
            scope_hash=raw["scope_hash"],
            root=raw["root"],
            marked_at=raw["marked_at"],
            key_source=raw["key_source"],
            key_check=raw["key_check"],
            kdf=crypto.KdfParams.from_dict(raw["kdf"]) if raw.get("kdf") else None,
        )
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
