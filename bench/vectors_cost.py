"""What vectors cost: embedding throughput and the bytes they add to index.db.

Why: vectors are derived data that the capture worker and `reindex` compute on this
machine's CPU (no GPU, no sidecar), and they live in index.db. Issue 20 asks for the
throughput at capture and reindex time (texts/s) and the size added per memory; this also
times `record`'s inline embedding with the model warm and a warm `similar()`.

A throwaway home gets synthetic short memories (bench/corpus.py) and synthetic captured
sessions (a few dozen turns of a few hundred characters); each set is embedded through
`Store.embed_vectors` (what the worker and `reindex` run), timed with the model already
built (its one-off build is reported apart). Sizes are index.db after a truncating WAL
checkpoint and VACUUM, before and after embedding.

    python bench/vectors_cost.py [--memories 1000] [--sessions 40] [--json]
"""

from __future__ import annotations

import argparse
import os
import random
import sqlite3
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import _common as c
import corpus


def size(db: Path) -> int:
    con = sqlite3.connect(db, isolation_level=None)
    try:
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        con.execute("VACUUM")
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        con.close()
    return db.stat().st_size


def sessions(n: int, scope_hash: str, seed: int = 7) -> list[tuple[Any, Any]]:
    from memoryd import slugs
    from memoryd.frontmatter import Document
    from memoryd.models import Frontmatter, MemoryType, default_ttl
    from memoryd.store import Turn

    gen = corpus.Generator(seed, 1)
    rng = random.Random(seed)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    out = []
    for i in range(n):
        when = start + timedelta(hours=i)
        lang = rng.choice(("en", "en", "zh"))
        turns = [
            Turn(
                t,
                "user" if t % 2 == 0 else "assistant",
                " ".join(
                    gen.sentence(lang) for _ in range(rng.randint(1, 2) if t % 2 == 0 else rng.randint(3, 6))
                ),
                when.isoformat(),
                None,
            )
            for t in range(rng.randint(16, 32))
        ]
        body = "Goal: " + turns[0].text + "\n\n" + " ".join(t.text for t in turns[1:6]) + "\n"
        title = f"Session {i}: {gen.title(lang)}"
        meta = Frontmatter(
            title=title,
            slug=f"{slugs.for_title(title, when)[:-5]}-s{i:05d}",
            type=MemoryType.session,
            scope_hash=scope_hash,
            source="claude-code",
            created_at=when,
            updated_at=when,
            ttl_days=default_ttl(MemoryType.session),
            session_id=f"bench-{i}",
        )
        out.append((Document(meta=meta, body=body), turns))
    return out


