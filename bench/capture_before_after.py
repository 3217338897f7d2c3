"""Capture cost before and after a change, measured in one run: worker throughput
(sessions per second drained from the spool into memories) and the hook's wall time.

Why: issue 21 put a segmenter (rjieba), pinyin slugs (pypinyin) and store-rarity ranking
on the worker's path and must leave the hook untouched. Two trees are measured side by
side, turn about, on the same machine and the same data: the current checkout and
`--before REF` (extracted with `git archive`), each run in its own subprocess with
PYTHONPATH pointing at its tree. Sessions are the labelled sets' conversations
(tests/data/proposals, bench/proposal_quality.cases: 233 since dev2-dev4), English and
Chinese. `-X importtime` of the hook in the current tree proves the new libraries stay off it.

    python bench/capture_before_after.py --before 43b2e20 [--rounds 3] [--hook-runs 15]
        [--json] [--write-docs]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import _common as c
import proposal_quality as pq

ROOT = c.REPO
NOT_ON_HOOK = ("rjieba", "pypinyin", "jieba", "memoryd.keyterms", "memoryd.store.terms", "sqlalchemy")

# Run in the measured tree: spool every payload with that tree's hook code, then time one
# drain of the spool by that tree's worker. Prints {"sessions": n, "seconds": s}.
_CHILD = r"""
import json, os, sys, time
from pathlib import Path
from memoryd import config as config_mod, paths
from memoryd.capture import hook, worker
from memoryd.store import Store
payloads = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
for raw in payloads:
    hook.capture("claude-code", raw.encode("utf-8"), spawn=False)
