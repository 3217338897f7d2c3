"""Undo of the weekly review's decisions (issue 22): a reject, an approval, a merge and a
"not duplicates" are recorded (table review_actions) when a person makes them through the
facade, and each can be taken back once, audited as `undo`.

What undo does, and when it refuses (a one-line UsageError, nothing changed):
- reject: the proposal is pending again; refused once it was decided again meanwhile.
- approve: the memory the approval wrote goes to the trash (memoryd.store.trash) and the
  proposal is pending again. Refused when that memory changed since (edited, merged into,
  retyped; recalls do not count) unless `force`, which moves it to the trash as it is now;
  when it is gone (forgotten, merged away), `force` reopens the proposal alone. Refused
  even with `force` while a later merge that kept it is not undone (its dropped memories
  could then never come back): that merge is undone first.
- merge: the dropped memories come back from the trash byte for byte and are indexed as
  reindex would; the kept memory gets its file from before the merge back (recalls counted
  since then are dropped with it). Refused when the kept memory changed since, unless
  `force`; when a dropped slug exists again; when the trash was emptied (30 days).
  The promotions the dropped sessions had (the index drops them with the memory; the
  merge kept them in the trash) come back under their ids, decided or not; refused when
  the trash lacks them or an id is taken, unless `force`, which leaves them out. Each
  supersede link the merge took from a dropped memory (moved to the kept one, or
  released) points at it again; refused when that link changed since, unless `force`,
  which leaves it as it is now. An action logged before these were noted restores files.
- not duplicates: the digest proposes the group again.

Undo in a sensitive scope passes the gate as the action did (approve and merge do; reject
and "not duplicates" read nothing). The audit event comes first with a dedupe key, then
the change: a retry after a crash logs nothing twice."""

from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import text

from memoryd import clock
from memoryd.db.engine import read_session, write_session
from memoryd.errors import CorruptFile, KeyUnavailable, NotFound, UsageError
from memoryd.store import Store, trash
from memoryd.store import governance as sql
from memoryd.store.writelock import serialised

if TYPE_CHECKING:
    from memoryd.kg.supersedes import Moved

KINDS = ("reject", "approve", "merge", "not_duplicates")
AUTOMATIC = ("consolidate",)  # actors whose actions `undo` without an id passes over


@dataclass(frozen=True)
class Action:
    id: int
    kind: str
    at: str
    actor: str
    scope_hash: str | None
    target: str
    detail: dict[str, Any]
    undone_at: str | None

    def describe(self) -> str:
        """One line a person recognises: what was done to what."""
        d = self.detail
        if self.kind == "reject":
            return f"reject of promotion #{self.target}"
        if self.kind == "approve":
            return f"approval of promotion #{self.target} ({d.get('slug', '?')})"
        if self.kind == "merge":
            return f"merge of {', '.join(x['slug'] for x in d.get('dropped', []))} into {self.target}"
        return f"not duplicates: {', '.join(d.get('slugs', []))}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "at": self.at,
            "actor": self.actor,
            "scope_hash": self.scope_hash,
            "target": self.target,
            "what": self.describe(),
            "undone_at": self.undone_at,
            **{k: v for k, v in self.detail.items() if k in ("slug", "slugs", "promotion")},
            **(
                {"kept": self.target, "dropped": [x["slug"] for x in self.detail.get("dropped", [])]}
                if self.kind == "merge"
                else {}
            ),
        }


@dataclass(frozen=True)
class Undone:
    action: Action
    event_seq: int
    restored: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    reopened: int | None = None
    missing: tuple[str, ...] = ()  # a merge's dropped memories the trash had lost (--force)
    scopes: tuple[str, ...] = field(default_factory=tuple)
    promotions: tuple[int, ...] = ()  # a merge's promotions back, and those left out (--force)
    lost_promotions: tuple[int, ...] = ()
    relinked: tuple[str, ...] = ()  # memories a merge's undo made replaced by a dropped one again

    def as_dict(self) -> dict[str, Any]:
        return {
            "undone": self.action.as_dict(),
            "audit_seq": self.event_seq,
            "restored": list(self.restored),
            "removed": list(self.removed),
            "reopened_promotion": self.reopened,
            "not_restored": list(self.missing),
            "restored_promotions": list(self.promotions),
            "not_restored_promotions": list(self.lost_promotions),
            "relinked": list(self.relinked),
        }


