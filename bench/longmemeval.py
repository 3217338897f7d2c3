"""LongMemEval_S (dev split) through memoryd's capture and memory search, beside the
plain-BM25 baseline, under the official session-level protocol.

Why this shape: each question's haystack (about 48 chat sessions) is what one user's
memory would hold, so it becomes one project scope in a single memoryd home, every
session captured as a Claude Code transcript through `capture.worker.process` (the path
real sessions take). The question is then asked, exactly as written, through
`memoryd.search.search` restricted to that scope. Scoring (recall_any@k, recall_all@k,
ndcg_any@k, gold = answer sessions with a user-side has_answer turn, abstention and
no-target questions skipped, unranked sessions appended in haystack order) is the
baseline module's own `evaluate`, imported, so the two numbers mean the same thing.

    python bench/longmemeval.py [--quick] [--json]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import _common as c

from memoryd import search
from memoryd.capture.worker import process
from memoryd.config import Config
from memoryd.paths import Layout
from memoryd.scope import resolve
from memoryd.store import Store

KS = (5, 10)
METRICS = ("recall_any", "recall_all", "ndcg_any")


def questions(mod: Any, path: Path, limit: int | None) -> list[dict[str, Any]]:
    """The questions the official averaging keeps (same filters as the baseline)."""
    out = []
    for q in mod.load(str(path)):
        if "_abs" in q["question_id"]:
            continue
        users = [t for s in q["haystack_sessions"] for t in s if t["role"] == "user"]
        if not any(t.get("has_answer") for t in users):
            continue
        out.append(q)
        if limit and len(out) >= limit:
            break
    return out


def corpus_ids(q: dict[str, Any]) -> list[str]:
    """Session ids as the official protocol labels them (answer vs. noans)."""
    ids = []
    for sid, sess in zip(q["haystack_session_ids"], q["haystack_sessions"], strict=True):
        hit = any(t.get("has_answer") for t in sess if t["role"] == "user")
        ids.append(sid if ("answer" not in sid or hit) else sid.replace("answer", "noans"))
    return ids


def when(raw: str) -> datetime:
    try:
        return datetime.strptime(raw[:10] + raw[-6:], "%Y/%m/%d %H:%M").replace(tzinfo=UTC)
    except ValueError:
        return datetime(2023, 1, 1, tzinfo=UTC)


def capture_question(
    store: Store, config: Config, q: dict[str, Any], work: Path
) -> tuple[str, dict[str, int]]:
    """Capture one haystack into its own scope; returns (scope hash, slug -> corpus index)."""
    cwd = work / "projects" / q["question_id"]
    cwd.mkdir(parents=True, exist_ok=True)
    slug_index: dict[str, int] = {}
    dates = q.get("haystack_dates") or [""] * len(q["haystack_sessions"])
    for i, (sess, date) in enumerate(zip(q["haystack_sessions"], dates, strict=True)):
        sid = f"lme-{q['question_id']}-{i}"
        start = when(date)
        tr = c.Transcript(work / "transcripts" / f"{sid}.jsonl", sid, str(cwd))
        for j, turn in enumerate(sess):
            ts = (start + timedelta(seconds=20 * j)).isoformat().replace("+00:00", "Z")
            if turn["role"] == "user":
                tr.user(turn["content"], ts)
            else:
                tr.assistant(turn["content"], ts)
        record = c.capture_record(f"payload-{sid}", sid, tr.write(), cwd)
        slug_index[process(store, config, record)] = i
        tr.path.unlink()
    return resolve(cwd).hash, slug_index


Captured = tuple[dict[str, Any], str, dict[str, int]]


def capture_all(qs: list[dict[str, Any]], work: Path) -> tuple[Store, list[Captured]]:
    store = Store.open(Layout(work / "home"))
    config = Config()
    return store, [(q, *capture_question(store, config, q, work)) for q in qs]


def evaluate(qs: list[dict[str, Any]], work: Path, mod: Any) -> dict[str, Any]:
    t0 = time.perf_counter()
    store, captured = capture_all(qs, work)
    capture_s = time.perf_counter() - t0
    sessions = sum(len(m) for _, _, m in captured)
    return {
        "questions": len(qs),
        "sessions_captured": sessions,
        "capture_route": "capture.worker.process (one Claude Code transcript per session)",
        "capture_s": round(capture_s, 1),
        "capture_ms_per_session": round(capture_s * 1000 / max(sessions, 1), 1),
        **score(store, captured, mod),
    }


def score(store: Store, captured: list[Captured], mod: Any) -> dict[str, Any]:
    sums: dict[str, dict[str, float]] = {}
    lat: list[float] = []
    for q, scope, slug_index in captured:
        ids = corpus_ids(q)
        correct = list({i for i in ids if "answer" in i})
        t1 = time.perf_counter()
        results = search.search(store, q["question"], scopes=[scope], limit=max(KS), with_snippets=False)
        lat.append((time.perf_counter() - t1) * 1000)
        hits = list(dict.fromkeys(slug_index[r.slug] for r in results if r.slug in slug_index))
        ranking = hits + [i for i in range(len(ids)) if i not in set(hits)]
        for qt in ("all", q["question_type"]):
            bucket = sums.setdefault(qt, {"n": 0})
            bucket["n"] += 1
            for k in KS:
                for name, v in zip(METRICS, mod.evaluate(ranking, ids, correct, k), strict=True):
                    key = f"session/{name}@{k}"
                    bucket[key] = bucket.get(key, 0.0) + v
    return {
        "latency_ms": {"median": round(c.median(lat), 3), "p95": round(c.pct(lat, 95), 3)},
        "results": {
            qt: {"n": int(b["n"]), **{k: round(v / b["n"], 4) for k, v in b.items() if k != "n"}}
            for qt, b in sums.items()
        },
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="first 25 scored questions only (smoke run)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    mod = c.baseline_module("longmemeval_retrieval")
    data_path = c.data_dir() / "longmemeval_s_dev.json.xz"
    qs = questions(mod, data_path, 25 if args.quick else None)
    work = c.temp_dir("longmemeval")
    try:
        baseline_args: list[str] = []
        if args.quick:  # the baseline on exactly the same questions, from a temp file
            subset = work / "lme-subset.json"
            subset.write_text(json.dumps(qs), encoding="utf-8")
            baseline_args = ["--data", str(subset)]
        ours = evaluate(qs, work, mod)
        base = c.run_baseline("longmemeval_retrieval.py", *baseline_args)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    result = {"benchmark": "longmemeval", "quick": args.quick, "memoryd": ours, "baseline": base}
    return c.finish(result, args.json, lambda: print_report(ours, base))


def print_report(ours: dict[str, Any], base: dict[str, Any]) -> None:
    print(
        f"LongMemEval_S dev: {ours['questions']} questions, {ours['sessions_captured']} sessions captured "
        f"via {ours['capture_route']} in {ours['capture_s']} s ({ours['capture_ms_per_session']} ms/session)"
    )
    cols = [f"{m}@{k}" for k in KS for m in METRICS]
    print(f"{'question_type':<28}{'n':>5}" + "".join(f"{col:>22}" for col in cols))
    print(f"{'':<33}" + "".join(f"{'memoryd / base':>22}" for _ in cols))
    order = ["all", *sorted(k for k in ours["results"] if k != "all")]
    for qt in order:
        o, b = ours["results"][qt], base["results"].get(qt, {})
        cells = "".join(f"{o[f'session/{m}']:>13.4f} / {b.get(f'session/{m}', 0.0):.4f}" for m in cols)
        print(f"{qt:<28}{o['n']:>5}{cells}")
    print(
        f"query latency: memoryd search median {ours['latency_ms']['median']} ms "
        f"(p95 {ours['latency_ms']['p95']}), baseline median {base['latency_ms']['median']} ms"
    )


if __name__ == "__main__":
    sys.exit(main())
