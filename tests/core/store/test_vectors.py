"""Vectors as derived data (memoryd.vectors): one row per distinct text per model,
refs rewritten when a memory is indexed, unchanged text never embedded twice, a model
change re-embedding only what the new model lacks, and `similar` over the stored rows.
Real SQLite files; the real model where what it says matters, a counting test embedder
(tests/core/store/embedders.py, plugged in as `module:factory`) where counts matter."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from memoryd import embed, vectors
from memoryd.app import Memoryd

from . import embedders

V1 = "tests.core.store.embedders:v1"
V2 = "tests.core.store.embedders:v2"
LONG = " ".join(f"Step {i}: the deploy script copies build {i} to the staging host." for i in range(20))


@pytest.fixture(autouse=True)
def cold_process() -> None:
    """Each test starts as a fresh process would: no model loaded (so `record` does not
    embed inline until something loads it), nothing counted."""
    embed._loaded.clear()
    embedders.embedded.clear()


def configure(tmp_path: Path, model: str) -> None:
    (tmp_path / "config.toml").write_text(f'[search]\nembedding_model = "{model}"\n')


def record(cli, project: Path, body: str = "pnpm only") -> object:
    return cli("record", "--type", "fact", "--title", "T", "--body", body, "--scope", str(project))


def texts_in(db: Path) -> set[str]:
    con = sqlite3.connect(db)
    try:
        return {r[0] for r in con.execute("SELECT DISTINCT fingerprint FROM vector_refs")}
    finally:
        con.close()


def test_unchanged_text_is_never_embedded_twice_and_a_model_change_re_embeds(
    isolated_home: Path, tmp_path: Path, project: Path
) -> None:
    configure(tmp_path, V1)
    app = Memoryd()
    short = app.record("fact", "Package manager", "This repository uses pnpm.", scope_path=project)[0]
    app.record("playbook", "Deploy steps", LONG, scope_path=project)
    distinct = texts_in(app.layout.index_db)
    assert len(distinct) > 3  # the long body has several windows

    embedders.embedded.clear()
    rep = app.reindex()
    assert rep.model == "hashed-test@1"
    assert rep.embedded == len(distinct) == len(embedders.embedded) == len(set(embedders.embedded))
    assert app.store.vectors.missing("hashed-test@1") == 0

    embedders.embedded.clear()
    assert app.reindex().embedded == 0 and embedders.embedded == []  # nothing changed, nothing embedded

    # An edit embeds the edited memory's new text only, inline: the model is warm here.
    app.update(short.meta.slug, body="This repository uses pnpm 9, never npm.")
    assert embedders.embedded == ["Package manager. This repository uses pnpm 9, never npm."]

    # Another model: everything is embedded again under its tag, and the old rows go.
    configure(tmp_path, V2)
    app = Memoryd()
    report = app.doctor()
    assert report.vectors_model == "hashed-test@2"
    assert report.vectors_missing == len(texts_in(app.layout.index_db))
    assert report.vectors_stale > 0
    embedders.embedded.clear()
    rep = app.reindex()
    assert rep.embedded == len(texts_in(app.layout.index_db)) == len(embedders.embedded)
    counts = app.store.vectors.counts()
    assert counts["vectors"] == rep.embedded and app.store.vectors.stale("hashed-test@2") == 0
    assert counts["bytes"] == rep.embedded * embedders.DIM * 2  # float16


def test_the_same_text_in_two_memories_is_one_vector(isolated_home: Path, tmp_path: Path, project: Path):
    configure(tmp_path, V1)
    app = Memoryd()
    app.record("playbook", "Deploy steps", LONG, scope_path=project)
    app.record("playbook", "Deploy steps, again", LONG, scope_path=project)
    embedders.embedded.clear()
    app.reindex()
    # Both share every body window; only their first window (title + start) differs.
    assert len(embedders.embedded) == len(texts_in(app.layout.index_db))
    con = sqlite3.connect(app.layout.index_db)
    refs = con.execute("SELECT count(*) FROM vector_refs").fetchone()[0]
    con.close()
    assert refs == 2 * len(vectors.texts_of("Deploy steps", LONG, ()))
    assert refs - len(embedders.embedded) == len(vectors.texts_of("Deploy steps", LONG, ())) - 1


def test_forgotten_memories_lose_their_refs_and_gc_drops_their_vectors(
    isolated_home: Path, tmp_path: Path, project: Path
):
    configure(tmp_path, V1)
    app = Memoryd()
    doc = app.record("fact", "Database", "Production runs PostgreSQL 16.", scope_path=project)[0]
    app.reindex()
    assert app.store.vectors.counts()["vectors"] == 1
    e = embed.load(app.config)
    assert e is not None
    q = e.embed_query("Database. Production runs PostgreSQL 16.")
    h = app.scope(project).hash
    assert app.store.vectors.similar(q, scopes=[h], level=1, limit=3)[0][0] == doc.meta.slug
    app.forget(doc.meta.slug)
    assert app.store.vectors.similar(q, scopes=[h], level=1, limit=3) == []
    assert app.store.vectors.counts()["refs"] == 0
    # Its vector (and the text's plain sha256) went with it, not at the next gc.
    assert app.store.vectors.counts()["vectors"] == 0 and app.store.vectors.stale("hashed-test@1") == 0


def test_an_edit_drops_the_old_text_vector_a_shared_text_keeps_its_own(
    isolated_home: Path, tmp_path: Path, project: Path
):
    configure(tmp_path, V1)
    app = Memoryd()
    a = app.record("playbook", "Deploy steps", LONG, scope_path=project)[0]
    app.record("playbook", "Deploy steps, again", LONG, scope_path=project)
    app.reindex()
    app.forget(a.meta.slug)
    # Its first window (title + start) is gone; the body windows the other memory shares stay.
    assert app.store.vectors.counts()["vectors"] == len(vectors.texts_of("Deploy steps", LONG, ()))
    assert app.store.vectors.stale("hashed-test@1") == 0
    b = app.record("fact", "Cache", "The cache is Redis 7.", scope_path=project)[0]
    app.reindex()
    before = app.store.vectors.counts()["vectors"]
    app.update(b.meta.slug, body="The cache is Valkey 8.")
    app.reindex()
    assert app.store.vectors.counts()["vectors"] == before  # the old text's vector is gone
    assert app.store.vectors.stale("hashed-test@1") == 0


def test_similar_ranks_best_first_filters_and_sees_new_vectors(
    isolated_home: Path, tmp_path: Path, project: Path
) -> None:
    """The real model: a Chinese question finds the English memory it asks about; level 1
    gives each memory once (its best window), level 2 gives turns."""
    app = Memoryd()
    pm = app.record("fact", "Package manager", "We use pnpm, never npm or yarn.", scope_path=project)[0]
    db = app.record("fact", "Database", "Production runs PostgreSQL 16 on one host.", scope_path=project)[0]
    deploy = app.record("decision", "Deploy steps", LONG, scope_path=project)[0]
    app.reindex()
    e = embed.load(app.config)
    assert e is not None
    h = app.scope(project).hash
    v = app.store.vectors
    question = e.embed_query("这个项目用什么包管理器？")
    got = v.similar(question, scopes=[h], level=1, limit=3, model=embed.tag(e))
    assert got[0][0] == pm.meta.slug
    assert len({g[0] for g in got}) == len(got) == 3
    assert got == sorted(got, key=lambda g: -g[2])
    q = e.embed_query("which database runs in production")
    assert v.similar(q, scopes=[h], level=1, limit=1)[0][0] == db.meta.slug  # default model: the only one
    assert v.similar(q, scopes=["elsewhere"], level=1, limit=3) == []
    decisions = v.similar(q, scopes=None, level=1, limit=5, types=["decision"])
    assert {g[0] for g in decisions} == {deploy.meta.slug}
    assert v.similar(q, scopes=[h], level=1, limit=5, states=["dormant"]) == []
    step = v.similar(e.embed_query("build 17 to staging"), scopes=[h], level=1, limit=1)[0]
    assert step[0] == deploy.meta.slug and step[1] > 0  # a window past the first

    # A new memory is found once embedded (the cache notices), an edit replaces its vector.
    new = app.record("fact", "Editor", "Everyone here writes code in Helix.", scope_path=project)[0]
    assert app.store.vectors.missing(embed.tag(e)) == 0  # embedded inline: the model is warm
    q = e.embed_query("what text editor do we use")
    assert v.similar(q, scopes=[h], level=1, limit=1)[0][0] == new.meta.slug
    app.update(new.meta.slug, body="Everyone here writes code in Helix; the CI runs on Fridays.")
    assert app.store.vectors.missing(embed.tag(e)) == 0
    assert app.store.vectors.gc() == 0  # the old body's window went with the edit


def test_turns_are_level_two(cli, isolated_home: Path, tmp_path: Path, project: Path) -> None:
    from ..governance.sessions import capture

    configure(tmp_path, V1)
    slug = capture(
        cli,
        project,
        tmp_path,
        "vec-turns-1",
        [("Which port does the API listen on?", "It listens on 8443."), ("And the admin UI?", "Port 9000.")],
    )
    assert slug
    app = Memoryd()
    app.reindex()
    turns = app.store.files.read_turns(app.store.read(slug)[1])
    e = embed.load(app.config)
    assert e is not None
    got = app.store.vectors.similar(
        e.embed_query("And the admin UI?"), scopes=[app.scope(project).hash], level=2, limit=10
    )
    assert {(s, p) for s, p, _ in got} == {(slug, t.seq) for t in turns}
    assert got[0][1] == next(t.seq for t in turns if t.text == "And the admin UI?")
    assert got[0][2] == pytest.approx(1.0, abs=1e-2)  # the same text: float16 keeps the cosine near 1


def test_embedding_model_none_embeds_nothing_and_fails_nothing(
    cli, isolated_home: Path, tmp_path: Path, project: Path
) -> None:
    configure(tmp_path, "none")
    assert record(cli, project).returncode == 0
    out = cli("reindex", "--json")
    assert out.returncode == 0, out.stderr
    assert '"model": null' in out.stdout and '"embedded": 0' in out.stdout
    doctor = cli("doctor")
    assert doctor.returncode == 0 and "vectors" not in doctor.stdout, doctor.stdout
    assert Memoryd().store.vectors.counts()["vectors"] == 0


def test_an_unloadable_model_is_one_note_not_an_error(
    cli, isolated_home: Path, tmp_path: Path, project: Path
) -> None:
    configure(tmp_path, "no_such_module_here:factory")
    assert record(cli, project).returncode == 0
    out = cli("reindex")
    assert out.returncode == 0, out.stderr
    assert out.stderr.count("unavailable") == 1 and "Traceback" not in out.stderr, out.stderr


def test_a_memory_that_changes_type_is_found_under_its_new_type(
    isolated_home: Path, tmp_path: Path, project: Path
) -> None:
    """Its texts (and so its refs) stay the same; the cache that filters on type reloads."""
    from memoryd.models import MemoryType

    configure(tmp_path, V1)
    app = Memoryd()
    doc = app.record("fact", "Deploy day", "We deploy on Tuesdays only.", scope_path=project)[0]
    app.reindex()
    e = embed.load(app.config)
    assert e is not None
    q, h = e.embed_query("Deploy day. We deploy on Tuesdays only."), app.scope(project).hash
    assert app.store.vectors.similar(q, scopes=[h], level=1, limit=3, types=["decision"]) == []
    doc, _ = app.store.read(doc.meta.slug)
    doc.meta.type = MemoryType.decision
    app.store.save(doc, event="update", actor="test")
    assert (
        app.store.vectors.similar(q, scopes=[h], level=1, limit=3, types=["decision"])[0][0] == doc.meta.slug
    )


def test_an_embedder_returning_nan_stores_nothing_and_says_so_once(
    isolated_home: Path, tmp_path: Path, project: Path, caplog: pytest.LogCaptureFixture
):
    configure(tmp_path, "tests.core.store.embedders:broken")
    app = Memoryd()
    app.record("playbook", "Deploy steps", LONG, scope_path=project)
    caplog.clear()
    with caplog.at_level("WARNING", logger="memoryd.vectors"):
        app.reindex()
    assert app.store.vectors.counts()["vectors"] == 0
    assert app.store.vectors.missing("broken-test@1") == len(texts_in(app.layout.index_db))
    assert len([r for r in caplog.records if "invalid vectors" in r.getMessage()]) == 1


def test_a_damaged_vector_row_counts_as_missing_and_reindex_replaces_it(
    isolated_home: Path, tmp_path: Path, project: Path
):
    import numpy as np

    configure(tmp_path, V1)
    app = Memoryd()
    app.record("fact", "Database", "Production runs PostgreSQL 16.", scope_path=project)
    app.record("fact", "Cache", "The cache is Redis 7.", scope_path=project)
    app.reindex()
    con = sqlite3.connect(app.layout.index_db)
    fps = [r[0] for r in con.execute("SELECT fingerprint FROM vectors ORDER BY fingerprint")]
    nan = np.full(embedders.DIM, np.nan, dtype="<f2").tobytes()
    con.execute("UPDATE vectors SET data = ? WHERE fingerprint = ?", (b"\0" * 6, fps[0]))
    con.execute("UPDATE vectors SET data = ? WHERE fingerprint = ?", (nan, fps[1]))
    con.commit()
    con.close()
    app = Memoryd()
    e = embed.load(app.config)
    assert e is not None
    h = app.scope(project).hash
    hits = app.store.vectors.similar(e.embed_query("cache"), scopes=[h], level=1, limit=5)
    assert all(np.isfinite(s) for _, _, s in hits) and len(hits) == 0  # neither row is scored
    assert app.store.vectors.missing("hashed-test@1") >= 1  # the wrong length, in SQL
    assert app.doctor().vectors_invalid == 2
    assert app.reindex().embedded == 2
    assert app.store.vectors.missing("hashed-test@1") == 0 and app.store.vectors.invalid("hashed-test@1") == 0
    assert len(app.store.vectors.similar(e.embed_query("cache"), scopes=[h], level=1, limit=5)) == 2
