"""The canary, for vectors: an embedding can be inverted to text, so none derived from a
sensitive scope's plaintext lies on disk in the clear. The bytes of the real model's
embedding of a memory (float16 as stored, and float32) are found under the data directory
before the scope is marked (so their absence later means something) and nowhere after:
not in index.db, its WAL, or any other file. Marking seals the vectors it finds (no new
embedding), a memory recorded afterwards gets a sealed one, and unmarking opens them."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from memoryd import embed, vectors
from memoryd.app import Memoryd
from memoryd.sensitive.keys import Keys

from ..sensitive.support import CANARY, PIN, grant_tty, record, set_pin


def needles(app: Memoryd, title: str, body: str) -> list[bytes]:
    """Pieces of the memory's plaintext vectors, as float16 (stored) and float32."""
    e = embed.load(app.config)
    assert e is not None
    texts = [t for _, _, t in vectors.texts_of(title, body, ())]
    out = []
    for vec in e.embed_documents(texts):
        for blob in (np.asarray(vec, dtype="<f2").tobytes(), np.asarray(vec, dtype="<f4").tobytes()):
            out += [blob[:48], blob[-48:]]
    return out


def found(home: Path, pieces: list[bytes], *apps: Memoryd) -> list[str]:
    """Read in this process, so its own connections close first: opening and closing the
    database's files here would drop this process's POSIX locks on them, and another
    process's last close would then delete the WAL under a connection still open."""
    for app in apps:
        app.store.engine.dispose()
        app.store.vectors.close()
    return sorted(
        str(p.relative_to(home))
        for p in home.rglob("*")
        if p.is_file() and any(n in p.read_bytes() for n in pieces)
    )


def test_no_plaintext_vector_of_a_sensitive_scope_on_disk(
    cli, secret_service: str, project: Path, isolated_home: Path
) -> None:
    app = Memoryd()
    title, body = f"Bank {CANARY}", f"We bank with {CANARY} for every invoice, since March."
    app.record("fact", title, body, scope_path=project)
    app.reindex()
    before = needles(app, title, body)
    assert {"index.db", "index.db-wal"} & set(found(isolated_home, before, app))  # the scan sees them
    h = app.scope(project).hash

    set_pin(cli)
    out = cli("mark-sensitive", str(project), stdin=PIN + "\n")
    assert out.returncode == 0, out.stderr
    assert found(isolated_home, before, app) == []
    app = Memoryd()
    counts = app.store.vectors.counts()
    assert counts["vectors"] == counts["sealed"] == 1  # sealed where it stood, not dropped
    tag = f"use-multilingual-v3@{embed.load(app.config).version}"  # type: ignore[union-attr]
    assert app.store.vectors.missing(tag) == 0
    e = embed.load(app.config)
    assert e is not None
    q = e.embed_query("which bank do we use for invoices")
    assert app.store.vectors.similar(q, scopes=[h], level=1, limit=5) == []  # never the sensitive scope
    key = Keys(app.layout).get(h)
    sealed = app.store.vectors.similar_sealed(q, h, key, level=1, limit=5)
    assert len(sealed) == 1 and sealed[0][2] > 0.2

    # A memory recorded into the marked scope, embedded by reindex: sealed from the start.
    title2, body2 = f"Payroll {CANARY}", f"Salaries are paid from the {CANARY} account on the 25th."
    record(cli, project, title2, body2)
    out = cli("reindex", "--json")
    assert out.returncode == 0 and '"embedded": 1' in out.stdout, (out.stdout, out.stderr)
    after = needles(app, title2, body2)
    assert found(isolated_home, before + after, app) == []
    counts = app.store.vectors.counts()
    assert counts["vectors"] == counts["sealed"] == 2

    # Unmarked: the vectors are opened (plain again, the same bytes), not embedded anew.
    grant_tty(project)
    out = cli("unmark-sensitive", str(project))
    assert out.returncode == 0, out.stderr
    app = Memoryd()
    assert app.store.vectors.counts()["sealed"] == 0
    assert app.store.vectors.missing(tag) == 0
    assert found(isolated_home, before, app) and found(isolated_home, after, app)
    assert app.store.vectors.similar(q, scopes=[h], level=1, limit=1)


