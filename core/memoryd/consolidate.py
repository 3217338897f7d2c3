"""Nightly consolidation (seeds 003 and 004): one job that runs, in order, what the product
otherwise does piecemeal, so one timer keeps the store in shape.

    capture    drain the spool into sessions
    analyze    DURA-score pending sessions (entities, supersedes), queue promotions
    dedupe     reject proposals that repeat a memory or another proposal; count the
               duplicate groups the digest shows
    decay      the decay sweep
    identity   rewrite the identity profile when its weekly slot is due
    snapshots  re-render every scope written to (the stale markers say which)
    exports    MEMORY.md / USER.md of every configured target

Each phase records in index.db when it started and finished. A run that is killed resumes
at the phase it was in and never redoes a finished one; inside a phase, work is made in
units that are each applied once (a promotion per session, a decay batch noted in the same
transaction as its moves, an audit event deduplicated on retry). One run at a time, under
a file lock. When the last success is older than `[consolidation] fallback_hours`, the next
CLI or tray start sets a run off in the background (seed 003's fallback trigger).
"""

from __future__ import annotations

import contextlib
import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

from memoryd import clock, faults, schedule
from memoryd import fallback as fallback_mod
from memoryd.db.engine import read_session, write_session
from memoryd.errors import MemorydError, UsageError
from memoryd.fallback import _overdue, lock_path, running
from memoryd.paths import FILE_MODE, Layout
from memoryd.store import consolidation as sql

if TYPE_CHECKING:
    from collections.abc import Mapping

    from memoryd.config import Config
    from memoryd.governance.analyze import Analyzer
    from memoryd.store import Store

PHASES = schedule.CONSOLIDATION_PHASES
ACTOR = "consolidate"
TRIGGERS = ("cli", "schedule", "fallback", "tray")

Progress = Callable[[str], None]

# Report.summary()'s keys: (phase, its result's field)
_SUMMARY = {
    "captured": ("capture", "captured"),
    "analysed": ("analyze", "analysed"),
    "queued": ("analyze", "queued"),
    "deduplicated": ("dedupe", "rejected"),
    "duplicate_groups": ("dedupe", "groups"),
    "decayed": ("decay", "moved"),
    "identity_version": ("identity", "version"),
    "rendered": ("snapshots", "rendered"),
    "exported": ("exports", "written"),
}


class Host(Protocol):
    """What a consolidation needs of the application (memoryd.app.Memoryd is one). The app
    sits above this module and calls `run(self)`; this module never imports the app."""

    store: Store
    config: Config
    layout: Layout
    llm_env: Mapping[str, str] | None
    llm_transport: Any

    def analyzer(self, *, actor: str = ...) -> Analyzer: ...


class Busy(MemorydError):
    """Another consolidation holds the lock."""


@dataclass
class PhaseRun:
    name: str
    result: dict[str, Any]
    earlier: bool = False  # finished by an earlier, interrupted attempt of this run
    seconds: float = 0.0
    error: str | None = None

    def counts(self) -> dict[str, int]:
        """This phase's share of Report.summary(): the counts a window words."""
        out = {key: int(self.result.get(f) or 0) for key, (name, f) in _SUMMARY.items() if name == self.name}
        return {**out, "tokens": int(self.result.get("tokens") or 0)}


@dataclass(frozen=True)
class Step:
    """A run's progress as values, for a window to word in the user's language (the
    `progress` lines are English, for the terminal and the log). `status`: "resumed" (an
    interrupted run goes on), "running", "done", "failed", "earlier" (done before the
    interruption), "finished" (the run; `counts` is Report.summary())."""

    status: str
    phase: str = ""
    counts: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    error: str | None = None


Steps = Callable[[Step], None]


