"""The tray's clock: APScheduler's AsyncIOScheduler on the qasync loop fires the timed jobs
(the nightly consolidation, the weekly digest, the monthly report; the identity rewrite
has no timer: the consolidation runs it when its time has passed).

Why these choices (ECOSYSTEM-FACTS 5.4): QtScheduler's timers cannot be cancelled under
PySide6, so the asyncio scheduler runs on the qasync loop instead. Jobs are module-level
functions (`fire`), as APScheduler wants for anything it may serialise. The default
misfire grace of 1 s would silently drop a job whose time passed while the laptop slept,
so jobs coalesce with a generous grace; and since APScheduler neither notices a resume
nor knows about runs while the app was closed, a catch-up check asks core which slots
are due at start and every minute (a resume shows up as a minute that took hours).

Core decides what runs: `run_job` claims a slot in a ledger shared with `memoryd run-job`
and the OS timers, so a job fired twice (by APScheduler and by the catch-up, or by the
tray and a timer) runs once. When `memoryd setup auto-install` timers exist, the tray
schedules nothing and leaves the jobs to them.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from memoryd.app import Memoryd
from memoryd_desktop.ops import Ops

log = logging.getLogger("memoryd.tray")

CATCH_UP_MS = 60_000
MISFIRE_GRACE_S = 12 * 3600
_active: JobScheduler | None = None  # the scheduler `fire` reports to (one per process)


async def fire(job_id: str) -> None:
    """APScheduler's job function: hand the job to the running tray scheduler. A
    coroutine, so the asyncio executor runs it on the loop (the GUI thread), not in a
    worker thread beside the Qt objects it touches."""
    if _active is not None:
        _active.run(job_id)


class JobScheduler(QObject):
    """Owns the AsyncIOScheduler; `ran(job_id, JobRun)` after each run that did something,
    `failed(job_id, str)` when a job raised."""

    ran = Signal(str, object)
    failed = Signal(str, str)
    checked = Signal(list)  # the due job ids a catch-up check found

    def __init__(
        self,
        facade: Memoryd,
        ops: Ops,
        loop: asyncio.AbstractEventLoop | None = None,
        parent: QObject | None = None,
    ) -> None:
        """Without `loop` (no qasync loop, as in tests of other parts) only the catch-up
        check runs the jobs; APScheduler needs the loop."""
        super().__init__(parent)
        self.loop = loop
        self.facade = facade
        self.ops = ops
        self.scheduler: Any = None
        self.timers: list[str] = []
        self._running: set[str] = set()
        self._last_tick = time.monotonic()
        self.catch_up_timer = QTimer(self)
        self.catch_up_timer.setInterval(CATCH_UP_MS)
        self.catch_up_timer.timeout.connect(self._tick)

    @property
    def external(self) -> bool:
        """OS timers run the jobs: the tray only shows their state."""
        return bool(self.timers)

    def start(self) -> None:
        """Read the job times and timers (off the GUI thread), then schedule and catch up."""
        global _active
        _active = self
        self.ops.run(self._read_jobs, self._schedule)

    def _read_jobs(self) -> tuple[list[str], dict[str, Any]]:
        return self.facade.timers_installed(), self.facade.job_triggers()

    def _schedule(self, found: tuple[list[str], dict[str, Any]]) -> None:
        self.timers, triggers = found
        self.stop_scheduler()
        if self.external:
            log.info("jobs are run by OS timers (%s): the tray schedules none", ", ".join(self.timers))
            return
        if self.loop is not None:
            from apscheduler.schedulers.asyncio import AsyncIOScheduler

            self.scheduler = AsyncIOScheduler(
                event_loop=self.loop,
                job_defaults={"coalesce": True, "misfire_grace_time": MISFIRE_GRACE_S, "max_instances": 1},
            )
            for job_id, trig in triggers.items():
                self.scheduler.add_job(fire, trig, args=[job_id], id=job_id, replace_existing=True)
            self.scheduler.start()
        self.catch_up()
        self.catch_up_timer.start()

    def reload(self) -> None:
        """After the settings changed the times (or timers were installed)."""
        self.ops.run(self._read_jobs, self._schedule)

    def stop_scheduler(self) -> None:
        self.catch_up_timer.stop()
        if self.scheduler is not None:
            self.scheduler.shutdown(wait=False)
            self.scheduler = None

    def stop(self) -> None:
        global _active
        self.stop_scheduler()
        if _active is self:
            _active = None

    def _tick(self) -> None:
        now = time.monotonic()
        slept = now - self._last_tick > 3 * CATCH_UP_MS / 1000
        self._last_tick = now
        if self.scheduler is not None:
            self.scheduler.wakeup()  # timers can overshoot after a suspend (apscheduler#794)
        if slept:
            log.info("the machine seems to have slept: checking for missed jobs")
        # config.toml changed behind our back (`memoryd`, an editor): new times first
        self.ops.run(self.facade.reload_config_if_changed, self._after_reload)

    def _after_reload(self, changed: bool) -> None:
        if changed:
            log.info("config.toml changed: rescheduling")
            self.reload()
        else:
            self.catch_up()

    def catch_up(self) -> None:
        """Run every job whose time passed unclaimed (closed app, sleep), once each."""
        if self.external:
            return
        self.ops.run(self.facade.due_jobs, self._run_due)

    def _run_due(self, due: list[str]) -> None:
        log.info("catch-up: %s", "due: " + ", ".join(due) if due else "nothing due")
        self.checked.emit(due)
        for job_id in due:
            self.run(job_id)

    def run(self, job_id: str, *, force: bool = False) -> None:
        """Run one job off the GUI thread; a job already on its way is not queued twice."""
        if job_id in self._running:
            return
        self._running.add(job_id)
        facade = self.facade

        def call() -> Any:
            return facade.run_job(job_id, runner="tray", force=force, notification=False)

        self.ops.run(call, self._done(job_id), self._error(job_id))

    def _done(self, job_id: str) -> Callable[[Any], None]:
        def done(result: Any) -> None:
            self._running.discard(job_id)
            if result is not None:
                log.info("job %s: %s", job_id, result.summary)
                self.ran.emit(job_id, result)

        return done

    def _error(self, job_id: str) -> Callable[[BaseException], None]:
        def error(exc: BaseException) -> None:
            self._running.discard(job_id)
            log.error("job %s failed: %s", job_id, exc)
            self.failed.emit(job_id, str(exc))

        return error
