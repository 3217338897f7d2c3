"""The tray app's behaviour: refresh the facts, run the actions, pick tray or window.

The tray and the status window only render a TrayState and report clicks; this object owns
the refresh timer, the calls into the facade (through `Ops`, never on the GUI thread) and
the one `show_error` path. If no tray host exists at start, the window keeps the app
reachable, and each tick looks again so a late tray host (an extension enabled after
login) still gets its icon. At start it also asks core once whether the nightly
consolidation is overdue (no success for 48 hours), which then runs in the background.

With a sync folder set (Settings → Sync), it also syncs by itself: shortly after start,
then every 15 minutes, never two at once; quietly, unless new conflicts appear or the
sync fails. "Sync now" runs the same call and always says how it went.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Protocol

from PySide6.QtCore import QCoreApplication, QObject, QTimer, QUrl, Signal, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QSystemTrayIcon

from memoryd.app import Memoryd
from memoryd_desktop import tray_state
from memoryd_desktop.grant_server import GrantServer
from memoryd_desktop.long_task import LongTask
from memoryd_desktop.notifier import Notifier
from memoryd_desktop.ops import Ops
from memoryd_desktop.scheduler import JobScheduler
from memoryd_desktop.status_window import StatusWindow
from memoryd_desktop.texts import consolidation_step, consolidation_summary, describe, phase_name
from memoryd_desktop.tray import TrayIcon
from memoryd_desktop.tray_state import Action, TrayState
from memoryd_desktop.windows import Windows

log = logging.getLogger("memoryd.tray")


def log_line(line: str) -> None:
    """Core's English progress line of a consolidation, for the log (the menu words its steps)."""
    log.info("consolidation: %s", line)


REFRESH_MS = 60_000
FIRST_SYNC_MS = 20_000  # the first automatic sync, once the tray is up
SYNC_MS = 15 * 60_000  # then every quarter of an hour
translate = QCoreApplication.translate  # the bare name lupdate recognises


class DrainReport(Protocol):
    """What `Memoryd.drain_spool()` answers, as far as the tray reads it."""

    captured: list[str]
    rejected: list[str]
    busy: bool


