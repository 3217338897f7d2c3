"""The two-stage scan of a big vector pool (memoryd.vectors: `_Projection`, `similar`):
above PROJECT_ABOVE rows a query ranks every row on a few principal components and
scores only the best rows in full. Its answers must be the exact scan's.

Real index.db files (schema by the store's migrations); the memories' index rows are
inserted directly and their refs and vectors through the module's own writers, so a few
thousand memories take a second, not a minute of `record`. The thresholds are lowered
here; the vectors are clustered (as real embeddings are), not noise, so a wrong first
stage misses the exact top rows and the recall assertions fail."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from memoryd import pooling, vectors
from memoryd.app import Memoryd

DIM = 48
MODEL = "clustered-test@1"
SCOPE_A, SCOPE_B = "scope-a", "scope-b"


@pytest.fixture(autouse=True)
def small_thresholds(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pool of 1,000+ rows counts as big; 8 components of 48; 120 rows rescored per scope
    (of 3,000+), so the first stage decides what is rescored."""
    monkeypatch.setattr(vectors, "PROJECT_ABOVE", 1000)
    monkeypatch.setattr(vectors, "OWN_ROWS", 1000)
    monkeypatch.setattr(vectors, "PROJECT_DIM", 8)
    monkeypatch.setattr(vectors, "FIT_SAMPLE", 1500)
    monkeypatch.setattr(vectors, "RESCORE_MIN", 120)
    monkeypatch.setattr(vectors, "RESCORE_PER", 4)


@dataclass
class Corpus:
    db: Path
    mean: np.ndarray
    shape: np.ndarray  # (DIM, DIM): a random rotation of a decaying scale
    # per memory: slug -> (scope, type, windows as a (k, DIM) array)
    memories: dict[str, tuple[str, str, np.ndarray]]
    rng: np.random.Generator

    def vectors(self) -> vectors.Vectors:
        return vectors.Vectors(self.db)

    def draw(self, k: int) -> np.ndarray:
        """Unit rows around the corpus mean, with a decaying spectrum (as embeddings have:
        a few directions carry most of the variance)."""
        return unit(self.mean + self.rng.normal(0, 1, (k, DIM)) @ self.shape)

    def query(self) -> np.ndarray:
        return self.draw(1)[0]

    def exact(
        self, q: np.ndarray, *, scopes: set[str], types: set[str] | None = None, limit: int = 10
    ) -> list[tuple[str, int]]:
        """The oracle: every memory scored by its windows pooled (memoryd.pooling), with its
        best window, from the vectors as generated."""
        best = []
        for slug, (scope, mtype, wins) in self.memories.items():
            if scope in scopes and (types is None or mtype in types):
                s = wins.astype("<f2").astype(np.float32) @ q
                best.append((-pooling.pooled_one(list(s))[0], slug, int(s.argmax())))
        best.sort()
        return [(slug, part) for _, slug, part in best[:limit]]

    def add(self, slug: str, scope: str, mtype: str, wins: np.ndarray) -> None:
        con = sqlite3.connect(self.db, isolation_level=None)
        try:
            con.execute("BEGIN IMMEDIATE")
            insert(con, [(slug, scope, mtype, wins)])
            con.execute("COMMIT")
        finally:
            con.close()
        self.memories[slug] = (scope, mtype, wins)

    def drop(self, slugs: list[str]) -> None:
        con = sqlite3.connect(self.db, isolation_level=None)
        try:
            con.execute("BEGIN IMMEDIATE")
            vectors.drop_refs(con, slugs)
            con.execute(f"DELETE FROM memories WHERE slug IN ({','.join('?' * len(slugs))})", slugs)
            con.execute("COMMIT")
        finally:
            con.close()
        for s in slugs:
            del self.memories[s]


def unit(v: np.ndarray) -> np.ndarray:
    return (v / np.linalg.norm(v, axis=-1, keepdims=True)).astype(np.float32)


def insert(con: sqlite3.Connection, items: list[tuple[str, str, str, np.ndarray]]) -> None:
    for slug, scope, mtype, wins in items:
        con.execute(
            "INSERT INTO memories (slug, type, scope_hash, title, source, created_at, fingerprint, "
            "body_path) VALUES (?, ?, ?, 'T', 'test', '2026-01-01T00:00:00', ?, ?)",
            (slug, mtype, scope, slug, f"{slug}.md"),
        )
        texts = [(vectors.MEMORY, p, f"{slug} window {p}") for p in range(len(wins))]
        vectors.write_refs(con, slug, texts, None)
        con.executemany(
            "INSERT INTO vectors (fingerprint, model, dim, sealed, data) VALUES (?, ?, ?, 0, ?)",
            [
                (vectors.fingerprint(t), MODEL, DIM, vectors.to_blob(w))
                for (_, _, t), w in zip(texts, wins, strict=True)
            ],
        )


