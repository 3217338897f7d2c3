"""The grant PIN (issue 18): what the person types to grant a random-key scope when no
tray runs. A terminal is not proof of a person (an agent can open a pty), a secret the
agent does not know is. Stored only as a scrypt hash (n=2^15, r=8, p=1, random salt) in
the OS keyring, where random-key scopes keep their keys anyway; never in a file the agent
could overwrite. scrypt's cost is also what slows guessing."""

from __future__ import annotations

import hmac
import json

from memoryd import crypto
from memoryd.errors import KeyUnavailable, UsageError

from . import state

ENTRY = "grant-pin"
MIN_LENGTH = 6
MAX_LENGTH = 256


def is_set() -> bool:
    """Raises KeyUnavailable when there is no keyring to ask."""
    return state.keyring_get(ENTRY) is not None


def _stored() -> tuple[crypto.KdfParams, bytes] | None:
    raw = state.keyring_get(ENTRY)
    if raw is None:
        return None
    try:
        data = json.loads(raw.decode("utf-8"))
        params = crypto.KdfParams.from_dict(data["kdf"])
        digest = crypto.unb64(data["hash"])
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        raise KeyUnavailable(
            "the grant PIN in the OS keyring is damaged: set a new one from the tray"
        ) from None
    if params.n < crypto.SCRYPT_N or params.r < crypto.SCRYPT_R or params.p < 1:
        raise KeyUnavailable(
            "the grant PIN in the OS keyring has weakened parameters: set a new one from the tray"
        )
    return params, digest


def verify(pin: str) -> bool:
    """True when `pin` is the one set; False when wrong or when none is set."""
    stored = _stored()
    if stored is None or not pin:
        return False
    params, digest = stored
    return hmac.compare_digest(crypto.derive(pin, params), digest)


def check_new(pin: str) -> None:
    if len(pin) < MIN_LENGTH:
        raise UsageError(f"choose a grant PIN of at least {MIN_LENGTH} characters")
    if len(pin) > MAX_LENGTH:
        raise UsageError(f"a grant PIN has at most {MAX_LENGTH} characters")


def store(pin: str) -> None:
    """Keep the scrypt hash of a new PIN (the caller has decided it may be set)."""
    check_new(pin)
    params = crypto.KdfParams.fresh()
    value = {"version": 1, "kdf": params.as_dict(), "hash": crypto.b64(crypto.derive(pin, params))}
    state.keyring_set(ENTRY, json.dumps(value).encode("utf-8"))
