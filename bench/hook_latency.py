"""Wall time of the agent hook, `capture --source=claude-code`, as the agent runs it.

Why: Claude Code waits for its SessionEnd hook (1.5 s budget in all), and a user feels
every millisecond of it at exit, so the hook must only validate, redact, spool and kick
the worker. This runs the real processes on a realistic payload and transcript: the hook
exactly as `memoryd setup claude-code` writes it, `sh -c '<python> -S <site>/memoryd/hookrun.py
capture --source=claude-code'` (-S: no site-packages start-up, see memoryd/hookrun.py), which
the p50 target is judged on, beside the `memoryd` console script users type; reports p50/p95
beside bare `python -c pass` and `python -S -c pass` from the same run (the floors no hook
can beat), and proves with `-X importtime`, for both forms, that the hook path imports none
of the heavy libraries.

    python bench/hook_latency.py [--quick] [--runs 20] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import _common as c

from memoryd.agents import common as agents

TARGET_P50_MS = 60.0
AGENT = "capture hook, sh -c (as the agent runs it)"  # what setup writes: the target's figure
HEAVY = ("sqlalchemy", "sqlmodel", "pydantic", "pydantic_core", "anthropic", "PySide6", "yaml")
MUST_NOT = ("sqlalchemy", "sqlmodel", "pydantic", "anthropic", "PySide6")


def make_transcript(work: Path, project: Path, session_id: str) -> Path:
    """A Claude Code session of ordinary size: prompts, answers, Read/Edit/Bash tool calls
    and their results, a failing test, the fix."""
    tr = c.Transcript(work / "transcript.jsonl", session_id, str(project))
    t = datetime(2025, 6, 3, 9, 14, tzinfo=UTC)

    def ts() -> str:
        nonlocal t
        t += timedelta(seconds=7)
        return t.isoformat().replace("+00:00", "Z")

    tr.user("The billing export times out for tenants with more than 10k invoices. Can you fix it?", ts())
    for round_ in range(6):
        f = f"src/billing/export_{round_}.py"
        tid = tr.tool_use("Read", {"file_path": str(project / f)}, ts(), "Let me look at the export code.")
        tr.tool_result(
            tid, "def export(tenant):\n    for inv in Invoice.all(tenant):\n        ...\n" * 20, ts()
        )
        tid = tr.tool_use("Grep", {"pattern": "Invoice.all", "path": str(project / "src")}, ts())
        tr.tool_result(tid, f"{f}:2:    for inv in Invoice.all(tenant):", ts())
        tid = tr.tool_use(
            "Edit",
            {
                "file_path": str(project / f),
                "old_string": "Invoice.all(tenant)",
                "new_string": "batched(tenant)",
            },
            ts(),
        )
        tr.tool_result(tid, "The file has been updated.", ts())
        tid = tr.tool_use("Bash", {"command": "pytest tests/billing -q", "description": "run tests"}, ts())
        failing = round_ == 2
        tr.tool_result(tid, "1 failed, 41 passed" if failing else "42 passed in 3.1s", ts(), is_error=failing)
        tr.assistant(
            f"Round {round_}: the export now streams invoices in batches of 500 instead of loading "
            "them all, which keeps memory flat and the query under the statement timeout.",
            ts(),
        )
        tr.user("Good. Also make sure the CSV header stays the same for the finance team.", ts())
    tr.assistant("Done: batching in place, header unchanged, all 42 billing tests pass.", ts())
    return tr.write()


def payload(transcript: Path, project: Path, session_id: str) -> bytes:
    return json.dumps(
        {
            "session_id": session_id,
            "transcript_path": str(transcript),
            "cwd": str(project),
            "hook_event_name": "SessionEnd",
            "reason": "prompt_input_exit",
        }
    ).encode()


def wall_ms(cmd: list[str], stdin: bytes, env: dict[str, str], cwd: Path) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, input=stdin, env=env, cwd=cwd, check=True, capture_output=True)
    return (time.perf_counter() - t0) * 1000


def spool_empty(home: Path, timeout: float) -> float | None:
    """Seconds until the worker has drained the spool, None on timeout."""
    t0 = time.perf_counter()
    spool = home / "spool"
    while time.perf_counter() - t0 < timeout:
        if not any(spool.glob("*.json")):
            return time.perf_counter() - t0
        time.sleep(0.01)
    return None


def stats(ms: list[float]) -> dict[str, float]:
    return {"p50": round(c.median(ms), 1), "p95": round(c.pct(ms, 95), 1), "min": round(min(ms), 1)}


def import_report(cmd: list[str], stdin: bytes, env: dict[str, str], cwd: Path) -> dict[str, Any]:
    """Parse `-X importtime` (stderr: 'import time: self | cumulative | name')."""
    out = subprocess.run(cmd, input=stdin, env=env, cwd=cwd, capture_output=True, check=True)
    mods: list[str] = []
    total_us = 0
    for line in out.stderr.decode(errors="replace").splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        parts = [p.strip() for p in line[len("import time:") :].split("|")]
        if not parts[0].isdigit():
            continue  # the header line
        total_us += int(parts[0])
        mods.append(parts[2])
    heavy = sorted({m for m in mods if m.split(".")[0] in HEAVY})
    return {
        "modules": len(mods),
        "import_ms": round(total_us / 1000, 1),
        "memoryd_modules": sorted(m for m in mods if m.startswith("memoryd")),
        "heavy": heavy,
        "forbidden": sorted({m for m in heavy if m.split(".")[0] in MUST_NOT}),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="5 runs per variant")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    c.compile_memoryd()
    runs = 5 if args.quick else args.runs

    work = c.temp_dir("hook")
    try:
        result = measure(work, runs)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    result["quick"] = args.quick
    if args.json:
        c.emit(result, True)
    else:
        print_report(result)
    return 1 if result["imports"]["forbidden"] or result["imports_hook"]["forbidden"] else 0


def measure(work: Path, runs: int) -> dict[str, Any]:
    project = work / "project"
    project.mkdir()
    home = work / "home"
    sid = str(uuid.uuid4())
    transcript = make_transcript(work, project, sid)
    data = payload(transcript, project, sid)
    env = c.isolated_env(home, MEMORYD_NO_WORKER="1")
    script = Path(sysconfig.get_path("scripts")) / "memoryd"
    hook_cmd = agents.shell_command("capture", "--source=claude-code")  # what setup writes
    variants = {
        AGENT: ["sh", "-c", hook_cmd],
        "console script": [str(script), "capture", "--source=claude-code"],
        "python -m memoryd.cli.main": [
            sys.executable,
            "-m",
            "memoryd.cli.main",
            "capture",
            "--source=claude-code",
        ],
    }
    on_path = shutil.which("memoryd")
    if on_path and Path(on_path).resolve() != script.resolve():
        variants["memoryd on PATH"] = [on_path, "capture", "--source=claude-code"]  # e.g. a pyenv shim
    floors = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "python -S -c pass": [sys.executable, "-S", "-c", "pass"],
        # The agent's hook goes through sh -c: its floor is the shell plus `python -S`.
        "sh -c 'python -S -c pass'": ["sh", "-c", shlex.join([sys.executable, "-S", "-c", "pass"])],
    }

    wall_ms(variants["console script"], data, env, project)  # first run creates the home
    timings: dict[str, list[float]] = {name: [] for name in [*variants, *floors]}
    for _ in range(runs):  # interleaved, so machine noise hits every variant alike
        for name, cmd in floors.items():
            timings[name].append(wall_ms(cmd, b"", env, project))
        for name, cmd in variants.items():
            timings[name].append(wall_ms(cmd, data, env, project))

    worker_env = c.isolated_env(home)
    spawn_ms: dict[str, list[float]] = {AGENT: [], "console script": []}
    drain_s = []
    for f in (home / "spool").glob("*.json"):  # payloads of the timed runs: not the worker's job
        f.unlink()
    for _ in range(max(3, runs // 2)):
        for name, ms in spawn_ms.items():  # each run waits for the worker to drain
            ms.append(wall_ms(variants[name], data, worker_env, project))
            d = spool_empty(home, 60)
            if d is not None:
                drain_s.append(d)
    imports = import_report(
        [sys.executable, "-X", "importtime", "-m", "memoryd.cli.main", "capture", "--source=claude-code"],
        data,
        env,
        project,
    )
    hookrun = agents.hook_argv()[-1]  # .../memoryd/hookrun.py, as setup writes it
    imports_hook = import_report(
        [sys.executable, "-X", "importtime", "-S", hookrun, "capture", "--source=claude-code"],
        data,
        env,
        project,
    )
    bare = import_report([sys.executable, "-X", "importtime", "-c", "pass"], b"", env, project)
    bare_s = import_report([sys.executable, "-X", "importtime", "-S", "-c", "pass"], b"", env, project)
    lines = transcript.read_text().count("\n")
    return {
        "benchmark": "hook_latency",
        "runs": runs,
        "transcript_lines": lines,
        "transcript_kb": round(transcript.stat().st_size / 1024, 1),
        "command": shlex.join(["sh", "-c", hook_cmd]),
        "target_variant": AGENT,
        "target_p50_ms": TARGET_P50_MS,
        "no_worker_ms": {name: stats(ms) for name, ms in timings.items()},
        "over_floor_ms": {
            "hook (sh -c) - sh -c 'python -S -c pass'": round(
                c.median(timings[AGENT]) - c.median(timings["sh -c 'python -S -c pass'"]), 1
            ),
            "console script - python -c pass": round(
                c.median(timings["console script"]) - c.median(timings["python -c pass"]), 1
            ),
        },
        "hook_with_worker_spawn_ms": stats(spawn_ms[AGENT]),
        "with_worker_spawn_ms": stats(spawn_ms["console script"]),
        "worker_drain_s": round(c.median(drain_s), 2) if drain_s else None,
        "imports": imports,
        "imports_python_pass": {"modules": bare["modules"], "import_ms": bare["import_ms"]},
        "imports_hook": imports_hook,
        "imports_python_s_pass": {"modules": bare_s["modules"], "import_ms": bare_s["import_ms"]},
        "env": {"MEMORYD_NO_WORKER": "1 for the timed runs, unset for the spawn runs"},
    }


def print_report(r: dict[str, Any]) -> None:
    print(
        f"hook: {r['command']}\n  {r['runs']} runs per variant, transcript {r['transcript_lines']} lines / "
        f"{r['transcript_kb']} KB, MEMORYD_NO_WORKER=1"
    )
    for name, s in r["no_worker_ms"].items():
        print(f"    {name:<42} p50 {s['p50']:>7.1f} ms   p95 {s['p95']:>7.1f} ms   min {s['min']:>7.1f} ms")
    for name, ms in r["over_floor_ms"].items():
        print(f"    p50 {name:<48} {ms:>5.1f} ms (what the hook itself costs)")
    spawns = {"hook (sh -c)": "hook_with_worker_spawn_ms", "console script": "with_worker_spawn_ms"}
    for name, key in spawns.items():
        s = r[key]
        name += " + worker spawn"
        print(f"    {name:<42} p50 {s['p50']:>7.1f} ms   p95 {s['p95']:>7.1f} ms")
    print(f"    worker drained the payload in {r['worker_drain_s']} s (median, from hook exit)")
    p50 = r["no_worker_ms"][r["target_variant"]]["p50"]
    print(
        f"    target p50 <= {r['target_p50_ms']:.0f} ms for the hook as setup writes it: "
        f"{'ok' if p50 <= r['target_p50_ms'] else 'MISSED'} ({p50:.1f} ms; console script "
        f"{r['no_worker_ms']['console script']['p50']:.1f} ms)"
    )
    forbidden = False
    for what, im, bare, floor in (
        ("hook as setup writes it (-S hookrun.py)", r["imports_hook"], r["imports_python_s_pass"], "-S "),
        ("console script path (-m memoryd.cli.main)", r["imports"], r["imports_python_pass"], ""),
    ):
        print(
            f"imports on the {what}: {im['modules']} modules, {im['import_ms']} ms self time "
            f"(python {floor}-c pass: {bare['modules']} modules, {bare['import_ms']} ms)"
        )
        print(f"    memoryd modules: {', '.join(im['memoryd_modules'])}")
        if im["forbidden"]:
            forbidden = True
            print(f"FAIL: the hook imports {', '.join(im['forbidden'])}")
        else:
            print(
                f"    ok: none of {', '.join(MUST_NOT)} imported"
                + (f" (also seen: {im['heavy']})" if im["heavy"] else "")
            )
    if forbidden:
        print("FAIL: a heavy library on the hook path")


if __name__ == "__main__":
    os.environ.pop("MEMORYD_NO_WORKER", None)
    sys.exit(main())