def build(tmp_path: Path, n_a: int = 2400, n_b: int = 800, seed: int = 7) -> Corpus:
    app = Memoryd()
    db = app.layout.index_db
    app.store.engine.dispose()
    rng = np.random.default_rng(seed)
    rotation = np.linalg.qr(rng.normal(size=(DIM, DIM)))[0]
    shape = (np.diag(0.75 ** np.arange(DIM)) @ rotation) * 0.6
    c = Corpus(db, unit(rng.normal(0, 1, DIM)), shape, {}, rng)
    items = []
    for i in range(n_a + n_b):
        scope = SCOPE_A if i < n_a else SCOPE_B
        mtype = ("fact", "decision", "playbook")[i % 3]
        wins = c.draw(int(rng.choice([1, 2, 3, 4], p=[0.5, 0.25, 0.15, 0.1])))
        slug = f"m{i:05d}"
        c.memories[slug] = (scope, mtype, wins)
        items.append((slug, scope, mtype, wins))
    con = sqlite3.connect(db, isolation_level=None)
    try:
        con.execute("BEGIN IMMEDIATE")
        insert(con, items)
        con.execute("COMMIT")
    finally:
        con.close()
    return c


def top(v: vectors.Vectors, q: np.ndarray, **kw: object) -> list[tuple[str, int]]:
    kw = {"scopes": [SCOPE_A], "level": 1, "limit": 10} | kw
    return [(slug, part) for slug, part, _ in v.similar(q, **kw)]  # type: ignore[arg-type]


def recall(got: list[tuple[str, int]], want: list[tuple[str, int]]) -> float:
    return len(set(got) & set(want)) / len(want)


def test_above_the_threshold_the_projection_ranks_and_the_exact_top_ten_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    c = build(tmp_path)
    v = c.vectors()
    qs = [c.query() for _ in range(60)]
    v.similar(qs[0], scopes=[SCOPE_A], level=1, limit=10)
    m = v._matrix(MODEL, vectors.MEMORY)
    assert m is not None and m.pool.projection is not None
    assert m.pool.projection.basis.shape == (DIM, 8)

    # The full product over every row is not what answers a big pool.
    def no_full_scan(self: vectors._Pool, q: np.ndarray) -> np.ndarray:
        raise AssertionError("exact scan over every row")

    monkeypatch.setattr(vectors._Pool, "scores", no_full_scan)
    hits = [recall(top(v, q), c.exact(q, scopes={SCOPE_A})) for q in qs]
    # (slug, best window) pairs: the memory and the part the exact scan gives
    assert np.mean(hits) >= 0.99 and min(hits) >= 0.9
    exact_order = sum(top(v, q) == c.exact(q, scopes={SCOPE_A}) for q in qs)
    assert exact_order >= 57  # in the same order too, but for a rare near-tie


def test_a_wrong_first_stage_would_be_caught(tmp_path: Path) -> None:
    """The guard for the test above: with a projection on a random basis the rows rescored
    are not the best, and recall falls far below what that test asserts."""
    c = build(tmp_path)
    v = c.vectors()
    qs = [c.query() for _ in range(30)]
    v.similar(qs[0], scopes=[SCOPE_A], level=1, limit=10)
    pool = v._matrix(MODEL, vectors.MEMORY).pool  # type: ignore[union-attr]
    good = pool.projection
    assert good is not None
    basis = np.linalg.qr(np.random.default_rng(1).normal(size=(DIM, 8)))[0].astype(np.float32)
    rows = np.zeros_like(good.rows)
    wrong = vectors._Projection(good.mean, basis, rows, good.fit_n)
    wrong.put(0, pool.data[: pool.n])
    pool.projection = wrong
    try:
        hits = [recall(top(v, q), c.exact(q, scopes={SCOPE_A})) for q in qs]
    finally:
        pool.projection = good
    assert np.mean(hits) < 0.8