@dataclass
class Report:
    run_id: str | None
    trigger: str
    started: str | None
    resumed: bool = False
    retries: int = 0
    phases: list[PhaseRun] = field(default_factory=list)
    skipped: str | None = None  # why nothing ran
    ok: bool = True

    def as_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "trigger": self.trigger,
            "started": self.started,
            "resumed": self.resumed,
            "retries": self.retries,
            "ok": self.ok,
            "skipped": self.skipped,
            "phases": [p.__dict__ for p in self.phases],
            "summary": self.summary(),
        }

    def total(self, key: str) -> int:
        return sum(int(p.result.get(key) or 0) for p in self.phases)

    def summary(self) -> dict[str, int]:
        def of(name: str, key: str) -> int:
            return next((int(p.result.get(key) or 0) for p in self.phases if p.name == name), 0)

        return {**{key: of(name, f) for key, (name, f) in _SUMMARY.items()}, "tokens": self.total("tokens")}

    def summary_line(self) -> str:
        s = self.summary()
        parts = [
            f"{s['captured']} captured",
            f"{s['analysed']} analysed",
            f"{s['queued']} queued for promotion",
            f"{s['deduplicated']} duplicate proposals rejected",
            f"{s['decayed']} decayed",
            f"{s['rendered']} snapshots rendered",
            f"{s['exported']} files exported",
            f"{s['tokens']:,} LLM tokens",
        ]
        if s["identity_version"]:
            parts.insert(5, f"identity v{s['identity_version']}")
        return ", ".join(parts)


@contextlib.contextmanager
def _locked(layout: Layout) -> Iterator[None]:
    from filelock import FileLock, Timeout

    lock = FileLock(lock_path(layout), mode=FILE_MODE)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise Busy("a consolidation is already running; it resumes where it is, nothing to do") from None
    try:
        yield
    finally:
        lock.release()


# -- state ----------------------------------------------------------------------------
def state(app: Host) -> dict[str, Any]:
    """Seed 003's state: last run, last success, current phase, retries, the run under way
    (or interrupted) and its phases, whether one runs now, and when the fallback fires."""
    with write_session(app.store.engine) as s:
        st = sql.state(s, clock.now_iso())
    out = dict(st)
    out["running"] = running(app.layout)
    out["phases"] = []
    if st.get("run_id"):
        with read_session(app.store.engine) as s:
            out["phases"] = sql.phases(s, st["run_id"])
    out["overdue"] = _overdue(st, app.config.consolidation.fallback_hours, clock.now())
    with read_session(app.store.engine) as s:
        out["recent_runs"] = sql.recent_runs(s, 5)
    return out


def brief(app: Host) -> dict[str, Any]:
    """For `memoryd stats` and the tray's status: one row read, and the next nightly time."""
    with read_session(app.store.engine) as s:
        st = sql.peek(s) or {}
    job = schedule.find(schedule.jobs(app.config.raw), "consolidate")
    nxt = schedule.next_run(job, clock.now())
    return {
        "last_run": st.get("last_run"),
        "last_success": st.get("last_success"),
        "last_error": st.get("last_error"),
        "interrupted_in": st.get("current_phase") if st.get("run_id") else None,
        "next_scheduled": clock.iso(nxt) if nxt else None,
    }


def overdue(app: Host) -> bool:
    return fallback_mod.overdue(app.layout, app.config.consolidation.fallback_hours)


def fallback(app: Host, spawn: Callable[[], None]) -> bool:
    return fallback_mod.fallback(app.layout, app.config.consolidation.fallback_hours, spawn)


