"""The first-run welcome over a real facade, a fake HOME with a ~/.claude folder and the
real keyring: it finds Claude Code, its button runs core's setup (the hooks land in
~/.claude/settings.json as `memoryd setup claude-code` writes them), the key goes to the OS
keyring and to no file, and once done or skipped the next start shows no welcome."""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from PySide6.QtCore import QLocale, Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from memoryd.app import Memoryd
from memoryd_desktop import i18n
from memoryd_desktop.ops import Ops
from memoryd_desktop.welcome import WelcomeWindow, show_if_new
from tests.core.agents.test_claude_code import _check_ours_appended

WAIT_MS = 15_000
KEY = "sk-ant-welcome-0123456789abcdef"


@pytest.fixture(autouse=True)
def first_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMORYD_NO_WELCOME", raising=False)  # the test conftest's guard: this is the test


@pytest.fixture
def claude_home() -> Path:
    """The fake HOME (the desktop conftest's) with Claude Code installed: a ~/.claude folder."""
    home = Path(os.environ["HOME"])
    (home / ".claude").mkdir(parents=True)
    return home


@pytest.fixture
def ops() -> Ops:
    return Ops(on_error=lambda exc: pytest.fail(f"unrouted error: {exc}"))


def _open(qtbot: QtBot, ops: Ops) -> WelcomeWindow:
    """What the tray's start does, over a facade made as the start makes it."""
    with qtbot.waitSignal(ops.idle, timeout=WAIT_MS):
        window = show_if_new(Memoryd(), ops)
        assert window is not None, "no welcome on the first start"
        qtbot.addWidget(window)
    return window


def _click(qtbot: QtBot, window: WelcomeWindow, button: object, signal: object) -> None:
    with qtbot.waitSignal(signal, timeout=WAIT_MS):
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def test_connects_the_agent_found_and_is_not_shown_again(
    qtbot: QtBot, ops: Ops, claude_home: Path, home: Path, tmp_path: Path
) -> None:
    window = _open(qtbot, ops)
    assert window.isVisible()
    assert list(window.agent_boxes) == ["claude-code"]  # no ~/.codex, no ~/.openclaw
    box = window.agent_boxes["claude-code"]
    assert box.isChecked() and box.isEnabled() and "Claude Code" in box.text()
    assert not (claude_home / ".claude" / "settings.json").exists()

    _click(qtbot, window, window.connect_button, window.connected)
    settings = json.loads((claude_home / ".claude" / "settings.json").read_text(encoding="utf-8"))
    _check_ours_appended({}, settings)
    assert "memoryd" in json.loads((claude_home / ".claude.json").read_text(encoding="utf-8"))["mcpServers"]
    assert window.connect_result.text().startswith("Claude Code: connected (2 settings files changed")
    assert not box.isEnabled() and not window.connect_button.isEnabled()
    events = Memoryd().audit_events()
    assert any(e.details_obj.get("setup") == "claude-code" for e in events)

    _click(qtbot, window, window.done_button, window.finished)
    assert not window.isVisible()
    config = tomllib.loads((tmp_path / "config.toml").read_text(encoding="utf-8"))
    assert config["tray"]["welcomed"] is True
    assert show_if_new(Memoryd(), ops) is None  # the second start


def test_a_connected_agent_shows_as_connected(qtbot: QtBot, ops: Ops, claude_home: Path) -> None:
    Memoryd().connect_agent("claude-code")
    window = _open(qtbot, ops)
    box = window.agent_boxes["claude-code"]
    assert box.text() == "Claude Code: already connected" and not box.isEnabled()
    assert not window.connect_button.isEnabled()


def test_no_agent_found_says_how_to_connect_one_later(qtbot: QtBot, ops: Ops) -> None:
    window = _open(qtbot, ops)
    assert window.agent_boxes == {}
    assert "memoryd setup claude-code" in window.agents_note.text()
    assert not window.connect_button.isEnabled()


