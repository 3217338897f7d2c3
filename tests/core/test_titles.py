"""Titles state the point, without filler, and are never cut inside a word."""

from __future__ import annotations

import re
import time

import pytest

from memoryd import titles

ISSUE = (
    "Warning for the future: never run the migrations on staging during business hours, "
    "the tables lock and the whole app stalls for minutes."
)


def test_the_issue_title_has_no_prefix_and_no_cut_word():
    title = titles.make(ISSUE)
    assert title == "Never run the migrations on staging during business hours"


@pytest.mark.parametrize(
    ("typed", "title"),
    [
        ("Remember: in this repo always use pnpm, never npm.", "In this repo always use pnpm, never npm"),
        ("Note: the staging DB is on port 5433.", "The staging DB is on port 5433"),
        ("FYI, remember: pnpm only.", "pnpm only"),
        ("Remember to run ruff before committing.", "Run ruff before committing"),
        ("Heads up - the CI cache breaks on Fridays", "The CI cache breaks on Fridays"),
        ("记住：以后一律用 pnpm 安装依赖。", "以后一律用 pnpm 安装依赖"),
        ("注意：不要在周五部署。", "不要在周五部署"),
        ("请记住我的生日是三月五日", "我的生日是三月五日"),
        ("有个坑：staging 的端口是 5433。", "staging 的端口是 5433"),
        ("- use uv, not pip", "Use uv, not pip"),
    ],
)
def test_filler_prefixes_are_dropped(typed: str, title: str):
    assert titles.make(typed) == title


def _words(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z0-9_.-]+", text))


@pytest.mark.parametrize(
    "text",
    [
        "never run the migrations on staging during business hours because the tables lock for a long time",
        "we keep the release notes for v1.2.3 in docs/releases/2026/billing-export-notes.md and "
        "nowhere else ok",
        "我们在 staging 上用的是 PostgreSQL16 数据库而且端口是5433这个要记住不然连接不上会一直报错"
        "然后大家都很困惑不知道为什么会这样子 PostgreSQLDatabaseServer",
        "部署之前先在预发环境跑一遍完整的回归测试并且确认监控面板上没有任何告警然后再通知值班同事最后才可以在生产环境执行发布脚本并观察十五分钟以上的时间",
    ],
)
def test_a_cut_falls_on_a_boundary(text: str):
    title = titles.clip(text, 80)
    assert len(title) <= 80
    head = title.removesuffix("…")
    assert text.startswith(head)
    # every ASCII word of the title is a whole word of the text
    assert _words(head) <= _words(text), _words(head) - _words(text)


def test_a_clause_cut_needs_no_ellipsis_and_a_word_cut_has_one():
    assert titles.clip("a" * 10 + " " + "word " * 30, 80).endswith("…")
    assert not titles.make(ISSUE).endswith("…")


def test_names_keep_their_case():
    assert titles.make("pnpm is the package manager here") == "pnpm is the package manager here"
    assert titles.make("always use pnpm") == "Always use pnpm"


@pytest.mark.parametrize(("lead_in", "times"), [("1. ", 400_000), ("Remember: ", 300_000)])
def test_strip_filler_is_linear_in_repeated_lead_ins(lead_in: str, times: int):
    """Found by the red team: each lead-in dropped was cut off the text, a copy of all the
    rest, so n of them cost n copies. These took 12 s and 21 s (1.2 MB and 3 MB); each takes
    about 0.5 s now. The bound is generous: a slow machine passes, the old code did not."""
    text = lead_in * times
    start = time.perf_counter()
    out = titles.strip_filler(text)
    took = time.perf_counter() - start
    assert out == lead_in.strip()  # all lead-ins: the last is kept rather than nothing
    assert took < 4.0, f"{took:.1f} s"


def test_strip_filler_drops_a_run_of_lead_ins_and_keeps_the_point():
    said = "1. - Remember: FYI, note that 记住：always use pnpm. 1. not a lead-in here"
    assert titles.strip_filler(said) == "always use pnpm. 1. not a lead-in here"
    assert titles.strip_filler("  \n ") == ""
    assert titles.strip_filler("## ") == "##"


def test_a_second_chinese_label_goes_with_its_colon() -> None:
    """The lead-in without a colon (注意以后...) must not take the label's word and leave
    its colon at the head of the title."""
    assert titles.strip_filler("记住：注意：以后用 pnpm") == "以后用 pnpm"
    assert titles.strip_filler("注意，周五不要发版") == "周五不要发版"
    assert titles.strip_filler("注意以后用 pnpm") == "以后用 pnpm"
    # nor fall back to its shorter word and leave the rest of the lead-in
    assert titles.strip_filler("记住：注意一下，以后用 pnpm") == "以后用 pnpm"
    assert titles.strip_filler("FYI 注意一下，以后用 pnpm") == "以后用 pnpm"
    assert titles.strip_filler("so, 顺便说一下，以后用 pnpm") == "以后用 pnpm"
    assert titles.strip_filler("注意一下以后用 pnpm") == "以后用 pnpm"


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        ("Attention : ne jamais lancer les migrations pendant la journée", "ne jamais lancer"),
        ("Achtung: kein docker compose down -v auf staging", "kein docker compose"),
        ("Ojo: no desplegar los viernes por la tarde", "no desplegar"),
        ("Lembrete: o backup roda às 3h", "o backup"),
        ("Важно: не запускать миграции днём", "не запускать"),
        ("주의: 금요일 오후에는 배포 금지", "금요일"),
        ("Let op: nooit op vrijdag deployen", "nooit op vrijdag"),
    ],
)
def test_other_languages_lead_in_labels_are_dropped(typed: str, kept: str) -> None:
    assert titles.strip_filler(typed).startswith(kept)


def test_a_word_that_only_looks_like_a_label_stays() -> None:
    # no colon: it is the sentence, not a lead-in ("Regel" = rule, "Nota bene" is Latin)
    assert (
        titles.strip_filler("Regel 1 ist klar: Tests vor dem Merge")
        == "Regel 1 ist klar: Tests vor dem Merge"
    )
    assert titles.strip_filler("Nota bene") == "Nota bene"
