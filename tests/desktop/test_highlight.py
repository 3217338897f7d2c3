"""Search terms marked in a body: fast on a long body, capped, overlapping terms joined."""

from __future__ import annotations

import time

from PySide6.QtGui import QColor, QTextDocument
from pytestqt.qtbot import QtBot

from memoryd_desktop import highlight
from memoryd_desktop.memory_detail import MarkdownBody

LONG = "lorem ipsum dolor sit amet data " * (200_000 // 32)  # 200 KB, 6,250 of each word


def _marked(doc: QTextDocument) -> list[tuple[int, str]]:
    """(position, text) of each marked stretch."""
    out = []
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            if fragment.charFormat().background().color() == QColor(highlight.MARK_BACKGROUND):
                out.append((fragment.position(), fragment.text()))
            it += 1
        block = block.next()
    return out


def test_a_long_body_with_a_common_term_is_marked_at_once(qtbot: QtBot) -> None:
    body = MarkdownBody()
    qtbot.addWidget(body)
    body.resize(500, 400)
    body.show()
    body.show_markdown("A first memory about data.", ["data"])
    started = time.monotonic()
    body.show_markdown(LONG, ["data", "ipsum"])
    body.viewport().grab()  # lay out and paint what is shown
    elapsed = time.monotonic() - started
    assert elapsed < 2.0, f"marking took {elapsed:.1f} s"
    assert body.marks == highlight.MAX_MARKS
    marked = _marked(body.document())
    assert len(marked) == highlight.MAX_MARKS
    assert [text for _, text in marked[:4]] == ["ipsum", "data", "ipsum", "data"]  # the first ones
    text = body.document().toRawText()
    assert all(text[at : at + len(word)] == word for at, word in marked)


def test_spans_on_a_long_text_are_quick_and_capped() -> None:
    started = time.monotonic()
    assert highlight.spans(LONG, ["zzz"]) == []
    everything = highlight.spans(LONG, ["data"])
    assert len(everything) == 6250
    assert highlight.spans(LONG, ["data"], limit=3) == everything[:3]
    assert time.monotonic() - started < 2.0


def test_overlapping_terms_join_into_one_stretch() -> None:
    assert highlight.spans("开发数据库端口", ["数据", "据库", "端口"]) == [(2, 7)]  # touching ones too
    assert highlight.spans("a 数据库 b 据库", ["数据", "据库"]) == [(2, 5), (8, 10)]
    assert highlight.spans("aaaa", ["aa"]) == [(0, 4)]
    assert highlight.spans("Postgres, postgres", ["postgres", "post"]) == [(0, 8), (10, 18)]
    assert highlight.spans("text", ["", " "]) == []
