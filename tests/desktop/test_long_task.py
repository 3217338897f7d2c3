"""LongTask and its progress panel: progress reaches the GUI, Cancel stops the work through
core's Cancelled, failures come back as `failed`, and the task queues behind Ops calls."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from PySide6.QtCore import QObject, QThread
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from memoryd.errors import Cancelled
from memoryd_desktop.long_task import LongTask, Progress, ProgressPanel
from memoryd_desktop.ops import Ops

WAIT_MS = 5_000


@pytest.fixture
def ops(qapp: QApplication) -> Iterator[Ops]:
    errors: list[BaseException] = []
    ops = Ops(on_error=errors.append)
    yield ops
    assert ops.wait(WAIT_MS)
    assert errors == []  # every failure went to the task's own path


def test_progress_reaches_the_gui_and_the_result_comes_back(qtbot: QtBot, ops: Ops) -> None:
    threads: list[bool] = []

    def work(progress: Progress) -> str:
        threads.append(QThread.currentThread() is QApplication.instance().thread())  # type: ignore[union-attr]
        for n in range(1, 4):
            progress(n, 3)
        return "done"

    task = LongTask(ops, work, min_interval=0)
    seen: list[tuple[int, int]] = []
    task.progress.connect(lambda done, total: seen.append((done, total)))
    with (
        qtbot.assertNotEmitted(task.cancelled),
        qtbot.assertNotEmitted(task.failed),
        qtbot.waitSignal(task.finished, timeout=WAIT_MS) as blocker,
    ):
        task.start()
        assert task.running
    assert blocker.args == ["done"]
    assert seen == [(1, 3), (2, 3), (3, 3)]
    assert threads == [False]  # the work ran off the GUI thread
    assert not task.running
    with pytest.raises(RuntimeError):
        task.start()


def test_reports_are_throttled_but_the_first_and_last_get_through(qtbot: QtBot, ops: Ops) -> None:
    task = LongTask(ops, lambda progress: [progress(n, 500) for n in range(1, 501)], min_interval=60)
    seen: list[tuple[int, int]] = []
    task.progress.connect(lambda done, total: seen.append((done, total)))
    with qtbot.waitSignal(task.finished, timeout=WAIT_MS):
        task.start()
    assert seen == [(1, 500), (500, 500)]


def test_cancel_raises_cancelled_in_the_work_at_its_next_report(qtbot: QtBot, ops: Ops) -> None:
    started, go_on = threading.Event(), threading.Event()
    raised: list[BaseException] = []

    def work(progress: Progress) -> str:
        progress(0, 10)
        started.set()
        assert go_on.wait(WAIT_MS / 1000)
        try:
            progress(1, 10)
        except Cancelled as exc:
            raised.append(exc)
            raise
        return "not reached"

    task = LongTask(ops, work)
    with (
        qtbot.assertNotEmitted(task.finished),
        qtbot.assertNotEmitted(task.failed),
        qtbot.waitSignal(task.cancelled, timeout=WAIT_MS),
    ):
        task.start()
        assert started.wait(WAIT_MS / 1000)
        task.cancel()
        assert task.cancel_requested
        go_on.set()
    assert len(raised) == 1 and isinstance(raised[0], Cancelled)
    assert not task.running


def test_lines_said_by_the_work_all_arrive_in_order_and_cancel_stops_at_the_next(
    qtbot: QtBot, ops: Ops
) -> None:
    """Work that reports in lines (the consolidation: one per phase) gets every line through,
    unthrottled; after cancel() its next line raises Cancelled, as a report would."""
    task = LongTask(ops, lambda _progress: [task.say(f"phase {n}") for n in range(1, 8)], min_interval=60)
    seen: list[str] = []
    task.message.connect(seen.append)
    with qtbot.waitSignal(task.finished, timeout=WAIT_MS):
        task.start()
    assert seen == [f"phase {n}" for n in range(1, 8)]

    started, go_on = threading.Event(), threading.Event()

    def work(_progress: Progress) -> str:
        stopping.say("capture: done")
        started.set()
        assert go_on.wait(WAIT_MS / 1000)
        stopping.say("analyze: done")  # raises: the run stops between phases
        return "not reached"

    stopping = LongTask(ops, work)
    lines: list[str] = []
    stopping.message.connect(lines.append)
    with qtbot.assertNotEmitted(stopping.finished), qtbot.waitSignal(stopping.cancelled, timeout=WAIT_MS):
        stopping.start()
        assert started.wait(WAIT_MS / 1000)
        stopping.cancel()
        go_on.set()
    assert lines == ["capture: done"]


def test_a_task_cancelled_while_queued_never_runs(qtbot: QtBot, ops: Ops) -> None:
    gate = threading.Event()
    ran: list[str] = []
    ops.run(lambda: gate.wait(WAIT_MS / 1000), lambda _r: ran.append("ops call"))
    task = LongTask(ops, lambda progress: ran.append("work"))
    with qtbot.waitSignal(task.cancelled, timeout=WAIT_MS):
        task.start()
        task.cancel()
        gate.set()
    assert ran == ["ops call"]


def test_a_failure_comes_back_as_failed(qtbot: QtBot, ops: Ops) -> None:
    def work(progress: Progress) -> None:
        progress(1, 2)
        raise ValueError("disk on fire")

    task = LongTask(ops, work)
    with (
        qtbot.assertNotEmitted(task.finished),
        qtbot.assertNotEmitted(task.cancelled),
        qtbot.waitSignal(task.failed, timeout=WAIT_MS) as blocker,
    ):
        task.start()
    (exc,) = blocker.args
    assert isinstance(exc, ValueError) and str(exc) == "disk on fire"
    assert not task.running


def test_a_task_waits_for_the_ops_call_before_it(qtbot: QtBot, ops: Ops) -> None:
    """One pool thread: a long task never overlaps another facade call."""
    gate = threading.Event()
    order: list[str] = []

    def slow() -> None:
        assert gate.wait(WAIT_MS / 1000)
        order.append("ops call")

    def work(progress: Progress) -> None:
        order.append("work")

    ops.run(slow, lambda _r: None)
    task = LongTask(ops, work)
    with qtbot.waitSignal(task.finished, timeout=WAIT_MS):
        task.start()
        gate.set()
    assert order == ["ops call", "work"]


def test_the_panel_follows_the_task_and_its_cancel_button_cancels(qtbot: QtBot, ops: Ops) -> None:
    go_on = threading.Event()

    def work(progress: Progress) -> None:
        progress(3, 8)
        assert go_on.wait(WAIT_MS / 1000)
        progress(4, 8)

    panel = ProgressPanel()
    qtbot.addWidget(panel)
    task = LongTask(ops, work)
    panel.attach(task, "Working…")
    assert not panel.isHidden() and panel.label.text() == "Working…"
    assert panel.bar.maximum() == 0  # busy until the first report
    with qtbot.waitSignal(task.progress, timeout=WAIT_MS):
        task.start()
    qtbot.waitUntil(lambda: panel.bar.maximum() == 8, timeout=WAIT_MS)
    assert panel.bar.value() == 3

    with qtbot.waitSignal(task.cancelled, timeout=WAIT_MS):
        panel.cancel_button.click()
        assert not panel.cancel_button.isEnabled()
        assert panel.cancel_button.text() == "Cancelling…"
        go_on.set()
    assert panel.isHidden()
    assert panel.task is None


@pytest.mark.parametrize("outcome", ["finished", "failed", "cancelled"])
def test_a_task_deletes_itself_once_it_ended(qtbot: QtBot, ops: Ops, outcome: str) -> None:
    """A window runs many tasks over a day: each is freed after its ending signal."""

    def work(progress: Progress) -> str:
        if outcome == "failed":
            raise ValueError("no")
        progress(1, 1)
        return "done"

    parent = QObject()
    task = LongTask(ops, work, parent=parent)
    ended: list[str] = []
    getattr(task, outcome).connect(lambda *_: ended.append(outcome))
    with qtbot.waitSignal(task.destroyed, timeout=WAIT_MS):
        if outcome == "cancelled":
            task.cancel()
        task.start()
    assert ended == [outcome] and not task.running
    assert parent.children() == []


def test_values_told_by_the_work_arrive_as_they_are_and_cancel_stops_at_the_next(
    qtbot: QtBot, ops: Ops
) -> None:
    """Work that reports values (the consolidation's steps, for the GUI to word) gets each
    one through as `note`; after cancel() its next one raises Cancelled."""
    started, go_on = threading.Event(), threading.Event()

    def work(_progress: Progress) -> str:
        task.tell({"phase": "capture", "done": 1})
        started.set()
        assert go_on.wait(WAIT_MS / 1000)
        task.tell({"phase": "analyze"})  # raises: the run stops between phases
        return "not reached"

    task = LongTask(ops, work)
    told: list[object] = []
    task.note.connect(told.append)
    with qtbot.assertNotEmitted(task.finished), qtbot.waitSignal(task.cancelled, timeout=WAIT_MS):
        task.start()
        assert started.wait(WAIT_MS / 1000)
        task.cancel()
        go_on.set()
    assert told == [{"phase": "capture", "done": 1}]
