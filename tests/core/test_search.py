"""Search takes text as people type it, in English and Chinese, and counts recalls."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from memoryd.app import Memoryd


@pytest.fixture
def app_with_memories(project: Path) -> tuple[Memoryd, dict[str, str]]:
    app = Memoryd()
    made = {}
    for key, mtype, title, body, trig in [
        ("perf", "decision", "首屏优化", "前端性能预算定为 200KB, 图片懒加载。", ["前端"]),
        ("db", "fact", "数据库迁移方案", "我们今天讨论数据库迁移方案, 先迁移订单表。", []),
        (
            "en",
            "warning",
            "Deploys on Friday",
            "Never deploy the billing service on Fridays: on-call is thin.",
            ["deploy"],
        ),
        ("mix", "preference", "Tabs vs spaces", "Use 4 spaces in Python; 缩进 consistent.", []),
    ]:
        doc, _ = app.record(mtype, title, body, triggers=trig, scope_path=project)
        made[key] = doc.meta.slug
    return app, made


def _slugs(app: Memoryd, project: Path, q: str, **kw) -> list[str]:
    return [r.slug for r in app.search(q, scopes=[app.scope(project).hash], count_recall=False, **kw)]


def test_two_character_chinese_word_matches(app_with_memories, project: Path):
    app, made = app_with_memories
    assert _slugs(app, project, "性能")[0] == made["perf"]
    assert _slugs(app, project, "前端")[0] == made["perf"]
    assert _slugs(app, project, "缩进") == [made["mix"]]


def test_chinese_phrase_matches(app_with_memories, project: Path):
    app, made = app_with_memories
    assert _slugs(app, project, "数据库迁移")[0] == made["db"]
    assert _slugs(app, project, "订单表怎么迁移?")[0] == made["db"]


def test_english_word_and_question_match(app_with_memories, project: Path):
    app, made = app_with_memories
    assert _slugs(app, project, "billing")[0] == made["en"]
    assert _slugs(app, project, "Can we deploy on Friday?")[0] == made["en"]
    assert _slugs(app, project, "deploying")[0] == made["en"]  # stemmed


@pytest.mark.parametrize(
    "q",
    [
        '"unbalanced',
        "a AND OR NOT",
        "*",
        "-",
        "???",
        "NEAR(x y)",
        "col:val",
        "'",
        "的了吗",
        "a" * 5000,
        "\x00",
    ],
)
def test_punctuation_and_fts_syntax_never_raise(app_with_memories, project: Path, q: str):
    app, _ = app_with_memories
    assert isinstance(_slugs(app, project, q), list)


def test_long_term_outranks_session_and_other_scopes_are_apart(
    app_with_memories, project: Path, tmp_path: Path
):
    app, made = app_with_memories
    other = tmp_path / "other"
    other.mkdir()
    app.record("fact", "billing elsewhere", "billing billing billing", scope_path=other)
    assert made["en"] in _slugs(app, project, "billing")
    assert len(_slugs(app, project, "billing")) == 1
    assert len([r for r in app.search("billing", scopes=None, count_recall=False)]) == 2


def test_hit_counts_as_recall_in_file_index_and_trigger_stats(
    app_with_memories, project: Path, isolated_home: Path
):
    app, made = app_with_memories
    app.search("when to deploy", scopes=[app.scope(project).hash])
    doc, path = app.store.read(made["en"])
    assert doc.meta.recall_count == 1 and "recall_count: 1" in path.read_text()
    assert app.store.row(made["en"])["recall_count"] == 1
    con = sqlite3.connect(isolated_home / "index.db")
    assert con.execute('SELECT "trigger", hits FROM trigger_stats').fetchall() == [("deploy", 1)]
    app.get(made["en"])
    assert app.store.row(made["en"])["recall_count"] == 2


def test_dim_memory_comes_back_alive_on_recall(app_with_memories, project: Path):
    app, made = app_with_memories
    doc, _ = app.store.read(made["en"])
    doc.meta.decay_state = doc.meta.decay_state.__class__("dim")
    app.store.save(doc, event="update", actor="test")
    assert app.search("billing", scopes=[app.scope(project).hash])[0].decay_state == "dim"
    assert app.store.read(made["en"])[0].meta.decay_state.value == "alive"


def test_cli_search_defaults_to_the_current_directory_scope(cli, app_with_memories, project: Path):
    _, made = app_with_memories
    res = cli("search", "性能", "--json", cwd=project)
    assert res.returncode == 0 and json.loads(res.stdout)[0]["slug"] == made["perf"]
    elsewhere = cli("search", "性能", "--json", cwd=project.parent)
    assert json.loads(elsewhere.stdout) == []
    assert cli("search", "x", "--limit", "0").returncode == 2
