"""LoCoMo through memoryd's own capture and search, beside the plain-BM25 baseline.

Why this shape: a user's memories come in through the capture worker, not through a
hand-built index, so every LoCoMo session is written as a Claude Code transcript and
captured with `memoryd.capture.worker.process` (redaction, parsing, episode building,
the store's write path). Each conversation is its own project scope. Questions are passed
exactly as written; nothing in this file rewrites them.

Measured per category 1-4 and overall (micro-averaged, as the baseline does):
  * turn recall@5 / @10 of `memoryd.search.traces` (turn ext_id = LoCoMo dia_id);
  * session recall@5 / @10 of `memoryd.search.search` (memory slug -> session).

    python bench/locomo.py [--quick] [--json]
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

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
KS = (5, 10)


def session_keys(conv: dict[str, Any]) -> list[str]:
    keys = [k for k in conv if k.startswith("session_") and k[8:].isdigit() and isinstance(conv[k], list)]
    return sorted(keys, key=lambda k: int(k[8:]))


def session_start(raw: str, fallback: datetime) -> datetime:
    """LoCoMo dates read like '1:56 pm on 8 May, 2023'."""
    try:
        return datetime.strptime(raw.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
    except ValueError:
        return fallback


def turn_text(turn: dict[str, Any]) -> str:
    """Speaker, words and the shared photo's caption: what the baseline indexes per turn."""
    text = f"{turn.get('speaker', '')}: {turn.get('text', '')}"
    if turn.get("blip_caption"):
        text += f" [shares a photo: {turn['blip_caption']}]"
    return text


def capture_conversation(
    store: Store, config: Config, sample: dict[str, Any], work: Path
) -> tuple[str, dict[str, int], int]:
    """Capture every session of one conversation; returns (scope hash, slug -> session, turns)."""
    conv = sample["conversation"]
    cwd = work / "projects" / sample["sample_id"]
    cwd.mkdir(parents=True, exist_ok=True)
    speaker_a = conv.get("speaker_a")
    slug_session: dict[str, int] = {}
    n_turns = 0
    start = datetime(2023, 1, 1, tzinfo=UTC)
    for key in session_keys(conv):
        snum = int(key[8:])
        sid = f"locomo-{sample['sample_id']}-s{snum}"
        start = session_start(conv.get(f"{key}_date_time", ""), start + timedelta(days=1))
        tr = c.Transcript(work / "transcripts" / f"{sid}.jsonl", sid, str(cwd))
        for i, turn in enumerate(conv[key]):
            ts = (start + timedelta(seconds=30 * i)).isoformat().replace("+00:00", "Z")
            if turn.get("speaker") == speaker_a:
                tr.user(turn_text(turn), ts, uid=turn["dia_id"])
            else:
                tr.assistant(turn_text(turn), ts, uid=turn["dia_id"])
            n_turns += 1
        record = c.capture_record(f"payload-{sid}", sid, tr.write(), cwd)
        slug_session[process(store, config, record)] = snum
    return resolve(cwd).hash, slug_session, n_turns


Conv = tuple[dict[str, Any], str, dict[str, int]]


def capture_all(data: list[dict[str, Any]], work: Path) -> tuple[Store, list[Conv], int]:
    store = Store.open(Layout(work / "home"))
    config = Config()
    convs = []
    total_turns = 0
    for sample in data:
        scope, slug_session, n = capture_conversation(store, config, sample, work)
        convs.append((sample, scope, slug_session))
        total_turns += n
    return store, convs, total_turns


def evaluate(data: list[dict[str, Any]], work: Path) -> dict[str, Any]:
    t0 = time.perf_counter()
    store, convs, total_turns = capture_all(data, work)
    capture_s = time.perf_counter() - t0
    return {
        "conversations": len(data),
        "sessions_captured": sum(len(s) for _, _, s in convs),
        "turns_captured": total_turns,
        "capture_s": round(capture_s, 2),
        **score(store, convs),
    }


