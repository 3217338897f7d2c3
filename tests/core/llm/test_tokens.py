"""The offline token estimate and the trim that bounds what is sent."""

from __future__ import annotations

from memoryd.llm.tokens import MARK, estimate, trim


def test_estimate_latin_and_cjk() -> None:
    assert estimate("") == 0
    assert estimate("abcd" * 100) == 100
    assert estimate("abc") == 1  # rounded up: never under-count
    assert estimate("记忆系统") == 4
    assert estimate("これはテスト") == 6
    assert estimate("한국어") == 3
    assert estimate("用 SQLite 做索引") == 1 + 2 + 3  # 3 Han characters, 9 ASCII characters


def test_trim_keeps_short_text() -> None:
    assert trim("short text", 10) == "short text"


def test_trim_cuts_at_a_line_end() -> None:
    text = "\n".join(f"line {i}: the user explained a decision about storage" for i in range(100))
    out = trim(text, 120)
    assert out.endswith(MARK)
    assert estimate(out) <= 120
    kept = out.removesuffix(MARK)
    assert text.startswith(kept) and kept.endswith("storage")  # whole lines only


def test_trim_cuts_at_a_sentence_end() -> None:
    text = "We chose SQLite. " * 200
    out = trim(text, 50)
    assert estimate(out) <= 50
    assert out.removesuffix(MARK).endswith("We chose SQLite.")


def test_trim_chinese_sentences() -> None:
    text = "我们决定用 Markdown 文件保存记忆。索引只是可以重建的缓存！" * 40
    out = trim(text, 100)
    assert estimate(out) <= 100
    assert out.removesuffix(MARK)[-1] in "。！"
    assert text.startswith(out.removesuffix(MARK))


def test_trim_without_boundaries_cuts_hard() -> None:
    out = trim("x" * 1000, 10)
    assert out == "x" * 27 + MARK  # 27 + 13 ASCII characters = 10 tokens
    assert estimate(out) <= 10


def test_trim_with_no_room() -> None:
    assert trim("long text " * 50, 2) == ""
