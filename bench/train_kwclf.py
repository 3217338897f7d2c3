"""Fit the rules provider's keyword chooser (memoryd.llm.kwclf) and write its weights,
core/memoryd/llm/kwclf.json.

The rows are the terms memoryd.keyterms ranks for each proposal the rules analysis makes on
the dev sets (sessions.jsonl's "dev" half and sessions_dev2..6; the held_out half and the
check sets dev7 and dev8 are dropped before anything runs): the sessions go through the
capture hook's code, a worker drain and the analysis in a throwaway home, exactly as
bench/proposal_quality.py runs them, and each term the analysis weighs is recorded with
its features. A term is right when the labels accept it (proposal_quality.keyword_ok: the
keyword groups, the acceptable words, the second annotator's).

The figures printed are nested leave-one-set-out (each set chosen for by a fit on the other
five), beside the ranking's own cut on the same proposals: precision / recall of the
keyword groups / keywords per proposal. The L2 strength is fixed (LAMBDA): it moved nothing
from 0.1 to 30 when the design was settled.

    PYTHONPATH=core python3 bench/train_kwclf.py            # fit, report, write
    PYTHONPATH=core python3 bench/train_kwclf.py --check    # fail if the committed weights are stale

Re-fit whenever memoryd.keyterms, memoryd.llm.rules or the learned type changes: what they
rank and read feeds the weights.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "core"))
sys.path.insert(0, str(ROOT / "bench"))

import proposal_quality as pq  # noqa: E402
from train_typeclf import DIGITS, _round, check  # noqa: E402

from memoryd import embed, keyterms  # noqa: E402
from memoryd.llm import kwclf  # noqa: E402

TRAIN = ("dev", "dev2", "dev3", "dev4", "dev5", "dev6")
LAMBDA = 1.0


@dataclass
class Record:
    text: str
    pool: list[keyterms.Candidate]
    X: np.ndarray
    chosen: list[str]  # what the analysis kept (the ranking's cut)


@dataclass
class Proposal:
    case: pq.Case
    record: Record
    y: np.ndarray  # per term of the pool: accepted by the labels


def record_pools() -> list[Proposal]:
    """Run the analysis over the dev sets, recording each pool kwclf.choose is asked for."""
    mine = [c for c in pq.cases() if c.split in TRAIN]
    records: list[Record] = []
    choose = kwclf.choose

    def recording(
        text: str, limit: int, *, embedder: Any, rarity: Any = None, focus: Any = None
    ) -> list[str]:
        # the ranking's cut, whatever weights are committed: the rows must not depend on them
        got = keyterms.keywords(text, limit, rarity=rarity, focus=focus)
        pool = keyterms.candidates(text, rarity=rarity, focus=focus, pool=kwclf.POOL)
        records.append(Record(text, pool, kwclf.features(text, pool, embedder), got))
        return got

    kwclf.choose = recording  # type: ignore[assignment]
    try:
        with tempfile.TemporaryDirectory() as work:
            run = pq.run_sessions(Path(work), mine, llm=False)
    finally:
        kwclf.choose = choose  # type: ignore[assignment]
    out = []
    for case in mine:
        prop = run.proposals.get(case.id)
        if prop is None or case.expected == "session":
            continue
        triggers = list(prop.get("proposed_triggers") or [])
        said = set(" ".join(t[1] for t in case.turns if t[0] == "user").lower().split())
        same = [r for r in records if r.chosen == triggers]
        if not same:
            raise RuntimeError(f"{case.id}: no recorded pool gave its triggers {triggers}")
        rec = max(same, key=lambda r: len(set(r.text.lower().split()) & said))
        y = np.array([float(pq.keyword_ok(c.shown, case)) for c in rec.pool])
        out.append(Proposal(case, rec, y))
    return out


@dataclass
class Fit:
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: float

    def probabilities(self, X: np.ndarray) -> np.ndarray:
        return kwclf.Model("", self.mean, self.scale, self.weights, self.bias).probabilities(X)


def fit(X: np.ndarray, y: np.ndarray, lam: float = LAMBDA) -> Fit:
    """Binary logistic regression on standardised features by Newton's method, L2 on the
    weights (not the bias)."""
    mean, scale = X.mean(0), X.std(0)
    scale[scale < 1e-9] = 1.0
    Z = np.hstack([np.ones((len(X), 1)), (X - mean) / scale])
    reg = lam * np.diag(np.r_[0.0, np.ones(X.shape[1])])
    w = np.zeros(Z.shape[1])
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-np.clip(Z @ w, -30, 30)))
        g = Z.T @ (p - y) + reg @ w
        H = (Z * (p * (1 - p))[:, None]).T @ Z + reg
        step = np.linalg.solve(H, g)
        w -= step
        if np.abs(step).max() < 1e-10:
            break
    return Fit(mean, scale, w[1:], float(w[0]))


def chosen(p: np.ndarray, limit: int = 8) -> list[int]:
    """kwclf.choose's rule on given probabilities (every term's rarity is 1 here)."""
    return kwclf.pick(p, [1.0] * len(p), limit)


def rates(props: list[Proposal], picks: list[list[str]]) -> tuple[float, float, float]:
    right = total = hit = groups = 0
    for prop, words in zip(props, picks, strict=True):
        right += sum(pq.keyword_ok(w, prop.case) for w in words)
        total += len(words)
        hit += pq.groups_hit(words, prop.case)
        groups += len(prop.case.keywords)
    return right / max(total, 1), hit / max(groups, 1), total / max(len(props), 1)


def report(props: list[Proposal]) -> None:
    sets = np.array([p.case.split for p in props])
    learned: dict[int, list[str]] = {}
    for name in TRAIN:
        train = [p for p in props if p.case.split != name]
        model = fit(np.vstack([p.record.X for p in train]), np.concatenate([p.y for p in train]))
        for i, p in enumerate(props):
            if p.case.split == name:
                learned[i] = [p.record.pool[j].shown for j in chosen(model.probabilities(p.record.X))]
    print("nested leave-one-set-out; precision / recall / keywords per proposal")
    print(f"{'set':24s} {'n':>4s}  {'the ranking cut':22s} learned")
    groups = [(n,) for n in TRAIN] + [TRAIN[:3], TRAIN[3:], TRAIN]
    for group in groups:
        idx = [i for i in range(len(props)) if sets[i] in group]
        sub = [props[i] for i in idx]
        cut = rates(sub, [keyterms_cut(props[i]) for i in idx])
        mine = rates(sub, [learned[i] for i in idx])
        print(
            f"{'+'.join(group):24s} {len(sub):4d}  "
            f"{cut[0]:.1%} / {cut[1]:.1%} / {cut[2]:.1f}      {mine[0]:.1%} / {mine[1]:.1%} / {mine[2]:.1f}"
        )


def keyterms_cut(prop: Proposal) -> list[str]:
    """What keyterms.keywords keeps of the same pool (its order, its cut)."""
    pool = prop.record.pool
    top = pool[0].score if pool else 0.0
    return [
        c.shown
        for i, c in enumerate(pool[:8])
        if i < keyterms._KEEP_AT_LEAST or c.score >= keyterms._WEAK * top
    ]


def weights_file(props: list[Proposal], model: Fit, embedder_tag: str) -> str:
    """The file, deterministic: one key a line, floats to DIGITS significant digits."""
    counts = {name: sum(1 for p in props if p.case.split == name) for name in TRAIN}
    parts = {
        "spec": kwclf.SPEC,
        "embedder": embedder_tag,
        "features": list(kwclf.FEATURES),
        "trained_on": counts,
        "terms": int(sum(len(p.y) for p in props)),
        "lambda": LAMBDA,
        "threshold": kwclf.THRESHOLD,
        "mean": _round(model.mean),
        "scale": _round(model.scale),
        "bias": float(f"{model.bias:.{DIGITS}g}"),
        "weights": _round(model.weights),
    }
    lines = [f"{json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}" for k, v in parts.items()]
    return "{\n" + ",\n".join(lines) + "\n}\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--check", action="store_true", help="fail if the committed weights differ from a fresh fit"
    )
    ap.add_argument("--out", type=Path, default=kwclf.WEIGHTS)
    args = ap.parse_args()
    t0 = time.perf_counter()
    from memoryd.embed.use import UseEmbedder  # the default model, as the analysis loads it

    props = record_pools()
    model = fit(np.vstack([p.record.X for p in props]), np.concatenate([p.y for p in props]))
    text = weights_file(props, model, embed.tag(UseEmbedder()))
    if args.check:
        return check(args.out, text, f"{len(props)} proposals", t0)
    report(props)
    args.out.write_text(text, encoding="utf-8")
    terms = sum(len(p.y) for p in props)
    print(f"{len(props)} proposals, {terms} terms; wrote {args.out} in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