_COLS = "id, kind, at, actor, scope_hash, target, detail, undone_at"


def _action(row: Any) -> Action:
    try:
        detail = json.loads(row[6] or "{}")
    except ValueError:
        detail = {}
    return Action(int(row[0]), row[1], row[2], row[3], row[4], row[5], detail, row[7])


def note(
    store: Store, kind: str, *, actor: str, scope_hash: str | None, target: str, detail: dict[str, Any]
) -> int:
    """Record a decision so it can be undone; returns its id."""
    assert kind in KINDS
    # The undo's dedupe key: random and kept with the action, not its id (which restarts
    # when the index is rebuilt), so a retry of this undo is recognised and nothing else.
    detail = {**detail, "key": secrets.token_hex(8)}
    with write_session(store.engine) as s:
        new = s.exec(
            text(
                "INSERT INTO review_actions (kind, at, actor, scope_hash, target, detail) "
                "VALUES (:kind, :at, :actor, :scope, :target, :detail) RETURNING id"
            ),
            params={
                "kind": kind,
                "at": clock.now_iso(),
                "actor": actor,
                "scope": scope_hash,
                "target": target,
                "detail": json.dumps(detail, sort_keys=True, ensure_ascii=False),
            },
        ).scalar()
    return int(new)


def listing(store: Store, *, limit: int = 20, undone: bool = False) -> list[Action]:
    """The latest actions first; those already undone only with `undone`."""
    where = "" if undone else "WHERE undone_at IS NULL "
    with read_session(store.engine) as s:
        rows = s.exec(
            text(f"SELECT {_COLS} FROM review_actions {where}ORDER BY id DESC LIMIT :n"),
            params={"n": int(limit)},
        ).all()
    return [_action(r) for r in rows]


def get(store: Store, action_id: int) -> Action:
    with read_session(store.engine) as s:
        row = s.exec(
            text(f"SELECT {_COLS} FROM review_actions WHERE id = :id"), params={"id": action_id}
        ).first()
    if row is None:
        raise UsageError(f"no review action #{action_id}; `memoryd undo --list` shows them")
    return _action(row)


def pick(store: Store, action_id: int | None) -> Action:
    """The given action, or the latest one a person made that is not undone yet."""
    if action_id is not None:
        a = get(store, action_id)
        if a.undone_at:
            raise UsageError(f"review action #{a.id} ({a.describe()}) was already undone at {a.undone_at}")
        return a
    with read_session(store.engine) as s:
        row = s.exec(
            text(
                f"SELECT {_COLS} FROM review_actions WHERE undone_at IS NULL "
                f"AND actor NOT IN ({', '.join(repr(x) for x in AUTOMATIC)}) ORDER BY id DESC LIMIT 1"
            )
        ).first()
    if row is None:
        raise UsageError("nothing to undo: no review action waits to be undone (`memoryd undo --list`)")
    return _action(row)


def _superseded(a: Action, why: str) -> UsageError:
    return UsageError(f"cannot undo review action #{a.id} ({a.describe()}): {why}")


def _mark_undone(s: Any, a: Action) -> None:
    res = s.exec(
        text("UPDATE review_actions SET undone_at = :ts WHERE id = :id AND undone_at IS NULL"),
        params={"ts": clock.now_iso(), "id": a.id},
    )
    if not res.rowcount:
        raise _superseded(a, "it was undone meanwhile")


def _audit(store: Store, a: Action, actor: str, scope_hash: str | None, **details: Any) -> int:
    ev = store.audit.append(
        "undo",
        actor=actor,
        scope_hash=scope_hash,
        target_id=a.target,
        details={"action": a.id, "undid": a.kind, "cancels": _cancels(store, a), **details},
        dedupe=f"undo:{a.detail.get('key') or f'{a.id}:{a.at}'}",
    )
    return ev.seq


