"""Vectors.missing from the counts migration 018's triggers keep: after every kind of write
to vector_refs and vectors (memoryd's own, through the app and the CLI, and any SQL at all)
it equals the LEFT JOIN over every ref it replaced (Vectors.missing_join), for each model,
a model with no vector and a model change included; and a store migrated from 017 starts
with the right counts."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from memoryd import embed, vectors
from memoryd.app import Memoryd
from memoryd.db.engine import migrations, open_index

from ..sensitive.support import PIN, grant_tty, record, set_pin
from . import embedders

V1 = "tests.core.store.embedders:v1"
V2 = "tests.core.store.embedders:v2"
TAGS = ("hashed-test@1", "hashed-test@2", "nobody@0")
LONG = " ".join(f"Step {i}: the deploy script copies build {i} to the staging host." for i in range(20))


@pytest.fixture(autouse=True)
def cold_process() -> None:
    embed._loaded.clear()
    embedders.embedded.clear()


def configure(tmp_path: Path, model: str) -> None:
    (tmp_path / "config.toml").write_text(f'[search]\nembedding_model = "{model}"\n')


def agree(db: Path, tags: tuple[str, ...] = TAGS) -> dict[str, int]:
    """missing per tag, asserted equal to the join's."""
    v = vectors.Vectors(db)
    try:
        got = {t: v.missing(t) for t in tags}
        assert got == {t: v.missing_join(t) for t in tags}
        return got
    finally:
        v.close()


def test_counts_follow_records_embeds_edits_forgets_and_a_model_change(
    isolated_home: Path, tmp_path: Path, project: Path
) -> None:
    configure(tmp_path, V1)
    app = Memoryd()
    db = app.layout.index_db
    a = app.record("fact", "Package manager", "This repository uses pnpm.", scope_path=project)[0]
    app.record("playbook", "Deploy steps", LONG, scope_path=project)
    app.record("playbook", "Deploy steps, again", LONG, scope_path=project)  # shares windows
    before = agree(db)
    assert before["hashed-test@1"] > 3
    app.reindex()
    assert agree(db)["hashed-test@1"] == 0
    app.update(a.meta.slug, body="This repository uses pnpm 9, never npm.")  # embedded inline
    assert agree(db)["hashed-test@1"] == 0
    app.forget(a.meta.slug)
    assert agree(db)["hashed-test@1"] == 0
    configure(tmp_path, V2)
    app = Memoryd()
    assert agree(db)["hashed-test@2"] == agree(db)["nobody@0"] > 0
    app.reindex()
    got = agree(db)
    assert got["hashed-test@2"] == 0 and got["hashed-test@1"] == got["nobody@0"]  # old rows gc'd


def test_a_damaged_row_counts_as_missing_until_reindex_replaces_it(
    isolated_home: Path, tmp_path: Path, project: Path
) -> None:
    configure(tmp_path, V1)
    app = Memoryd()
    app.record("fact", "Database", "Production runs PostgreSQL 16.", scope_path=project)
    app.record("fact", "Cache", "The cache is Redis 7.", scope_path=project)
    app.reindex()
    db = app.layout.index_db
    con = sqlite3.connect(db)
    fp = con.execute("SELECT fingerprint FROM vectors ORDER BY fingerprint").fetchone()[0]
    con.execute("UPDATE vectors SET data = ? WHERE fingerprint = ?", (b"\0" * 6, fp))  # wrong length
    con.commit()
    con.close()
    assert agree(db)["hashed-test@1"] == 1
    # embed_missing picks the row and writes its replacement (DELETE then INSERT)
    assert Memoryd().store.vectors.embed_missing(embed.load(app.config)) == 1  # type: ignore[arg-type]
    assert agree(db)["hashed-test@1"] == 0