class PhaseRun(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def error(self) -> str | None: ...


class ConsolidationReport(Protocol):
    """What `Memoryd.consolidate()` answers, as far as the tray reads it."""

    @property
    def skipped(self) -> str | None: ...

    @property
    def phases(self) -> Sequence[PhaseRun]: ...

    def summary(self) -> Mapping[str, int]: ...


# What a consolidation did that a person would want to hear about: sessions captured and
# analysed, memories proposed for review, duplicates set aside, memories that faded. The
# snapshots and exports it rewrites every night are not news.
EVENTFUL = ("captured", "analysed", "queued", "deduplicated", "decayed")


def eventful(summary: Mapping[str, int]) -> bool:
    return any(summary.get(key, 0) for key in EVENTFUL)


class SyncReport(Protocol):
    """What `Memoryd.sync()` answers, as far as the tray reads it."""

    devices: list[str]
    sent: int
    received: int
    conflicts: int
    locked: int
    skipped: list[str]


def conflict_keys(conflicts: Sequence[Mapping[str, Any]]) -> set[tuple[str, str]]:
    """Each conflict copy as (slug, rev), to tell the copies a sync brought from known ones."""
    return {(str(c.get("slug")), str(v.get("rev"))) for c in conflicts for v in c.get("copies", ())}


def sync_summary(report: SyncReport) -> str:
    """The one paragraph "Sync now" ends with."""
    devices = len(report.devices)
    if devices == 0:
        text = translate(
            "Controller", "Synced: {sent} sent; no other device has synced through this folder yet."
        ).format(sent=report.sent)
    elif devices == 1:
        text = translate("Controller", "Synced with 1 device: {sent} sent, {received} received.").format(
            sent=report.sent, received=report.received
        )
    else:
        text = translate(
            "Controller", "Synced with {devices} devices: {sent} sent, {received} received."
        ).format(devices=devices, sent=report.sent, received=report.received)
    if report.conflicts:
        text += " " + translate("Controller", "Conflicts to resolve in the weekly review: {count}.").format(
            count=report.conflicts
        )
    if report.locked:
        text += " " + translate(
            "Controller", "Sealed memories waiting for their project's key: {count}."
        ).format(count=report.locked)
    if report.skipped:
        text += " " + translate("Controller", "Files that could not be read: {count}.").format(
            count=len(report.skipped)
        )
    return text


def consolidation_errors(report: ConsolidationReport) -> str:
    """A consolidation that failed in some phases: what it did, and which phases failed
    (each phase's error is core's own sentence)."""
    summary = consolidation_summary(report.summary()) or translate("Controller", "nothing new")
    failed = [
        translate("Controller", "{phase}: {error}").format(phase=phase_name(p.name), error=p.error)
        for p in report.phases
        if p.error
    ]
    return translate("Controller", "Consolidation finished with errors: {summary}; failed: {errors}").format(
        summary=summary, errors=translate("Controller", "; ").join(failed)
    )


def job_label(job_id: str) -> str:
    """A scheduled job by the name Settings gives it."""
    from memoryd_desktop.settings_schedules import job_label as label  # the Settings' names

    return label(job_id)


class Controller(QObject):
    """Owns the state; `changed` is emitted with every new TrayState."""

    changed = Signal(object)

    def __init__(
        self,
        facade: Memoryd,
        *,
        tray_available: Callable[[], bool] = QSystemTrayIcon.isSystemTrayAvailable,
        refresh_ms: int = REFRESH_MS,
        loop: asyncio.AbstractEventLoop | None = None,
        background: bool = True,
        auto_sync: bool | None = None,
        first_sync_ms: int = FIRST_SYNC_MS,
        sync_ms: int = SYNC_MS,
        parent: QObject | None = None,
    ) -> None:
        """`loop`: the qasync loop (D-Bus notifications, APScheduler); `background`: run the
        scheduler and the grant socket (tests of menus and windows leave them off);
        `auto_sync`: sync by itself while a folder is set (default: as `background`)."""
        super().__init__(parent)
        self.facade = facade
        self.state = TrayState(home=facade.layout.home)
        self.ops = Ops(on_error=self.show_error, parent=self)
        self.tray: TrayIcon | None = None
        self.window: StatusWindow | None = None
        self.windows = Windows(facade, self.ops, self)
        self.windows.changed.connect(self.refresh)
        self.windows.settings_saved.connect(lambda: self.jobs.reload() if self._background else None)
        self.notifier = Notifier(loop, self)
        self.notifier.fallback = self._window_notice
        self.jobs = JobScheduler(facade, self.ops, loop, self)
        self.jobs.ran.connect(self._job_ran)
        self.jobs.failed.connect(self._job_failed)
        self.grants = GrantServer(facade, self.ops, self)
        self.grants.answered.connect(lambda _req, _ok: self.refresh())
        self.grants.show_wanted.connect(self._show_for_launcher)
        self._background = background
        self._tray_available = tray_available
        self._refreshing = False
        self._fallback_checked = False
        self.consolidation: LongTask | None = None  # the "Consolidate now" under way
        self.timer = QTimer(self)
        self.timer.setInterval(refresh_ms)
        self.timer.timeout.connect(self.tick)
        self._auto_sync = background if auto_sync is None else auto_sync
        self._first_sync_ms = first_sync_ms
        self._sync_ms = sync_ms
        self._sync_error = ""  # the last automatic sync's error, not repeated every 15 minutes
        self._closing = False
        self.sync_timer = QTimer(self)  # armed by the first state that has a sync folder
        self.sync_timer.timeout.connect(self._timed_sync)

    def start(self) -> None:
        """Show the tray icon, or the window when there is no tray; then read the facts."""
        if self._tray_available():
            self._make_tray()
        else:
            log.info("no system tray available: showing the status window")
            self.show_window()
        self.refresh()
        self.timer.start()
        if self._background:
            self.check_overdue_consolidation()
            self.grants.start()
            self.jobs.start()

    def check_overdue_consolidation(self) -> None:
        """Once per app start, off the GUI thread: core sets a consolidation off in the
        background (a process of its own) when none succeeded for 48 hours."""
        if self._fallback_checked:
            return
        self._fallback_checked = True
        self.ops.run(self.facade.consolidation_fallback, self._fallback_done, self._fallback_failed)

    def _fallback_done(self, started: bool) -> None:
        if not started:
            return
        log.info("the nightly consolidation is overdue: it runs in the background now")
        self.notify(
            translate("Controller", "The nightly consolidation is overdue: it runs in the background now.")
        )

    def _fallback_failed(self, exc: BaseException) -> None:
        # not the user's business at start: the next start or the nightly slot tries again
        log.warning("could not check for an overdue consolidation: %s", describe(exc))

    def shutdown(self, wait_ms: int = 5_000) -> bool:
        """Stop the timers and give a running call `wait_ms` to end; False if it still runs."""
        self._closing = True
        self.timer.stop()
        self.sync_timer.stop()
        if self.consolidation is not None:  # it stops after its current phase
            self.consolidation.cancel()
        self.jobs.stop()
        self.grants.stop()
        self.windows.close_all()
        if self.tray is not None:
            self.tray.hide()
        return self.ops.wait(wait_ms)

    # -- views ------------------------------------------------------------------------
    def _make_tray(self) -> None:
        self.tray = TrayIcon(self)
        self.tray.triggered.connect(self.dispatch)
        self.tray.opening.connect(self.refresh)
        self.tray.activated.connect(self.show_window)
        self.tray.show_state(self.state)
        self.tray.show()
        self.notifier.attach_tray(self.tray.icon)
        if self.window is not None:
            self.window.quit_on_close = False

    def _show_for_launcher(self) -> None:
        log.info("started again from a launcher: showing the window")
        self.show_window()

    @Slot()
    def show_window(self) -> None:
        if self.window is None:
            self.window = StatusWindow()
            self.window.triggered.connect(self.dispatch)
            self.window.show_state(self.state)
        self.window.quit_on_close = self.tray is None
        self.window.show()
        self.window.raise_()
        self.window.activateWindow()

    def _set(self, state: TrayState) -> None:
        self.state = state
        for view in (self.tray, self.window):
            if view is not None:
                view.show_state(state)
        self.changed.emit(state)

    def _window_notice(self, title: str, text: str, error: bool) -> None:
        """Where a notification goes with no daemon and no tray: the status window."""
        self.show_window()
        assert self.window is not None
        self.window.notify(title, text, error)

    def notify(self, text: str, error: bool = False, on_click: Callable[[], None] | None = None) -> None:
        """Every message the tray has for the user, through the one notifier (the desktop's
        notification service; Qt's tray balloon or the status window only without one)."""
        self.notifier.post("memoryd", text, on_click=on_click, error=error)

    def show_error(self, exc: BaseException | str) -> None:
        """The one place errors reach the user."""
        text = exc if isinstance(exc, str) else describe(exc)
        log.error("%s", text)
        self.notify(text, error=True)

    # -- refresh ----------------------------------------------------------------------
    @Slot()
    def tick(self) -> None:
        if self.tray is None and self._tray_available():
            log.info("a system tray appeared: adding the icon")
            self._make_tray()
        self.refresh()

    @Slot()
    def refresh(self) -> None:
        """Ask the facade for fresh facts, unless a refresh is already on its way."""
        if self._refreshing:
            return
        self._refreshing = True
        facade = self.facade
        self.ops.run(lambda: tray_state.load(facade), self._loaded, self._load_failed)

    def _loaded(self, state: TrayState) -> None:
        self._refreshing = False
        self._set(
            replace(
                state,
                draining=self.state.draining,
                consolidating=self.state.consolidating,
                consolidation_line=self.state.consolidation_line,
                syncing=self.state.syncing,
            )
        )
        self._arm_auto_sync()

    def _load_failed(self, exc: BaseException) -> None:
        self._refreshing = False
        self._set(replace(self.state, error=describe(exc)))

    # -- actions ----------------------------------------------------------------------
    @Slot(object)
    def dispatch(self, action: Action) -> None:
        if action in self.windows.actions:
            self.windows.open(action)
        elif action is Action.DRAIN:
            self.drain()
        elif action is Action.CONSOLIDATE:
            self.consolidate()
        elif action is Action.SYNC:
            self.sync()
        elif action is Action.PAUSE:
            self.toggle_pause()
        elif action is Action.OPEN_FOLDER:
            self.open_folder()
        elif action is Action.QUIT:
            QCoreApplication.quit()

    # -- jobs -------------------------------------------------------------------------
    def _job_ran(self, job_id: str, run: Any) -> None:
        if job_id == "digest" and run.digest is not None:
            self.notify_digest(run.as_dict().get("counts", {}))
        if not run.ok:
            report = getattr(run, "consolidation", None)
            if report is not None:  # core's values, worded like a run from the menu
                self.show_error(consolidation_errors(report))
            else:  # core's line (a delivery that failed): its detail is core's own words
                self.show_error(
                    translate("Controller", "{job} did not finish: {detail}").format(
                        job=job_label(job_id), detail=run.summary
                    )
                )
        self.refresh()
        self.windows.store_changed()

    def _job_failed(self, job_id: str, text: str) -> None:
        self.show_error(
            translate("Controller", "Scheduled job {job} failed: {error}").format(
                job=job_label(job_id), error=text
            )
        )

    def notify_digest(self, counts: dict[str, int]) -> None:
        """The weekly notification: what waits, by kind; none when nothing does. A click
        opens the digest window."""
        kinds = {
            "promotions": translate("Controller", "promotions ({count})"),
            "duplicates": translate("Controller", "duplicates ({count})"),
            "expiring": translate("Controller", "expiring ({count})"),
            "supersedes": translate("Controller", "supersedes to confirm ({count})"),
            "conflicts": translate("Controller", "sync conflicts ({count})"),
            "suspect": translate("Controller", "suspect ({count})"),
        }
        waiting = [text.format(count=counts[k]) for k, text in kinds.items() if counts.get(k, 0) > 0]
        if not waiting:
            return
        body = translate("Controller", "Waiting in the weekly digest: {kinds}.").format(
            kinds=translate("Controller", ", ").join(waiting)
        )
        title = translate("Controller", "memoryd weekly digest")
        self.notifier.post(title, body, on_click=lambda: self.windows.open(Action.DIGEST))

    def consolidate(self) -> LongTask | None:
        """The nightly consolidation, now (all seven phases, even if it ran tonight), as a
        long task: each phase's line shows in the menu while it runs, the summary after."""
        if self.consolidation is not None:
            return None
        facade = self.facade

        def work(_progress: object) -> ConsolidationReport:
            return facade.consolidate(force=True, trigger="tray", progress=log_line, steps=task.tell)

        task = LongTask(self.ops, work, parent=self)
        self.consolidation = task
        task.note.connect(self._consolidation_step)
        task.finished.connect(self._consolidated)
        task.failed.connect(self._consolidation_failed)
        task.cancelled.connect(self._consolidation_cancelled)
        self._set(replace(self.state, consolidating=True, consolidation_line=""))
        task.start()
        return task

    def _consolidation_step(self, step: Any) -> None:
        """Core's step as values (memoryd.consolidate.Step), worded here."""
        self._set(replace(self.state, consolidation_line=consolidation_step(step)))

    def _consolidation_ended(self) -> None:
        self.consolidation = None
        self._set(replace(self.state, consolidating=False, consolidation_line=""))
        self.refresh()
        self.windows.store_changed()

    def _consolidated(self, report: ConsolidationReport) -> None:
        """Errors always reach the user; a run that brought nothing new stays quiet."""
        self._consolidation_ended()
        summary = report.skipped or consolidation_summary(report.summary())
        summary = summary or translate("Controller", "nothing new")
        if any(p.error for p in report.phases):
            self.show_error(consolidation_errors(report))
        elif report.skipped or not eventful(report.summary()):
            log.info("consolidation done, nothing new: %s", summary)
        else:
            self.notify(translate("Controller", "Consolidation done: {summary}").format(summary=summary))

    def _consolidation_failed(self, exc: BaseException) -> None:
        self._consolidation_ended()
        self.show_error(exc)

    def _consolidation_cancelled(self) -> None:
        """Only a quit cancels it (at its next phase): the next run resumes there."""
        log.info("consolidation stopped between phases; the next run resumes it")
        self._consolidation_ended()

    # -- sync -------------------------------------------------------------------------
    def _arm_auto_sync(self) -> None:
        """A folder set: sync shortly after (start, or the Save that set it), then every
        15 minutes. No folder (any more): no timer."""
        if not self._auto_sync or self._closing:
            return
        if self.state.sync_folder and not self.sync_timer.isActive():
            log.info("sync folder %s: syncing automatically", self.state.sync_folder)
            self.sync_timer.start(self._first_sync_ms)
        elif not self.state.sync_folder and self.sync_timer.isActive():
            log.info("no sync folder: automatic sync stopped")
            self.sync_timer.stop()

    @Slot()
    def _timed_sync(self) -> None:
        self.sync_timer.setInterval(self._sync_ms)  # after the first, the quarter-hourly ones
        self.sync(auto=True)

    def sync(self, *, auto: bool = False) -> bool:
        """Sync with the folder, off the GUI thread; False (nothing started) while a sync
        runs or with no folder set. `auto`: the timer's sync, which speaks only of new
        conflicts and of errors; "Sync now" also reports what it did."""
        if self.state.syncing or not self.state.sync_folder:
            return False
        self._set(replace(self.state, syncing=True))
        facade = self.facade

        def work() -> tuple[SyncReport, int]:
            before = conflict_keys(facade.sync_conflicts())
            report = facade.sync(actor="tray")
            return report, len(conflict_keys(facade.sync_conflicts()) - before)

        self.ops.run(
            work, lambda done: self._synced(*done, auto=auto), lambda exc: self._sync_failed(exc, auto)
        )
        return True

    def _synced(self, report: SyncReport, new_conflicts: int, *, auto: bool) -> None:
        self._set(replace(self.state, syncing=False))
        self._sync_error = ""
        log.info("sync: %s", report)
        self.refresh()
        self.windows.store_changed()
        digest: Any = self.windows.made.get(Action.DIGEST)
        if digest is not None and digest.isVisible():
            digest.load()  # it may list conflicts this sync made or settled
        open_conflicts = self.show_conflicts if report.conflicts else None
        if not auto:
            self.notify(sync_summary(report), on_click=open_conflicts)
        elif new_conflicts:
            text = translate(
                "Controller", "Sync found new conflicts: {count}. Pick a version in the weekly review."
            ).format(count=new_conflicts)
            self.notify(text, on_click=open_conflicts)

    def _sync_failed(self, exc: BaseException, auto: bool) -> None:
        self._set(replace(self.state, syncing=False))
        text = translate("Controller", "Sync failed: {error}").format(
            error=(describe(exc).strip().splitlines() or [type(exc).__name__])[0]
        )
        if auto and text == self._sync_error:
            log.warning("%s (again)", text)  # said once; the next sync that works clears it
        else:
            self.show_error(text)
        if auto:
            self._sync_error = text
        self.refresh()

    def show_conflicts(self) -> None:
        """The weekly review, on its Sync conflicts tab (a click on a sync notification)."""
        window: Any = self.windows.open(Action.DIGEST)
        window.show_conflicts()

    def toggle_pause(self) -> None:
        paused = not self.state.paused
        facade = self.facade

        def done(_changed: bool) -> None:
            self._set(replace(self.state, paused=paused))
            if paused:
                self.notify(
                    translate("Controller", "Capture paused: agent sessions are not kept until you resume.")
                )
            else:
                self.notify(translate("Controller", "Capture resumed."))
            self.refresh()

        self.ops.run(lambda: facade.pause_capture(paused, actor="tray"), done)

    def drain(self) -> None:
        """Process spooled captures now, in the background."""
        if self.state.draining:
            return
        self._set(replace(self.state, draining=True))
        facade = self.facade
        self.ops.run(
            lambda: facade.drain_spool(analyze=True, actor="tray"), self._drained, self._drain_failed
        )

    def _drained(self, report: DrainReport) -> None:
        self._set(replace(self.state, draining=False))
        if report.busy:
            self.notify(translate("Controller", "Another memoryd process is already processing captures."))
        elif report.captured or report.rejected:
            text = translate("Controller", "Captures processed: {count}.").format(count=len(report.captured))
            if report.rejected:
                text += " " + translate("Controller", "Set aside as unusable: {count}.").format(
                    count=len(report.rejected)
                )
            self.notify(text, error=bool(report.rejected))
        else:
            self.notify(translate("Controller", "No captures were waiting."))
        self.refresh()
        self.windows.store_changed()

    def _drain_failed(self, exc: BaseException) -> None:
        self._set(replace(self.state, draining=False))
        self.show_error(exc)
        self.refresh()

    def open_folder(self) -> bool:
        home = self.state.home
        if QDesktopServices.openUrl(QUrl.fromLocalFile(str(home))):
            return True
        self.show_error(translate("Controller", "Could not open the data folder {path}.").format(path=home))
        return False
