"""The warm keyword index (memoryd.store.keywords) answers exactly as the FTS5 statement
does (`index.search`): the same rows in the same order with the same bm25 scores, under
scope, type and state filters; never from a stale index (inserts, edits, forgets, another
process's writes), while recall counters leave it standing; and anything it does not score
(a phrase of two tokens, an index not built) goes to the statement. Real SQLite files."""

from __future__ import annotations

import random
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memoryd import slugs, textproc
from memoryd.app import Memoryd
from memoryd.db.engine import read_session
from memoryd.frontmatter import Document
from memoryd.kinds import DecayState, MemoryType
from memoryd.models import Frontmatter
from memoryd.paths import Layout
from memoryd.store import Store, index
from memoryd.store.files import Turn
from memoryd.store.keywords import Keywords, parse_match

SCOPES = ("a1b2c3d4e5f6", "0f0f0f0f0f0f")
_EN = (
    "test testing tests tested tester deploy deployment deploying cache cached caching "
    "vercel webpack pnpm lint linter postgres migration migrations rollback café naïve "
    "résumé schema queue queues worker workers timeout retry retries flaky build builds"
)
_ZH = "测试 部署 缓存 数据 数据库 迁移 回滚 队列 超时 重试 构建 面板 订单 合同 摘要 性能"
EN, ZH = _EN.split(), _ZH.split()


def sentence(rng: random.Random, lang: str) -> str:
    if lang == "en":
        return " ".join(rng.choice(EN) for _ in range(rng.randint(3, 12))) + "."
    if lang == "zh":
        return "".join(rng.choice(ZH) for _ in range(rng.randint(2, 6))) + "。"
    return f"{rng.choice(ZH)}{rng.choice(ZH)} {rng.choice(EN)} {rng.choice(ZH)} {rng.choice(EN)}"


def corpus(n: int, seed: int = 7) -> Iterator[tuple[Document, list[Turn] | None]]:
    """Varied memories: English with stemming cases, Chinese, mixed; words in titles only,
    bodies only, triggers, tags, session traces; all types and live states, two scopes."""
    rng = random.Random(seed)
    start = datetime(2025, 3, 1, tzinfo=UTC)
    types = list(MemoryType)
    states = [DecayState.alive] * 6 + [DecayState.dim, DecayState.soft_forgotten]
    for i in range(n):
        lang = rng.choice(("en", "en", "zh", "mixed"))
        when = start + timedelta(minutes=11 * i)
        title = sentence(rng, lang)[:40] or "untitled"
        body = " ".join(sentence(rng, rng.choice(("en", "zh", "mixed"))) for _ in range(rng.randint(0, 6)))
        mtype = rng.choice(types)
        meta = Frontmatter(
            title=title,
            slug=f"{slugs.for_title(title, when)[:-5]}-{i:05x}",
            type=mtype,
            scope_hash=SCOPES[i % 3 == 0],
            source="claude-code" if mtype is MemoryType.session else "manual",
            created_at=when,
            updated_at=when,
            tags=rng.sample(EN, rng.randint(0, 2)),
            triggers=rng.sample(EN + ZH, rng.randint(0, 3)),
            decay_state=rng.choice(states),
            session_id=f"s-{i}" if mtype is MemoryType.session else None,
        )
        turns = None
        if mtype is MemoryType.session:
            turns = [
                Turn(
                    k,
                    "user" if k % 2 == 0 else "assistant",
                    sentence(rng, lang) * rng.randint(1, 4),
                    None,
                    None,
                )
                for k in range(rng.randint(1, 5))
            ]
        yield Document(meta=meta, body=body + "\n"), turns


def sql_search(store: Store, match: str, **kw: Any) -> list[tuple[Any, dict[str, Any]]]:
    with read_session(store.engine) as s:
        return index.search(s, match, **kw)


def same(got: list[tuple[Any, dict[str, Any]]] | None, want: list[tuple[Any, dict[str, Any]]]) -> None:
    assert got is not None
    assert [h.slug for h, _ in got] == [h.slug for h, _ in want]
    for (g, grow), (w, wrow) in zip(got, want, strict=True):
        assert g.score == pytest.approx(w.score, rel=1e-9, abs=0.0)
        assert grow == wrow


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    home = tmp_path_factory.mktemp("kw") / "home"
    store = Store.open(Layout(home))
    store.save_many(corpus(360), actor="test", batch=200)
    yield store
    store.engine.dispose()


