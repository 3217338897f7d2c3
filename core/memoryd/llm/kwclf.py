"""Which of the ranked terms are a memory's keywords in a language other than English and
Chinese, learned: a small L2 logistic regression over what the hand-written ranking
(memoryd.keyterms) weighs each term by and how close the term sits in meaning to the text
(the store's multilingual embedder: the term's cosine to the whole text and to its nearest
sentence), the way KeyBERT-style extractors choose.

The ranking knows English (a word's cost under the embedder's tokenizer) and Chinese (the
segmenter's dictionary) and was tuned on labelled sessions in both; in other languages it
has only their grammar words, and its cut (the best three, then what scores half the best)
keeps many terms nobody searches by. There the meaning carries what the ranking lacks: on
the sets written blind in eight other languages the learned choice gained precision and
recall on every one (docs/benchmarks.md). In English and Chinese it was measured too and
is not used: better on five of the six sets no rule saw, worse on held_out, the set the
targets are judged on, whose annotator the ranking was tuned to (the same writer's dev).

A term is kept when its probability reaches THRESHOLD (the likeliest one always), at most
`limit`; the kept terms are ordered by probability times the store's rarity, as the ranking
orders by its score times the rarity. The choice itself does not read the store: the
labelled sessions it was fitted on each stand in a project of their own, where every term's
rarity is the same. The weights (kwclf.json, beside this module) are fitted by
bench/train_kwclf.py on the English and Chinese dev sets of tests/data/proposals and tagged
with the embedder they were trained with: another model, an unreadable file, or any failure
answers None and the ranking's own cut decides. The ranking's evidence feeds the weights,
so **re-fit them whenever memoryd.keyterms or the rules provider's reading changes**
(`python3 bench/train_kwclf.py`; its `--check`, run by tests/core/llm/test_kwclf.py, fails
when the committed weights are stale).

numpy only, imported on first use (memoryd.lazynp): importing this module costs nothing.
"""

from __future__ import annotations

import functools
import json
import logging
import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memoryd import fusion, keyterms
from memoryd.lazynp import np

if TYPE_CHECKING:
    from memoryd.embed import Embedder

log = logging.getLogger(__name__)

SPEC = 2  # the feature layout below; a change needs new weights
FEATURES = (
    "log count",
    "log prior",
    "log prior before the role",
    "read as a verb",
    "states the point",
    "log share of the best score",
    "log rank",
    "first place",
    "han",
    "compound",
    "length",
    "capitalised",
    "digit",
    "known to the dictionary",
    "cosine to the text",
    "cosine to the nearest sentence",
    "cosine to the text, below the best term's",
)
# Kept from this probability on: the cut with the best balance of precision and recall (F1)
# over the nested leave-one-set-out predictions of the six training sets (flat from 0.30
# to 0.40; bench/train_kwclf.py). 0.5, the fewest wrong keep-or-drop calls, kept too few.
THRESHOLD = 0.35
POOL = 64  # terms weighed (keyterms.candidates)
MAX_SENTENCES = 40
MAX_SENTENCE_CHARS = 500  # a pasted log line is not embedded whole
MAX_TEXT_CHARS = 2000
WEIGHTS = Path(__file__).with_name("kwclf.json")
_HAN = re.compile(r"[\u4e00-\u9fff]")


def sentences(text: str) -> list[str]:
    """The lines of `text` the analysis joined (one sentence each), as embedded."""
    return [line[:MAX_SENTENCE_CHARS] for line in text.split("\n") if line.strip()][:MAX_SENTENCES]


def features(text: str, pool: Sequence[keyterms.Candidate], embedder: Embedder) -> np.ndarray:
    """One row per candidate (in `pool`'s order): the classifier's input in training and
    in use alike."""
    if not pool:
        return np.zeros((0, len(FEATURES)), dtype=np.float64)
    lines = sentences(text) or [text[:MAX_TEXT_CHARS] or " "]
    texts = [c.shown[:MAX_SENTENCE_CHARS] for c in pool] + [text[:MAX_TEXT_CHARS] or " "] + lines
    vectors = np.asarray(embedder.embed_documents(texts), dtype=np.float64)
    norms = np.linalg.norm(vectors, axis=-1)
    if vectors.ndim != 2 or not np.isfinite(norms).all() or np.abs(norms - 1.0).max() > 0.01:
        raise ValueError("the embedder gave no unit vectors, which the weights were trained on")
    terms, whole, lined = vectors[: len(pool)], vectors[len(pool)], vectors[len(pool) + 1 :]
    to_text = terms @ whole
    to_line = (terms @ lined.T).max(axis=1)
    # The ranking's score without the store's rarity: the labelled sessions each stand in a
    # project of their own, so training never saw a rarity other than 1 (the store orders
    # what is kept, `choose`, but does not decide it).
    base = [c.score / c.rarity for c in pool]
    top = max(base)
    rank = {i: r for r, i in enumerate(sorted(range(len(pool)), key=lambda i: -base[i]))}
    rows = []
    for i, c in enumerate(pool):
        rows.append(
            [
                math.log(c.count),
                math.log(c.prior),
                math.log(c.stated),
                float(c.prior < c.stated),
                float(c.focused),
                math.log(base[i] / top) if base[i] > 0 and top > 0 else -10.0,
                math.log(1 + rank[i]),
                c.first,
                float(bool(_HAN.search(c.key))),
                float(" " in c.key),
                min(len(c.key), 20) / 10,
                float(any(ch.isupper() for ch in c.shown)),
                float(any(ch.isdigit() for ch in c.key)),
                float(c.known),
                float(to_text[i]),
                float(to_line[i]),
                float(to_text[i] - to_text.max()),
            ]
        )
    return np.asarray(rows, dtype=np.float64)


