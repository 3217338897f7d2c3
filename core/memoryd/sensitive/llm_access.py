"""Whether a sensitive project's text may go to the LLM provider for scoring, judged in
core for every caller (the analyser, the graph's entity and supersede calls).

The promise (SECURITY.md): never a sensitive scope's content "unless the user enables it
for that scope". It used to be `[llm] allow_sensitive = true` in config.toml, one switch
for every scope, in a file any agent with a shell can edit; with a `base_url` of its own
beside it, an agent received every sensitive capture from then on, no grant asked and
nothing audited (a review, 2026-11-28). Now the consent is per scope, given only as a
grant is (the tray's dialog, the grant PIN, or the scope's passphrase), kept in the OS
keyring under this data dir's id, and names the provider and URL it was given for: a
`base_url` changed afterwards is not covered."""

from __future__ import annotations

import json
from dataclasses import dataclass

from memoryd import clock
from memoryd.errors import KeyUnavailable
from memoryd.paths import keyring_id
from memoryd.store import Store

from . import state

NOT_ALLOWED = "sensitive scope: nothing sent to the LLM"


def entry(store: Store, scope_hash: str) -> str:
    return f"llm-allowed:{keyring_id(store.layout.home)}:{scope_hash}"


@dataclass(frozen=True)
class Consent:
    endpoint: str
    at: str


def get(store: Store, scope_hash: str) -> Consent | None:
    """The consent recorded for this scope here, if any (no keyring: none)."""
    raw = state.keyring_get_quiet(entry(store, scope_hash))
    if raw is None:
        return None
    try:
        data = json.loads(raw)
        return Consent(endpoint=str(data["endpoint"]), at=str(data["at"]))
    except (ValueError, KeyError, TypeError):
        return None  # not written by memoryd: consents to nothing


def refusal(store: Store, scope_hash: str, endpoint: str | None, *, sensitive: bool = False) -> str | None:
    """Why this scope's text may not go to `endpoint` (None: it may). A scope that is not
    sensitive (`sensitive`: the caller's index row says it is) always may."""
    if not (sensitive or store.keys.sensitive(scope_hash)):
        return None
    consent = get(store, scope_hash)
    if consent is None:
        return NOT_ALLOWED
    if endpoint != consent.endpoint:
        return f"{NOT_ALLOWED} (allowed for {consent.endpoint}, not for {endpoint or 'no provider'})"
    return None


def allow(store: Store, scope_hash: str, endpoint: str) -> Consent:
    consent = Consent(endpoint=endpoint, at=clock.now_iso())
    state.keyring_set(entry(store, scope_hash), json.dumps(consent.__dict__).encode("utf-8"))
    return consent


def withdraw(store: Store, scope_hash: str) -> bool:
    """True when a consent was there to withdraw."""
    if state.keyring_get_quiet(entry(store, scope_hash)) is None:
        return False
    try:
        state.keyring_delete(entry(store, scope_hash))
    except KeyUnavailable:
        return False
    return True
