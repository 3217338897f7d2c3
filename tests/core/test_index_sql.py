"""Turn search ranks FTS5's best matches before joining them (memoryd.index_sql.ranked_turns):
the answer must be the full statement's, row for row, through both drivers (the store's
SQLAlchemy session and the cold path's sqlite3 reader), whatever the filters reject. Tried:
a scope whose turns are outscored by another scope's (the pool fills with rows the filter
drops), soft-forgotten sessions, ties at the pool's edge (the same text over and over),
limits of 1 to 60, and queries that match nothing. Real SQLite files."""

from __future__ import annotations

import math
import random
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memoryd import index_sql as sql
from memoryd import reader, textproc
from memoryd.frontmatter import Document
from memoryd.kinds import DecayState, MemoryType
from memoryd.models import Frontmatter
from memoryd.paths import Layout
from memoryd.store import Store
from memoryd.store.files import Turn

BIG, SMALL, TINY = "b1b2b3b4b5b6", "5a5a5a5a5a5a", "7e7e7e7e7e7e"
WORDS = [
    "deploy",
    "queue",
    "worker",
    "retry",
    "timeout",
    "cache",
    "vercel",
    "rollback",
    "部署",
    "缓存",
    "队列",
    "超时",
]
ECHO = "zebracorn queue worker"  # said word for word in many sessions: ties


def sessions(n: int, seed: int = 5) -> Iterator[tuple[Document, list[Turn]]]:
    """15% of the sessions in BIG with turns that say the words often; 80% in SMALL and 5% in
    TINY with turns that say one word once, padded to varied lengths (a few score high enough
    for the pool, most do not); every third BIG session's even turns are ECHO. Slugs are shuffled
    against the order of insertion, so FTS5's rowid order is not `ORDER BY slug`'s."""
    rng = random.Random(seed)
    start = datetime(2025, 4, 1, tzinfo=UTC)
    names = list(range(n))
    rng.shuffle(names)
    for i in range(n):
        scope = TINY if i % 20 == 1 else BIG if i % 20 in (2, 5, 8) else SMALL
        when = start + timedelta(minutes=7 * i)
        turns = []
        for k in range(rng.randint(2, 9)):
            if scope == BIG and i % 3 == 0 and k % 2 == 0:
                text = ECHO
            elif scope != BIG:
                text = " ".join([rng.choice(WORDS), *["other words"] * rng.randint(4, 12)])
            else:
                text = " ".join(rng.choices(WORDS, k=rng.randint(2, 10)))
            turns.append(Turn(k, "user" if k % 2 == 0 else "assistant", text, None, None))
        meta = Frontmatter(
            title=f"session {i}",
            slug=f"2025-04-01-session-{names[i]:04d}",
            type=MemoryType.session,
            scope_hash=scope,
            source="claude-code",
            created_at=when,
            updated_at=when,
            decay_state=DecayState.soft_forgotten if i % 13 == 0 else DecayState.alive,
            session_id=f"s-{i}",
        )
        yield Document(meta=meta, body="a session\n"), turns


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    home = tmp_path_factory.mktemp("turns") / "home"
    s = Store.open(Layout(home))
    s.save_many(sessions(400), actor="test", batch=200)
    yield s
    s.engine.dispose()


def full(con: sqlite3.Connection, match: str, **f: Any) -> list[sql.TurnHit]:
    statement, params = sql.search_turns(match, f["scopes"], f["states"], f["limit"])
    return [sql.turn_hit(r) for r in con.execute(statement, params).fetchall()]


FILTERS: list[dict[str, Any]] = [
    {"scopes": [BIG], "states": ["alive", "dim"], "limit": 40},
    {"scopes": [SMALL], "states": ["alive", "dim"], "limit": 40},  # outscored: the pool misses
    {"scopes": [SMALL], "states": ["alive", "dim", "soft-forgotten"], "limit": 3},
    {"scopes": [TINY], "states": ["alive", "dim"], "limit": 20},  # too small a share to pool
    {"scopes": [TINY, SMALL], "states": ["alive"], "limit": 400},
    {"scopes": None, "states": None, "limit": 60},
    {"scopes": [BIG, SMALL], "states": ["alive"], "limit": 1},
    {"scopes": ["ffffffffffff"], "states": None, "limit": 10},
    {"scopes": [], "states": None, "limit": 10},
]
QUERIES = ["queue", "queue worker timeout", "部署 缓存", "retry", '"the" OR "queue"', "nothingmatches", ECHO]


def test_the_pooled_answer_is_the_full_statements_through_both_drivers(store: Store) -> None:
    con = sqlite3.connect(store.layout.index_db)
    cold = reader.open_current(store.layout)
    assert cold is not None
    compared = rows = 0
    for q in QUERIES:
        match = textproc.match_query(q) if '"' not in q else q
        assert match
        for f in FILTERS:
            want = full(con, match, **f)
            assert store.search_turns(match, **f) == want, (q, f)
            assert cold.search_turns(match, **f) == want, (q, f)
            compared += 1
            rows += len(want)
    assert compared == len(QUERIES) * len(FILTERS) and rows > 500  # not a comparison of empties
    cold.close()
    con.close()


