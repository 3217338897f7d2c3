"""`memoryd merge --keep A --drop B C` (seed 000): the kept entry absorbs the dropped
ones' triggers, tags and recall counts; the dropped entries go, each with a `merge`
audit event. They go to the trash (memoryd.store.trash) with the kept file as it was, so
the merge can be undone (memoryd.governance.undo) until the trash is emptied. A dropped
session's promotions, which the index drops with it, are kept in the same entry (as
stored: a sensitive scope's stay sealed; the entry goes when the scope changes form)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memoryd import atomic, clock, slugs
from memoryd.db.engine import read_session, write_session
from memoryd.errors import CorruptFile, UsageError
from memoryd.frontmatter import Document
from memoryd.store import Store, trash
from memoryd.store import governance as sql
from memoryd.store.writelock import serialised


@dataclass(frozen=True)
class MergeResult:
    kept: Document
    dropped: tuple[str, ...]
    triggers_added: int
    recalls_added: int
    # For the undo: the trash entry, the kept file's place, each dropped one's place and scope.
    trash: str = ""
    kept_path: str = ""
    dropped_at: tuple[tuple[str, str, str], ...] = ()
    promotions: tuple[int, ...] = ()  # the dropped sessions' promotions, kept in the trash


PROMOTIONS = "promotions.json"


def keep_promotions(store: Store, entry: str, rows: list[dict[str, Any]]) -> None:
    folder = trash.entry(store.layout, entry)
    assert folder is not None
    atomic.write_text(folder / PROMOTIONS, json.dumps(rows, sort_keys=True, ensure_ascii=False) + "\n")


def trashed_promotions(store: Store, entry: str) -> list[dict[str, Any]] | None:
    """The promotions a merge kept, as stored; None when the file is gone or not theirs."""
    folder = trash.entry(store.layout, entry)
    try:
        rows = json.loads((folder / PROMOTIONS).read_text("utf-8")) if folder else None
    except (OSError, ValueError):
        return None
    cols = set(sql.PROMOTION_COLUMNS)
    ok = isinstance(rows, list) and all(
        isinstance(r, dict) and set(r) == cols and isinstance(r["id"], int) for r in rows
    )
    return rows if ok else None


@serialised
def merge(
    store: Store, keep: str, drop: Sequence[str], *, force: bool = False, actor: str = "cli"
) -> MergeResult:
    slugs.validate(keep)
    drops = list(dict.fromkeys(slugs.validate(d) for d in drop))
    if not drops:
        raise UsageError("--drop needs at least one slug")
    from memoryd.governance.duplicates import check_size

    check_size(drops, "merge --drop")
    if keep in drops:
        raise UsageError(f"{keep} is both kept and dropped")
    from memoryd.sensitive import gate

    for slug in (keep, *drops):
        row = store.row(slug)
        gate.check_or_raise(store, row["scope_hash"], actor=actor, what="merge", target=slug)
    kept, _ = store.read(keep)
    rows = {d: store.row(d) for d in drops}  # every slug must exist before anything changes
    foreign = [d for d, r in rows.items() if r["scope_hash"] != kept.meta.scope_hash]
    if foreign and not force:
        raise UsageError(
            f"{', '.join(foreign)} belong(s) to another scope than {keep}; "
            "pass --force to merge across scopes"
        )
    sealed = [d for d in foreign if store.keys.sensitive(rows[d]["scope_hash"])]
    if sealed and not store.keys.sensitive(kept.meta.scope_hash):
        # its triggers and tags would join the kept memory's, in the clear (a red-team
        # test, 2026-11-28: they stayed in the plain file and index.db after the revoke)
        raise UsageError(
            f"{', '.join(sealed)} belong(s) to a sensitive project and {keep} does not: "
            "merge it into a memory of the same project instead"
        )
    docs: dict[str, Document | None] = {}
    for d in drops:
        try:
            docs[d] = store.read(d)[0]
        except CorruptFile:
            docs[d] = None  # a damaged or missing file: its rows still go

    kept_path = store.row(keep)["body_path"]
    for path in (kept_path, *(r["body_path"] for r in rows.values())):
        trash.confined(store.layout, path)  # before anything moves
    entry = trash.new_entry(
        store.layout, kind="merge", scopes=[kept.meta.scope_hash, *(r["scope_hash"] for r in rows.values())]
    )
    trash.keep_before(store.files, entry, kept_path)
    with read_session(store.engine) as s:
        proposals = sql.promotion_rows(s, drops)
    if proposals:
        keep_promotions(store, entry, proposals)
    meta = kept.meta
    before_triggers, before_recalls = len(meta.triggers), meta.recall_count
    for d in drops:
        doc, row = docs[d], rows[d]
        triggers = doc.meta.triggers if doc else store.triggers(d)
        meta.triggers = list(dict.fromkeys([*meta.triggers, *triggers]))
        if doc:
            meta.tags = list(dict.fromkeys([*meta.tags, *doc.meta.tags]))
        meta.recall_count += int(row["recall_count"] or 0)
        last = row["last_recalled_at"]
        if last and (meta.last_recalled_at is None or clock.parse_ts(last) > meta.last_recalled_at):
            meta.last_recalled_at = clock.parse_ts(last)
    meta.updated_at = clock.now()
    store.save(kept, event="update", actor=actor, details={"fields": ["merged"], "merged_from": drops})

    for d in drops:
        trash.move_in(store.files, entry, rows[d]["body_path"])
        with write_session(store.engine) as s:
            sql.delete_memory(s, d)
        store.audit.append(
            "merge",
            actor=actor,
            scope_hash=rows[d]["scope_hash"],
            target_id=d,
            details={"into": keep, "into_scope": meta.scope_hash},
            dedupe=sql.decision_key("merge", keep, d),
        )
    return MergeResult(
        kept,
        tuple(drops),
        len(meta.triggers) - before_triggers,
        meta.recall_count - before_recalls,
        trash=entry,
        kept_path=kept_path,
        dropped_at=tuple((d, rows[d]["body_path"], rows[d]["scope_hash"]) for d in drops),
        promotions=tuple(int(p["id"]) for p in proposals),
    )