def _cancels(store: Store, a: Action) -> list[str]:
    """The dedupe keys of the events this undo takes back: the same decision made again
    is then logged anew, not taken for a retry of the undone one."""
    if a.kind == "merge":
        return [sql.decision_key("merge", a.target, x["slug"]) for x in a.detail.get("dropped", [])]
    if a.kind in ("approve", "reject"):
        return [sql.decision_key(a.kind, sql.proposal_ident(_promotion(store, a)))]
    return [sql.decision_key(a.kind, a.target)]


@serialised
def undo(store: Store, action_id: int | None = None, *, force: bool = False, actor: str = "cli") -> Undone:
    a = pick(store, action_id)
    if a.kind == "reject":
        return _undo_reject(store, a, actor)
    if a.kind == "approve":
        return _undo_approve(store, a, force, actor)
    if a.kind == "merge":
        return _undo_merge(store, a, force, actor)
    return _undo_not_duplicates(store, a, actor)


def _promotion(store: Store, a: Action) -> dict[str, Any]:
    from memoryd.governance import promotions

    try:
        return promotions.get(store, int(a.target))
    except NotFound:
        raise _superseded(a, f"promotion #{a.target} is gone (its session was removed)") from None


def _reopen(s: Any, pid: int, was: str) -> bool:
    res = s.exec(
        text(
            "UPDATE promotions SET status = 'pending', decided_at = NULL, decided_type = NULL "
            "WHERE id = :id AND status = :was"
        ),
        params={"id": pid, "was": was},
    )
    return bool(res.rowcount)


def _undo_reject(store: Store, a: Action, actor: str) -> Undone:
    row = _promotion(store, a)
    if row["status"] != "rejected" or row["decided_at"] != a.detail.get("decided_at"):
        raise _superseded(a, f"promotion #{a.target} was decided again since ({row['status']})")
    seq = _audit(store, a, actor, row["scope_hash"], promotion=int(a.target))
    with write_session(store.engine) as s:
        if not _reopen(s, int(a.target), "rejected"):
            raise _superseded(a, f"promotion #{a.target} was decided again meanwhile")
        _mark_undone(s, a)
    return Undone(a, seq, reopened=int(a.target), scopes=(row["scope_hash"],))


def _version(row: dict[str, Any]) -> list[Any]:
    """What says a memory changed: recalls rewrite its file but none of these. The title
    too: updated_at counts whole seconds, and the fingerprint is the body's, so a retitle
    in the second of the merge changed neither. The title as a digest, as the body is: the
    action outlives a marking sensitive, which must leave no title readable."""
    title = str(row.get("title") or "")
    return [
        row.get("updated_at"),
        row.get("fingerprint"),
        row.get("type"),
        row.get("body_path"),
        hashlib.sha256(title.encode("utf-8")).hexdigest()[:16],
    ]


def _changed(row: dict[str, Any], then: Any) -> bool:
    """Whether the memory differs from the version an action noted (an action logged
    before the title was noted compares what it has)."""
    now = _version(row)
    return not isinstance(then, list) or not then or now[: len(then)] != then


def version_of(store: Store, slug: str) -> list[Any]:
    return _version(store.row(slug))


def _undo_approve(store: Store, a: Action, force: bool, actor: str) -> Undone:
    from memoryd.sensitive import gate

    pid, slug = int(a.target), str(a.detail.get("slug"))
    row = _promotion(store, a)
    if row["status"] != "approved":
        raise _superseded(a, f"promotion #{pid} is {row['status']} now")
    gate.check_or_raise(store, row["scope_hash"], actor=actor, what="undo", target=str(pid))
    try:
        mem: dict[str, Any] | None = store.row(slug)
    except NotFound:
        mem = None
    if mem is not None:
        trash.confined(store.layout, mem["body_path"])
    if mem is None and not force:
        raise _superseded(
            a,
            f"the memory it wrote ({slug}) is gone (merged away or forgotten); --force reopens it",
        )
    if mem is not None:
        later = _merge_kept(store, slug, after=a.id)
        if later is not None:  # trashing it would strand that merge's dropped memories
            raise _superseded(
                a, f"{slug} kept a later merge (#{later}); undo that first: memoryd undo {later}"
            )
    if mem is not None and _changed(mem, a.detail.get("version")) and not force:
        raise _superseded(
            a, f"{slug} was changed since (edited or merged into); --force takes it back as it is now"
        )
    seq = _audit(store, a, actor, row["scope_hash"], promotion=pid, slug=slug, forced=force)
    entry = None
    if mem is not None:
        entry = trash.new_entry(store.layout, kind="approve", scopes=[mem["scope_hash"]])
        trash.move_in(store.files, entry, mem["body_path"])
    with write_session(store.engine) as s:
        if mem is not None:
            sql.delete_memory(s, slug)
        if not _reopen(s, pid, "approved"):
            raise _superseded(a, f"promotion #{pid} was decided again meanwhile")
        _mark_undone(s, a)
        if entry:
            s.exec(
                text("UPDATE review_actions SET detail = json_set(detail, '$.trash', :e) WHERE id = :id"),
                params={"e": entry, "id": a.id},
            )
    if mem is not None:
        store.changed(mem["scope_hash"])
    return Undone(
        a, seq, removed=(slug,) if mem is not None else (), reopened=pid, scopes=(row["scope_hash"],)
    )