def queries(seed: int = 3) -> list[str]:
    rng = random.Random(seed)
    typed = [
        "testing",
        "tests",
        "test deploy",
        "deployment vercel",
        "cafe",
        "café naive",
        "resume",
        "测",  # a lone Han character: a prefix phrase
        "数",
        "数据库迁移怎么处理",
        "部署 pnpm",
        "缓存 cache caching",
        "nothingmatcheshere",
    ]
    for _ in range(60):
        words = [rng.choice(EN + ZH + ["面", "测", "队"]) for _ in range(rng.randint(1, 5))]
        typed.append(" ".join(words) if rng.random() < 0.5 else "".join(words))
    out = [m for q in typed if (m := textproc.match_query(q))]
    # prefixes of Latin words, and a stem shared by two phrases
    return [*out, '"deplo"*', '"test" OR "testing"', '"cach"* OR "vercel"', '"t"*']


def test_scores_rows_and_order_equal_the_fts5_statement(big: Store) -> None:
    kw = Keywords(big.layout.index_db, debounce_s=0)
    assert kw.ready(60)
    built = kw.built()
    assert built is not None and built.rows == 360 and built.postings > 1000
    filters: list[dict[str, Any]] = [
        {"scopes": None, "types": None, "states": None, "limit": 50},
        {"scopes": [SCOPES[0]], "types": None, "states": ["alive", "dim"], "limit": 30},
        {"scopes": [SCOPES[1]], "types": ["session", "fact"], "states": ["alive"], "limit": 5},
        {"scopes": list(SCOPES), "types": ["warning"], "states": ["soft-forgotten"], "limit": 2},
        {"scopes": [SCOPES[0]], "types": None, "states": None, "limit": 1},
        {"scopes": [], "types": None, "states": None, "limit": 10},
        {"scopes": ["ffffffffffff"], "types": None, "states": None, "limit": 10},
    ]
    compared = hits = 0
    for match in queries():
        for f in filters:
            want = sql_search(big, match, **f)
            same(kw.search(match, **f), want)
            compared += 1
            hits += len(want)
    assert compared > 400 and hits > 2000  # the queries do match: not a comparison of empties
    kw.close()


def test_scores_are_those_of_bm25_not_merely_consistent(big: Store) -> None:
    """A broken formula could agree with itself: compare one score with bm25() by hand."""
    kw = Keywords(big.layout.index_db, debounce_s=0)
    assert kw.ready(60)
    con = sqlite3.connect(big.layout.index_db)
    got = kw.search('"test"', scopes=None, types=None, states=None, limit=3)
    assert got
    for hit, _ in got:
        (score,) = con.execute(
            "SELECT bm25(memories_fts, 4.0, 1.0, 3.0, 2.0, 0.6) FROM memories_fts JOIN fts_docs d "
            "ON d.id = memories_fts.rowid WHERE memories_fts MATCH '\"test\"' AND d.slug = ?",
            (hit.slug,),
        ).fetchone()
        assert hit.score == pytest.approx(score, rel=1e-12)
    con.close()
    kw.close()


def test_a_common_word_has_the_clamped_idf(big: Store) -> None:
    """A term in more than half the rows has a negative idf, which bm25() clamps to 1e-6."""
    con = sqlite3.connect(big.layout.index_db)
    con.execute("CREATE VIRTUAL TABLE temp.r USING fts5vocab(main, memories_fts, row)")
    common = [t for (t,) in con.execute("SELECT term FROM temp.r WHERE doc > 180 ORDER BY doc DESC")]
    con.close()
    kw = Keywords(big.layout.index_db, debounce_s=0)
    assert kw.ready(60)
    assert common, "the corpus should have a term in more than half its rows"
    for term in common[:3]:
        match = f'"{term}"'
        same(
            kw.search(match, scopes=None, types=None, states=None, limit=20),
            sql_search(big, match, scopes=None, types=None, states=None, limit=20),
        )
    kw.close()


def test_parse_match_takes_plain_or_of_quoted_terms_only() -> None:
    assert parse_match('"a" OR "b"* OR "say ""hi"""') == [("a", False), ("b", True), ('say "hi"', False)]
    for other in ('"a" AND "b"', '"a" "b"', "a", '"a" OR', 'title:"a"', 'NEAR("a" "b")', '"a"**', ""):
        assert parse_match(other) is None


