"""Cold CLI reads: `memoryd search`, `get`, `list` and `scope` as the separate processes
agents start, beside a bare `python -c pass` measured in the same run.

Each command runs twice per round: on the read path (memoryd.cli.fastread, standard
library sqlite3) and on the full path (the same `main()` with the read path switched off,
which is how every command ran before it: SQLAlchemy, SQLModel and pydantic). Rounds
interleave everything, so load on the machine falls on all columns alike. The store is
a throwaway home with `--memories` memories in one project scope (words from
bench/corpus.py), their vectors embedded as the worker leaves them, so search is hybrid
(the default: the embedding model loads in each process) unless `--mode keyword`; search
asks a word that matches, so each run counts recalls (a write, as in real use). Processes
run as `python -m memoryd.cli.main` (what `memoryd setup` writes when no script is found);
memoryd's bytecode is compiled first, as an install has it.

    python bench/cold_cli.py --runs 9 --memories 200
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as c

FULL = "import sys; from memoryd.cli import main as m; m._fast_read = lambda argv: None; sys.exit(m.main())"


def build_home(home: Path, project: Path, n: int) -> str:
    """`n` memories in the project's scope; returns one slug for `get`."""
    os.environ["MEMORYD_HOME"] = str(home)
    os.environ["MEMORYD_CONFIG"] = str(home / "no-config.toml")
    from memoryd.app import Memoryd

    app = Memoryd()
    kinds = ("decision", "fact", "preference", "playbook", "warning")
    slug = ""
    for i in range(n):
        topic = ("queue", "cache", "deploy", "schema", "前端 性能")[i % 5]
        doc, _ = app.record(
            kinds[i % len(kinds)],
            f"Note {i} about the {topic}",
            f"Memory {i}: what we learned about the {topic}, and why it matters for release {i % 7}.",
            triggers=[topic.split()[0]],
            scope_path=project,
        )
        slug = slug or doc.meta.slug
    from memoryd import embed

    app.store.embed_vectors(embed.load(app.config))  # as the worker leaves them: every search hybrid
    return slug


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=9, help="rounds (each runs every command once)")
    ap.add_argument("--memories", type=int, default=200)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)

    c.compile_memoryd()
    home, project = c.temp_dir("cold-cli"), c.temp_dir("cold-cli-project")
    slug = build_home(home / "data", project, args.memories)
    env = c.isolated_env(home / "data")
    commands = {
        "search": ["search", "queue", "--limit", "5"],
        "search --json": ["search", "queue", "--limit", "5", "--json"],
        "search, Chinese question": ["search", "我们的队列怎么样？", "--limit", "5"],
        "search --mode keyword": ["search", "queue", "--limit", "5", "--mode", "keyword"],
        "search, no match": ["search", "kubernetes"],
        "get": ["get", slug],
        "list": ["list", "--limit", "50"],
        "scope": ["scope"],
    }
    py = sys.executable
    cases: dict[str, list[str]] = {"python -c pass": [py, "-c", "pass"]}
    for name, cmd in commands.items():
        cases[f"{name} (read path)"] = [py, "-m", "memoryd.cli.main", *cmd]
        cases[f"{name} (full path)"] = [py, "-c", FULL, *cmd]
    times: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(args.runs + 1):  # the first round warms the page cache and is dropped
        for name, cmd in cases.items():
            t0 = time.perf_counter()
            subprocess.run(cmd, env=env, cwd=project, check=True, capture_output=True)
            times[name].append((time.perf_counter() - t0) * 1000)
    floor = c.median(times["python -c pass"][1:])
    rows = []
    for name, ms in times.items():
        med = c.median(ms[1:])
        rows.append({"case": name, "median_ms": round(med, 1), "x_python": round(med / floor, 2)})
    result = {
        "runs": args.runs,
        "memories": args.memories,
        "load_1min": round(os.getloadavg()[0], 2),
        "machine": c.machine(),
        "rows": rows,
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"cold CLI, median of {args.runs} runs, {args.memories} memories, load {result['load_1min']}")
    print(f"{'case':<32} {'median ms':>10} {'x python -c pass':>17}")
    for r in rows:
        print(f"{r['case']:<32} {r['median_ms']:>10} {r['x_python']:>17}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