def test_scope_and_type_filters_hold_in_the_two_stage_scan(tmp_path: Path) -> None:
    c = build(tmp_path)
    v = c.vectors()
    for _ in range(20):
        q = c.query()
        got = top(v, q, types=["decision"])
        assert all(c.memories[s][1] == "decision" and c.memories[s][0] == SCOPE_A for s, _ in got)
        assert recall(got, c.exact(q, scopes={SCOPE_A}, types={"decision"})) >= 0.9
        b = top(v, q, scopes=[SCOPE_B])
        assert all(c.memories[s][0] == SCOPE_B for s, _ in b)
        assert recall(b, c.exact(q, scopes={SCOPE_B})) >= 0.9
        both = top(v, q, scopes=None, limit=20)
        assert recall(both, c.exact(q, scopes={SCOPE_A, SCOPE_B}, limit=20)) >= 0.9
    assert top(v, c.query(), types=["no-such-type"]) == []


def test_level_two_rows_are_ranked_by_the_two_stage_scan(tmp_path: Path) -> None:
    c = build(tmp_path)
    con = sqlite3.connect(c.db, isolation_level=None)
    turns: dict[tuple[str, int], np.ndarray] = {}
    rows = []
    for slug, (_scope, _t, wins) in list(c.memories.items())[:1600]:
        for seq, w in enumerate(wins):
            t = unit(w + c.rng.normal(0, 0.1, DIM) @ c.shape)
            turns[(slug, seq)] = t
            rows.append((slug, seq, f"{slug} turn {seq}", t))
    con.execute("BEGIN IMMEDIATE")
    con.executemany(
        "INSERT INTO vector_refs (slug, level, part, fingerprint) VALUES (?, 2, ?, ?)",
        [(s, seq, vectors.fingerprint(text)) for s, seq, text, _ in rows],
    )
    con.executemany(
        "INSERT INTO vectors (fingerprint, model, dim, sealed, data) VALUES (?, ?, ?, 0, ?)",
        [(vectors.fingerprint(text), MODEL, DIM, vectors.to_blob(t)) for _, _, text, t in rows],
    )
    vectors.bump(con)
    con.execute("COMMIT")
    con.close()
    v = c.vectors()
    hits = []
    for _ in range(30):
        q = c.query()
        got = [(s, p) for s, p, _ in v.similar(q, scopes=[SCOPE_A], level=vectors.TURN, limit=10)]
        scores = sorted(
            ((-float(t.astype("<f2").astype(np.float32) @ q), k) for k, t in turns.items()),
            key=lambda x: x[0],
        )
        hits.append(recall(got, [k for _, k in scores[:10]]))
    assert v._matrix(MODEL, vectors.TURN).pool.projection is not None  # type: ignore[union-attr]
    assert np.mean(hits) >= 0.99


def test_writes_are_seen_by_the_next_query_and_a_doubled_pool_refits(tmp_path: Path) -> None:
    c = build(tmp_path)
    v = c.vectors()
    q = c.query()
    before = top(v, q)
    fitted = v._matrix(MODEL, vectors.MEMORY).pool.projection  # type: ignore[union-attr]
    assert fitted is not None

    # A new memory that is the query itself comes first, with its window's part.
    c.add("new-one", SCOPE_A, "fact", np.stack([c.draw(1)[0], q]))
    assert top(v, q)[0] == ("new-one", 1)
    # Its row was projected on the basis already fitted (no refit for one row).
    assert v._matrix(MODEL, vectors.MEMORY).pool.projection.basis is fitted.basis  # type: ignore[union-attr]

    # Dropped refs are gone at once; the rest is still the exact answer.
    c.drop(["new-one", before[0][0]])
    got = top(v, q)
    assert "new-one" not in {s for s, _ in got} and before[0][0] not in {s for s, _ in got}
    assert recall(got, c.exact(q, scopes={SCOPE_A})) >= 0.9

    # Doubling the pool refits the basis on the pool as it is.
    con = sqlite3.connect(c.db, isolation_level=None)
    con.execute("BEGIN IMMEDIATE")
    extra = []
    for i in range(fitted.fit_n + 10):
        wins = c.draw(1)
        extra.append((f"x{i:05d}", SCOPE_B, "fact", wins))
        c.memories[f"x{i:05d}"] = (SCOPE_B, "fact", wins)
    insert(con, extra)
    con.execute("COMMIT")
    con.close()
    assert recall(top(v, q), c.exact(q, scopes={SCOPE_A})) >= 0.9
    pool = v._matrix(MODEL, vectors.MEMORY).pool  # type: ignore[union-attr]
    assert pool.projection is not None and pool.projection.fit_n == pool.n > 2 * fitted.fit_n


