"""Fit the rules provider's session-type classifier (memoryd.llm.typeclf) and write its
weights, core/memoryd/llm/typeclf.json.

Trains on the dev sets only: the rows of tests/data/proposals/sessions.jsonl whose split is
"dev" (a held_out row is dropped as its line is parsed, never kept) and sessions_dev2..6
(dev7 and dev8 are kept blind, as checks). The L2 strength is the one whose
leave-one-set-out predictions, read through the gates as typeclf.classify reads them
(`shipped`), type the most sessions right: the classifier is used through its gates, and a
strength chosen on its own accuracy can flatten its probabilities so that the gates hold
where it was right. The accuracy printed per set is a nested leave-one-set-out (the
strength chosen on the other sets only, the held set never seen), beside the cues'
accuracy on it: the honest figure, since the proposal bench's dev columns are training
data now.

    PYTHONPATH=core python3 bench/train_typeclf.py            # fit, report, write
    PYTHONPATH=core python3 bench/train_typeclf.py --check    # fail if the committed weights are stale

Re-fit whenever memoryd.llm.cues changes: its cue features feed the weights. numpy only
(plain L-BFGS below), so --check runs wherever the tests do.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "core"))

from memoryd import embed  # noqa: E402
from memoryd.llm import rules, typeclf  # noqa: E402

DATA = ROOT / "tests" / "data" / "proposals"
SETS = {
    "dev": "sessions.jsonl",
    "dev2": "sessions_dev2.jsonl",
    "dev3": "sessions_dev3.jsonl",
    "dev4": "sessions_dev4.jsonl",
    "dev5": "sessions_dev5.jsonl",
    "dev6": "sessions_dev6.jsonl",
}
LAMBDAS = (1e-4, 1e-3, 1e-2, 3e-2, 1e-1, 3e-1, 1.0, 3.0)
DIGITS = 6  # significant digits kept in the file
K = len(typeclf.CLASSES)


@dataclass
class Rows:
    sets: np.ndarray  # set name per row
    y: np.ndarray  # class index per row
    X: np.ndarray  # typeclf.features per row
    cues: np.ndarray  # the cues' own class index per row (rules.score without an embedder)
    explicit: np.ndarray  # whether the cues read the type from its own words (typeclf.explicit)
    fix: np.ndarray  # whether the cues read a routine fix (typeclf.routine_fix)
    gated: np.ndarray  # whether the session is one turn, where all the cues' gates hold (typeclf.gated)
    marked: np.ndarray  # whether the user marked a typed sentence as one to keep (typeclf.marked)


def sessions() -> list[tuple[str, str, list[str]]]:
    """(set, expected type, user turns) of every dev row; held_out rows are never kept."""
    out = []
    for name, filename in SETS.items():
        with open(DATA / filename, encoding="utf-8") as fh:
            for line in fh:
                row = json.loads(line)
                if row.get("split") == "held_out":
                    del row
                    continue
                if name == "dev" and row.get("split") != "dev":
                    continue
                users = [t[1] for t in row["turns"] if len(t) == 2 and t[0] == "user"]  # a tool turn has 4
                out.append((name, row["expected_type"], users))
    return out


def build(embedder: embed.Embedder) -> Rows:
    sets, y, X, by_cues, explicit, fix, gated, marked = [], [], [], [], [], [], [], []
    for name, expected, users in sessions():
        sets.append(name)
        y.append(typeclf.CLASSES.index(expected))
        X.append(typeclf.features(users, embedder))
        said = rules.score(users[0][:79] if users else "", "", user_turns=users).type
        by_cues.append(typeclf.CLASSES.index("session" if said == "none" else said))
        read = typeclf.read_cues(users)
        explicit.append(typeclf.explicit(read))
        fix.append(typeclf.routine_fix(read))
        gated.append(typeclf.gated(users))
        marked.append(typeclf.marked(read))
    return Rows(
        np.array(sets),
        np.array(y),
        np.array(X),
        np.array(by_cues),
        np.array(explicit),
        np.array(fix),
        np.array(gated),
        np.array(marked),
    )


def lbfgs(
    f: Callable[[np.ndarray], tuple[float, np.ndarray]],
    x: np.ndarray,
    *,
    iters: int = 3000,
    memory: int = 10,
    tol: float = 1e-7,
) -> np.ndarray:
    """Minimise a smooth convex f (value and gradient) by L-BFGS with a backtracking
    (Armijo) line search: scipy is no dependency of memoryd."""
    fx, g = f(x)
    S: list[np.ndarray] = []
    Y: list[np.ndarray] = []
    for _ in range(iters):
        if np.max(np.abs(g)) < tol:
            break
        q = g.copy()
        alphas = []
        for s, yv in zip(reversed(S), reversed(Y), strict=True):
            a = (s @ q) / (yv @ s)
            q -= a * yv
            alphas.append(a)
        if S:
            q *= (S[-1] @ Y[-1]) / (Y[-1] @ Y[-1])
        for s, yv, a in zip(S, Y, reversed(alphas), strict=True):
            q += s * (a - (yv @ q) / (yv @ s))
        d = -q
        slope = g @ d
        if slope >= 0:  # not a descent direction: restart from the gradient
            S.clear()
            Y.clear()
            d, slope = -g, -(g @ g)
        t = 1.0 if S else min(1.0, 1.0 / max(1e-12, np.max(np.abs(g))))
        while True:
            xn = x + t * d
            fn, gn = f(xn)
            if fn <= fx + 1e-4 * t * slope or t < 1e-12:
                break
            t *= 0.5
        s, yv = xn - x, gn - g
        if s @ yv > 1e-12:
            S.append(s)
            Y.append(yv)
            if len(S) > memory:
                S.pop(0)
                Y.pop(0)
        x, fx, g = xn, fn, gn
    return x


@dataclass
class Fit:
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray  # on standardised features
    bias: np.ndarray

    def scores(self, X: np.ndarray) -> np.ndarray:
        return ((X - self.mean) / self.scale) @ self.weights + self.bias


def fit(X: np.ndarray, y: np.ndarray, lam: float) -> Fit:
    """Multinomial logistic regression on standardised features, L2 on the weights (not
    the biases)."""
    mean, scale = X.mean(0), X.std(0)
    scale[scale < 1e-9] = 1.0
    Z = (X - mean) / scale
    n, d = Z.shape
    onehot = np.eye(K)[y]

    def f(w: np.ndarray) -> tuple[float, np.ndarray]:
        W, b = w[: d * K].reshape(d, K), w[d * K :]
        s = Z @ W + b
        s -= s.max(1, keepdims=True)
        logp = s - np.log(np.exp(s).sum(1, keepdims=True))
        loss = -np.sum(onehot * logp) / n + 0.5 * lam * np.sum(W * W)
        G = (np.exp(logp) - onehot) / n
        return float(loss), np.concatenate([(Z.T @ G + lam * W).ravel(), G.sum(0)])

    w = lbfgs(f, np.zeros(d * K + K))
    return Fit(mean, scale, w[: d * K].reshape(d, K), w[d * K :])


def probabilities(model: Fit, X: np.ndarray) -> np.ndarray:
    s = model.scores(X)
    s = np.exp(s - s.max(1, keepdims=True))
    return s / s.sum(1, keepdims=True)


def shipped(rows: Rows, at: np.ndarray, P: np.ndarray) -> np.ndarray:
    """The class memoryd.llm.typeclf.classify answers for the rows `at` (a mask), given the
    classifier's probabilities P for them."""
    learned = P.argmax(1)
    none = typeclf.CLASSES.index("session")
    gate, cues = rows.gated[at], rows.cues[at]
    # in a session of one turn (typeclf.gated) a type the cues state wins below CONFIDENT,
    # and so does a routine fix
    unsure = np.where(gate & (P.max(1) < typeclf.CONFIDENT) & (cues != none), cues, learned)
    # the type's own words (typeclf.explicit) and a routine fix (typeclf.routine_fix) win
    # unless the classifier is SURE of another type ("session" only beyond one turn, and
    # where the user did not mark the sentence as one to keep)
    keep = gate | rows.marked[at]
    overruled = (P.max(1) >= typeclf.SURE) & (learned != cues) & ((learned != none) | ~keep)
    # and a routine fix yields only to a classifier SURE of another type than a warning
    warning = typeclf.CLASSES.index("warning")
    fix_overruled = (P.max(1) >= typeclf.SURE) & (learned != warning) & ~gate
    return np.where((rows.explicit[at] & ~overruled) | (rows.fix[at] & ~fix_overruled), cues, unsure)


