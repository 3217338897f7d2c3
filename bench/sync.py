"""Sync and export/import at 10k memories: `memoryd sync` between two homes through one
folder, and `memoryd export` / `memoryd import` of the same store.

Why: a sync runs every 15 minutes while the tray is up and at every `memoryd sync`; it
reads and hashes every memory file and rewrites the device's file, so its cost grows with
the store. The first sync of a new device moves everything; the steady state moves a few
edits; both must stay short.

The store is bench/governance.py's (same generator and cache): sessions and long-term
memories over two years. Each run (fresh clone of the cache as home A, an empty home B, an
empty sync folder), every step a new `memoryd` process with the clock pinned:
  1. A's first sync: every memory into A's device file;
  2. B's first sync: every memory written into the empty home B and indexed;
  3. EDITS memories updated on A (`Memoryd.update`, untimed), then A's sync (sends them)
     and B's sync (receives them): the steady state;
  4. A's sync with nothing changed;
  5. `memoryd export --out` of A, then `memoryd import` of that file into an empty home C.
Wall seconds, peak RSS (os.wait4), the device file's size; median over runs. The figures
beside it, in the same run: `python -c pass` and the CLI's imports (the floor).

    python bench/sync.py [--quick] [--size 10000] [--runs 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import _common as c
import governance as gov
from consolidate import timed_process

from memoryd import clock

EDITS = 100
SIZE = 10_000


def memoryd(home: Path, work: Path, *args: str) -> dict[str, Any]:
    env = c.isolated_env(home, MEMORYD_NOW=clock.iso(gov.NOW), MEMORYD_NO_WORKER="1", MEMORYD_NO_FALLBACK="1")
    ran = timed_process([sys.executable, "-m", "memoryd.cli.main", args[0], "--json", *args[1:]], env, work)
    if ran["rc"] != 0:
        raise SystemExit(f"memoryd {' '.join(args)} failed (exit {ran['rc']}): {ran['stderr'][-2000:]}")
    ran["out"] = json.loads(ran["stdout"]) if ran["stdout"].strip() else None
    return ran


EDIT_SCRIPT = """
import sys
from pathlib import Path
from memoryd import paths
from memoryd.app import Memoryd
app = Memoryd(paths.Layout(Path(sys.argv[1])))
rows = app.store.list(types=["decision", "fact", "preference"], limit=int(sys.argv[2]))
for r in rows:
    app.update(r["slug"], body="Edited on device A for the sync benchmark. " + r["slug"], actor="bench")
