"""The gate (seed 000): every read of a sensitive scope goes through check_or_raise, in
core, so the CLI, the MCP server and the tray cannot drift apart. Each denial is audited
as `access_denied`, each granted read as `sensitive_read` (counts and ids, no content)."""

from __future__ import annotations

import contextlib

from memoryd.errors import AuthorizationRequired, KeyUnavailable
from memoryd.store import Store

from . import broker, grants, state


def _ask(store: Store, scope_hash: str, what: str) -> tuple[bool, str | None]:
    """(granted now, refusal text) from the tray, if this process can ask one."""
    _asker = broker.current
    if _asker is None:
        return False, None
    settings = store.keys.settings(scope_hash)
    answer = _asker(
        {
            "op": "grant",
            "scope_hash": scope_hash,
            "root": settings.root if settings else scope_hash,
            "what": what,
            "passphrase": bool(settings and settings.key_source == "passphrase"),
        }
    )
    if answer is None:
        return False, None
    if answer.get("granted"):
        if grants.live(store.layout, scope_hash):
            return True, None
        return False, "the tray answered yes but no grant is in effect (it may have expired already)"
    return False, str(answer.get("error") or "the user refused it in the tray")


def check_or_raise(
    store: Store, scope_hash: str, *, actor: str, what: str, target: str | None = None
) -> None:
    if not store.keys.sensitive(scope_hash):
        return
    live = grants.live(store.layout, scope_hash)
    refused = None
    if not live:
        asked, refused = _ask(store, scope_hash, what)
        if asked:
            live = grants.live(store.layout, scope_hash)
    if not live:
        settings = store.keys.settings(scope_hash)
        if settings is not None and settings.key_source == "passphrase":
            # An expired grant's cached key leaves the keyring at the first refusal.
            with contextlib.suppress(KeyUnavailable):
                state.keyring_delete(state.grant_entry(scope_hash))
        store.audit.append(
            "access_denied", actor=actor, scope_hash=scope_hash, target_id=target, details={"what": what}
        )
        where = settings.root if settings else scope_hash
        if refused:
            raise AuthorizationRequired(f"scope {scope_hash} is sensitive and access was refused: {refused}")
        raise AuthorizationRequired(
            f"scope {scope_hash} is sensitive and has no live grant: the user can run "
            f"`memoryd grant {where} --duration once`"
        )
    store.audit.append(
        "sensitive_read",
        actor=actor,
        scope_hash=scope_hash,
        target_id=target,
        details={"what": what, "grant": live[-1].duration},
    )


def allowed(store: Store, scope_hash: str) -> bool:
    """For listings that skip what they may not show, without auditing each skip."""
    return not store.keys.sensitive(scope_hash) or bool(grants.live(store.layout, scope_hash))
