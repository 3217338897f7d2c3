"""Approving and rejecting what analysis proposed (seed 000: `promote` writes a real
long-term memory file with `promoted_from`, not just a status change)."""

from __future__ import annotations

from typing import Any

from memoryd import clock, slugs
from memoryd.db.engine import read_session, write_session
from memoryd.errors import MemorydError, NotFound, UsageError
from memoryd.frontmatter import Document
from memoryd.models import LONG_TERM_TYPES, Frontmatter, MemoryType, default_ttl
from memoryd.store import Store
from memoryd.store import governance as sql

STATUSES = ("pending", "approved", "rejected")


def get(store: Store, pid: int) -> dict[str, Any]:
    with read_session(store.engine) as s:
        row = sql.promotion(s, pid)
    if row is None:
        raise NotFound(f"no promotion with id {pid}; `memoryd promotions` lists them")
    return row


def listing(store: Store, *, status: str | None, scopes: list[str] | None = None) -> list[dict[str, Any]]:
    if status is not None and status not in STATUSES:
        raise UsageError(f"--status must be one of {', '.join(STATUSES)}")
    with read_session(store.engine) as s:
        rows = sql.promotions(s, status=status, scopes=scopes)
    return [readable(store, r) for r in rows]


SEALED_TITLE = "(sensitive: grant to read)"


def readable(store: Store, row: dict[str, Any]) -> dict[str, Any]:
    """A sensitive scope's proposal opened when a grant is live, else a placeholder."""
    from memoryd.sensitive import content, gate

    if not content.is_sealed(row.get("proposed_body")):
        return row
    if gate.allowed(store, row["scope_hash"]):
        try:
            return content.open_proposal(store.keys.get(row["scope_hash"]), row["scope_hash"], row)
        except MemorydError:
            pass
    return {
        **row,
        "proposed_title": SEALED_TITLE,
        "proposed_body": "",
        "proposed_triggers": [],
        "reasoning": "",
    }


def _pending(store: Store, pid: int) -> dict[str, Any]:
    row = get(store, pid)
    if row["status"] != "pending":
        raise UsageError(f"promotion {pid} is already {row['status']} ({row['decided_at']})")
    return row


def promote(
    store: Store,
    pid: int,
    *,
    memory_type: str | None = None,
    title: str | None = None,
    body: str | None = None,
    triggers: list[str] | None = None,
    actor: str = "cli",
) -> Document:
    """Approve a proposal; the user may change its type, title, body and triggers first
    (the tray's digest window edits before approving)."""

    row = _pending(store, pid)
    sensitive = store.keys.sensitive(row["scope_hash"])
    if sensitive:
        from memoryd.sensitive import content, gate

        gate.check_or_raise(store, row["scope_hash"], actor=actor, what="promote", target=str(pid))
        row = content.open_proposal(store.keys.get(row["scope_hash"]), row["scope_hash"], row)
    name = memory_type or row["proposed_type"]
    try:
        mtype = MemoryType(name)
    except ValueError:
        mtype = None
    if mtype not in LONG_TERM_TYPES:
        raise UsageError(
            f"promotion {pid} needs a long-term type: --type one of "
            + ", ".join(t.value for t in LONG_TERM_TYPES)
        )
    assert mtype is not None
    final_title = (title or row["proposed_title"]).strip()
    if not final_title:
        raise UsageError("--title must not be empty")
    session = _session_meta(store, row["source_session_slug"])
    now = clock.now()
    text = (row["proposed_body"] if body is None else body).strip()
    if not text:
        raise UsageError("the body must not be empty")
    final_triggers = list(row["proposed_triggers"]) if triggers is None else _clean_triggers(triggers)
    meta = Frontmatter(
        title=final_title,
        slug=_sensitive_slug(store, row["scope_hash"], pid, row["source_session_slug"])
        if sensitive
        else slugs.for_promotion(pid, final_title, row["source_session_slug"]),
        type=mtype,
        scope_hash=row["scope_hash"],
        source=session.source if session else "manual",
        created_at=now,
        updated_at=now,
        tags=list(session.tags) if session else [],
        triggers=final_triggers,
        ttl_days=default_ttl(mtype),
        last_recalled_at=now,
        dura_score=row["dura_score"] or None,
        promoted_from=row["source_session_slug"],
    )
    doc = Document(meta=meta, body=text + "\n")
    store.save(
        doc,
        event="promote",
        actor=actor,
        details={"promotion": pid, "from": row["source_session_slug"], "type": mtype.value},
        dedupe=sql.decision_key("approve", sql.proposal_ident(row)),
    )
    with write_session(store.engine) as s:
        sql.decide(s, pid, "approved", clock.iso(now), decided_type=mtype.value)
    return doc


def _clean_triggers(triggers: list[str]) -> list[str]:
    """Trimmed, blank and repeated ones dropped, order kept."""
    return list(dict.fromkeys(t.strip() for t in triggers if t and t.strip()))


def reject(store: Store, pid: int, *, reason: str | None = None, actor: str = "cli") -> dict[str, Any]:

    row = _pending(store, pid)
    now = clock.now_iso()
    # The event first: a reject killed before the decision is made again by the next try,
    # which does not log it twice; the other order could leave a rejection unlogged.
    store.audit.append(
        "reject",
        actor=actor,
        scope_hash=row["scope_hash"],
        target_id=str(pid),
        details={"from": row["source_session_slug"], **({"reason": reason} if reason else {})},
        dedupe=sql.decision_key("reject", sql.proposal_ident(row)),
    )
    with write_session(store.engine) as s:
        if not sql.decide(s, pid, "rejected", now):
            raise UsageError(f"promotion {pid} was decided by someone else meanwhile")
    return {**row, "status": "rejected", "decided_at": now}


def _session_meta(store: Store, slug: str) -> Frontmatter | None:
    try:
        return store.read(slug)[0].meta
    except Exception:  # the session may have faded or been merged away: promote anyway
        return None


def _sensitive_slug(store: Store, scope_hash: str, pid: int, session: str) -> str:
    """No title words in a sensitive scope; still the same name on a rerun."""
    from memoryd.sensitive.marking import opaque

    return opaque(store.keys.get(scope_hash), f"promoted-{pid}-{session}")
