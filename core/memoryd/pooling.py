"""One score per memory from the cosines of its windows (level 1).

A memory is cut into windows of a few hundred characters (memoryd.embed.texts). Scoring it
by its best window alone treats a session that talks about the question in one aside like
one that talks about it throughout. A soft maximum (log-sum-exp at a temperature) is the
best window's cosine plus a little for every other window nearly as close:

    pooled = best + T * log(sum(exp((cosine - best) / T)))

A one-window memory scores its cosine; the bonus is at most T * log(windows) and comes
only from windows within a few T of the best. T = 0.05 is about half the gap the default
model leaves between a question's own memory and its neighbours (issue 20).

Measured on LongMemEval_S (dev split, all 209 questions; issue 20), hybrid recall_all@5
0.943 -> 0.952 at T = 0.05, the same 0.952 from T = 0.03 to 0.05 and 0.947-0.952 at 0.06;
recall_any@5 unchanged (0.976). Pooling only the best two to four windows gained less
(0.947). The pooled score ranks; floors that decide whether a memory is close to the
question at all look at the best window's cosine (`peak`), since a long memory's bonus
would otherwise lift a question about nothing stored over them.
"""

from __future__ import annotations

from memoryd.lazynp import np

TEMPERATURE = 0.05


def pooled(scores: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(pooled score, best cosine) per group, a group being scores[starts[i]:starts[i + 1]]
    (the last runs to the end). A group of -inf (filtered out) stays -inf."""
    if not len(starts):
        empty = np.zeros(0, dtype=np.float32)
        return empty, empty
    best = np.maximum.reduceat(scores, starts)
    lens = np.diff(np.append(starts, len(scores)))
    with np.errstate(invalid="ignore", over="ignore"):
        ex = np.exp((scores - np.repeat(best, lens)) / TEMPERATURE)
        soft = best + TEMPERATURE * np.log(np.add.reduceat(ex, starts))
    soft = np.where(np.isfinite(best), soft, best).astype(np.float32)
    return soft, best


def pooled_one(scores: list[float]) -> tuple[float, float]:
    """`pooled` of one memory's windows."""
    soft, best = pooled(np.asarray(scores, dtype=np.float32), np.zeros(1, dtype=np.int64))
    return float(soft[0]), float(best[0])