def test_ties_at_the_pools_edge_fall_as_in_the_full_statement(store: Store) -> None:
    """ECHO is said word for word in 80 sessions: its turns tie, and a pool cut among them
    could keep others than `ORDER BY score, slug, seq` keeps. The answer must not differ."""
    con = sqlite3.connect(store.layout.index_db)
    match = textproc.match_query(ECHO) or ""
    scores = [h.score for h in full(con, match, scopes=None, states=None, limit=1000)]
    assert len(scores) - len(set(scores)) > 100  # many ties indeed
    for limit in (1, 5, 17, 50):
        f: dict[str, Any] = {"scopes": [BIG, SMALL], "states": ["alive", "dim"], "limit": limit}
        assert store.search_turns(match, **f) == full(con, match, **f), limit
    con.close()


def counted(con: sqlite3.Connection) -> tuple[list[str], Any]:
    ran: list[str] = []

    def run(statement: str, params: dict[str, Any]) -> list[tuple[Any, ...]]:
        ran.append(statement)
        return con.execute(statement, params).fetchall()

    return ran, run


def test_each_path_runs_only_the_statements_it_needs(store: Store) -> None:
    con = sqlite3.connect(store.layout.index_db)
    ran, run = counted(con)
    full_statement = sql.search_turns('"x"', None, None, 1)[0].split("WHERE")[0]
    match = textproc.match_query("deploy cache") or ""  # no ties at the pools' edges here
    f: dict[str, Any] = {"states": ["alive", "dim"]}

    sql.ranked_turns(run, match, None, f["states"], 20)  # every scope: the pool, nothing else
    assert len(ran) == 1 and ran[0].startswith("WITH top")
    ran.clear()
    sql.ranked_turns(run, match, [BIG, SMALL], f["states"], 20)  # 95% of the sessions: counts, the pool
    assert len(ran) == 3 and ran[2].startswith("WITH top")
    ran.clear()
    got = sql.ranked_turns(run, match, [TINY], f["states"], 20)  # 5%: two counts, the full statement
    assert len(ran) == 3 and ran[2].startswith(full_statement) and not any("WITH top" in r for r in ran)
    assert got == full(con, match, scopes=[TINY], states=f["states"], limit=20)
    assert got and {h.slug for h in got} <= slugs_of(con, TINY)
    ran.clear()
    echo = textproc.match_query(ECHO) or ""  # fewer matches than the pool, none of them dim
    assert sql.ranked_turns(run, echo, [BIG, SMALL], ["dim"], 400) == []
    assert ran[-1] == sql.MATCHES_UP_TO and not any(r.startswith(full_statement) for r in ran)
    ran.clear()
    for limit in (0, -1):  # SQLite's LIMIT -1 is no limit: the full statement answers
        want = full(con, match, scopes=[BIG], states=None, limit=limit)
        assert sql.ranked_turns(run, match, [BIG], None, limit) == want
    assert len(want) > 100 and all(r.startswith(full_statement) for r in ran)
    con.close()


def slugs_of(con: sqlite3.Connection, scope: str) -> set[str]:
    return {r[0] for r in con.execute("SELECT slug FROM memories WHERE scope_hash = ?", (scope,))}


def test_a_pool_holding_a_few_of_the_scopes_turns_is_not_taken_for_the_answer(store: Store) -> None:
    """The case the pool check exists for: some of SMALL's turns make the pool, more are
    below it; answering from the pool would return those few and stop."""
    con = sqlite3.connect(store.layout.index_db)
    _, run = counted(con)
    match = textproc.match_query("queue") or ""
    f: dict[str, Any] = {"scopes": [SMALL], "states": ["alive", "dim"], "limit": 40}
    pool = sql._pool(run, f["scopes"], f["limit"])
    assert pool is not None and pool > 4 * 40  # 80% of the sessions: a deeper pool
    statement, params = sql.search_turns_top(match, f["scopes"], f["states"], f["limit"], pool)
    pooled = con.execute(statement, params).fetchall()
    want = full(con, match, **f)
    assert 0 < len(pooled) < len(want) == 40  # the pool alone would fall short
    assert store.search_turns(match, **f) == want
    con.close()


def test_the_pool_is_as_deep_as_the_scopes_share_asks(store: Store) -> None:
    con = sqlite3.connect(store.layout.index_db)
    _, run = counted(con)
    sessions = {s: len(slugs_of(con, s)) for s in (BIG, SMALL, TINY)}
    every = sum(sessions.values())
    assert sql._pool(run, None, 10) == 10 * sql.TURN_POOL_FACTOR
    for scopes in ([SMALL], [BIG, SMALL]):
        share = sum(sessions[s] for s in scopes) / every
        assert sql._pool(run, scopes, 10) == math.ceil(10 * sql.TURN_POOL_FACTOR / share)
    assert sql._pool(run, [TINY], 10) is None and sql._pool(run, [BIG], 10) is None  # 5%, 15%
    assert sql._pool(run, ["ffffffffffff"], 10) is None
    assert sql._pool(run, [], 10) is None and sql._pool(run, [BIG], 0) is None
    con.close()


def test_reader_and_store_answer_alike_on_an_empty_index(tmp_path: Path) -> None:
    s = Store.open(Layout(tmp_path / "home"))
    cold = reader.open_current(s.layout)
    assert cold is not None
    f: dict[str, Any] = {"scopes": None, "states": None, "limit": 10}
    assert s.search_turns('"queue"', **f) == cold.search_turns('"queue"', **f) == []
    cold.close()
    s.engine.dispose()
