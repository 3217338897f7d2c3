"""Desktop tests: Qt offscreen, every test in its own data folder, Qt warnings fail tests.

QT_QPA_PLATFORM must be set before the first QApplication exists, hence at import time.
The offscreen plugin warns about window-manager features it lacks; those lines are
ignored by text so any other Qt warning still fails the test (qutebrowser's habit).
"""

from __future__ import annotations

import asyncio
import gc
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import qasync

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from memoryd.app import Memoryd

HERE = Path(__file__).parent
OFFSCREEN_NOISE = (
    r"This plugin does not support",  # propagateSizeHints(), raise(), grabbing the keyboard
    # QSystemTrayIcon.show() under offscreen, documented as harmless (ECOSYSTEM-FACTS 5.1)
    r"No such signal QPlatformNativeInterface::systemTrayWindowChanged",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.qt_log_level_fail("WARNING"))
            item.add_marker(pytest.mark.qt_log_ignore(*OFFSCREEN_NOISE))


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private MEMORYD_HOME, config and HOME: no test touches a real user folder."""
    data = tmp_path / "data"
    monkeypatch.setenv("MEMORYD_HOME", str(data))
    monkeypatch.setenv("MEMORYD_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "home" / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "home" / ".local" / "share"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home" / ".cache"))
    monkeypatch.chdir(tmp_path)  # record() scopes memories by the working directory
    yield data


@pytest.fixture(autouse=True)
def collect_qt_garbage() -> Iterator[None]:
    """Free each test's Qt objects here, on the GUI thread. Left to chance, the cyclic
    collector may run inside a later test's worker thread and destroy them there
    ("Timers cannot be stopped from another thread")."""
    yield
    gc.collect()


@pytest.fixture
def facade(home: Path) -> Memoryd:
    """The real facade over the temp data folder (layout and config read from the env)."""
    return Memoryd()


@pytest.fixture
def loop(qapp) -> Iterator[qasync.QEventLoop]:  # type: ignore[no-untyped-def]
    """A qasync loop over the test's QApplication, as memoryd-tray's main() makes one."""
    ev = qasync.QEventLoop(qapp, already_running=False)
    asyncio.set_event_loop(ev)
    yield ev
    ev.close()
    asyncio.set_event_loop(None)