# -- the run --------------------------------------------------------------------------
def run(
    app: Host,
    *,
    force: bool = False,
    phase: str | None = None,
    trigger: str = "cli",
    progress: Progress | None = None,
    steps: Steps | None = None,
) -> Report:
    """Resume an interrupted run, or start one. Without `force`, a new run starts only when
    none succeeded since the nightly slot (`[schedule] consolidate`) last passed, or, for
    the fallback, when overdue. `phase` runs that one phase alone (for debugging); it is
    recorded as its own run and leaves an interrupted run where it was. `progress` hears
    English lines, `steps` the same progress as values (Step)."""
    if trigger not in TRIGGERS:
        raise UsageError(f"trigger must be one of {', '.join(TRIGGERS)}")
    if phase is not None and phase not in PHASES:
        raise UsageError(f"--phase must be one of {', '.join(PHASES)}")
    say = progress or (lambda _line: None)
    tell = steps or (lambda _step: None)
    with _locked(app.layout):
        now = clock.now()
        with write_session(app.store.engine) as s:
            st = sql.state(s, clock.iso(now))
        if phase is not None:
            return _single(app, phase, trigger, say, tell)
        run_id = st.get("run_id")
        if run_id is None:
            why = None if force else _not_due(app, st, trigger, now)
            if why is not None:
                return Report(None, trigger, None, skipped=why)
            run_id = f"{clock.iso(now)}-{secrets.token_hex(3)}"
            with write_session(app.store.engine) as s:
                sql.update(
                    s,
                    run_id=run_id,
                    run_started=clock.iso(now),
                    run_trigger=trigger,
                    current_phase=None,
                    last_run=clock.iso(now),
                    retry_count=0,
                    last_error=None,
                )
            report = Report(run_id, trigger, clock.iso(now))
        else:
            retries = int(st.get("retry_count") or 0) + 1
            with write_session(app.store.engine) as s:
                sql.update(s, retry_count=retries, last_run=clock.iso(now))
            report = Report(run_id, st.get("run_trigger") or trigger, st.get("run_started"), True, retries)
            say(f"resuming the run of {st.get('run_started')} at {st.get('current_phase') or 'its start'}")
            tell(Step("resumed", st.get("current_phase") or ""))
        with read_session(app.store.engine) as s:
            done = {p["phase"]: p for p in sql.phases(s, run_id) if p["finished_at"]}
        for name in PHASES:
            if name in done:  # finished by the interrupted attempt, failed or not
                result = done[name]["result"] or {}
                report.phases.append(PhaseRun(name, result, earlier=True, error=result.get("error")))
                report.ok = report.ok and not result.get("error")
                say(f"{name}: done before the interruption")
                tell(Step("earlier", name, report.phases[-1].counts(), error=result.get("error")))
                continue
            ran = _phase(app, run_id, name, say, tell)
            report.phases.append(ran)
            report.ok = report.ok and ran.error is None
        _finish(app, run_id, report)
        say("summary: " + report.summary_line())
        tell(Step("finished", counts=report.summary()))
        return report


def _not_due(app: Host, st: dict[str, Any], trigger: str, now: datetime) -> str | None:
    if trigger == "fallback":
        if _overdue(st, app.config.consolidation.fallback_hours, now):
            return None
        return "not overdue (another start ran it, or it succeeded meanwhile)"
    if trigger == "schedule":
        return None  # the ledger already said the slot is due
    job = schedule.find(schedule.jobs(app.config.raw), "consolidate")
    prev = schedule.latest_slot(job, now - timedelta(days=400), now)
    last = st.get("last_success")
    if last is not None and (prev is None or clock.parse_ts(last) >= prev):
        return f"already consolidated at {last}, after the last nightly slot; --force runs it again"
    return None