def test_a_vector_written_meanwhile_is_replaced_not_counted_twice(
    isolated_home: Path, tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process embeds the same text between embed_missing's read and its write:
    the batch's row replaces that one (an INSERT OR REPLACE would count it twice)."""
    configure(tmp_path, V1)
    app = Memoryd()
    app.record("fact", "Database", "Production runs PostgreSQL 16.", scope_path=project)
    db = app.layout.index_db
    assert agree(db)["hashed-test@1"] == 1
    still_wanted = vectors._still_wanted

    def meanwhile(con: sqlite3.Connection, rows: list) -> list:  # type: ignore[type-arg]
        con.executemany(vectors._SET, rows)  # the other process's row, usable
        return still_wanted(con, rows)

    monkeypatch.setattr(vectors, "_still_wanted", meanwhile)
    assert Memoryd().store.vectors.embed_missing(embed.load(app.config)) == 1  # type: ignore[arg-type]
    assert agree(db)["hashed-test@1"] == 0


def test_counts_follow_marking_a_scope_sensitive_and_back(
    cli, secret_service: str, project: Path, isolated_home: Path
) -> None:
    """The default model (the CLI runs in another process, which must load it too)."""
    app = Memoryd()
    app.record("fact", "Bank", "We bank with Example Bank for every invoice.", scope_path=project)
    app.reindex()
    db = app.layout.index_db
    tags = (embed.tag(embed.load(app.config)), "nobody@0")  # type: ignore[arg-type]
    assert agree(db, tags)[tags[0]] == 0
    set_pin(cli)
    out = cli("mark-sensitive", str(project), stdin=PIN + "\n")
    assert out.returncode == 0, out.stderr
    assert agree(db, tags)[tags[0]] == 0  # sealed where it stood: clear refs and rows gone
    record(cli, project, "Payroll", "Salaries are paid from the Example account on the 25th.")
    assert agree(db, tags)[tags[0]] == 1  # a keyed ref, not embedded yet
    out = cli("reindex", "--json")
    assert out.returncode == 0, out.stderr
    assert agree(db, tags)[tags[0]] == 0  # sealed vector
    grant_tty(project)
    out = cli("unmark-sensitive", str(project))
    assert out.returncode == 0, out.stderr
    assert agree(db, tags)[tags[0]] == 0  # opened, not embedded anew


def _random_writes(con: sqlite3.Connection, rng: random.Random, steps: int) -> None:
    """Any SQL a writer may issue on the two tables, checked against the join each step."""
    fps = [f"fp{i}" for i in range(12)] + [f"k:fp{i}" for i in range(3)]
    models = ["hashed-test@1", "hashed-test@2"]
    slugs = [f"m{i}" for i in range(6)]

    def vec(sealed: int, good: bool) -> tuple[int, int, bytes]:
        return 4, sealed, b"\1" * (8 if good else rng.choice((0, 6, 9)))

    for _ in range(steps):
        op = rng.randrange(12)
        con.execute("BEGIN")
        if op == 0:  # one memory's refs rewritten, as Store._index does
            slug = rng.choice(slugs)
            items = [(1, p, rng.choice(fps)) for p in range(rng.randrange(4))]
            con.execute("DELETE FROM vector_refs WHERE slug = ?", (slug,))
            con.executemany(
                "INSERT INTO vector_refs (slug, level, part, fingerprint) VALUES (?, ?, ?, ?)",
                [(slug, lv, p, fp) for lv, p, fp in items],
            )
        elif op == 1:  # several rows of one fingerprint in one statement
            fp = rng.choice(fps)
            con.execute(
                "INSERT OR IGNORE INTO vector_refs (slug, level, part, fingerprint) "
                "SELECT 'bulk', 2, value, ? FROM json_each('[1, 2, 3]')",
                (fp,),
            )
        elif op == 2:
            con.execute("DELETE FROM vector_refs WHERE slug IN ('bulk', ?)", (rng.choice(slugs),))
        elif op == 3:
            con.execute(
                "UPDATE vector_refs SET fingerprint = ? WHERE rowid IN "
                "(SELECT rowid FROM vector_refs ORDER BY random() LIMIT 2)",
                (rng.choice(fps),),
            )
        elif op == 4:
            dim, sealed, data = vec(rng.randrange(2), rng.random() < 0.7)
            con.execute(
                "INSERT OR IGNORE INTO vectors (fingerprint, model, dim, sealed, data) "
                "VALUES (?, ?, ?, ?, ?)",
                (rng.choice(fps), rng.choice(models), dim, sealed, data),
            )
        elif op == 5:  # a batch of embed_missing: replace what it picked
            fp, model = rng.choice(fps), rng.choice(models)
            dim, sealed, data = vec(rng.randrange(2), rng.random() < 0.8)
            con.execute(vectors._UNSET, (fp, model))
            con.execute(vectors._SET, (fp, model, dim, sealed, data))
        elif op == 6:
            con.execute(
                "UPDATE vectors SET data = ?, sealed = ? WHERE fingerprint = ?",
                (vec(0, rng.random() < 0.5)[2], rng.randrange(2), rng.choice(fps)),
            )
        elif op == 7:
            con.execute("DELETE FROM vectors WHERE fingerprint = ?", (rng.choice(fps),))
        elif op == 8:
            vectors.gc(con, keep_model=rng.choice([None, *models]))
        elif op == 9:
            vectors.write_refs(con, rng.choice(slugs), [(1, 0, f"text {rng.randrange(5)}")], None)
        elif op == 10:
            vectors.drop_refs(con, rng.sample(slugs, 2))
        else:
            vectors.drop_clear_refs(con, rng.sample(slugs, 3))
        if rng.random() < 0.1:
            con.execute("ROLLBACK")
        else:
            con.execute("COMMIT")
        for model in (*models, "nobody@0"):
            fast = con.execute(
                "SELECT (SELECT n FROM vector_texts) - "
                "coalesce((SELECT n FROM vector_have WHERE model = ?), 0)",
                (model,),
            ).fetchone()[0]
            slow = con.execute(
                "SELECT count(DISTINCT r.fingerprint) FROM vector_refs r LEFT JOIN vectors v "
                "ON v.fingerprint = r.fingerprint AND v.model = ? WHERE (v.fingerprint IS NULL "
                "OR (v.sealed = 0 AND length(v.data) != v.dim * 2))",
                (model,),
            ).fetchone()[0]
            assert fast == slow, (op, model)


@pytest.mark.parametrize("seed", range(4))
def test_counts_equal_the_join_after_any_sql(tmp_path: Path, seed: int) -> None:
    db = tmp_path / "index.db"
    open_index(db).dispose()
    con = sqlite3.connect(db, isolation_level=None)
    try:
        _random_writes(con, random.Random(seed), 300)
    finally:
        con.close()


def test_a_store_migrated_from_017_starts_with_the_right_counts(tmp_path: Path) -> None:
    db = tmp_path / "index.db"
    con = sqlite3.connect(db, isolation_level=None)
    con.execute(
        "CREATE TABLE schema_migrations "
        "(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
    )
    for version, name, sql in migrations():
        if version > 17:
            break
        con.executescript(sql)
        con.execute("INSERT INTO schema_migrations VALUES (?, ?, 'then')", (version, name))
    con.executemany(
        "INSERT INTO vector_refs (slug, level, part, fingerprint) VALUES (?, ?, ?, ?)",
        [("a", 1, 0, "f1"), ("a", 1, 1, "f2"), ("b", 1, 0, "f2"), ("b", 2, 3, "f3"), ("c", 1, 0, "k:f4")],
    )
    con.executemany(
        "INSERT INTO vectors (fingerprint, model, dim, sealed, data) VALUES (?, ?, ?, ?, ?)",
        [
            ("f1", "hashed-test@1", 2, 0, b"\0" * 4),
            ("f2", "hashed-test@1", 2, 0, b"\0" * 3),  # damaged: missing
            ("k:f4", "hashed-test@1", 2, 1, b"\0" * 40),  # sealed
            ("f3", "hashed-test@2", 2, 0, b"\0" * 4),
            ("gone", "hashed-test@2", 2, 0, b"\0" * 4),  # no ref
        ],
    )
    con.close()
    open_index(db).dispose()
    assert agree(db) == {"hashed-test@1": 2, "hashed-test@2": 3, "nobody@0": 4}


def _steps_to_insert(db: Path, n: int) -> int:
    """SQLite VM steps (in thousands) to insert `n` refs of ONE text: the same short turn
    ("yes", "continue") recurs in thousands of sessions and every one is a ref to it."""
    con = sqlite3.connect(db)
    steps = 0

    def tick() -> int:
        nonlocal steps
        steps += 1
        return 0

    con.set_progress_handler(tick, 1000)
    with con:
        con.executemany(
            "INSERT INTO vector_refs (slug, level, part, fingerprint) VALUES (?, 2, 0, 'same-text')",
            [(f"s-{n}-{i}",) for i in range(n)],
        )
    con.set_progress_handler(None, 1000)
    con.close()
    return steps


def test_refs_of_one_text_insert_in_linear_steps(isolated_home: Path) -> None:
    """The insert trigger asks whether another ref of the text exists, which stops at the
    first one; counting them all cost k^2 for k refs (40,000 took 35 s). Counted in VM steps,
    not seconds, so a loaded machine cannot make it pass or fail: 4x the refs may cost about
    4x the steps (16x if quadratic)."""
    app = Memoryd()
    db = app.layout.index_db
    app.store.engine.dispose()
    small, big = _steps_to_insert(db, 1000), _steps_to_insert(db, 4000)
    assert big < small * 6, (small, big)
    v = vectors.Vectors(db)
    try:
        assert v.missing("hashed-test@1") == v.missing_join("hashed-test@1") == 1
    finally:
        v.close()