def test_the_key_goes_to_the_keyring_and_no_file(
    qtbot: QtBot, ops: Ops, secret_service: str, tmp_path: Path
) -> None:
    window = _open(qtbot, ops)
    assert window.key_label.text() == "Anthropic API key:"
    qtbot.keyClicks(window.api_key, KEY)
    _click(qtbot, window, window.save_key, window.key_saved)
    assert keyring.get_password("memoryd-llm", "anthropic") == KEY
    assert window.key_status.text() == "The key is stored in the OS keyring."
    assert window.api_key.text() == ""
    needle = KEY.encode()
    assert [p for p in tmp_path.rglob("*") if p.is_file() and needle in p.read_bytes()] == []


def test_without_a_keyring_the_error_shows(qtbot: QtBot, ops: Ops) -> None:
    window = _open(qtbot, ops)
    qtbot.keyClicks(window.api_key, KEY)
    _click(qtbot, window, window.save_key, window.key_saved)
    assert window.key_status.text().startswith("no OS keyring to hold the anthropic API key")


def test_a_keyring_that_keeps_nothing_is_not_called_stored(
    qtbot: QtBot, ops: Ops, null_keyring: None
) -> None:
    """`keyring --disable`: the null backend takes the key and drops it."""
    window = _open(qtbot, ops)
    qtbot.keyClicks(window.api_key, KEY)
    _click(qtbot, window, window.save_key, window.key_saved)
    assert window.key_status.text().startswith("the OS keyring (null Keyring) did not keep the anthropic")
    assert KEY not in window.key_status.text()
    assert not [e for e in Memoryd().audit_events() if e.details_obj.get("stored")]


def test_done_saves_a_typed_key_first(qtbot: QtBot, ops: Ops, secret_service: str) -> None:
    window = _open(qtbot, ops)
    qtbot.keyClicks(window.api_key, KEY)
    _click(qtbot, window, window.done_button, window.finished)
    assert keyring.get_password("memoryd-llm", "anthropic") == KEY
    assert not window.isVisible()
    assert show_if_new(Memoryd(), ops) is None


def test_done_with_a_key_that_cannot_be_saved_stays_open(qtbot: QtBot, ops: Ops) -> None:
    window = _open(qtbot, ops)
    finished: list[None] = []
    window.finished.connect(lambda: finished.append(None))
    qtbot.keyClicks(window.api_key, KEY)
    _click(qtbot, window, window.done_button, window.key_saved)
    assert ops.wait(WAIT_MS)
    assert window.key_status.text().startswith("no OS keyring to hold the anthropic API key")
    assert window.isVisible() and window.done_button.isEnabled() and finished == []
    assert Memoryd().welcome_wanted()


def test_skip_does_not_save_a_typed_key(qtbot: QtBot, ops: Ops, secret_service: str) -> None:
    window = _open(qtbot, ops)
    qtbot.keyClicks(window.api_key, KEY)
    _click(qtbot, window, window.skip_button, window.finished)
    assert ops.wait(WAIT_MS)
    assert keyring.get_password("memoryd-llm", "anthropic") is None
    assert window.api_key.text() == "" and not window.isVisible()


def test_a_quit_with_the_welcome_open_decides_nothing(qtbot: QtBot, ops: Ops, tmp_path: Path) -> None:
    """Quitting the app closes every window (not spontaneous, unlike the title bar's X): the
    welcome is neither done nor skipped, and the next start shows it again."""
    window = _open(qtbot, ops)
    window.close()
    assert ops.wait(WAIT_MS)
    assert not (tmp_path / "config.toml").exists()
    again = show_if_new(Memoryd(), ops)
    assert again is not None
    qtbot.addWidget(again)


def test_skip_is_for_good(qtbot: QtBot, ops: Ops) -> None:
    window = _open(qtbot, ops)
    _click(qtbot, window, window.skip_button, window.finished)
    assert not window.isVisible()
    assert show_if_new(Memoryd(), ops) is None


@pytest.fixture
def chinese(qapp: QApplication) -> Iterator[None]:
    installed = i18n.install(qapp, QLocale("zh_CN"))
    yield
    for translator in installed:
        qapp.removeTranslator(translator)


def test_the_welcome_speaks_chinese(qtbot: QtBot, ops: Ops, chinese: None, claude_home: Path) -> None:
    window = _open(qtbot, ops)
    assert window.windowTitle() == "欢迎"
    assert window.intro.text().startswith("memoryd 会记住")
    assert window.agent_boxes["claude-code"].text().startswith("Claude Code（设置位于")
    assert window.done_button.text() == "完成"