# -- freshness -------------------------------------------------------------------------------
def small_store(tmp_path: Path) -> Store:
    store = Store.open(Layout(tmp_path / "home"))
    store.save_many(corpus(40, seed=11), actor="test")
    return store


def note(
    store: Store,
    slug: str,
    title: str,
    body: str,
    scope: str = SCOPES[0],
    mtype: MemoryType = MemoryType.fact,
) -> None:
    when = datetime(2025, 6, 1, tzinfo=UTC)
    meta = Frontmatter(title=title, slug=slug, type=mtype, scope_hash=scope, source="manual", created_at=when)
    store.save(Document(meta=meta, body=body), event="record", actor="test")


def search_both(store: Store, match: str) -> list[str]:
    """Store.search (the warm index when it can) checked against the statement."""
    f: dict[str, Any] = {"scopes": [SCOPES[0]], "types": None, "states": ["alive", "dim"], "limit": 20}
    got = store.search(match, **f)
    same(got, sql_search(store, match, **f))
    return [h.slug for h, _ in got]


def test_no_stale_answer_after_an_insert_an_edit_or_a_forget(tmp_path: Path) -> None:
    store = small_store(tmp_path)
    kw = store.keywords = Keywords(store.layout.index_db, debounce_s=0)
    assert kw.ready(30)
    match = '"zebracorn"'
    assert kw.search(match, scopes=None, types=None, states=None, limit=5) == []

    note(store, "zebra-1", "Zebracorn notes", "the zebracorn pipeline deploys nightly")
    assert kw.search(match, scopes=None, types=None, states=None, limit=5) is None  # stale: not used
    assert search_both(store, match) == ["zebra-1"]
    assert kw.ready(30)
    assert search_both(store, match) == ["zebra-1"]
    assert kw.search(match, scopes=None, types=None, states=None, limit=5) is not None

    note(store, "zebra-1", "Pipeline notes", "the pipeline deploys nightly")  # the word goes
    assert kw.search(match, scopes=None, types=None, states=None, limit=5) is None
    assert search_both(store, match) == []
    note(store, "zebra-2", "Zebracorn again", "zebracorn")
    assert kw.ready(30)
    assert search_both(store, match) == ["zebra-2"]

    store.forget("zebra-2", actor="test")
    assert kw.search(match, scopes=None, types=None, states=None, limit=5) is None
    assert search_both(store, match) == []
    assert kw.ready(30)
    assert search_both(store, match) == []
    kw.close()
    store.engine.dispose()


def test_an_index_db_put_in_its_place_is_not_read(tmp_path: Path) -> None:
    """A restore renames another index.db into place while this process's engine stays on
    the file it opened (docs/backup.md): the warm index answers nothing from the new file,
    so one search never mixes two stores; the statement answers, as the engine reads."""
    store = small_store(tmp_path)
    kw = Keywords(store.layout.index_db, debounce_s=0)
    assert kw.ready(30)
    match = '"zebracorn"'
    assert kw.search(match, scopes=None, types=None, states=None, limit=5) == []

    other = Store.open(Layout(tmp_path / "other"))
    note(other, "zebra-9", "Zebracorn notes", "the zebracorn pipeline deploys nightly")
    other.engine.dispose()
    with sqlite3.connect(other.layout.index_db) as con:
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    (other.layout.index_db).replace(store.layout.index_db)  # a new inode at the path

    assert kw.search(match, scopes=None, types=None, states=None, limit=5) is None
    assert not kw.ready(10)  # no build from the new file either
    assert kw.search(match, scopes=None, types=None, states=None, limit=5) is None
    kw.close()
    store.engine.dispose()


