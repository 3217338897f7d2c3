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

Each search mode is measured (keyword, hybrid, dense); vectors come from
`capture.worker.embed_new`, the worker's own step after a drain. Sessions repeat across
questions and vectors are keyed by their text's fingerprint, so one home embeds each
distinct text once; `--home DIR` keeps that home (captures and vectors) for the next run,
which then only searches.

    python bench/longmemeval.py [--quick | --limit N] [--modes keyword,hybrid,dense]
                                [--home DIR] [--json] [--write-docs]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import _common as c

from memoryd import clock, embed, search
from memoryd.capture.worker import embed_new, process
from memoryd.config import Config
from memoryd.paths import Layout
from memoryd.scope import resolve
from memoryd.store import Store

KS = (5, 10)
METRICS = ("recall_any", "recall_all", "ndcg_any")
MODES = ("keyword", "hybrid", "dense")


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


def capture_all(qs: list[dict[str, Any]], work: Path, home: Path) -> tuple[Store, list[Captured], int]:
    """Capture every haystack into `home`, or reuse what an earlier run captured there."""
    store = Store.open(Layout(home))
    done_path = home / "bench-longmemeval.json"
    done: dict[str, Any] = json.loads(done_path.read_text(encoding="utf-8")) if done_path.exists() else {}
    config = Config()
    out = []
    fresh = 0
    for q in qs:
        if q["question_id"] not in done:
            fresh += 1
            scope, slug_index = capture_question(store, config, q, work)
            done[q["question_id"]] = [scope, slug_index]
            done_path.write_text(json.dumps(done), encoding="utf-8")
        scope, slug_index = done[q["question_id"]]
        out.append((q, scope, slug_index))
    return store, out, fresh


def evaluate(qs: list[dict[str, Any]], work: Path, home: Path, mod: Any, modes: list[str]) -> dict[str, Any]:
    t0 = time.perf_counter()
    store, captured, fresh = capture_all(qs, work, home)
    capture_s = time.perf_counter() - t0
    sessions = sum(len(m) for _, _, m in captured)
    out: dict[str, Any] = {
        "questions": len(qs),
        "captured_this_run": fresh,
        "sessions_captured": sessions,
        "capture_route": "capture.worker.process (one Claude Code transcript per session)",
        "capture_s": round(capture_s, 1),
        "capture_ms_per_session": round(capture_s * 1000 / max(sessions, 1), 1),
    }
    embedder = None
    if any(m != "keyword" for m in modes):
        config = Config()
        t0 = time.perf_counter()
        texts = embed_new(store, config)  # what the worker does after a drain; resumes
        took = time.perf_counter() - t0
        embedder = embed.load(config, lambda msg: print(msg, file=sys.stderr))
        if embedder is None:
            raise SystemExit("the embedding model is unavailable: run with --modes keyword")
        out["embedding"] = {
            "model": embed.tag(embedder),
            "texts_this_run": texts,
            "seconds": round(took, 1),
            "texts_per_s": round(texts / took, 1) if texts else None,
            "vectors": store.vectors.counts(),
        }
    out["modes"] = {m: score(store, captured, mod, m, embedder) for m in modes}
    return out


def score(store: Store, captured: list[Captured], mod: Any, mode: str, embedder: Any) -> dict[str, Any]:
    prior = os.environ.get("MEMORYD_NOW")
    try:
        return _score(store, captured, mod, mode, embedder)
    finally:
        if prior is None:
            os.environ.pop("MEMORYD_NOW", None)
        else:
            os.environ["MEMORYD_NOW"] = prior


def _score(store: Store, captured: list[Captured], mod: Any, mode: str, embedder: Any) -> dict[str, Any]:
    sums: dict[str, dict[str, float]] = {}
    lat: list[float] = []
    for q, scope, slug_index in captured:
        ids = corpus_ids(q)
        correct = list({i for i in ids if "answer" in i})
        # Asked on the question's date, as the protocol gives it: "a week ago" means a week
        # before then (memoryd.timewords reads the clock, which MEMORYD_NOW pins).
        os.environ["MEMORYD_NOW"] = clock.iso(when(q["question_date"]))
        t1 = time.perf_counter()
        results = search.search(
            store,
            q["question"],
            scopes=[scope],
            limit=max(KS),
            with_snippets=False,
            mode=mode,
            embedder=embedder,
        )
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
    ap.add_argument("--limit", type=int, default=None, help="first N scored questions only")
    ap.add_argument("--modes", default=",".join(MODES), help="search modes to measure (default: all three)")
    ap.add_argument("--home", type=Path, default=None, help="keep the memoryd home here, reuse it next time")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--write-docs", action="store_true", help="put the figures in docs/benchmarks.md")
    args = ap.parse_args(argv)
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if not modes or any(m not in MODES for m in modes):
        ap.error("--modes takes keyword, hybrid and/or dense")
    limit = 25 if args.quick else args.limit
    if limit is not None and limit < 1:
        ap.error("--limit must be at least 1")

    mod = c.baseline_module("longmemeval_retrieval")
    data_path = c.data_dir() / "longmemeval_s_dev.json.xz"
    qs = questions(mod, data_path, limit)
    work = c.temp_dir("longmemeval")
    home = args.home.expanduser().resolve() if args.home else work / "home"
    try:
        baseline_args: list[str] = []
        if limit:  # the baseline on exactly the same questions, from a temp file
            subset = work / "lme-subset.json"
            subset.write_text(json.dumps(qs), encoding="utf-8")
            baseline_args = ["--data", str(subset)]
        ours = evaluate(qs, work, home, mod, modes)
        base = c.run_baseline("longmemeval_retrieval.py", *baseline_args)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    result = {
        "benchmark": "longmemeval",
        "limit": limit,
        "machine": c.machine(),
        "memoryd": ours,
        "baseline": base,
    }
    if args.write_docs:
        c.write_section("## LongMemEval_S", section(ours, base, limit), before="## How search got here")
    return c.finish(result, args.json, lambda: print_report(ours, base))