print(len(rows))
"""


def edit(home: Path, work: Path, n: int) -> int:
    env = c.isolated_env(home, MEMORYD_NOW=clock.iso(gov.NOW), MEMORYD_NO_WORKER="1", MEMORYD_NO_FALLBACK="1")
    ran = timed_process([sys.executable, "-c", EDIT_SCRIPT, str(home), str(n)], env, work)
    if ran["rc"] != 0:
        raise SystemExit(f"edits failed: {ran['stderr'][-2000:]}")
    return int(ran["stdout"].strip())


def pick(r: dict[str, Any]) -> dict[str, float]:
    return {"s": round(r["s"], 3), "peak_mb": round(r["peak_mb"], 1)}


def one_run(src: Path, memories: int) -> dict[str, Any]:
    with c.fresh_copy(src, "memoryd-bench-sync-") as (home_a, _):
        work = home_a.parent
        folder, home_b, home_c = work / "folder", work / "b", work / "c"
        folder.mkdir()
        out: dict[str, Any] = {}
        first_a = memoryd(home_a, work, "sync", "--folder", str(folder))
        out["first_a"] = {**pick(first_a), "sent": first_a["out"]["sent"]}
        device_file = next((folder / "memoryd-sync").glob("*.json"))
        out["device_file_mb"] = round(device_file.stat().st_size / 1e6, 1)
        first_b = memoryd(home_b, work, "sync", "--folder", str(folder))
        out["first_b"] = {**pick(first_b), "received": first_b["out"]["received"]}
        edited = edit(home_a, work, EDITS)
        steady_a = memoryd(home_a, work, "sync", "--folder", str(folder))
        steady_b = memoryd(home_b, work, "sync", "--folder", str(folder))
        out["edited"] = edited
        out["steady_a"] = {**pick(steady_a), "sent": steady_a["out"]["sent"]}
        out["steady_b"] = {**pick(steady_b), "received": steady_b["out"]["received"]}
        idle = memoryd(home_a, work, "sync", "--folder", str(folder))
        out["idle_a"] = {**pick(idle), "sent": idle["out"]["sent"]}
        file = work / "memories.json"
        exp = memoryd(home_a, work, "export", "--out", str(file))
        imp = memoryd(home_c, work, "import", str(file))
        out["export"] = {
            **pick(exp),
            "memories": exp["out"]["memories"],
            "mb": round(file.stat().st_size / 1e6, 1),
        }
        out["import"] = {**pick(imp), "written": imp["out"]["written"]}
        out["export"]["per_s"] = round(memories / exp["s"])
        out["import"]["per_s"] = round(memories / imp["s"])
        same = sorted(p.relative_to(home_b / "scopes").as_posix() for p in (home_b / "scopes").rglob("*.md"))
        mine = sorted(p.relative_to(home_a / "scopes").as_posix() for p in (home_a / "scopes").rglob("*.md"))
        out["b_has_every_file_of_a"] = same == mine
        return out


def floor(work: Path) -> dict[str, float]:
    res = {}
    for name, argv in {
        "python -c pass": [sys.executable, "-c", "pass"],
        "python -c 'import memoryd.cli.main, memoryd.app, memoryd.sync.run'": [
            sys.executable,
            "-c",
            "import memoryd.cli.main, memoryd.app, memoryd.sync.run",
        ],
    }.items():
        res[name] = round(
            1000 * c.median(timed_process(argv, dict(os.environ), work)["s"] for _ in range(5)), 1
        )
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="2,000 memories, one run")
    ap.add_argument("--size", type=int, default=SIZE)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    size = 2000 if args.quick else args.size
    runs = 1 if args.quick else args.runs
    os.environ["MEMORYD_NOW"] = clock.iso(gov.NOW)
    c.compile_memoryd()
    t0 = time.perf_counter()
    src, info = gov.build_home(size)
    memories = int(info.get("memories") or size)
    results = [one_run(src, memories) for _ in range(runs)]
    work = c.temp_dir("memoryd-bench-sync-floor-")
    result = {
        "benchmark": "sync",
        "quick": args.quick,
        "memories": memories,
        "edits": EDITS,
        "runs": runs,
        "median": _median(results),
        "each": results,
        "floor_ms": floor(work),
        "load_1min": round(os.getloadavg()[0], 2),
        "took_s": round(time.perf_counter() - t0),
    }
    return c.finish(result, args.json, lambda: print_text(result))


def _median(runs: list[dict[str, Any]]) -> dict[str, Any]:
    def med(values: list[Any]) -> Any:
        if all(isinstance(v, dict) for v in values):
            return {k: med([v[k] for v in values]) for k in values[0]}
        if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
            return round(c.median(values), 3)
        return values[0]

    return med(runs)  # type: ignore[arg-type]


def print_text(r: dict[str, Any]) -> None:
    m = r["median"]
    print(f"{r['memories']:,} memories, median of {r['runs']} run(s), load {r['load_1min']}:")
    print(
        f"  A first sync:  {m['first_a']['s']:.2f} s, peak {m['first_a']['peak_mb']:.0f} MB, "
        f"file {m['device_file_mb']} MB"
    )
    print(
        f"  B first sync:  {m['first_b']['s']:.2f} s, peak {m['first_b']['peak_mb']:.0f} MB "
        f"({m['first_b']['received']} received)"
    )
    print(f"  {m['edited']} edits: A {m['steady_a']['s']:.2f} s, B {m['steady_b']['s']:.2f} s")
    print(f"  nothing changed: A {m['idle_a']['s']:.2f} s")
    print(
        f"  export {m['export']['s']:.2f} s ({m['export']['per_s']}/s, {m['export']['mb']} MB); "
        f"import {m['import']['s']:.2f} s ({m['import']['per_s']}/s)"
    )
    print(f"  floor: {r['floor_ms']}")


if __name__ == "__main__":
    raise SystemExit(main())