def test_no_stale_answer_after_another_process_writes(tmp_path: Path) -> None:
    store = small_store(tmp_path)
    kw = store.keywords = Keywords(store.layout.index_db, debounce_s=0)
    assert kw.ready(30)
    match = '"quokkaflux"'
    assert search_both(store, match) == []
    code = (
        "import sys; from datetime import datetime, UTC; from pathlib import Path\n"
        "from memoryd.frontmatter import Document; from memoryd.models import Frontmatter\n"
        "from memoryd.paths import Layout; from memoryd.store import Store\n"
        "s = Store.open(Layout(Path(sys.argv[1])))\n"
        "m = Frontmatter(title='Quokkaflux', slug='quokka-1', type='fact', scope_hash=sys.argv[2],"
        " source='manual', created_at=datetime(2025, 6, 2, tzinfo=UTC))\n"
        "s.save(Document(meta=m, body='quokkaflux rollout'), event='record', actor='other')\n"
    )
    subprocess.run(
        [sys.executable, "-c", code, str(store.layout.home), SCOPES[0]], check=True, capture_output=True
    )
    assert kw.search(match, scopes=None, types=None, states=None, limit=5) is None
    assert search_both(store, match) == ["quokka-1"]
    assert kw.ready(30)
    assert search_both(store, match) == ["quokka-1"]
    kw.close()
    store.engine.dispose()


def test_recall_counters_do_not_invalidate_and_show_at_once(tmp_path: Path) -> None:
    store = small_store(tmp_path)
    kw = store.keywords = Keywords(store.layout.index_db, debounce_s=0)
    assert kw.ready(30)
    match = textproc.match_query("test deploy 测试") or ""
    first = kw.search(match, scopes=None, types=None, states=None, limit=5)
    assert first
    slug = first[0][0].slug
    store.record_recall([slug], [])
    again = kw.search(match, scopes=None, types=None, states=None, limit=5)
    assert again is not None  # still fresh: no rebuild for a counter
    row = {h.slug: r for h, r in again}[slug]
    assert row["recall_count"] == first[0][1]["recall_count"] + 1  # rows are read live
    kw.close()
    store.engine.dispose()


def test_a_decay_state_change_is_filtered_live(tmp_path: Path) -> None:
    """States change without FTS writes: the index stays, the filter sees the new state."""
    store = small_store(tmp_path)
    kw = store.keywords = Keywords(store.layout.index_db, debounce_s=0)
    assert kw.ready(30)
    match = textproc.match_query("test deploy cache 测试 部署") or ""
    before = search_both(store, match)
    assert before
    con = sqlite3.connect(store.layout.index_db)
    con.execute("UPDATE memories SET decay_state = 'soft-forgotten' WHERE slug = ?", (before[0],))
    con.commit()
    con.close()
    assert kw.search(match, scopes=None, types=None, states=None, limit=5) is not None
    assert before[0] not in search_both(store, match)
    kw.close()
    store.engine.dispose()


def test_a_type_change_is_never_answered_from_the_old_type(tmp_path: Path) -> None:
    """Types prefilter the candidates, so a memory whose type changes must not keep the old
    one: the change rewrites its FTS row, and the index is stale until rebuilt."""
    store = small_store(tmp_path)
    kw = store.keywords = Keywords(store.layout.index_db, debounce_s=0)
    note(store, "zebra-1", "Zebracorn notes", "the zebracorn pipeline deploys nightly")
    assert kw.ready(30)
    f: dict[str, Any] = {"scopes": None, "states": None, "limit": 5}
    match = '"zebracorn"'
    assert [h.slug for h, _ in kw.search(match, types=["fact"], **f) or []] == ["zebra-1"]
    assert kw.search(match, types=["warning"], **f) == []

    note(
        store,
        "zebra-1",
        "Zebracorn notes",
        "the zebracorn pipeline deploys nightly",
        mtype=MemoryType.warning,
    )
    assert kw.search(match, types=["warning"], **f) is None  # stale: the statement answers
    assert [h.slug for h, _ in store.search(match, types=["warning"], **f)] == ["zebra-1"]
    assert kw.ready(30)
    assert [h.slug for h, _ in kw.search(match, types=["warning"], **f) or []] == ["zebra-1"]
    assert kw.search(match, types=["fact"], **f) == []
    kw.close()
    store.engine.dispose()


