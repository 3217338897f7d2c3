"""One long facade call (reindex, import, mark sensitive, consolidate) off the GUI thread,
with progress and a Cancel that core honours.

Core's long operations take a `progress(done, total)` callback and stop cleanly when it
raises `memoryd.errors.Cancelled`: reindex rolls its one transaction back, an import keeps
what it wrote (importing again continues), marking stops between batches (running it again
finishes). `LongTask` hands such a callback to the work: each call is forwarded to the GUI as
the `progress` signal (throttled, so 100k files do not flood the event queue) and raises
Cancelled once `cancel()` was asked for. Work that reports in lines instead (the
consolidation says one line per phase) is handed `say` and the lines arrive as `message`.

Why the task runs on the `Ops` pool and not on a thread of its own: every other facade call
of the app goes through `Ops`, a one-thread pool, so no refresh or write ever runs while a
reindex holds the index's write transaction or while marking rewrites a scope's files. The
price is that calls made meanwhile wait in that queue until the long task ends or is
cancelled; the GUI itself stays responsive.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, Signal, Slot
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from memoryd.errors import Cancelled
from memoryd_desktop.ops import Ops

translate = QCoreApplication.translate  # the bare name lupdate recognises

Progress = Callable[[int, int], None]
Work = Callable[[Progress], Any]

MIN_INTERVAL_S = 0.05  # at most ~20 progress signals a second reach the GUI


class _Stopped:
    """The worker's answer when the work ended by Cancelled (Ops would log it as a failure)."""


_STOPPED = _Stopped()


class LongTask(QObject):
    """Run `work(progress)` once on the `Ops` pool; exactly one of finished/failed/cancelled follows.

    `progress` is thread-safe to call from the work; `cancel()` is a request: the work stops
    at its next progress call. Work that ends without calling it again still `finished`.
    Once the ending signal was delivered the task deletes itself (`deleteLater`): a window
    that runs many of them does not keep them all.
    """

    progress = Signal(int, int)  # done, total
    message = Signal(str)  # a progress line, from work that reports through `say`
    note = Signal(object)  # a progress value, from work that reports through `tell`
    finished = Signal(object)  # the work's result
    failed = Signal(object)  # the exception
    cancelled = Signal()

    def __init__(
        self, ops: Ops, work: Work, *, min_interval: float = MIN_INTERVAL_S, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._ops = ops
        self._work = work
        self._min_interval = min_interval
        self._cancel = threading.Event()
        self._last_emit = 0.0
        self._started = False
        self._running = False

    @property
    def running(self) -> bool:
        """True from `start()` until one of the ending signals was emitted."""
        return self._running

    @property
    def cancel_requested(self) -> bool:
        return self._cancel.is_set()

    def start(self) -> None:
        """Queue the work; a task runs once (make a new one to run it again)."""
        if self._started:
            raise RuntimeError("a LongTask runs only once")
        self._started = True
        self._running = True
        self._ops.run(self._run, self._done, self._error)

    @Slot()
    def cancel(self) -> None:
        """Ask the work to stop at its next progress call (safe from any thread)."""
        self._cancel.set()

    def report(self, done: int, total: int) -> None:
        """The `progress` callback the work receives: raises Cancelled after `cancel()`."""
        if self._cancel.is_set():
            raise Cancelled("cancelled by the user")
        now = time.monotonic()
        if self._last_emit == 0.0 or done >= total or now - self._last_emit >= self._min_interval:
            self._last_emit = now
            self.progress.emit(done, total)

    def say(self, line: str) -> None:
        """A line-reporting work's progress callback (thread-safe): every line is delivered,
        as `message`; raises Cancelled after `cancel()`, like `report`."""
        if self._cancel.is_set():
            raise Cancelled("cancelled by the user")
        self.message.emit(line)

    def tell(self, value: object) -> None:
        """Like `say`, for work that reports values (the consolidation's steps) for the GUI
        to word: each arrives as `note`."""
        if self._cancel.is_set():
            raise Cancelled("cancelled by the user")
        self.note.emit(value)

    def _run(self) -> Any:  # on the pool's thread
        if self._cancel.is_set():  # cancelled while it waited in the queue
            return _STOPPED
        try:
            return self._work(self.report)
        except Cancelled:
            return _STOPPED

    def _done(self, result: Any) -> None:
        self._running = False
        if result is _STOPPED:
            self.cancelled.emit()
        else:
            self.finished.emit(result)
        self.deleteLater()

    def _error(self, exc: BaseException) -> None:
        self._running = False
        self.failed.emit(exc)
        self.deleteLater()


class ProgressPanel(QWidget):
    """A label, a progress bar and a Cancel button for the task it is attached to.

    Hidden while no task runs, so a window can keep one at its bottom edge. The bar shows
    "busy" until the first progress report says how much there is to do.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.task: LongTask | None = None
        self.label = QLabel()
        self.bar = QProgressBar()
        self.bar.setMinimumWidth(160)
        self.cancel_button = QPushButton(translate("ProgressPanel", "Cancel"))
        self.cancel_button.clicked.connect(self.cancel)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.bar)
        layout.addWidget(self.cancel_button)
        self.hide()

    def attach(self, task: LongTask, text: str) -> None:
        """Follow `task` (attach before `task.start()`); the panel hides when it ends."""
        self._detach()
        self.task = task
        self.label.setText(text)
        self.bar.setRange(0, 0)
        self.cancel_button.setEnabled(True)
        self.cancel_button.setText(translate("ProgressPanel", "Cancel"))
        task.progress.connect(self._on_progress)
        task.finished.connect(self._on_end)
        task.failed.connect(self._on_end)
        task.cancelled.connect(self._on_end)
        self.show()

    @Slot()
    def cancel(self) -> None:
        if self.task is not None:
            self.task.cancel()
            self.cancel_button.setEnabled(False)
            self.cancel_button.setText(translate("ProgressPanel", "Cancelling…"))

    @Slot(int, int)
    def _on_progress(self, done: int, total: int) -> None:
        self.bar.setRange(0, max(total, 0))
        self.bar.setValue(min(done, total))

    def _on_end(self, *_: object) -> None:
        self._detach()
        self.hide()

    def _detach(self) -> None:
        """Reports are queued in order before the ending signal, so none arrives after this."""
        task, self.task = self.task, None
        if task is None:
            return
        task.progress.disconnect(self._on_progress)
        task.finished.disconnect(self._on_end)
        task.failed.disconnect(self._on_end)
        task.cancelled.disconnect(self._on_end)
