"""The tray's scheduler and notifications over a real store, a real qasync loop, and (for
the click) a real dunst on a private session bus.

APScheduler's own timers run on real time, so a test cannot wait for Monday 09:00; what
is checked is that the three timed jobs are scheduled at the times core computes (the
identity rewrite has no timer: the consolidation runs it), that the job function
APScheduler calls runs the job, and that the catch-up runs a missed slot once.
"""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import qasync
from pytestqt.qtbot import QtBot

from memoryd.app import Memoryd
from memoryd_desktop import scheduler as scheduler_mod
from memoryd_desktop.controller import Controller
from memoryd_desktop.notifier import Notifier
from memoryd_desktop.ops import Ops
from memoryd_desktop.scheduler import JobScheduler
from tests.delivery import shown

MONDAY_EARLY = "2026-11-16T08:00:00Z"
TUESDAY = "2026-11-17T10:00:00Z"


_made: list[Ops] = []


def _ops() -> Ops:
    errors: list[BaseException] = []
    ops = Ops(on_error=errors.append)
    _made.append(ops)
    return ops


@pytest.fixture(autouse=True)
def _quiet_ops() -> Iterator[None]:
    """Every background call ends inside its test, before its Ops object goes."""
    yield
    while _made:
        assert _made.pop().wait(20_000)


