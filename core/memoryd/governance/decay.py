"""The decay state machine (seed 001): alive -> dim -> soft-forgotten -> forgotten/ for
memories nobody recalls. Sessions decay; long-term types only when they carry ttl_days.

A sweep moves each memory at most one step, so every state is seen (and reminded of by
the digest) before a memory is archived. Each batch writes files, then the audit event,
then the index: an interrupted sweep is simply run again.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Collection
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session

from memoryd import clock
from memoryd.config import DecayConfig
from memoryd.db.engine import read_session, write_session
from memoryd.errors import CorruptFile, KeyUnavailable
from memoryd.models import DecayState
from memoryd.store import Store
from memoryd.store import governance as sql

NEXT = {
    DecayState.alive.value: DecayState.dim.value,
    DecayState.dim.value: DecayState.soft_forgotten.value,
    DecayState.soft_forgotten.value: DecayState.forgotten.value,
}
BATCH = 500


@dataclass(frozen=True)
class Transition:
    slug: str
    title: str
    type: str
    scope_hash: str
    from_state: str
    to_state: str
    idle_days: int
    due_at: str = ""
    body_path: str = field(default="", repr=False, compare=False)
    # The last sign of life the idle time counts from: one decay episode of the memory.
    last_active: str = field(default="", repr=False, compare=False)


@dataclass
class SweepReport:
    at: str
    dry_run: bool
    transitions: list[Transition] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    # Trash entries (undo's copies of merged-away memories) past their retention, emptied.
    trash_emptied: int = 0

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for t in self.transitions:
            out[t.to_state] = out.get(t.to_state, 0) + 1
        return out

    def as_dict(self) -> dict[str, Any]:
        return {
            "at": self.at,
            "dry_run": self.dry_run,
            "counts": self.counts(),
            "transitions": [asdict(t) for t in self.transitions],
            "skipped": self.skipped,
            "trash_emptied": self.trash_emptied,
        }


def _threshold(row: dict[str, Any], cfg: DecayConfig) -> float:
    ttl = float(row["ttl"])
    return {
        DecayState.alive.value: ttl,
        DecayState.dim.value: ttl + cfg.soft_forget_after_days,
        DecayState.soft_forgotten.value: ttl + cfg.soft_forget_after_days + cfg.forget_after_days,
    }[row["decay_state"]]


def due(store: Store, cfg: DecayConfig, *, now: datetime, horizon_days: float = 0.0) -> list[Transition]:
    """The next step of every memory whose idle time reaches it within `horizon_days`."""
    with read_session(store.engine) as s:
        rows = sql.decay_candidates(
            s,
            clock.iso(now),
            dim_days=cfg.dim_after_days,
            soft_days=cfg.soft_forget_after_days,
            forget_days=cfg.forget_after_days,
            horizon_days=horizon_days,
        )
    out = []
    for r in rows:
        idle = float(r["age"]) - horizon_days
        when = now + timedelta(days=max(0.0, _threshold(r, cfg) - idle))
        out.append(
            Transition(
                r["slug"],
                r["title"],
                r["type"],
                r["scope_hash"],
                r["decay_state"],
                NEXT[r["decay_state"]],
                int(idle),
                clock.iso(when),
                r["body_path"],
                r["last_active"],
            )
        )
    return out


# Called inside the transaction that records a batch's moves, with the slugs moved: the
# consolidation job notes them there, so a resumed sweep never moves a memory twice.
OnCommit = Callable[[Session, list[str]], None]


def sweep(
    store: Store,
    cfg: DecayConfig,
    *,
    dry_run: bool = False,
    actor: str = "cli",
    skip: Collection[str] = (),
    on_commit: OnCommit | None = None,
) -> SweepReport:
    """Move every due memory one step; `skip` names memories an interrupted run of the
    same sweep already moved."""
    now = clock.now()
    report = SweepReport(at=clock.iso(now), dry_run=dry_run)
    todo = [t for t in due(store, cfg, now=now) if t.slug not in skip]
    if dry_run:
        report.transitions = todo
        return report
    fading = [t for t in todo if t.to_state != DecayState.forgotten.value]
    for i in range(0, len(fading), BATCH):
        _fade(store, fading[i : i + BATCH], report, actor, on_commit)
    leaving = [t for t in todo if t.to_state == DecayState.forgotten.value]
    for i in range(0, len(leaving), BATCH):
        _archive(store, leaving[i : i + BATCH], report, actor, on_commit)
    return report


def _fade(
    store: Store, batch: list[Transition], report: SweepReport, actor: str, on_commit: OnCommit | None
) -> None:
    """alive -> dim, dim -> soft-forgotten: frontmatter and index say the new state."""
    done: list[Transition] = []
    for t in batch:
        with store.writing():  # read and written back whole: nothing saved meanwhile is lost
            try:
                doc = store.files.read(store.files.absolute(t.body_path))
            except (CorruptFile, KeyUnavailable) as exc:
                report.skipped.append(f"{t.slug}: {exc}")
                continue
            doc.meta.decay_state = DecayState(t.to_state)
            # Without fsync: the index and the audit event carry the same state, and a lost
            # write is redone by the next sweep (the index still shows the old state).
            store.files.write(doc, sync=False)
        done.append(t)
    if not done:
        return
    _audit(store, done, report, actor)
    with write_session(store.engine) as s:
        sql.set_states(s, [(t.slug, t.to_state) for t in done])
        if on_commit is not None:
            on_commit(s, [t.slug for t in done])
    report.transitions.extend(done)


def _audit(store: Store, done: list[Transition], report: SweepReport, actor: str) -> None:
    """One `decay` event per scope and batch, naming every move."""
    by_scope: dict[str, list[Transition]] = {}
    for t in done:
        by_scope.setdefault(t.scope_hash, []).append(t)
    for scope_hash, items in sorted(by_scope.items()):
        moves = [[t.slug, t.from_state, t.to_state] for t in items]
        store.changed(scope_hash)
        # The same moves of the same decay episodes (a memory moves again only after a new
        # sign of life): a retry of this batch, whenever it runs, so a crash after the
        # append does not log it twice.
        episode = [[t.slug, t.from_state, t.last_active] for t in items]
        key = hashlib.sha1(repr(episode).encode()).hexdigest()[:16]
        store.audit.append(
            "decay",
            actor=actor,
            scope_hash=scope_hash,
            details={"count": len(moves), "moves": moves},
            dedupe=f"decay:{key}",
        )


def _archive(
    store: Store, batch: list[Transition], report: SweepReport, actor: str, on_commit: OnCommit | None
) -> None:
    """soft-forgotten -> forgotten/: files move to the archive (flushed once for the
    batch), the audit event is written, then the rows go. A file already in the archive
    (an interrupted run) just loses its rows."""
    files = store.files
    done: list[Transition] = []
    for t in batch:
        src = files.absolute(t.body_path)
        try:
            with store.writing():
                if src.exists():
                    files.archive(files.read(src), src, sync=False)
                elif not (src.parent.parent / "forgotten" / src.name).exists():
                    raise CorruptFile(f"{src}: file is missing")
        except (CorruptFile, KeyUnavailable) as exc:
            report.skipped.append(f"{t.slug}: {exc}")
            continue
        done.append(t)
    if not done:
        return
    os.sync()
    _audit(store, done, report, actor)
    with write_session(store.engine) as s:
        for t in done:
            sql.delete_memory(s, t.slug)
        if on_commit is not None:
            on_commit(s, [t.slug for t in done])
    report.transitions.extend(done)