def _phase(app: Host, run_id: str, name: str, say: Progress, tell: Steps, *, track: bool = True) -> PhaseRun:
    """One phase, its start and end recorded; `track`: it is the state's current phase
    (not for a `--phase` run beside an interrupted one)."""
    tell(Step("running", name))
    start = clock.now_iso()
    with write_session(app.store.engine) as s:
        sql.start_phase(s, run_id, name, start)
        if track:
            sql.update(s, current_phase=name)
    faults.point(f"{name}:start")
    t0 = time.perf_counter()
    ctx = Context(app, run_id, name)
    try:
        result = PHASE_FUNCS[name](ctx)
        error = None
    except MemorydError as exc:
        result, error = {"error": str(exc)}, str(exc)
    except Exception as exc:  # one phase's bug must not stop the nightly run
        _log_trace(app.layout, name)
        result, error = {"error": f"{type(exc).__name__}: {exc}"}, f"{type(exc).__name__}: {exc}"
    with read_session(app.store.engine) as s:
        result["tokens"] = result.get("tokens") or sql.tokens_since(s, start)
    faults.point(f"{name}:end")
    seconds = time.perf_counter() - t0
    with write_session(app.store.engine) as s:
        sql.finish_phase(s, run_id, name, clock.now_iso(), {**result, "seconds": round(seconds, 3)})
    ran = PhaseRun(name, result, seconds=round(seconds, 3), error=error)
    if error:
        say(f"{name}: failed: {error}")
    else:
        say(f"{name}: {_describe(name, result)} ({seconds:.1f} s)")
    tell(Step("failed" if error else "done", name, ran.counts(), ran.seconds, error))
    return ran


def log_line(layout: Layout, line: str) -> None:
    """A background run's progress, for whoever wonders what it did (logs/consolidate.log)."""
    from memoryd.paths import ensure_dir

    path = ensure_dir(layout.logs) / "consolidate.log"
    with contextlib.suppress(OSError), open(path, "a", encoding="utf-8") as fh:
        fh.write(f"{clock.now_iso()} {line}\n")


def _log_trace(layout: Layout, phase: str) -> None:
    """The trace of a phase's unexpected failure goes to logs/, never to the terminal."""
    import traceback

    from memoryd.paths import ensure_dir

    with contextlib.suppress(OSError):
        path = ensure_dir(layout.logs) / "consolidate.log"
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(f"{clock.now_iso()} phase {phase} failed\n{traceback.format_exc()}\n")


def _finish(app: Host, run_id: str, report: Report) -> None:
    """The run's one audit event, then the state: killed in between, the resumed run finds
    every phase done and only finishes, without logging the event twice."""
    errors = [f"{p.name}: {p.error}" for p in report.phases if p.error]
    app.store.audit.append(
        "consolidate",
        actor=ACTOR,
        target_id=run_id,
        details={"trigger": report.trigger, "ok": not errors, "retries": report.retries, **report.summary()},
        dedupe=f"consolidate:{run_id}",
    )
    now = clock.now_iso()
    with write_session(app.store.engine) as s:
        sql.update(
            s,
            run_id=None,
            run_started=None,
            run_trigger=None,
            current_phase=None,
            last_error="; ".join(errors)[:500] if errors else None,
            **({} if errors else {"last_success": now}),
        )
        sql.forget_run(s, run_id)


def _single(app: Host, name: str, trigger: str, say: Progress, tell: Steps) -> Report:
    now = clock.iso(clock.now())
    run_id = f"{now}-{secrets.token_hex(3)}-{name}"
    report = Report(run_id, trigger, now)
    ran = _phase(app, run_id, name, say, tell, track=False)
    report.phases.append(ran)
    report.ok = ran.error is None
    with write_session(app.store.engine) as s:
        sql.forget_run(s, run_id)
    return report


def _describe(name: str, r: dict[str, Any]) -> str:
    if name == "capture":
        line = f"{r['captured']} captured, {r['rejected']} rejected, {r['waiting']} waiting for a key"
        if r.get("checked"):
            line += (
                f"; {r['checked']} older memories read for attacks, {r['flagged_suspect']} flagged suspect"
            )
        return line
    if name == "analyze":
        return (
            f"{r['analysed']} analysed, {r['queued']} queued for promotion, {r['deferred']} deferred, "
            f"{r['tokens']:,} tokens"
        )
    if name == "dedupe":
        return f"{r['rejected']} duplicate proposals rejected, {r['groups']} duplicate groups in the digest"
    if name == "decay":
        moves = ", ".join(f"{n} to {s}" for s, n in sorted(r["counts"].items())) or "nothing moved"
        return moves + (f" ({r['earlier']} before the interruption)" if r.get("earlier") else "")
    if name == "identity":
        if not r["due"]:
            return "not due"
        return f"version {r['version']}" if r["changed"] else f"unchanged ({r['note']})"
    if name == "snapshots":
        return f"{r['rendered']} rendered"
    kept = "".join(f"; {k}" for k in r.get("kept", []))
    return f"{r['written']} written, {r['unchanged']} unchanged{kept}"


