"""Real embeddings cached on disk, so a 100k-memory benchmark home is embedded once.

Why: the default model embeds about 100 texts a second on this machine, and a 100k store
holds a few hundred thousand texts (memory windows and session turns): hours of CPU per
build. The cache holds the model's own output, keyed by model tag and the text's SHA-256,
under /tmp (never in the repository). `CachedEmbedder` wraps the real model with the same
name, version and tag, answers from the cache and embeds what it lacks for real, so the
vectors a home gets through the product's own path (`Store.embed_vectors`) are
exactly the model's. Throughput figures are never taken through it.

    python bench/embedcache.py --size 100000 --scopes 1   # fill the cache for that corpus
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(tempfile.gettempdir()) / "memoryd-bench-embcache"
CHUNK = 2048  # texts per file: a kill loses at most one chunk


def _key(text: str) -> bytes:
    return hashlib.sha256(text.encode()).digest()


class Cache:
    """Append-only chunks of (sha256 digests, float16 vectors) for one model tag."""

    def __init__(self, tag: str, root: Path = ROOT) -> None:
        self.dir = root / tag.replace("/", "_")
        self.dir.mkdir(parents=True, exist_ok=True)
        self.index: dict[bytes, tuple[int, int]] = {}
        self.chunks: list[np.ndarray] = []
        for path in sorted(self.dir.glob("chunk-*.npz")):
            self._add(np.load(path))
        self.pending_keys: list[bytes] = []
        self.pending_vecs: list[np.ndarray] = []

    def _add(self, data: Any) -> None:
        n = len(self.chunks)
        vecs = data["vecs"]
        self.chunks.append(vecs)
        for row, key in enumerate(data["keys"]):
            self.index[bytes(key)] = (n, row)

    def __len__(self) -> int:
        return len(self.index) + len(self.pending_keys)

    def get(self, text: str) -> np.ndarray | None:
        at = self.index.get(_key(text))
        if at is None:
            return None
        return self.chunks[at[0]][at[1]].astype(np.float32)

    def put(self, texts: Sequence[str], vecs: np.ndarray) -> None:
        for text, vec in zip(texts, vecs, strict=True):
            key = _key(text)
            if key not in self.index:
                self.pending_keys.append(key)
                self.pending_vecs.append(vec.astype(np.float16))
        if len(self.pending_keys) >= CHUNK:
            self.flush()

    def flush(self) -> None:
        if not self.pending_keys:
            return
        keys = np.frombuffer(b"".join(self.pending_keys), dtype=np.uint8).reshape(-1, 32)
        data = {"keys": keys, "vecs": np.stack(self.pending_vecs)}
        path = self.dir / f"chunk-{len(self.chunks):05d}.npz"
        tmp = path.with_suffix(".tmp.npz")
        np.savez(tmp, **data)
        tmp.replace(path)
        self._add(data)
        self.pending_keys, self.pending_vecs = [], []


class CachedEmbedder:
    """The wrapped model's name, version and dimension; vectors from the cache where it
    has them, from the model (and then cached) where it does not. With `stand_in`, a text
    the cache lacks gets a deterministic random unit vector instead (never cached): for
    latency only, whose cost does not depend on the values, when there is no time to embed
    a big corpus; the report says how many texts got one."""

    def __init__(self, inner: Any, cache: Cache | None = None, *, stand_in: bool = False) -> None:
        from memoryd import embed

        self.inner = inner
        self.name, self.version, self.dim = inner.name, inner.version, inner.dim
        self.cache = cache or Cache(embed.tag(inner))
        self.stand_in = stand_in
        self.hits = self.computed = self.stand_ins = 0

    def _stand_in(self, text: str) -> np.ndarray:
        rng = np.random.default_rng(int.from_bytes(_key(text)[:8], "little"))
        vec = rng.standard_normal(self.dim).astype(np.float32)
        return vec / np.linalg.norm(vec)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        todo: list[int] = []
        for i, text in enumerate(texts):
            vec = self.cache.get(text)
            if vec is None:
                todo.append(i)
            else:
                out[i] = vec
        self.hits += len(texts) - len(todo)
        if todo and self.stand_in:
            for i in todo:
                out[i] = self._stand_in(texts[i])
            self.stand_ins += len(todo)
        elif todo:
            fresh = self.inner.embed_documents([texts[i] for i in todo])
            out[todo] = fresh
            self.cache.put([texts[i] for i in todo], fresh)
            self.computed += len(todo)
        return out

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)


def corpus_texts(size: int, seed: int, scopes: int) -> Iterator[str]:
    """The texts bench/corpus.py's memories give the model, level 1 first (what memory
    search needs), then the session turns (level 2)."""
    import corpus

    from memoryd.embed.texts import memory_texts, turn_text

    base = Path(tempfile.gettempdir()) / "memoryd-bench-embcache-scopes"
    turns_later: list[str] = []
    for doc, turns in corpus.generate(size, seed, base, scopes):
        users = [t.text for t in turns if t.role == "user"] if turns else []
        yield from memory_texts(doc.meta.title, doc.body, users)
        turns_later += [turn_text(t.text) for t in turns or ()]
    yield from turns_later


def fill(size: int, seed: int, scopes: int, batch: int = 64, level1_only: bool = False) -> None:
    from memoryd.embed.use import UseEmbedder

    emb = CachedEmbedder(UseEmbedder())
    texts = list(dict.fromkeys(corpus_texts(size, seed, scopes)))
    todo = [t for t in texts if emb.cache.get(t) is None]
    print(f"{len(texts)} distinct texts, {len(texts) - len(todo)} cached, {len(todo)} to embed", flush=True)
    t0 = time.perf_counter()
    for i in range(0, len(todo), batch):
        emb.embed_documents(todo[i : i + batch])
        if (i // batch) % 50 == 0:
            rate = (i + batch) / (time.perf_counter() - t0)
            print(f"  {i + batch}/{len(todo)}  {rate:.0f} texts/s", flush=True)
    emb.cache.flush()
    print(f"done in {time.perf_counter() - t0:.0f} s", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=100_000)
    ap.add_argument("--scopes", type=int, default=1)
    ap.add_argument("--seed", type=int, default=20240518)
    args = ap.parse_args(argv)
    fill(args.size, args.seed, args.scopes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