def loso_right(rows: Rows, within: np.ndarray, lam: float) -> int:
    """Sessions of `within` (a mask) typed right as shipped, each set predicted by a fit on
    the others."""
    right = 0
    for g in np.unique(rows.sets[within]):
        held = within & (rows.sets == g)
        train = within & ~held
        P = probabilities(fit(rows.X[train], rows.y[train], lam), rows.X[held])
        right += int(np.sum(shipped(rows, held, P) == rows.y[held]))
    return right


def choose(rows: Rows, within: np.ndarray) -> float:
    """The L2 strength with the most sessions typed right as shipped, leave-one-set-out
    over the sets of `within` (the strongest on a tie)."""
    best, best_right = LAMBDAS[-1], -1
    for lam in reversed(LAMBDAS):
        right = loso_right(rows, within, lam)
        if right > best_right:
            best, best_right = lam, right
    return best


def _round(values: np.ndarray) -> list:
    return np.vectorize(lambda v: float(f"{v:.{DIGITS}g}"), otypes=[float])(values).tolist()


def weights_file(rows: Rows, model: Fit, lam: float, embedder: embed.Embedder) -> str:
    """The file, deterministic: one key a line, floats to DIGITS significant digits."""
    counts = {name: int(np.sum(rows.sets == name)) for name in SETS}
    parts = {
        "spec": typeclf.SPEC,
        "embedder": embed.tag(embedder),
        "dim": embedder.dim,
        "classes": list(typeclf.CLASSES),
        "trained_on": counts,
        "lambda": lam,
        "mean": _round(model.mean),
        "scale": _round(model.scale),
        "bias": _round(model.bias),
        "weights": _round(model.weights),
    }
    lines = [f"{json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}" for k, v in parts.items()]
    return "{\n" + ",\n".join(lines) + "\n}\n"