@dataclass(frozen=True)
class Model:
    embedder: str  # memoryd.embed.tag of the model the weights were trained with
    mean: Any  # np.ndarray: standardisation of each feature
    scale: Any
    weights: Any  # on standardised features
    bias: float

    def probabilities(self, X: np.ndarray) -> np.ndarray:
        z = ((X - self.mean) / self.scale) @ self.weights + self.bias
        return 1.0 / (1.0 + np.exp(-np.clip(z, -30.0, 30.0)))


@functools.cache
def model() -> Model | None:
    """The committed weights, read once per process; None when they cannot be used."""
    try:
        return read(WEIGHTS)
    except Exception as exc:  # a damaged or foreign file: the ranking's cut decides
        log.debug("keyword chooser weights unusable: %s", exc)
        return None


def read(path: Path) -> Model:
    data = json.loads(path.read_text(encoding="utf-8"))
    if data["spec"] != SPEC or tuple(data["features"]) != FEATURES:
        raise ValueError(f"spec {data['spec']}; this code reads spec {SPEC}")
    mean, scale = np.asarray(data["mean"], dtype=np.float64), np.asarray(data["scale"], dtype=np.float64)
    weights = np.asarray(data["weights"], dtype=np.float64)
    d = len(FEATURES)
    if mean.shape != (d,) or scale.shape != (d,) or weights.shape != (d,) or not np.all(scale > 0):
        raise ValueError(f"shapes {mean.shape} {scale.shape} {weights.shape} for {d} features")
    return Model(str(data["embedder"]), mean, scale, weights, float(data["bias"]))


def choose(
    text: str,
    limit: int,
    *,
    embedder: Embedder,
    rarity: keyterms.Rarity | None = None,
    focus: str | None = None,
) -> list[str] | None:
    """At most `limit` keywords of `text`, most likely first; None where the ranking's own
    cut decides (keyterms.keywords): a text in English or Chinese (see the module's
    docstring), no usable weights, another embedder, a failure."""
    from memoryd.embed import tag

    m = model()
    if m is None or limit <= 0 or not other_language(text):
        return None
    try:
        if tag(embedder) != m.embedder:
            return None
        pool = keyterms.candidates(text, rarity=rarity, focus=focus, pool=POOL)
        if not pool:
            return []
        p = m.probabilities(features(text, pool, embedder))
    except Exception as exc:  # a model that fails on this text: the ranking answers
        log.debug("keyword chooser failed: %s", exc)
        return None
    return [pool[i].shown for i in pick(p, [c.rarity for c in pool], limit)]


def pick(p: Sequence[float], rarity: Sequence[float], limit: int) -> list[int]:
    """Which terms to keep, by their probabilities `p`: every likely one (the likeliest
    always: a memory with no trigger cannot be recalled by one), ordered as the ranking
    orders, by the store's rarity times the evidence, at most `limit`."""
    kept = [i for i in range(len(p)) if p[i] >= THRESHOLD] or ([int(np.argmax(p))] if len(p) else [])
    kept.sort(key=lambda i: (-p[i] * rarity[i], -p[i], i))
    return kept[:limit]


def other_language(text: str) -> bool:
    """Whether `text` is written mainly in a language other than English and Chinese (the
    ranking's own cut decides in those two): its main script, and for the Latin script
    the language its function words tell. A name or a greeting in another script does not
    make an English or Chinese text foreign."""
    if not text.isascii():
        text = unicodedata.normalize("NFC", text)  # NFD hangul is letters, not syllables
    found = fusion.language(text)
    return found not in (None, "en", "latin", "han")