layout = paths.layout().prepare()
store = Store.open(layout)
config = config_mod.load()
start = time.perf_counter()
report = worker.drain(store, config)
seconds = time.perf_counter() - start
print(json.dumps({"sessions": len(report.captured), "rejected": len(report.rejected), "seconds": seconds}))
"""


def extract(ref: str, into: Path) -> Path:
    """The tree at `ref` (core/ only), as `git archive` gives it."""
    archive = into / "before.tar"
    subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", "-o", str(archive), ref, "core"], check=True
    )
    with tarfile.open(archive) as tar:
        tar.extractall(into / "before", filter="data")
    return into / "before" / "core"


def payloads(work: Path) -> list[str]:
    """One Stop payload per labelled session, its transcript written under `work`."""
    out = []
    for case in pq.cases():
        sid = str(uuid.uuid4())
        project = work / "projects" / case.id
        project.mkdir(parents=True, exist_ok=True)
        transcript = work / "transcripts" / f"{case.id}.jsonl"
        transcript.parent.mkdir(parents=True, exist_ok=True)
        lines = pq.transcript_lines(case, sid, str(project))
        transcript.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), "utf-8")
        out.append(
            json.dumps(
                {
                    "session_id": sid,
                    "transcript_path": str(transcript),
                    "cwd": str(project),
                    "hook_event_name": "Stop",
                }
            )
        )
    return out


def _env(tree: Path, home: Path) -> dict[str, str]:
    env = c.isolated_env(home, MEMORYD_NO_WORKER="1", MEMORYD_NO_FALLBACK="1", HOME=str(home / "home"))
    env["PYTHONPATH"] = str(tree)
    env.pop("ANTHROPIC_API_KEY", None)
    return env


def drain_once(tree: Path, work: Path, payload_file: Path, tag: str) -> dict[str, Any]:
    home = Path(tempfile.mkdtemp(prefix=f"drain-{tag}-", dir=work))
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, str(payload_file)],
        env=_env(tree, home),
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"{tag}: the worker run failed: {proc.stderr.strip().splitlines()[-1:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def hook_once(tree: Path, home: Path, raw: str, *, importtime: bool = False) -> tuple[float, str]:
    args = [sys.executable, *(["-X", "importtime"] if importtime else []), "-m", "memoryd.cli.main"]
    start = time.perf_counter()
    proc = subprocess.run(
        [*args, "capture", "--source=claude-code"],
        input=raw,
        env=_env(tree, home),
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = (time.perf_counter() - start) * 1000
    if proc.returncode != 0:
        raise SystemExit(f"the hook failed: {proc.stderr.strip()[:200]}")
    return elapsed, proc.stderr


def imported(stderr: str) -> set[str]:
    """Module names from `-X importtime` output."""
    names = set()
    for line in stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip())
    return names


def measure(before_ref: str, rounds: int, hook_runs: int) -> dict[str, Any]:
    c.compile_memoryd()
    work = c.temp_dir("capture-ba")
    trees = {"before": extract(before_ref, work), "after": ROOT / "core"}
    raws = payloads(work)
    payload_file = work / "payloads.json"
    payload_file.write_text(json.dumps(raws), encoding="utf-8")

    drains: dict[str, list[dict[str, Any]]] = {"before": [], "after": []}
    for r in range(rounds):  # turn about, so drift on a noisy machine hits both alike
        for tag in ("before", "after") if r % 2 == 0 else ("after", "before"):
            drains[tag].append(drain_once(trees[tag], work, payload_file, tag))

    hooks: dict[str, list[float]] = {"before": [], "after": []}
    floors: list[float] = []
    for i in range(hook_runs):
        for tag in ("before", "after") if i % 2 == 0 else ("after", "before"):
            home = work / f"hook-{tag}"
            hooks[tag].append(hook_once(trees[tag], home, raws[i % len(raws)])[0])
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        floors.append((time.perf_counter() - start) * 1000)
    _, trace = hook_once(trees["after"], work / "hook-after", raws[0], importtime=True)
    on_hook = sorted(m for m in imported(trace) if m.split(".")[0] in NOT_ON_HOOK or m in NOT_ON_HOOK)

    result: dict[str, Any] = {
        "before_ref": before_ref,
        "after_ref": _head(),
        "sessions": len(raws),
        "rounds": rounds,
        "hook_runs": hook_runs,
        "python_pass_ms_p50": round(c.median(floors), 1),
        "imported_on_hook": on_hook,
        "machine": c.machine(),
    }
    for tag in ("before", "after"):
        rates = [d["sessions"] / d["seconds"] for d in drains[tag]]
        result[tag] = {
            "worker_sessions_per_s": round(c.median(rates), 1),
            "captured": drains[tag][-1]["sessions"],
            "rejected": drains[tag][-1]["rejected"],
            "hook_ms_p50": round(c.median(hooks[tag]), 1),
            "hook_ms_p95": round(c.pct(hooks[tag], 95), 1),
        }
    return result


def _head() -> str:
    proc = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    )
    return proc.stdout.strip() or "working tree"


def lines(result: dict[str, Any]) -> list[str]:
    b, a = result["before"], result["after"]
    return [
        f"{result['sessions']} labelled sessions; "
        f"before = {result['before_ref']}, after = {result['after_ref']}",
        f"{'':28}{'before':>10}{'after':>10}",
        f"{'worker, sessions/s (median)':28}{b['worker_sessions_per_s']:>10}{a['worker_sessions_per_s']:>10}",
        f"{'hook p50, ms':28}{b['hook_ms_p50']:>10}{a['hook_ms_p50']:>10}",
        f"{'hook p95, ms':28}{b['hook_ms_p95']:>10}{a['hook_ms_p95']:>10}",
        f"python -c pass p50: {result['python_pass_ms_p50']} ms (same run)",
        "imported by the hook (must be none): " + (", ".join(result["imported_on_hook"]) or "none"),
    ]


def section(result: dict[str, Any]) -> list[str]:
    b, a = result["before"], result["after"]
    return [
        "## Capture cost before and after issue 21",
        "",
        f"`python bench/capture_before_after.py --before {result['before_ref']} --write-docs` "
        f"(after = {result['after_ref']}; {result['rounds']} worker rounds and {result['hook_runs']} "
        "hook runs per tree, taken turn about in one run; medians).",
        "",
        "| | before | after |",
        "|---|---|---|",
        f"| worker throughput, sessions/s ({result['sessions']} labelled sessions) "
        f"| {b['worker_sessions_per_s']} | {a['worker_sessions_per_s']} |",
        f"| hook wall time p50 / p95, ms | {b['hook_ms_p50']} / {b['hook_ms_p95']} "
        f"| {a['hook_ms_p50']} / {a['hook_ms_p95']} |",
        "",
        f"`python -c pass` p50 in the same run: {result['python_pass_ms_p50']} ms. Modules the hook "
        "imports among rjieba, pypinyin, jieba, memoryd.keyterms, memoryd.store.terms, sqlalchemy "
        f"(`-X importtime`): {', '.join(result['imported_on_hook']) or 'none'}.",
        "",
    ]


def write_docs(result: dict[str, Any]) -> Path:
    """Replace (or add) this benchmark's section in docs/benchmarks.md."""
    return c.write_section("## Capture cost before and after issue 21", section(result))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--before", required=True, help="the git ref to compare against (e.g. the commit before a change)"
    )
    ap.add_argument("--rounds", type=int, default=3, help="worker drains per tree")
    ap.add_argument("--hook-runs", type=int, default=15, help="hook runs per tree")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--write-docs", action="store_true", help="put the figures in docs/benchmarks.md")
    args = ap.parse_args()
    if args.rounds < 1 or args.hook_runs < 1:
        ap.error("--rounds and --hook-runs must be at least 1")
    os.environ.pop("ANTHROPIC_API_KEY", None)
    result = measure(args.before, args.rounds, args.hook_runs)
    if args.write_docs:
        write_docs(result)
    return c.finish(result, args.json, lambda: print("\n".join(lines(result))))


if __name__ == "__main__":
    sys.exit(main())
