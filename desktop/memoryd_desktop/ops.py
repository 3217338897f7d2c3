"""The one helper for GUI -> core calls: off the GUI thread, one at a time, answers on the GUI thread.

Facade calls read SQLite and files, and `drain_spool()` can parse long transcripts; run on
the GUI thread they would freeze the tray. A single-thread QThreadPool serialises every
call, so a refresh never races a drain over the same store. Results and errors come back
through a queued signal, so callbacks always run on the GUI thread.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot

from memoryd.errors import MemorydError

log = logging.getLogger("memoryd.tray")

OnDone = Callable[[Any], None]
OnError = Callable[[BaseException], None]


class _Task(QRunnable):
    def __init__(self, ops: Ops, task_id: int, fn: Callable[[], Any]) -> None:
        super().__init__()
        self._ops = ops
        self._id = task_id
        self._fn = fn

    def run(self) -> None:
        try:
            result = self._fn()
        except MemorydError as exc:  # a user-facing answer (bad input, no grant): no trace
            log.info("background call refused: %s", exc)
            self._ops.finished.emit(self._id, None, exc)
        except Exception as exc:  # every failure goes back to the GUI's one error path
            log.exception("background call failed")
            self._ops.finished.emit(self._id, None, exc)
        else:
            self._ops.finished.emit(self._id, result, None)


class Ops(QObject):
    """Run callables in the background; `idle` is emitted when nothing is left to do."""

    finished = Signal(int, object, object)  # task id, result, exception
    idle = Signal()

    def __init__(self, on_error: OnError, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._on_error = on_error
        self._ids = itertools.count(1)
        self._callbacks: dict[int, tuple[OnDone, OnError]] = {}
        self.finished.connect(self._deliver)

    @property
    def busy(self) -> bool:
        return bool(self._callbacks)

    def run(self, fn: Callable[[], Any], on_done: OnDone, on_error: OnError | None = None) -> None:
        """Queue `fn`; `on_done(result)` or `on_error(exc)` later runs on the GUI thread."""
        task_id = next(self._ids)
        self._callbacks[task_id] = (on_done, on_error or self._on_error)
        self._pool.start(_Task(self, task_id, fn))

    @Slot(int, object, object)
    def _deliver(self, task_id: int, result: Any, error: BaseException | None) -> None:
        on_done, on_error = self._callbacks.pop(task_id)
        try:
            if error is None:
                on_done(result)
            else:
                on_error(error)
        finally:
            if not self._callbacks:
                self.idle.emit()

    def wait(self, msecs: int) -> bool:
        """Block until queued calls end (used at quit); False if they are still running."""
        return self._pool.waitForDone(msecs)