# -- the phases -------------------------------------------------------------------------
@dataclass
class Context:
    app: Host
    run_id: str
    phase: str

    def done(self) -> set[str]:
        with read_session(self.app.store.engine) as s:
            return sql.done_items(s, self.run_id, self.phase)


def _capture(ctx: Context) -> dict[str, Any]:
    from memoryd.capture.worker import drain

    rep = drain(ctx.app.store, ctx.app.config, wait=True, check_limit=None)
    out = {
        "captured": len(set(rep.captured)),
        "rejected": len(rep.rejected),
        "waiting": len(rep.deferred),
    }
    if rep.checked:  # once, after an upgrade: memories from before the poison detector
        out.update(checked=rep.checked, flagged_suspect=len(rep.flagged))
    return out


def _analyze(ctx: Context) -> dict[str, Any]:
    from filelock import FileLock

    lock = FileLock(str(ctx.app.layout.analysis_lock), mode=FILE_MODE)
    with lock.acquire(timeout=600):  # the capture worker's own analysis finishes first
        results = ctx.app.analyzer(actor=ACTOR).pending()
    by_status: dict[str, int] = {}
    for a in results:
        by_status[a.status] = by_status.get(a.status, 0) + 1
    return {
        "analysed": by_status.get("scored", 0),
        "queued": sum(1 for a in results if a.promotion == "queued"),
        "requeued": sum(1 for a in results if a.promotion == "updated"),
        "deferred": by_status.get("deferred", 0),
        "skipped": by_status.get("skipped", 0),
        "tokens": sum(a.tokens or 0 for a in results),
    }


def _dedupe(ctx: Context) -> dict[str, Any]:
    """Proposals whose body repeats a long-term memory of their scope, or an older pending
    proposal, are rejected with the reason; sealed (sensitive) proposals are left alone.
    Duplicate memories are the user's to merge: they are counted for the digest."""
    from memoryd.governance import promotions
    from memoryd.sensitive import content
    from memoryd.store import fingerprint
    from memoryd.store import governance as gsql

    store = ctx.app.store
    with read_session(store.engine) as s:
        pending = [
            p
            for p in gsql.promotions(s, status="pending", scopes=None)
            if not content.is_sealed(p["proposed_body"])
        ]
        keys = {p["id"]: (p["scope_hash"], fingerprint(p["proposed_body"].strip() + "\n")) for p in pending}
        known = sql.long_term_fingerprints(s, set(keys.values()))
        groups = len(gsql.duplicate_groups(s, None))
    first: dict[tuple[str, str], int] = {}
    rejected = 0
    for p in sorted(pending, key=lambda p: p["id"]):
        key = keys[p["id"]]
        if key in known:
            reason = f"duplicate of memory {known[key]}"
        elif key in first:
            reason = f"duplicate of promotion {first[key]}"
        else:
            first[key] = p["id"]
            continue
        try:
            promotions.reject(store, p["id"], reason=reason, actor=ACTOR)
        except UsageError:
            continue  # decided meanwhile (the tray, the TUI): the user's decision stands
        rejected += 1
        faults.point("dedupe:item")
    return {"rejected": rejected, "groups": groups}


