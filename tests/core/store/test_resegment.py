"""Kana and hangul are bigrammed for search (memoryd.textproc): an index written before
holds Japanese and Korean text as whole runs no query matches (このリポジトリではpnpmを,
저장소에서는). Migration 021 lists the memories whose indexed text has kana or hangul, and
the store re-indexes them from their files on its next open with the write lock free: a
start-up never waits for the lock, and the cold CLI's reader leaves such an index to the full
path until it is done."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
from filelock import FileLock

from memoryd import reader
from memoryd.app import Memoryd
from memoryd.config import Config
from memoryd.paths import Layout
from memoryd.store import Store

JAPANESE = ("このリポジトリでは必ずpnpmを使う", "npmだとCIのロックファイル検査が落ちます。")
KOREAN = ("앞으로 이 저장소에서는 pnpm을 써 주세요", "npm을 쓰면 CI의 잠금 파일 검사가 실패합니다.")
CHINESE = ("以后一律用 PostgreSQL", "数据库统一用 PostgreSQL。")
_HAN_RUN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


def _old_segment(text: str) -> str:
    """What memoryd.textproc.segment wrote before: Han runs as bigrams, kana and hangul as is."""

    def bigrams(run: str) -> str:
        return run if len(run) == 1 else " ".join(run[i : i + 2] for i in range(len(run) - 1))

    return _HAN_RUN.sub(lambda m: " " + bigrams(m.group()) + " ", text)


def _store_as_before(home: Path, project: Path) -> dict[str, str]:
    """A home with one Japanese, one Korean and one Chinese memory, its index as a memoryd
    before migration 021 left it: each memory's words segmented the old way, schema 20."""
    app = Memoryd(layout=Layout(home), config=Config())
    slugs, texts = {}, {}
    for name, (title, body) in {"ja": JAPANESE, "ko": KOREAN, "zh": CHINESE}.items():
        doc, _ = app.record("preference", title, body, scope_path=project)
        slugs[name] = doc.meta.slug
        texts[doc.meta.slug] = (title, body)
    app.store.engine.dispose()
    con = sqlite3.connect(home / "index.db")
    with con:
        for slug, (title, body) in texts.items():
            rowid = con.execute("SELECT id FROM fts_docs WHERE slug = ?", (slug,)).fetchone()[0]
            triggers = " ".join(
                r[0] for r in con.execute('SELECT "trigger" FROM triggers WHERE slug = ?', (slug,))
            )
            con.execute("DELETE FROM memories_fts WHERE rowid = ?", (rowid,))
            old = (_old_segment(title), _old_segment(body), _old_segment(triggers))
            con.execute(
                "INSERT INTO memories_fts (rowid, title, body, triggers, tags, traces) "
                "VALUES (?, ?, ?, ?, '', '')",
                (rowid, *old),
            )
        con.execute("DROP TABLE resegment")
        con.execute("DELETE FROM schema_migrations WHERE version = 21")
    con.close()
    return slugs


def _keyword(home: Path, project: Path, query: str) -> list[str]:
    app = Memoryd(layout=Layout(home), config=Config())
    try:
        scope = [app.scope(project).hash]
        return [r.slug for r in app.search(query, scopes=scope, mode="keyword", count_recall=False)]
    finally:
        app.store.engine.dispose()


@pytest.fixture
def old_home(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    project = tmp_path / "project"
    project.mkdir()
    home = tmp_path / "home"
    return home, project, _store_as_before(home, project)


def test_the_old_index_held_japanese_and_korean_as_unsearchable_runs(
    old_home: tuple[Path, Path, dict[str, str]],
) -> None:
    home, _, _ = old_home
    con = sqlite3.connect(home / "index.db")
    titles = " | ".join(r[0] for r in con.execute("SELECT title FROM memories_fts"))
    con.close()
    assert "このリポジトリでは" in titles and "ずpnpmを" in titles and "저장소에서는" in titles


def test_the_first_open_after_the_upgrade_reindexes_them_and_search_finds_them(
    old_home: tuple[Path, Path, dict[str, str]],
) -> None:
    home, project, slugs = old_home
    found = {q: _keyword(home, project, q) for q in ("pnpm", "ロックファイル", "저장소", "数据库")}
    assert found["pnpm"] and set(found["pnpm"]) == {slugs["ja"], slugs["ko"]}
    assert found["ロックファイル"] == [slugs["ja"]]
    assert found["저장소"] == [slugs["ko"]]
    assert found["数据库"] == [slugs["zh"]]  # Chinese was never listed: as it was
    con = sqlite3.connect(home / "index.db")
    assert con.execute("SELECT count(*) FROM resegment").fetchone() == (0,)
    assert con.execute("SELECT 1 FROM schema_migrations WHERE version = 21").fetchone()
    con.close()


def test_a_held_write_lock_defers_it_and_the_cold_reader_steps_aside_until_done(
    old_home: tuple[Path, Path, dict[str, str]],
) -> None:
    home, project, slugs = old_home
    layout = Layout(home)
    other = FileLock(str(layout.write_lock))  # another process's writer, as flock sees it
    other.acquire()
    try:
        store = Store.open(layout)  # migrates; the lock is busy: no waiting, nothing done
        assert store.resegment() == 0
        store.engine.dispose()
        con = sqlite3.connect(home / "index.db")
        assert sorted(r[0] for r in con.execute("SELECT slug FROM resegment")) == sorted(
            [slugs["ja"], slugs["ko"]]
        )
        con.close()
        assert reader.open_current(layout) is None  # the CLI's read path would miss them
    finally:
        other.release()
    store = Store.open(layout)
    store.engine.dispose()
    opened = reader.open_current(layout)
    assert opened is not None
    opened.close()
    assert _keyword(home, project, "저장소") == [slugs["ko"]]
