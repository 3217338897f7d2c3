"""Small deterministic embedders for the vector tests, plugged in as `module:factory`
through `[search] embedding_model` (the way a user plugs in another model). Each counts
the texts it embedded, so a test can tell what was embedded again and what was not."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from memoryd.embed import CHECK_TEXTS

DIM = 16
embedded: list[str] = []  # every text any of these embedded, in order


class Hashed:
    """A vector from the text's hash: equal texts equal vectors, different ones unrelated."""

    name = "hashed-test"
    dim = DIM

    def __init__(self, version: str) -> None:
        self.version = version

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        # embed.check tries a plug-in on its own texts when it loads: not a memory's
        embedded.extend(t for t in texts if t not in CHECK_TEXTS)
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for i, t in enumerate(texts):
            seed = int.from_bytes(hashlib.sha256(f"{self.version}\0{t}".encode()).digest()[:8], "little")
            v = np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)
            out[i] = v / np.linalg.norm(v)
        return out

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]


def v1() -> Hashed:
    return Hashed("1")


def v2() -> Hashed:
    return Hashed("2")


class Broken(Hashed):
    """Passes embed.check (its own texts embed fine), then returns NaN for a memory's."""

    name = "broken-test"

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        out = super().embed_documents(texts)
        for i, t in enumerate(texts):
            if t not in CHECK_TEXTS:
                out[i] = np.nan
        return out


def broken() -> Broken:
    return Broken("1")


class FailsAfterLoad(Hashed):
    """Passes the load-time check, then fails on every memory and query: a model whose
    runtime breaks after it loaded (out of memory, a remote model gone)."""

    name = "fails-after-load"

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if any(t not in CHECK_TEXTS for t in texts):
            raise RuntimeError("model crashed")
        return super().embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:
        if text not in CHECK_TEXTS:
            raise RuntimeError("model crashed")
        return super().embed_query(text)


def fails_after_load() -> FailsAfterLoad:
    return FailsAfterLoad("1")


class Crowd(Hashed):
    """Every query is one direction; a text holding "zqlong" has cosine 0.12 with it (under
    search's floor of 0.16), one holding "zqshort" 0.22 (over it), any other 0."""

    name = "crowd-test"

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        out = super().embed_documents(texts)
        for i, t in enumerate(texts):
            c = 0.22 if "zqshort" in t else 0.12 if "zqlong" in t else 0.0
            rest = out[i].copy()
            rest[0] = 0.0
            rest /= np.linalg.norm(rest)
            out[i] = rest * np.sqrt(1 - c * c)
            out[i][0] = c
        return out

    def embed_query(self, text: str) -> np.ndarray:
        if text in CHECK_TEXTS:
            return super().embed_query(text)
        v = np.zeros(DIM, dtype=np.float32)
        v[0] = 1.0
        return v


def crowd() -> Crowd:
    return Crowd("1")