def _merge_kept(store: Store, slug: str, *, after: int) -> int | None:
    """The latest merge not undone since action `after` that kept this memory."""
    with read_session(store.engine) as s:
        row = s.exec(
            text(
                "SELECT id FROM review_actions WHERE kind = 'merge' AND target = :slug "
                "AND undone_at IS NULL AND id > :after ORDER BY id DESC LIMIT 1"
            ),
            params={"slug": slug, "after": after},
        ).first()
    return int(row[0]) if row else None


def _undo_merge(store: Store, a: Action, force: bool, actor: str) -> Undone:
    from memoryd.sensitive import gate

    d = a.detail
    keep, kept_path, entry = a.target, str(d.get("kept_path")), str(d.get("trash") or "")
    dropped: list[dict[str, str]] = list(d.get("dropped") or [])
    if trash.entry(store.layout, entry) is None:
        raise _superseded(a, f"the trash it needs was emptied (kept {trash.RETENTION_DAYS} days)")
    try:
        kept = store.row(keep)
    except NotFound:
        raise _superseded(a, f"the kept memory {keep} is gone since") from None
    if _changed(kept, d.get("version")) and not force:
        raise _superseded(a, f"{keep} was changed since the merge; --force restores it as it was before")
    if kept["body_path"] != kept_path:
        raise _superseded(a, f"{keep} moved since the merge (retyped or forgotten)")
    for path in (kept_path, *(str(x.get("body_path")) for x in dropped)):
        trash.confined(store.layout, path)
    for scope in dict.fromkeys([kept["scope_hash"], *(x["scope_hash"] for x in dropped)]):
        gate.check_or_raise(store, scope, actor=actor, what="undo", target=keep)
    files = store.files
    back: list[tuple[str, str]] = []
    missing: list[str] = []
    for x in dropped:
        try:
            store.row(x["slug"])
        except NotFound:
            pass
        else:
            raise _superseded(a, f"{x['slug']} exists again since the merge")
        here, there = files.absolute(x["body_path"]), trash.trashed(files, entry, x["body_path"])
        source = there if there.exists() else here
        if not source.exists():
            missing.append(x["slug"])  # missing when merged, or lost from the trash since
            continue
        try:
            files.read(source)  # opens where it lies: a sealed file needs its scope's key
        except (CorruptFile, KeyUnavailable) as exc:
            raise _superseded(a, f"{x['slug']} in the trash does not open ({exc})") from None
        back.append((x["slug"], x["body_path"]))
    if missing and not force:
        raise _superseded(
            a, f"the trash lacks {', '.join(missing)}; --force undoes the merge without bringing it back"
        )
    previous = trash.before(files, entry, kept_path)
    if previous is None:
        raise _superseded(a, f"the trash lacks {keep} as it was before the merge")
    try:  # checked before anything moves or is logged: a damaged copy must not replace it
        files.read(trash.before_path(files, entry, kept_path))
    except (CorruptFile, KeyUnavailable) as exc:
        raise _superseded(a, f"{keep} as it was before the merge does not open ({exc})") from None
    coming = {s for s, _ in back}
    proposals, lost = _proposals(store, a, entry, coming, force)
    moves = _moves(store, a, keep, coming, force)
    seq = _audit(
        store,
        a,
        actor,
        kept["scope_hash"],
        kept=keep,
        restored=[s for s, _ in back],
        forced=force,
        **({"missing": missing} if missing else {}),
        **({"promotions": [int(r["id"]) for r in proposals]} if proposals else {}),
        **({"relinked": [m.older for m in moves]} if moves else {}),
    )
    from memoryd import atomic
    from memoryd.kg import supersedes

    for _, body_path in back:
        trash.move_out(files, entry, body_path)
    atomic.write_bytes(files.absolute(kept_path), previous)
    store.index_files([files.absolute(p) for _, p in back] + [files.absolute(kept_path)])
    for m in moves:
        supersedes.move_back(store, m, actor=actor)
    with write_session(store.engine) as s:
        for r in proposals:
            sql.restore_promotion(s, r)
        _mark_undone(s, a)
    trash.remove(store.layout, entry)
    scopes = tuple(dict.fromkeys([kept["scope_hash"], *(x["scope_hash"] for x in dropped)]))
    return Undone(
        a,
        seq,
        restored=tuple(s for s, _ in back),
        missing=tuple(missing),
        scopes=scopes,
        promotions=tuple(int(r["id"]) for r in proposals),
        lost_promotions=tuple(lost),
        relinked=tuple(m.older for m in moves),
    )