def embed_phase(app: Any, embedder: Any) -> tuple[int, float]:
    started = time.perf_counter()
    n = app.store.embed_vectors(embedder)
    return n, time.perf_counter() - started


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--memories", type=int, default=1000)
    ap.add_argument("--sessions", type=int, default=40)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    home = c.temp_dir("vectors")
    os.environ.update(c.isolated_env(home / "data"))
    from memoryd import embed
    from memoryd.app import Memoryd
    from memoryd.scope import hash_root

    app = Memoryd()
    embedder = embed.load(app.config, print)
    if embedder is None:
        print("no embedding model available", file=sys.stderr)
        return 1
    built = time.perf_counter()
    embedder.embed_documents(["warm up"])
    build_s = time.perf_counter() - built
    db = app.layout.index_db
    store = app.store

    # Short memories (records): corpus memories that are not sessions.
    docs = [(d, None) for d, t in corpus.generate(args.memories * 2, 11, home / "scopes") if t is None]
    docs = docs[: args.memories]
    store.save_many(docs, actor="bench")
    before = size(db)
    short_texts, short_s = embed_phase(app, embedder)
    short_bytes = size(db) - before

    scope = hash_root(home / "scopes" / "sessions")
    store.save_many(sessions(args.sessions, scope), actor="bench")
    before = size(db)
    session_texts, session_s = embed_phase(app, embedder)
    session_bytes = size(db) - before

    # record, with the model warm (MCP server, tray): the whole call, and its embedding.
    project = home / "scopes" / "records"
    project.mkdir(parents=True)
    times, one = [], []
    for i in range(20):
        body = f"Record {i} keeps the {i}th build on the staging host."
        t0 = time.perf_counter()
        doc, _ = app.record("fact", f"Inline {i}", body, scope_path=project)
        times.append(time.perf_counter() - t0)
        with store.writing(), store.vectors._write() as con:  # its vector again, to time it alone
            con.execute(
                "DELETE FROM vectors WHERE fingerprint IN "
                "(SELECT fingerprint FROM vector_refs WHERE slug = ?)",
                (doc.meta.slug,),
            )
        t0 = time.perf_counter()
        store.embed_vectors(embedder, slugs=[doc.meta.slug])
        one.append(time.perf_counter() - t0)

    # similar(): warm, level 1, over the short memories' biggest scope.
    from memoryd import vectors as v

    con = sqlite3.connect(db)
    top_scope = con.execute(
        "SELECT scope_hash FROM memories WHERE type != 'session' "
        "GROUP BY scope_hash ORDER BY count(*) DESC LIMIT 1"
    ).fetchall()[0][0]
    con.close()
    q = embedder.embed_query("which cache timeout broke the deploy")
    store.vectors.similar(q, scopes=[top_scope], level=v.MEMORY, limit=10)  # loads the matrix
    lat = []
    for _ in range(50):
        t0 = time.perf_counter()
        store.vectors.similar(q, scopes=[top_scope], level=v.MEMORY, limit=10)
        lat.append(time.perf_counter() - t0)
    lat_all = []
    for _ in range(20):
        t0 = time.perf_counter()
        store.vectors.similar(q, scopes=None, level=v.MEMORY, limit=10)
        lat_all.append(time.perf_counter() - t0)

    counts = store.vectors.counts()
    result = {
        "machine": c.machine(),
        "model": embed.tag(embedder),
        "model_build_s": round(build_s, 2),
        "short": {
            "memories": len(docs),
            "texts": short_texts,
            "texts_per_s": round(short_texts / short_s, 1),
            "bytes_per_memory": round(short_bytes / len(docs)),
        },
        "sessions": {
            "sessions": args.sessions,
            "texts": session_texts,
            "texts_per_s": round(session_texts / session_s, 1),
            "bytes_per_session": round(session_bytes / args.sessions),
        },
        "record_warm_ms_p50": round(c.median(times) * 1000, 1),
        "record_embed_one_ms_p50": round(c.median(one) * 1000, 1),
        "similar_level1_one_scope_ms_p50": round(c.median(lat) * 1000, 2),
        "similar_level1_all_scopes_ms_p50": round(c.median(lat_all) * 1000, 2),
        "vectors": counts,
    }

    def text() -> None:
        s, ss = result["short"], result["sessions"]
        print(f"model {result['model']} (built in {result['model_build_s']} s)")
        print(
            f"short memories: {s['memories']} -> {s['texts']} texts at {s['texts_per_s']} texts/s; "
            f"+{s['bytes_per_memory']} bytes of index.db per memory"
        )
        print(
            f"captured sessions: {ss['sessions']} -> {ss['texts']} texts at {ss['texts_per_s']} texts/s; "
            f"+{ss['bytes_per_session']} bytes per session"
        )
        print(
            f"record (model warm): {result['record_warm_ms_p50']} ms p50, "
            f"of which embedding one memory {result['record_embed_one_ms_p50']} ms"
        )
        print(
            f"similar level 1: {result['similar_level1_one_scope_ms_p50']} ms p50 (one scope), "
            f"{result['similar_level1_all_scopes_ms_p50']} ms (all scopes)"
        )

    return c.finish(result, args.json, text)


if __name__ == "__main__":
    sys.exit(main())
