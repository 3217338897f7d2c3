""" "Not duplicates" (issue 22): a person looked at a duplicate group and said its
memories differ. The decision is kept in the index (table not_duplicates) and audited; the
digest no longer proposes that group, nor any part of it (a group with a new member is
proposed again). `memoryd undo` takes it back."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import text

from memoryd import clock, slugs
from memoryd.db.engine import write_session
from memoryd.errors import UsageError
from memoryd.store import Store

# The most memories one decision (not duplicates, a merge) may name: a review group is a
# handful; thousands are a script's mistake, and each would be named in the audit log.
MAX_GROUP = 100


def check_size(members: Sequence[str], what: str) -> None:
    if len(members) > MAX_GROUP:
        raise UsageError(f"{what} takes at most {MAX_GROUP} memories at once ({len(members)} given)")


def group_key(members: Sequence[str]) -> str:
    return " ".join(sorted(set(members)))


def mark(store: Store, members: Sequence[str], *, actor: str = "cli") -> tuple[str, str | None]:
    """Record the decision; (group key, the scope when they share one)."""
    from memoryd.store import governance as sql

    check_size(list(dict.fromkeys(members)), "not-duplicates")
    chosen = list(dict.fromkeys(slugs.validate(m) for m in members))
    if len(chosen) < 2:
        raise UsageError("not-duplicates needs at least two different memories")
    scopes = {store.row(m)["scope_hash"] for m in chosen}  # NotFound for a slug that is not there
    scope = next(iter(scopes)) if len(scopes) == 1 else None
    key = group_key(chosen)
    with write_session(store.engine) as s:
        done = s.exec(
            text(
                "INSERT INTO not_duplicates (group_key, scope_hash, decided_at) VALUES (:k, :s, :at) "
                "ON CONFLICT (group_key) DO NOTHING"
            ),
            params={"k": key, "s": scope, "at": clock.now_iso()},
        )
        if not done.rowcount:
            raise UsageError(f"{', '.join(sorted(chosen))} are already marked as not duplicates")
    store.audit.append(
        "not_duplicates",
        actor=actor,
        scope_hash=scope,
        target_id=sorted(chosen)[0],
        details={"slugs": sorted(chosen), "count": len(chosen)},
        dedupe=sql.decision_key("not_duplicates", key),
    )
    return key, scope