def print_report(ours: dict[str, Any], base: dict[str, Any]) -> None:
    print(
        f"LongMemEval_S dev: {ours['questions']} questions, {ours['sessions_captured']} sessions captured "
        f"via {ours['capture_route']} in {ours['capture_s']} s ({ours['capture_ms_per_session']} ms/session)"
    )
    if emb := ours.get("embedding"):
        print(f"vectors: {emb['texts_this_run']} texts embedded in {emb['seconds']} s with {emb['model']}")
    modes = list(ours["modes"])
    cols = [f"{m}@{k}" for k in KS for m in METRICS]
    print(f"cells: {' / '.join(modes)} / baseline")
    width = 3 + 9 * (len(modes) + 1)  # four figures of 0.0000 and their separators, and a gap
    print(f"{'question_type':<28}{'n':>5}" + "".join(f"{col:>{width}}" for col in cols))
    first = ours["modes"][modes[0]]["results"]
    for qt in ["all", *sorted(k for k in first if k != "all")]:
        b = base["results"].get(qt, {})
        cells = ""
        for col in cols:
            vals = " / ".join(f"{ours['modes'][m]['results'][qt][f'session/{col}']:.4f}" for m in modes)
            ref = b.get(f"session/{col}", 0.0)
            cells += f"{vals + f' / {ref:.4f}':>{width}}"
        print(f"{qt:<28}{first[qt]['n']:>5}{cells}")
    for m in modes:
        lat = ours["modes"][m]["latency_ms"]
        print(f"{m}: search median {lat['median']} ms (p95 {lat['p95']})")
    print(f"baseline median {base['latency_ms']['median']} ms")


def section(ours: dict[str, Any], base: dict[str, Any], limit: int | None) -> list[str]:
    modes = list(ours["modes"])
    emb = ours.get("embedding")
    cmd = "python bench/longmemeval.py --write-docs" + (f" --limit {limit}" if limit else "")
    scope = f"the first {ours['questions']} scored questions of the dev split" if limit else "the dev split"
    lines = [
        "## LongMemEval_S (session retrieval, official protocol)",
        "",
        f"`{cmd}` (add `--home DIR` to keep the captured home and its vectors for the next run): "
        f"{scope}, {ours['questions']} questions (abstention and no-target questions skipped, as the "
        "official averaging does). Each question's haystack is one project scope in a single memoryd "
        f"home: {ours['sessions_captured']} sessions, each written as a Claude Code transcript and captured "
        + (
            f"by capture.worker.process ({ours['capture_ms_per_session']} ms per session)"
            if ours.get("captured_this_run")
            else "by capture.worker.process in an earlier run into the same `--home`"
        )
        + (
            f"; vectors by `capture.worker.embed_new` ({emb['model']}; sessions repeat across questions "
            f"and vectors are keyed by text: {emb['vectors'].get('vectors', '?')} distinct texts, "
            + (
                f"{emb['texts_this_run']} embedded in this run at {emb['texts_per_s']} texts/s)"
                if emb["texts_this_run"]
                else "embedded by that earlier run)"
            )
            if emb
            else ""
        )
        + ". The question, as written, goes to `search.search(limit=10, mode=...)` in its scope; sessions "
        "it does not return are appended in haystack order; scores by the baseline module's own "
        "`evaluate`. Cells: " + " / ".join(modes) + " / plain-BM25 baseline (bold: the best mode where it is "
        "at or above the baseline).",
        "",
        "| question type | n | recall_any@5 | recall_all@5 | ndcg_any@5 | recall_any@10 | recall_all@10 |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    first = ours["modes"][modes[0]]["results"]
    cols = ["recall_any@5", "recall_all@5", "ndcg_any@5", "recall_any@10", "recall_all@10"]
    for qt in ["all", *sorted(k for k in first if k != "all")]:
        cells = []
        for col in cols:
            vals = [ours["modes"][m]["results"][qt][f"session/{col}"] for m in modes]
            b = base["results"].get(qt, {}).get(f"session/{col}", 0.0)
            best = max(vals)
            cells.append(
                " / ".join(f"**{v:.3f}**" if v == best and v >= b else f"{v:.3f}" for v in vals)
                + f" / {b:.3f}"
            )
        name = f"**{qt}**" if qt == "all" else qt
        lines.append(f"| {name} | {first[qt]['n']} | " + " | ".join(cells) + " |")
    lat = "; ".join(f"{m} median {ours['modes'][m]['latency_ms']['median']} ms" for m in modes)
    lines += ["", f"Query latency: {lat}; baseline median {base['latency_ms']['median']} ms.", ""]
    return lines


if __name__ == "__main__":
    sys.exit(main())