def _proposals(
    store: Store, a: Action, entry: str, coming: set[str], force: bool
) -> tuple[list[dict[str, Any]], list[int]]:
    """The dropped sessions' promotions to put back, and those `force` leaves out: lost
    from the trash, or their id taken (an index rebuilt since restarts the ids)."""
    from memoryd.governance.merge import trashed_promotions

    wanted = [int(x) for x in a.detail.get("promotions") or []]
    if not wanted:
        return [], []
    kept = [
        r
        for r in trashed_promotions(store, entry) or []
        if r["id"] in wanted and r["source_session_slug"] in coming
    ]
    with read_session(store.engine) as s:
        taken = sql.promotion_ids_taken(s, [int(r["id"]) for r in kept])
    ok = [r for r in kept if r["id"] not in taken]
    lost = [p for p in wanted if p not in {r["id"] for r in ok}]
    if lost and not force:
        why = "another proposal has that number now" if taken else "the trash lacks it"
        raise _superseded(
            a,
            f"promotion {', '.join(f'#{p}' for p in lost)} of a dropped session cannot come back "
            f"({why}); --force undoes the merge without it",
        )
    return ok, lost


def _moves(store: Store, a: Action, keep: str, coming: set[str], force: bool) -> list[Moved]:
    """The supersede links the merge moved off a dropped memory that come back, checked
    unchanged since (`force` leaves a changed one as it is now)."""
    from memoryd.kg import supersedes

    out = []
    for raw in a.detail.get("links") or []:
        if not isinstance(raw, dict) or not all(isinstance(raw.get(k), str) for k in ("older", "gone")):
            continue
        m = supersedes.Moved(raw["older"], raw["gone"], raw.get("to"), raw.get("at"))
        if m.gone not in coming or m.older == keep:
            continue  # not coming back; or the kept file, as it was, says it
        why = supersedes.moved_since(store, m)
        if why and not force:
            raise _superseded(
                a, f"the supersede link of {m.older} changed since the merge ({why}); --force leaves it"
            )
        if not why:
            out.append(m)
    return out


def _undo_not_duplicates(store: Store, a: Action, actor: str) -> Undone:
    with read_session(store.engine) as s:
        there = s.exec(
            text("SELECT 1 FROM not_duplicates WHERE group_key = :k"), params={"k": a.target}
        ).first()
    if there is None:
        raise _superseded(a, "that decision is no longer recorded")
    seq = _audit(store, a, actor, a.scope_hash, slugs=a.detail.get("slugs", []))
    with write_session(store.engine) as s:
        s.exec(text("DELETE FROM not_duplicates WHERE group_key = :k"), params={"k": a.target})
        _mark_undone(s, a)
    return Undone(a, seq, scopes=(a.scope_hash,) if a.scope_hash else ())
