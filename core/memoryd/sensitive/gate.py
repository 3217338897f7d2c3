"""The gate (seed 000): every read of a sensitive scope goes through check_or_raise, in
core, so the CLI, the MCP server and the tray cannot drift apart. Each denial is audited
as `access_denied`, each granted read as `sensitive_read` (counts and ids, no content).
Grants count only when their record passes its MAC and the real clock says they live; a
record that fails its check is removed and its refusal audited (issue 18)."""

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
            "what": what,
            "passphrase": bool(settings and settings.key_source == "passphrase"),
        }
    )
    if answer is None:
        return False, None
    if answer.get("granted"):
        if grants.live(store.keys, scope_hash):
            return True, None
        return False, "the tray answered yes but no grant is in effect (it may have expired already)"
    return False, broker.refusal(answer)


def live_grants(
    store: Store, scope_hash: str, *, actor: str, what: str, target: str | None = None
) -> list[grants.Grant]:
    """The scope's live grants; records that fail their check (written or edited by hand)
    are dropped from the file and the refusal is audited."""
    found = grants.check(store.keys, scope_hash, drop_refused=True)
    if found.refused:
        store.audit.append(
            "access_denied",
            actor=actor,
            scope_hash=scope_hash,
            target_id=target,
            details={"what": what, "why": grants.FORGED, "records": found.refused},
        )
    return found.live


def check_or_raise(
    store: Store, scope_hash: str, *, actor: str, what: str, target: str | None = None
) -> None:
    if not store.keys.sensitive(scope_hash):
        return
    live = live_grants(store, scope_hash, actor=actor, what=what, target=target)
    refused = None
    if not live:
        asked, refused = _ask(store, scope_hash, what)
        if asked:
            live = grants.live(store.keys, scope_hash)
    if not live:
        settings = store.keys.settings(scope_hash)
        if (
            settings is not None
            and settings.key_source == "random"
            and grants.has_records(store.layout, scope_hash)
        ):
            # records no key here can check: say what is wrong with the key (missing from the
            # keyring, or not this scope's) rather than "no grant"
            store.keys.get(scope_hash)
        if settings is not None and settings.key_source == "passphrase":
            # An expired grant's cached key leaves the keyring at the first refusal.
            with contextlib.suppress(KeyUnavailable):
                state.keyring_delete(state.grant_entry(scope_hash))
        store.audit.append(
            "access_denied", actor=actor, scope_hash=scope_hash, target_id=target, details={"what": what}
        )
        root = store.keys.root(scope_hash)
        where = root or scope_hash
        if refused:
            raise AuthorizationRequired(
                f"scope {scope_hash} is sensitive and access was refused: {refused}",
                scope_hash=scope_hash,
                root=root,
            )
        raise AuthorizationRequired(
            f"scope {scope_hash} is sensitive and has no live grant: the user can run "
            f"`memoryd grant {where} --duration once`",
            scope_hash=scope_hash,
            root=root,
        )
    store.audit.append(
        "sensitive_read",
        actor=actor,
        scope_hash=scope_hash,
        target_id=target,
        details={"what": what, "grant": live[-1].duration},
    )


def drop_ended_keys(store: Store) -> int:
    """A passphrase scope's key is cached in the OS keyring for its grant's life; when the
    grant ends, the next refused read removed it, so a key could stay there for days after
    (an outside test, 2026-11-28). The capture worker calls this after each drain: every
    cached key whose scope has no live grant leaves the keyring. Returns how many."""
    gone = 0
    for h in sorted(state.sensitive_hashes(store.layout)):
        settings = store.keys.settings(h)
        if settings is None or settings.key_source != "passphrase" or not store.keys.owned_here(h):
            continue  # (another data dir's scope: its grants are not this one's to judge)
        if state.keyring_get_quiet(state.grant_entry(h)) is None or grants.live(store.keys, h):
            continue
        with contextlib.suppress(KeyUnavailable):
            state.keyring_delete(state.grant_entry(h))
            gone += 1
    return gone


def allowed(store: Store, scope_hash: str) -> bool:
    """For listings that skip what they may not show, without auditing each skip."""
    return not store.keys.sensitive(scope_hash) or bool(grants.live(store.keys, scope_hash))
