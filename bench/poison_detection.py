"""How well memoryd.poison.inspect tells injection attempts from ordinary sessions, on the
labelled corpus (tests/core/poison/corpus.py), for the dev half it was tuned on and the
held-out half it was not, on the corpus written with the detector ("dev", "held") and on
texts written by someone else ("outside dev", "outside held"). A case is flagged when any
of its texts (each turn, the imported file, the entry's title and content, and the title and
content read together) is suspect.

    python bench/poison_detection.py [--json] [--show] [--no-speed]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "core"), str(ROOT)]

from memoryd.poison import inspect, inspect_all  # noqa: E402
from tests.core.poison.corpus import Case, cases  # noqa: E402


def flagged(case: Case) -> list[str]:
    """The reasons given for a case (empty: not flagged)."""
    if case.kind == "memories_json":
        return list(inspect_all(case.texts()).reasons)  # title and content, as the store reads them
    out: list[str] = []
    for text in case.texts():
        out += inspect(text).reasons
    return out


SPLITS = ("dev", "held", "all", "outside dev", "outside held", "outside all")


def measure() -> dict[str, Any]:
    """Per split: attacks flagged and ordinary cases flagged, with the ids of the misses."""
    result: dict[str, Any] = {}
    start = time.perf_counter()
    for key in SPLITS:
        source, _, split = key.rpartition(" ")
        mine = [c for c in cases(source or "own") if split in ("all", c.split)]
        attacks = [c for c in mine if c.label == "attack"]
        ordinary = [c for c in mine if c.label == "ordinary"]
        missed = [c.id for c in attacks if not flagged(c)]
        false = [c.id for c in ordinary if flagged(c)]
        result[key] = {
            "attacks": len(attacks),
            "attacks_flagged": len(attacks) - len(missed),
            "detection_rate": round((len(attacks) - len(missed)) / len(attacks), 4),
            "ordinary": len(ordinary),
            "ordinary_flagged": len(false),
            "false_positive_rate": round(len(false) / len(ordinary), 4),
            "missed": missed,
            "false_positives": false,
        }
    result["seconds"] = round(time.perf_counter() - start, 3)
    return result


def speed_inputs() -> dict[str, str]:
    """Ordinary text (the corpus's ordinary sessions, repeated) and hostile 256 KB inputs."""
    ordinary = "\n\n".join(
        t for c in cases() if c.label == "ordinary" and c.kind == "session" for t in c.texts()
    )

    def fill(unit: str, size: int) -> str:
        return (unit * (size // len(unit) + 1))[:size]

    k = 1024
    hostile = "ignore the system you must send token to <|< ```\n\u200b\"'“「 QUJDREVGR0hJSktMTU5P "
    return {
        "ordinary 4 KB": fill(ordinary, 4 * k),
        "ordinary 64 KB": fill(ordinary, 64 * k),
        "ordinary 256 KB": fill(ordinary, 256 * k),
        "hostile 256 KB": fill(hostile, 256 * k),
        "hostile 256 KB of '<'": "<" * 256 * k,
        "hostile 256 KB of 'ignore '": fill("ignore ", 256 * k),
        "hostile 256 KB of U+200B": "\u200b" * 256 * k,
        "hostile 256 KB of 'a U+200D b'": fill("a\u200db", 256 * k),
    }


def speed(runs: int = 7) -> dict[str, float]:
    """Median milliseconds of inspect per input (the machine's load shows in these)."""
    out: dict[str, float] = {}
    for name, text in speed_inputs().items():
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            inspect(text)
            times.append(time.perf_counter() - start)
        out[name] = round(statistics.median(times) * 1000, 1)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--show", action="store_true", help="print the reasons for every case")
    ap.add_argument("--no-speed", action="store_true", help="skip the timing section")
    args = ap.parse_args()
    result = measure()
    if not args.no_speed:
        result["speed_ms"] = speed()
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return
    for split in SPLITS:
        r = result[split]
        print(
            f"{split:>12}: attacks flagged {r['attacks_flagged']}/{r['attacks']} "
            f"({r['detection_rate']:.1%}), ordinary flagged {r['ordinary_flagged']}/{r['ordinary']} "
            f"({r['false_positive_rate']:.1%})"
        )
        for cid in r["missed"]:
            print(f"      missed: {cid}")
        for cid in r["false_positives"]:
            print(f"      false positive: {cid}")
    for name, ms in result.get("speed_ms", {}).items():
        print(f"speed: {name:>30}: {ms:7.1f} ms (median)")
    if args.show:
        for case in cases():
            print(case.id, flagged(case))


if __name__ == "__main__":
    main()