def test_without_the_key_nothing_is_embedded(cli, secret_service: str, project: Path, isolated_home: Path):
    """A passphrase scope with no grant: its memory waits for a vector, and the reindex
    says so instead of embedding it in the clear."""
    from ..sensitive.support import PASSPHRASE, grant_passphrase

    out = cli("mark-sensitive", "--passphrase", str(project), stdin=PASSPHRASE + "\n")
    assert out.returncode == 0, out.stderr
    grant_passphrase(cli, project, "session")
    record(cli, project, f"Vault {CANARY}", f"The vault code is kept by {CANARY}.")
    assert cli("revoke", str(project)).returncode == 0
    out = cli("reindex", "--json")
    assert out.returncode == 0 and '"embedded": 0' in out.stdout, (out.stdout, out.stderr)
    assert Memoryd().store.vectors.counts()["vectors"] == 0
    grant_passphrase(cli, project, "session")
    out = cli("reindex", "--json")
    assert out.returncode == 0 and '"embedded": 1' in out.stdout, (out.stdout, out.stderr)
    counts = Memoryd().store.vectors.counts()
    assert counts["vectors"] == counts["sealed"] == 1


WORKER_EMBED = (
    "from memoryd.app import Memoryd\n"
    "from memoryd.capture.worker import embed_new\n"
    "app = Memoryd()\n"
    "print(embed_new(app.store, app.config))\n"
)


def test_a_batch_embedded_across_a_mark_writes_no_clear_vector(
    cli, secret_service: str, project: Path, isolated_home: Path, tmp_path: Path
) -> None:
    """Two processes: the capture worker's embedding run reads a plain memory's text and is
    held before its batch commits; the scope is marked sensitive meanwhile; then the batch goes on. Its clear
    vector, keyed by the plain sha256 of the text, must not be written."""
    import os
    import subprocess
    import sys
    import time

    title, body = f"Bank {CANARY}", f"We bank with {CANARY} for every invoice, since March."
    record(cli, project, title, body)
    app = Memoryd()
    pieces = needles(app, title, body)
    assert found(isolated_home, pieces, app) == []  # the CLI's record embeds nothing
    gate = tmp_path / "gate"
    gate.mkdir()
    env = {**os.environ, "MEMORYD_PAUSE_AT": "vectors:flush", "MEMORYD_PAUSE_DIR": str(gate)}
    embedding = subprocess.Popen(
        [sys.executable, "-c", WORKER_EMBED],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 90
        while not (gate / "vectors:flush.reached").exists():
            assert embedding.poll() is None, embedding.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.05)
        set_pin(cli)
        out = cli("mark-sensitive", str(project), stdin=PIN + "\n")
        assert out.returncode == 0, out.stderr
    finally:
        (gate / "vectors:flush.go").touch()
        _out, stderr = embedding.communicate(timeout=120)
    assert embedding.returncode == 0, stderr
    assert found(isolated_home, pieces) == []
    app = Memoryd()
    assert app.store.vectors.counts()["sealed"] == app.store.vectors.counts()["vectors"]


def test_a_long_lived_process_forgets_a_newly_sensitive_scopes_vectors(
    cli, secret_service: str, project: Path, tmp_path: Path, isolated_home: Path
) -> None:
    """The MCP server holds every memory's vectors in memory from its start (preload). When
    another process marks a scope sensitive, the server's next search reloads the matrix:
    the scope's plaintext vectors must leave the process's memory too, not linger as dead
    rows of its pool (a memory dump could invert them)."""
    other = tmp_path / "other"
    other.mkdir()
    app = Memoryd(warm=True)
    model = app.embedder()
    assert model is not None
    title, body = f"Bank {CANARY}", f"We bank with {CANARY} for every invoice, since March."
    app.record("fact", title, body, scope_path=project)  # the model is warm: embedded inline
    app.record("fact", "Editor", "Everyone uses the same editor settings.", scope_path=other)
    app.preload().join(timeout=120)
    texts = [t for _, _, t in vectors.texts_of(title, body, ())]
    held = [np.asarray(v, dtype="<f2").astype("<f4").tobytes() for v in model.embed_documents(texts)]
    pieces = [b[:64] for b in held] + [b[-64:] for b in held]  # as the pool holds them: read from float16

    def in_memory() -> bool:
        pools = [m.pool for key, m in vectors._cache.items() if key[0] == str(app.layout.index_db.resolve())]
        assert pools
        return any(n in p.data[: p.n].tobytes() for p in pools for n in pieces)

    assert in_memory()  # the check sees them while the scope is clear
    set_pin(cli)
    out = cli("mark-sensitive", str(project), stdin=PIN + "\n")
    assert out.returncode == 0, out.stderr
    app.search("editor settings", scopes=None, count_recall=False)  # reloads the changed matrix
    assert not in_memory()