def score(store: Store, convs: list[Conv]) -> dict[str, Any]:
    base = c.baseline_module("locomo_retrieval")

    names = [f"recall@{k}" for k in KS] + [f"sess_recall@{k}" for k in KS]
    acc = {cat: {"n": 0, **dict.fromkeys(names, 0.0)} for cat in CATEGORIES}
    lat_traces: list[float] = []
    lat_search: list[float] = []
    for sample, scope, slug_session in convs:
        valid = {t["dia_id"] for k in session_keys(sample["conversation"]) for t in sample["conversation"][k]}
        for qa in sample["qa"]:
            cat = qa.get("category")
            if cat not in acc:
                continue
            evidence, _bad = base.normalize_evidence(qa.get("evidence", []), valid)
            if not evidence:
                continue
            q = qa["question"]
            t1 = time.perf_counter()
            hits = search.traces(store, q, scopes=[scope], limit=max(KS))
            lat_traces.append((time.perf_counter() - t1) * 1000)
            t1 = time.perf_counter()
            results = search.search(store, q, scopes=[scope], limit=max(KS), with_snippets=False)
            lat_search.append((time.perf_counter() - t1) * 1000)
            ranked = [h.ext_id for h in hits]
            sessions = [slug_session.get(r.slug) for r in results]
            ev = set(evidence)
            ev_sess = {int(e.split(":")[0][1:]) for e in ev}
            a = acc[cat]
            a["n"] += 1
            for k in KS:
                a[f"recall@{k}"] += len(ev.intersection(ranked[:k])) / len(ev)
                a[f"sess_recall@{k}"] += len(ev_sess.intersection(sessions[:k])) / len(ev_sess)

    def final(rows: list[dict[str, float]]) -> dict[str, float]:
        n = sum(r["n"] for r in rows)
        return {"n": n, **{m: round(sum(r[m] for r in rows) / n, 4) if n else 0.0 for m in names}}

    return {
        "per_category": {f"{cat} {name}": final([acc[cat]]) for cat, name in CATEGORIES.items()},
        "overall": final(list(acc.values())),
        "latency_ms": {
            "traces_median": round(c.median(lat_traces), 3),
            "traces_p95": round(c.pct(lat_traces, 95), 3),
            "search_median": round(c.median(lat_search), 3),
            "search_p95": round(c.pct(lat_search, 95), 3),
        },
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="first 2 conversations only (smoke run)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    data_path = c.data_dir() / "locomo10.json"
    data = json.loads(data_path.read_text(encoding="utf-8"))
    work = c.temp_dir("locomo")
    try:
        baseline_args = ["--session"]
        if args.quick:
            data = data[:2]
            subset = work / "locomo-subset.json"  # temp only, never in the repo
            subset.write_text(json.dumps(data), encoding="utf-8")
            baseline_args += ["--data", str(subset)]
        ours = evaluate(data, work)
        base = c.run_baseline("locomo_retrieval.py", *baseline_args)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    result = {"benchmark": "locomo", "quick": args.quick, "memoryd": ours, "baseline": base}
    return c.finish(result, args.json, lambda: print_report(ours, base))


def print_report(ours: dict[str, Any], base: dict[str, Any]) -> None:
    print(
        f"LoCoMo: {ours['conversations']} conversations, {ours['sessions_captured']} sessions / "
        f"{ours['turns_captured']} turns captured via capture.worker.process in {ours['capture_s']} s"
    )
    cols = ["recall@5", "recall@10", "sess_recall@5", "sess_recall@10"]
    print(f"{'category':<16}{'n':>6}" + "".join(f"{col:>24}" for col in cols))
    print(f"{'':<22}" + "".join(f"{'memoryd / baseline':>24}" for _ in cols))
    rows = [*zip(ours["per_category"], base["per_category"], strict=True), ("overall", "overall_cat1-4")]
    for ours_key, base_key in rows:
        o = ours["overall"] if ours_key == "overall" else ours["per_category"][ours_key]
        b = base[base_key] if ours_key == "overall" else base["per_category"][base_key]
        cells = "".join(f"{o[m]:>14.4f} / {b[m]:.4f}" for m in cols)
        print(f"{ours_key:<16}{o['n']:>6}{cells}")
    lat = ours["latency_ms"]
    print(
        f"query latency: traces median {lat['traces_median']} ms (p95 {lat['traces_p95']}), "
        f"search median {lat['search_median']} ms (p95 {lat['search_p95']}); "
        f"baseline median {base['latency_ms']['median']} ms"
    )
    print("turn recall via memoryd.search.traces; session recall via memoryd.search.search")


if __name__ == "__main__":
    sys.exit(main())
