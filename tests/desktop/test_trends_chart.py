"""The review's Trends tab draws the store's weeks: a real store with captures, recalls and
an approved promotion in different weeks (the real hook, worker and rules analyser), read
back from the chart's series; an empty store shows a sentence, not an empty frame."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QLocale
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from memoryd.app import Memoryd
from memoryd_desktop import i18n
from memoryd_desktop.digest_window import DigestWindow
from memoryd_desktop.ops import Ops
from memoryd_desktop.trends_chart import TrendsPane
from tests.core.governance.sessions import three_weeks

WAIT_MS = 15_000


def _colours(image: QImage) -> int:
    step = max(1, image.width() // 80)
    return len(
        {image.pixel(x, y) for x in range(0, image.width(), step) for y in range(0, image.height(), step)}
    )


def _loaded(qtbot: QtBot, facade: Memoryd) -> DigestWindow:
    window = DigestWindow(facade, Ops(on_error=lambda exc: pytest.fail(f"unrouted error: {exc}")))
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.loaded, timeout=WAIT_MS):
        window.load()
    window.resize(1100, 720)
    window.show()
    window.tabs.setCurrentWidget(window.trends)
    return window


@pytest.fixture
def chinese(qapp: QApplication) -> Iterator[None]:
    installed = i18n.install(qapp, QLocale("zh_CN"))
    yield
    for translator in installed:
        qapp.removeTranslator(translator)


def test_the_chart_holds_each_weeks_numbers(
    qtbot: QtBot, cli, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    three_weeks(cli, project, tmp_path, monkeypatch)
    assert cli("search", "zanzibar", "--mode", "keyword", "--scope", str(project)).returncode == 0
    window = _loaded(qtbot, Memoryd())
    chart = window.trends.weekly
    assert [s.name for s in chart.series] == ["Captures", "Recalls", "Promotions"]
    assert len(chart.categories) == 8
    assert chart.categories[-3:] == ["16 Feb", "23 Feb", "2 Mar"]
    by_name = {s.name: s.values for s in chart.series}
    assert by_name["Captures"][-3:] == (2, 1, 0)
    assert by_name["Recalls"][-3:] == (3, 0, 3)  # this week: two reads and a search
    assert by_name["Promotions"][-3:] == (1, 0, 0)
    assert sum(by_name["Captures"]) == 3 and sum(by_name["Recalls"]) == 6
    assert not chart.empty
    assert window.trends.triggers.rows == [("zanzibar", 1)]
    qtbot.waitExposed(window)
    image = chart.grab().toImage()
    assert image.width() > 300 and _colours(image) > 4  # bars in three colours, axis, text


def test_an_empty_store_says_so(qtbot: QtBot, facade: Memoryd) -> None:
    window = _loaded(qtbot, facade)
    chart, triggers = window.trends.weekly, window.trends.triggers
    assert chart.empty and triggers.empty
    assert chart.empty_text.startswith("No activity yet.")
    image = chart.grab().toImage()
    assert _colours(image) > 2  # the sentence is drawn, not a blank frame


def test_the_chart_speaks_chinese(qtbot: QtBot, chinese: None, facade: Memoryd) -> None:
    facade.record("fact", "Port", "The dev database listens on 5433.")
    pane = TrendsPane()
    qtbot.addWidget(pane)
    pane.fill(facade.digest())
    assert [s.name for s in pane.weekly.series] == ["捕获的会话", "召回", "新增长期记忆"]
    assert all(c.endswith("日") and "月" in c for c in pane.weekly.categories)
    assert pane.weekly.empty_text.startswith("还没有活动")