def stale(fresh: dict, committed: dict) -> list[str]:
    """What differs between two weight files: the same metadata, numbers within a hair
    (another machine's BLAS may sum in another order)."""
    out = [k for k in fresh if k not in ("mean", "scale", "bias", "weights") and fresh[k] != committed.get(k)]
    for k in ("mean", "scale", "bias", "weights"):
        a, b = np.asarray(fresh[k]), np.asarray(committed.get(k, []))
        if a.shape != b.shape or not np.allclose(a, b, rtol=1e-3, atol=1e-3 * max(1e-9, np.abs(a).max())):
            out.append(k)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--check", action="store_true", help="fail if the committed weights differ from a fresh fit"
    )
    ap.add_argument("--out", type=Path, default=typeclf.WEIGHTS)
    args = ap.parse_args()
    t0 = time.perf_counter()
    from memoryd.embed.use import UseEmbedder  # the default model, embed.DEFAULT_MODEL

    embedder = UseEmbedder()
    rows = build(embedder)
    lam = choose(rows, np.ones(len(rows.y), dtype=bool))
    model = fit(rows.X, rows.y, lam)
    text = weights_file(rows, model, lam, embedder)
    if args.check:
        return check(args.out, text, f"{len(rows.y)} sessions", t0)
    report(rows)
    args.out.write_text(text, encoding="utf-8")
    print(f"lambda {lam}; wrote {args.out} in {time.perf_counter() - t0:.1f} s")
    return 0


def check(out: Path, text: str, what: str, t0: float) -> int:
    """--check of a trainer: 0 when the committed weights file `out` is the fresh fit `text`
    (fitted on `what`), else 1 with a line saying what to run."""
    try:
        committed = json.loads(out.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"{out}: {exc}", file=sys.stderr)
        return 1
    diff = stale(json.loads(text), committed)
    if diff:
        print(f"{out} is stale ({', '.join(diff)}): run {Path(sys.argv[0]).as_posix()}", file=sys.stderr)
        return 1
    print(f"{out.name} matches a fresh fit ({what}, {time.perf_counter() - t0:.1f} s)")
    return 0


def report(rows: Rows) -> None:
    """Nested leave-one-set-out: each set predicted by a fit on the other sets, with the
    strength chosen by leave-one-set-out among those."""
    P = np.zeros((len(rows.y), K))
    chosen = []
    for name in SETS:
        held = rows.sets == name
        lam = choose(rows, ~held)
        chosen.append(lam)
        P[held] = probabilities(fit(rows.X[~held], rows.y[~held], lam), rows.X[held])
    learned = P.argmax(1)
    every = np.ones(len(rows.y), dtype=bool)
    as_shipped = shipped(rows, every, P)
    print(f"{'set':6s}{'n':>5s}{'cues':>8s}{'learned':>9s}{'shipped':>9s}{'lambda':>9s}   (nested LOSO)")
    for name, lam in [*zip(SETS, chosen, strict=True), ("all", None)]:
        held = rows.sets == name if lam is not None else every
        accs = [np.mean(p[held] == rows.y[held]) * 100 for p in (rows.cues, learned, as_shipped)]
        tail = f"{lam:9g}" if lam is not None else ""
        print(f"{name:6s}{int(held.sum()):5d}" + "".join(f"{a:8.1f}%" for a in accs) + tail)


if __name__ == "__main__":
    sys.exit(main())