def _decay(ctx: Context) -> dict[str, Any]:
    from memoryd.governance import decay

    store = ctx.app.store
    earlier = ctx.done()

    def noted(s: Any, slugs: list[str]) -> None:
        sql.mark_done(s, ctx.run_id, "decay", slugs)
        faults.point("decay:batch")

    rep = decay.sweep(store, ctx.app.config.decay, actor=ACTOR, skip=earlier, on_commit=noted)
    from memoryd.store import trash

    emptied = trash.purge(store.layout, audit=store.audit, actor=ACTOR)  # undo's copies past retention
    return {
        "trash_emptied": emptied,
        "moved": len(rep.transitions) + len(earlier),
        "counts": rep.counts(),
        "earlier": len(earlier),
        "skipped": len(rep.skipped),
    }


def _identity(ctx: Context) -> dict[str, Any]:
    """The weekly rewrite, when its slot (`[schedule] identity`) has passed: claimed in the
    same ledger as every scheduled job, so a run killed here is run again, once."""
    from memoryd.profile import identity

    app = ctx.app
    job = schedule.find(schedule.jobs(app.config.raw), "identity")
    ledger = schedule.Ledger(app.layout)
    now = clock.now()
    if ledger.claim(job, now, ACTOR) is None:
        nxt = schedule.next_run(job, now)
        return {"due": False, "next": clock.iso(nxt) if nxt else None}
    faults.point("identity:claimed")
    try:
        rw = identity.rewrite(
            app.store,
            app.config,
            trigger="weekly_cron",
            actor=ACTOR,
            env=app.llm_env,
            transport=app.llm_transport,
            render=False,  # every scope is marked stale: the snapshots phase renders them once
        )
    except Exception as exc:  # a failure; an interrupt leaves the claim to be run again
        ledger.finish(job.id, clock.now(), f"{type(exc).__name__}: {exc}")
        raise
    ledger.finish(job.id, clock.now(), None)
    return {"due": True, "changed": rw.changed, "version": rw.version if rw.changed else 0, "note": rw.note}


def _snapshots(ctx: Context) -> dict[str, Any]:
    from memoryd import snapshot
    from memoryd.errors import KeyUnavailable

    store = ctx.app.store
    # Every write leaves its scope's stale marker (Store.changed; the identity phase marks
    # every scope), in this process or in a killed one, and a render clears it: so the
    # markers alone say what to render, each scope once.
    todo = snapshot.stale_scopes(store.layout)
    rendered, locked = 0, 0
    for scope_hash in todo:
        try:
            snapshot.refresh(store, scope_hash)
        except KeyUnavailable:
            locked += 1  # keeps its stale marker for a reader with the key
            continue
        rendered += 1
        faults.point("snapshots:item")
    store.changed_scopes.clear()
    return {"rendered": rendered, "locked": locked}


def _exports(ctx: Context) -> dict[str, Any]:
    from memoryd import markdown_export

    done = markdown_export.refresh(
        ctx.app.store, ctx.app.config, on_each=lambda: faults.point("exports:item")
    )
    states = [v for w in done for v in w.files.values()]
    kept = [f"{w.out}: {v}" for w in done for v in w.files.values() if v.startswith("kept")]
    ok = ("written", "unchanged")
    problems = [
        f"{w.out}: {v}" for w in done for v in w.files.values() if v not in ok and not v.startswith("kept")
    ]
    if problems:  # the other targets were written; the run must still say it failed
        raise MemorydError("export " + "; ".join(problems))
    # A user's own file where a target points is theirs: said, not a failure to retry hourly.
    return {
        "targets": len(done),
        "written": states.count("written"),
        "unchanged": states.count("unchanged"),
        "kept": kept,
    }


PHASE_FUNCS: dict[str, Callable[[Context], dict[str, Any]]] = {
    "capture": _capture,
    "analyze": _analyze,
    "dedupe": _dedupe,
    "decay": _decay,
    "identity": _identity,
    "snapshots": _snapshots,
    "exports": _exports,
}
