"""Kana and hangul are bigrammed for search (memoryd.textproc): an index written before
holds Japanese and Korean text as whole runs no query matches (このリポジトリではpnpmを,
저장소에서는). Migration 021 lists the memories whose indexed text has kana or hangul; the
capture worker's next drain (or a long-lived process's preload, or `reindex`) re-indexes
them from their files when the write lock is free. Opening the store does not: a
SessionStart hook that opens it must stay fast (the red team measured 4.9 s for 200 long
memories when the open did it). One bad file never stops the rest, nor any later command."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from filelock import FileLock

from memoryd.app import Memoryd
from memoryd.capture.worker import drain
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


def _listed(home: Path) -> list[str]:
    con = sqlite3.connect(home / "index.db")
    try:
        return sorted(r[0] for r in con.execute("SELECT slug FROM resegment"))
    finally:
        con.close()


def _drain(home: Path) -> None:
    store = Store.open(Layout(home))
    try:
        drain(store, Config())
    finally:
        store.engine.dispose()


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


def test_the_worker_reindexes_them_after_the_upgrade_and_opening_alone_does_not(
    old_home: tuple[Path, Path, dict[str, str]],
) -> None:
    home, project, slugs = old_home
    assert _keyword(home, project, "ロックファイル") == []  # opened and migrated: still the old words
    assert _listed(home) == sorted([slugs["ja"], slugs["ko"]])  # Chinese was never listed
    _drain(home)
    found = {q: _keyword(home, project, q) for q in ("pnpm", "ロックファイル", "저장소", "数据库")}
    assert set(found["pnpm"]) == {slugs["ja"], slugs["ko"]}
    assert found["ロックファイル"] == [slugs["ja"]]
    assert found["저장소"] == [slugs["ko"]]
    assert found["数据库"] == [slugs["zh"]]
    assert _listed(home) == []


def test_a_held_write_lock_defers_it_without_waiting(old_home: tuple[Path, Path, dict[str, str]]) -> None:
    home, project, slugs = old_home
    layout = Layout(home)
    other = FileLock(str(layout.write_lock))  # another process's writer, as flock sees it
    other.acquire()
    try:
        store = Store.open(layout)
        assert store.resegment() == 0
        store.engine.dispose()
        assert _listed(home) == sorted([slugs["ja"], slugs["ko"]])
    finally:
        other.release()
    _drain(home)
    assert _keyword(home, project, "저장소") == [slugs["ko"]]


def test_a_bad_file_keeps_its_old_words_and_holds_up_nothing(
    old_home: tuple[Path, Path, dict[str, str]],
) -> None:
    """Found by the red team: turns with a repeated seq made the re-index raise
    IntegrityError out of every command, and a FIFO in place of a file hung them."""
    home, project, slugs = old_home
    md = next(home.glob(f"scopes/*/**/{slugs['ja']}.md"))
    turns = md.with_name(md.name.removesuffix(".md") + ".turns.jsonl")
    line = json.dumps({"seq": 1, "role": "user", "text": "同じ番号"}, ensure_ascii=False)
    turns.write_text(f"{line}\n{line}\n", encoding="utf-8")
    _drain(home)
    assert _listed(home) == []
    assert _keyword(home, project, "저장소") == [slugs["ko"]]  # the other one was re-indexed
    out = subprocess.run(
        [sys.executable, "-m", "memoryd.cli.main", "search", "pnpm", "--mode", "keyword", "--json"],
        cwd=project,
        env={**os.environ, "MEMORYD_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr


def test_a_fifo_in_place_of_a_file_is_skipped_not_read(old_home: tuple[Path, Path, dict[str, str]]) -> None:
    home, _, slugs = old_home
    md = next(home.glob(f"scopes/*/**/{slugs['ko']}.md"))
    md.unlink()
    os.mkfifo(md)
    store = Store.open(Layout(home))
    try:
        assert store.resegment() == 1  # the Japanese one; the FIFO is never opened
    finally:
        store.engine.dispose()
    assert _listed(home) == []


def test_reindex_leaves_nothing_to_reindex(old_home: tuple[Path, Path, dict[str, str]]) -> None:
    home, project, slugs = old_home
    store = Store.open(Layout(home))
    try:
        store.reindex(actor="test")
    finally:
        store.engine.dispose()
    assert _listed(home) == []
    assert _keyword(home, project, "ロックファイル") == [slugs["ja"]]