def test_a_rare_type_is_found_with_one_statement(tmp_path: Path) -> None:
    """A search of one type (traces asks for sessions only) scores only that type's memories:
    the statement that checks the filters runs once, not once per chunk of other types
    (at 100k memories each such statement cost about 6 ms)."""
    store = Store.open(Layout(tmp_path / "home"))
    for i in range(300):  # strong matches of another type
        note(store, f"fact-{i:03d}", f"Zebracorn {i}", "zebracorn zebracorn zebracorn pipeline")
    for i in range(3):  # weak matches of the wanted type
        body = "a long note about many other things " * 20 + "zebracorn"
        note(store, f"warn-{i}", f"Note {i}", body, mtype=MemoryType.warning)
    kw = store.keywords = Keywords(store.layout.index_db, debounce_s=0)
    assert kw.ready(30)
    con = kw._connection()
    statements: list[str] = []
    con.set_trace_callback(statements.append)
    f: dict[str, Any] = {"scopes": [SCOPES[0]], "types": ["warning"], "states": ["alive", "dim"], "limit": 5}
    got = kw.search('"zebracorn"', **f)
    con.set_trace_callback(None)
    same(got, sql_search(store, '"zebracorn"', **f))
    assert sorted(h.slug for h, _ in got or []) == ["warn-0", "warn-1", "warn-2"]
    assert len([s for s in statements if "MATERIALIZED" in s]) == 1, statements
    kw.close()
    store.engine.dispose()


# -- fallback --------------------------------------------------------------------------------
def test_a_phrase_of_two_tokens_goes_to_the_statement(big: Store) -> None:
    kw = Keywords(big.layout.index_db, debounce_s=0)
    assert kw.ready(60)
    for match in ('"deploy cache"', '"test" OR "deploy-cache"', '"test" AND "cache"', '"..."'):
        assert kw.search(match, scopes=None, types=None, states=None, limit=10) is None
    big.keywords = kw
    try:
        f: dict[str, Any] = {"scopes": None, "types": None, "states": None, "limit": 10}
        want = sql_search(big, '"deploy cache"', **f)
        assert want  # a phrase that matches
        same(big.search('"deploy cache"', **f), want)
    finally:
        big.keywords = None
        kw.close()


def test_an_index_not_ready_goes_to_the_statement(big: Store) -> None:
    kw = Keywords(big.layout.index_db, debounce_s=3600)  # its build waits an hour
    big.keywords = kw
    try:
        f: dict[str, Any] = {"scopes": [SCOPES[0]], "types": None, "states": None, "limit": 10}
        match = textproc.match_query("testing deploy 测试") or ""
        assert kw.search(match, **f) is None
        want = sql_search(big, match, **f)
        assert want
        same(big.search(match, **f), want)
    finally:
        big.keywords = None
        kw.close()


# -- who builds it ---------------------------------------------------------------------------
def test_long_lived_processes_warm_it_and_short_commands_do_not(isolated_home: Path) -> None:
    from memoryd.mcpserver import Tools

    assert Memoryd().store.keywords is None
    assert Memoryd(warm=True).store.keywords is not None
    assert Tools().app.store.keywords is not None


def test_the_first_search_not_the_open_starts_the_build(isolated_home: Path, project: Path) -> None:
    """A tray that is never asked to search holds no postings; the first search answers
    through the statement and starts the build."""
    import time

    app = Memoryd(warm=True)
    kw = app.store.keywords  # the store is open
    assert kw is not None and kw.built() is None
    time.sleep(kw.debounce_s + 1.0)  # a build started at open would be done by now (empty store)
    assert kw.built() is None
    app.record("fact", "Zebracorn", "the zebracorn pipeline deploys nightly", scope_path=project)
    hits = app.search("zebracorn", scopes=None, count_recall=False, mode="keyword")
    assert [h.title for h in hits] == ["Zebracorn"]  # the statement's answer
    assert kw.ready(30) and kw.built() is not None
    assert [h.title for h in app.search("zebracorn", scopes=None, count_recall=False, mode="keyword")] == [
        "Zebracorn"
    ]
    kw.close()


def test_threads_search_one_index_at_once(big: Store) -> None:
    """The MCP server answers from worker threads: each has its own connection, all share
    one index and its caches."""
    from concurrent.futures import ThreadPoolExecutor

    kw = Keywords(big.layout.index_db, debounce_s=0)
    assert kw.ready(60)
    f: dict[str, Any] = {"scopes": [SCOPES[0]], "types": None, "states": ["alive", "dim"], "limit": 10}
    matches = queries(seed=5)[:40]
    want = {m: sql_search(big, m, **f) for m in matches}
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda m: (m, kw.search(m, **f)), matches * 3))
    for m, answer in got:
        same(answer, want[m])
    kw.close()
