"""The store's side of keyword ranking: how rare a term is among the memories of a scope,
from the full-text index of a real store that `memoryd record` wrote."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import event

from memoryd import paths
from memoryd.app import Memoryd
from memoryd.keyterms import keywords
from memoryd.scope import resolve
from memoryd.store import Store
from memoryd.store.terms import idf, phrase, rarity_for


@pytest.fixture
def store(tmp_path: Path) -> tuple[Store, str, str]:
    web, ops = tmp_path / "web", tmp_path / "ops"
    web.mkdir()
    ops.mkdir()
    app = Memoryd()
    for i in range(4):
        app.record("fact", f"pnpm note {i}", f"We use pnpm in this repo, note {i}.", scope_path=web)
    app.record(
        "fact",
        "Redis only for caching",
        "Jobs stay in Postgres; Redis is the cache. 迁移脚本在白天跑。",
        scope_path=web,
    )
    app.record("fact", "Fly.io deploys", "Deploys go to Fly.io; Redis runs there too.", scope_path=ops)
    return Store.open(paths.layout()), resolve(web).hash, resolve(ops).hash


def test_a_term_in_few_memories_of_the_scope_weighs_more(store) -> None:
    st, web, _ = store
    got = rarity_for(st, web)(["pnpm", "Redis", "Postgres", "Kubernetes"])
    assert got["pnpm"] < got["Redis"] == got["Postgres"] < got["Kubernetes"]
    assert got["pnpm"] == pytest.approx(idf(5, 4))
    assert got["Redis"] == pytest.approx(idf(5, 1))
    assert got["Kubernetes"] == pytest.approx(idf(5, 0))


def test_the_scope_counts_only_its_own_memories(store) -> None:
    st, _, ops = store
    assert rarity_for(st, ops)(["Redis"])["Redis"] == pytest.approx(idf(1, 1))
    assert rarity_for(st, ops)(["pnpm"])["pnpm"] == pytest.approx(idf(1, 0))
    everywhere = rarity_for(st, None)(["Redis", "pnpm"])
    assert everywhere["Redis"] == pytest.approx(idf(6, 2))
    assert everywhere["pnpm"] == pytest.approx(idf(6, 4))
    assert rarity_for(st, "000000000000")(["Redis"])["Redis"] == pytest.approx(idf(0, 0))


def test_identifiers_and_chinese_words_are_looked_up_as_written(store) -> None:
    st, _, _ = store
    got = rarity_for(st, None)(["Fly.io", "fly", "io.fly", "迁移脚本", "脚本迁移"])
    assert got["Fly.io"] == pytest.approx(idf(6, 1))
    assert got["io.fly"] == pytest.approx(idf(6, 0))  # a phrase: its words in order
    assert got["迁移脚本"] == pytest.approx(idf(6, 1))
    assert got["脚本迁移"] == pytest.approx(idf(6, 0))


def test_any_term_is_answered_without_error(store) -> None:
    st, _, _ = store
    syntax = ['"', '""pnpm""', "AND", "OR NOT", "NEAR(a b)", "*", "^pnpm", "col:pnpm", "..."]
    odd = [*syntax, "", "#1", "a\x00b", "\ud800pnpm\udfff"]
    got = rarity_for(st, None)(odd)
    assert set(got) == set(odd)
    assert got['""pnpm""'] == got["\ud800pnpm\udfff"] == pytest.approx(idf(6, 4))
    assert all(v >= 1.0 for v in got.values())
    assert phrase("...") is None and phrase("") is None


def test_a_batch_of_terms_is_one_statement_per_few_hundred_terms(store) -> None:
    st, web, _ = store
    statements: list[str] = []
    event.listen(st.engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    terms = [f"term{i}" for i in range(1000)] + ["pnpm"]
    got = rarity_for(st, web)(terms)
    assert len(got) == 1001 and got["pnpm"] == pytest.approx(idf(5, 4))
    counting = [q for q in statements if "MATCH" in q]
    assert 1 <= len(counting) <= 3, len(counting)


def test_keywords_rank_by_the_store(store) -> None:
    st, web, _ = store
    text = "The pnpm lockfile: pnpm install, then pnpm dedupe."
    assert keywords(text, 1) == ["pnpm"]  # by the text alone: the most frequent
    # pnpm is in most memories of the scope, the lockfile in none
    assert keywords(text, 1, rarity=rarity_for(st, web)) == ["lockfile"]