def test_jobs_are_scheduled_at_the_times_core_computes(
    qtbot: QtBot, facade: Memoryd, loop: qasync.QEventLoop, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TZ", "UTC")
    facade.update_config({"schedule.digest": "30 8 * * 1"})
    jobs = JobScheduler(facade, _ops(), loop)
    monkeypatch.setattr(facade, "timers_installed", lambda: [])
    with qtbot.waitSignal(jobs.checked, timeout=10_000):
        jobs.start()
    assert jobs.scheduler is not None and jobs.scheduler.running
    scheduled = {job.id: job for job in jobs.scheduler.get_jobs()}
    assert set(scheduled) == {"consolidate", "digest", "monthly-report"}
    digest = scheduled["digest"]
    assert digest.func is scheduler_mod.fire and digest.args == ("digest",)
    assert (digest.next_run_time.weekday(), digest.next_run_time.hour, digest.next_run_time.minute) == (
        0,
        8,
        30,
    )
    assert digest.coalesce and digest.misfire_grace_time == scheduler_mod.MISFIRE_GRACE_S
    jobs.stop()
    assert jobs.scheduler is None and scheduler_mod._active is None


def test_the_job_function_runs_the_job_through_core(
    qtbot: QtBot, facade: Memoryd, loop: qasync.QEventLoop, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(facade, "timers_installed", lambda: [])
    monkeypatch.setenv("TZ", "UTC")
    monkeypatch.setenv("MEMORYD_NOW", "2026-11-16T01:00:00Z")
    jobs = JobScheduler(facade, _ops(), loop)
    with qtbot.waitSignal(jobs.checked, timeout=10_000):
        jobs.start()
    monkeypatch.setenv("MEMORYD_NOW", "2026-11-16T03:00:01Z")
    with qtbot.waitSignal(jobs.ran, timeout=20_000) as ran:
        loop.run_until_complete(scheduler_mod.fire("consolidate"))  # what APScheduler calls at 03:00
    job_id, run = ran.args
    assert job_id == "consolidate" and run.runner == "tray" and run.ok
    assert run.summary.startswith("consolidation: 0 captured, 0 analysed"), run.summary
    state = {j["id"]: j for j in facade.schedules()}["consolidate"]
    assert state["last_success"] == "2026-11-16T03:00:01Z" and state["runner"] == "tray"
    assert facade.consolidation_state()["last_success"] == "2026-11-16T03:00:01Z"
    jobs.stop()


def test_catch_up_runs_a_missed_digest_once(
    qtbot: QtBot, facade: Memoryd, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(facade, "timers_installed", lambda: [])
    monkeypatch.setenv("TZ", "UTC")
    monkeypatch.setenv("MEMORYD_NOW", MONDAY_EARLY)
    assert facade.due_jobs() == []  # the first look: nothing before it counts as missed
    monkeypatch.setenv("MEMORYD_NOW", TUESDAY)
    jobs = JobScheduler(facade, _ops())  # no loop: only the catch-up runs jobs
    ran: list[str] = []
    jobs.ran.connect(lambda job_id, _run: ran.append(job_id))
    with qtbot.waitSignal(jobs.checked, timeout=10_000) as checked:
        jobs.start()
    assert sorted(checked.args[0]) == ["consolidate", "digest"]
    qtbot.waitUntil(lambda: sorted(ran) == ["consolidate", "digest"], timeout=20_000)
    with qtbot.waitSignal(jobs.checked, timeout=10_000) as again:
        jobs.catch_up()
    assert again.args[0] == []
    assert sorted(ran) == ["consolidate", "digest"]
    jobs.stop()


def test_with_os_timers_installed_the_tray_schedules_nothing(
    qtbot: QtBot, facade: Memoryd, loop: qasync.QEventLoop, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(facade, "timers_installed", lambda: ["systemd: memoryd-digest.timer"])
    jobs = JobScheduler(facade, _ops(), loop)
    jobs.start()
    qtbot.waitUntil(lambda: jobs.external, timeout=10_000)
    assert jobs.scheduler is None and not jobs.catch_up_timer.isActive()
    jobs.stop()


def test_digest_notification_reaches_dunst_and_its_click_opens_the_digest(
    qtbot: QtBot,
    facade: Memoryd,
    loop: qasync.QEventLoop,
    dunst: tuple[str, Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bus, record = dunst
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", bus)
    controller = Controller(facade, tray_available=lambda: False, loop=loop, background=False)
    clicked: list[str] = []
    monkeypatch.setattr(controller.windows, "open", lambda action: clicked.append(action.value))
    controller.notify_digest({"promotions": 3, "duplicates": 1, "expiring": 2})

    async def until_shown() -> list[tuple[str, str, str]]:
        for _ in range(200):
            if record.exists():
                return shown(record)
            await asyncio.sleep(0.05)
        return []

    notes = loop.run_until_complete(until_shown())
    assert notes == [
        (
            "memoryd",
            "memoryd weekly digest",
            "Waiting in the weekly digest: promotions (3), duplicates (1), expiring (2).",
        )
    ]

    env = {"DBUS_SESSION_BUS_ADDRESS": bus, "PATH": "/usr/bin:/bin"}
    subprocess.run(["dunstctl", "action", "0"], env=env, check=True, timeout=10)

    async def until_clicked() -> None:
        for _ in range(200):
            if clicked:
                return
            await asyncio.sleep(0.05)

    loop.run_until_complete(until_clicked())
    assert clicked == ["digest"]
    loop.run_until_complete(controller.notifier.close())


def test_without_a_notification_daemon_the_message_falls_back(
    qtbot: QtBot, facade: Memoryd, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", f"unix:path={tmp_path / 'no-bus'}")
    notifier = Notifier(None)
    seen: list[tuple[str, str, bool]] = []
    notifier.fallback = lambda title, text, error: seen.append((title, text, error))
    with qtbot.waitSignal(notifier.shown, timeout=5_000) as blocker:
        notifier.post("memoryd weekly digest", "1 promotions wait.")
    assert blocker.args == ["window", "memoryd weekly digest"]
    assert seen == [("memoryd weekly digest", "1 promotions wait.", False)]


def test_a_schedule_changed_outside_the_tray_is_picked_up(
    qtbot: QtBot, facade: Memoryd, loop: qasync.QEventLoop, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`memoryd` (another process) changes the digest's time: the next tick reschedules."""
    monkeypatch.setattr(facade, "timers_installed", lambda: [])
    monkeypatch.setenv("TZ", "UTC")
    jobs = JobScheduler(facade, _ops(), loop)
    with qtbot.waitSignal(jobs.checked, timeout=10_000):
        jobs.start()
    assert facade.reload_config_if_changed() is False
    Memoryd().update_config({"schedule.digest": "45 7 * * 2"})  # as another process would
    with qtbot.waitSignal(jobs.checked, timeout=10_000):
        jobs._tick()
    when = next(j for j in jobs.scheduler.get_jobs() if j.id == "digest").next_run_time
    assert (when.weekday(), when.hour, when.minute) == (1, 7, 45)
    jobs.stop()
