"""Every tray notification takes one path: the desktop's notification service (a real dunst
on a private session bus here), quiet when nothing happened, errors always said.

The order of what dunst shows is the proof that nothing else was sent: an empty
consolidation, then a pause, leaves exactly the pause notification in dunst's record."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import qasync
from pytestqt.qtbot import QtBot

from memoryd.app import Memoryd
from memoryd.capture import spool
from memoryd.errors import StorageError
from memoryd_desktop.controller import Controller
from tests.delivery import shown

NOW = "2026-11-22T08:00:00Z"
PAUSED = "Capture paused: agent sessions are not kept until you resume."


@pytest.fixture
def controller(
    facade: Memoryd, loop: qasync.QEventLoop, dunst: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> Iterator[Controller]:
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", dunst[0])
    made = Controller(facade, tray_available=lambda: False, loop=loop, background=False)
    yield made
    made.shutdown()
    loop.run_until_complete(made.notifier.close())


def _until(loop: qasync.QEventLoop, done: Callable[[], bool], timeout: float = 60) -> None:
    """Run the app's loop (Qt events and asyncio tasks) until `done()`."""

    async def wait() -> None:
        for _ in range(int(timeout / 0.05)):
            if done():
                return
            await asyncio.sleep(0.05)
        pytest.fail("timed out")

    loop.run_until_complete(wait())


def _shown(loop: qasync.QEventLoop, record: Path) -> list[tuple[str, str, str]]:
    """What dunst showed, once it showed something (the loop runs the notifier meanwhile)."""
    _until(loop, record.exists, timeout=20)
    return shown(record)


def _consolidate(controller: Controller, loop: qasync.QEventLoop) -> None:
    assert controller.consolidate() is not None
    _until(loop, lambda: not controller.state.consolidating and not controller.ops.busy)


def _pause(controller: Controller, loop: qasync.QEventLoop) -> None:
    controller.toggle_pause()
    _until(loop, lambda: controller.state.paused and not controller.ops.busy)


def test_consolidation_done_reaches_the_notification_service(
    qtbot: QtBot, facade: Memoryd, controller: Controller, loop: qasync.QEventLoop, dunst: tuple[str, Path]
) -> None:
    spool.put(
        facade.layout.spool,
        "claude-code",
        {"session_id": "abc", "cwd": ".", "last_assistant_message": "Done."},
        NOW,
    )
    channels: list[str] = []
    controller.notifier.shown.connect(lambda channel, _title: channels.append(channel))
    _consolidate(controller, loop)
    _until(loop, lambda: bool(channels))

    [(app, title, body)] = _shown(loop, dunst[1])
    assert (app, title) == ("memoryd", "memoryd")
    assert body.startswith("Consolidation done: 1 captures processed, 1 sessions analysed"), body
    assert channels == ["dbus"]


def test_an_empty_consolidation_notifies_nothing_and_a_pause_reaches_the_service(
    qtbot: QtBot, facade: Memoryd, controller: Controller, loop: qasync.QEventLoop, dunst: tuple[str, Path]
) -> None:
    channels: list[str] = []
    controller.notifier.shown.connect(lambda channel, _title: channels.append(channel))
    _consolidate(controller, loop)
    assert facade.consolidation_state()["last_success"] is not None  # it did run
    _pause(controller, loop)
    _until(loop, lambda: bool(channels))

    assert _shown(loop, dunst[1]) == [("memoryd", "memoryd", PAUSED)]
    assert channels == ["dbus"]


def test_a_failed_consolidation_always_notifies(
    qtbot: QtBot,
    facade: Memoryd,
    controller: Controller,
    loop: qasync.QEventLoop,
    dunst: tuple[str, Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(**_kwargs: object) -> None:
        raise StorageError("index.db is locked by another program")

    monkeypatch.setattr(facade, "consolidate", broken)
    _consolidate(controller, loop)
    assert _shown(loop, dunst[1]) == [("memoryd", "memoryd", "index.db is locked by another program")]


# -- the weekly digest --------------------------------------------------------------------
DIGEST = "memoryd weekly digest"


def _digest(controller: Controller, loop: qasync.QEventLoop) -> None:
    """The digest job as the tray's scheduler runs it, in its worker, to its notification."""
    ran: list[str] = []
    controller.jobs.ran.connect(lambda job_id, _run: ran.append(job_id))
    controller.jobs.run("digest", force=True)
    _until(loop, lambda: ran == ["digest"] and not controller.ops.busy)


def test_a_digest_with_nothing_waiting_notifies_nothing(
    qtbot: QtBot, facade: Memoryd, controller: Controller, loop: qasync.QEventLoop, dunst: tuple[str, Path]
) -> None:
    _digest(controller, loop)
    _pause(controller, loop)
    assert _shown(loop, dunst[1]) == [("memoryd", "memoryd", PAUSED)]


def test_a_digest_with_only_a_supersede_waiting_says_so(
    qtbot: QtBot, facade: Memoryd, controller: Controller, loop: qasync.QEventLoop, dunst: tuple[str, Path]
) -> None:
    from memoryd.kg import supersedes

    older = facade.record("preference", "Prefer React for the frontend", "Use React for the web app.")[0]
    newer = facade.record("preference", "Prefer Solid for the frontend", "We moved to Solid.")[0]
    judgement = supersedes.Judgement(older=older.meta.slug, confidence=0.7, reason="same subject")
    supersedes.propose(facade.store, newer.meta.slug, [judgement], judged_by="rules", actor="test")
    assert len(facade.pending_supersedes()) == 1

    _digest(controller, loop)
    assert _shown(loop, dunst[1]) == [
        ("memoryd", DIGEST, "Waiting in the weekly digest: supersedes to confirm (1).")
    ]