def test_a_states_filter_the_candidates_cannot_fill_falls_back_to_the_exact_scan(tmp_path: Path) -> None:
    """Only five memories are alive, all far from the query: the rows the first stage picks
    are all dormant, and the answer still holds the five."""
    c = build(tmp_path)
    v = c.vectors()
    q = c.query()
    far = [s for s, _ in c.exact(q, scopes={SCOPE_A}, limit=10_000)[-5:]]  # the five least alike
    con = sqlite3.connect(c.db)
    con.execute("UPDATE memories SET decay_state = 'dim'")
    con.executemany("UPDATE memories SET decay_state = 'alive' WHERE slug = ?", [(s,) for s in far])
    con.commit()
    con.close()
    got = v.similar(q, scopes=[SCOPE_A], level=1, limit=5, states=["alive"])
    assert {s for s, _, _ in got} == set(far)
    assert v._matrix(MODEL, vectors.MEMORY).pool.projection is not None  # type: ignore[union-attr]


def test_below_the_threshold_no_projection_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vectors, "PROJECT_ABOVE", 100_000)
    c = build(tmp_path, n_a=300, n_b=100)
    v = c.vectors()
    q = c.query()
    assert top(v, q) == c.exact(q, scopes={SCOPE_A})
    assert v._matrix(MODEL, vectors.MEMORY).pool.projection is None  # type: ignore[union-attr]


@pytest.mark.parametrize("big", [True, False])
def test_memories_outside_the_states_leave_the_answer_in_rank_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, big: bool
) -> None:
    """The best memories are looked up by state in rank order, the first `limit` first:
    when some of those are dormant, the next ones fill their places, each with its best
    window, as the exact scan over the alive memories ranks them."""
    if not big:
        monkeypatch.setattr(vectors, "PROJECT_ABOVE", 100_000)
    c = build(tmp_path)
    v = c.vectors()
    q = c.query()
    ranked = c.exact(q, scopes={SCOPE_A}, limit=40)
    dormant = [s for i, (s, _) in enumerate(ranked) if i % 3 != 1]  # two of every three
    con = sqlite3.connect(c.db)
    con.executemany("UPDATE memories SET decay_state = 'dormant' WHERE slug = ?", [(s,) for s in dormant])
    con.commit()
    con.close()
    got = v.similar(q, scopes=[SCOPE_A], level=1, limit=8, states=["alive", "dim"])
    alive = [hit for hit in ranked if hit[0] not in dormant]
    assert [(s, p) for s, p, _ in got] == alive[:8]
    assert (v._matrix(MODEL, vectors.MEMORY).pool.projection is not None) == big  # type: ignore[union-attr]


def test_a_small_scope_in_a_big_pool_is_scored_exactly_on_its_own_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A project of a few hundred refs in a home whose pool is big: neither the first stage
    nor a product over every row answers (both cost the whole home); its own rows are
    scored in full, so the answer is the exact one."""
    c = build(tmp_path, n_b=300)
    v = c.vectors()
    v.similar(c.query(), scopes=[SCOPE_A], level=1, limit=10)
    m = v._matrix(MODEL, vectors.MEMORY)
    assert m is not None and m.pool.projection is not None
    a, b = m.scopes[SCOPE_B]
    assert b - a <= vectors.OWN_ROWS < m.pool.n

    def whole_pool(self: vectors._Pool, q: np.ndarray) -> np.ndarray:
        raise AssertionError("a scan over every row of the pool")

    monkeypatch.setattr(vectors._Pool, "scores", whole_pool)
    monkeypatch.setattr(vectors._Pool, "approx", whole_pool)
    qs = [c.query() for _ in range(30)]
    assert all(recall(top(v, q, scopes=[SCOPE_B]), c.exact(q, scopes={SCOPE_B})) == 1.0 for q in qs)
    assert sum(top(v, q, scopes=[SCOPE_B]) == c.exact(q, scopes={SCOPE_B}) for q in qs) >= 29
    assert all(
        c.memories[s][0] == SCOPE_B for q in qs for s, _ in top(v, q, scopes=[SCOPE_B], types=["fact"])
    )
