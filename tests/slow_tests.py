"""The quick run's cut, from measured time: `python3 -m pytest -m "not slow" --durations=0`
prints each test's setup, call and teardown; a test whose three add up to THRESHOLD seconds
or more goes in slow_tests.txt, which tests/conftest.py reads to mark it `slow`.

Regenerate after a run on the 2-core machine CI uses (the file is kept sorted, so a diff
shows what moved):

    python3 -m pytest -m "not slow" --durations=0 -p no:cacheprovider > /tmp/durations.log
    python3 tests/slow_tests.py /tmp/durations.log

Measured, not guessed: marking by folder or by kind (every CLI test, say) would leave the
quick run either slow or thin; this keeps every test under THRESHOLD in it.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from pathlib import Path

LIST = Path(__file__).with_name("slow_tests.txt")
THRESHOLD = 4.0  # seconds of one test (setup + call + teardown) under the default -n 4
LINE = re.compile(r"^\s*(\d+(?:\.\d+)?)s (setup|call|teardown)\s+(\S+)\s*$")


def load() -> frozenset[str]:
    """Node ids (path::name, parameters included) listed as slow."""
    if not LIST.exists():
        return frozenset()
    lines = LIST.read_text(encoding="utf-8").splitlines()
    return frozenset(ln.strip() for ln in lines if ln.strip() and not ln.startswith("#"))


def measured(log: str) -> dict[str, float]:
    total: dict[str, float] = defaultdict(float)
    for line in log.splitlines():
        m = LINE.match(line)
        if m:
            total[m.group(3)] += float(m.group(1))
    return dict(total)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python3 tests/slow_tests.py DURATIONS_LOG", file=sys.stderr)
        return 2
    times = measured(Path(argv[0]).read_text(encoding="utf-8", errors="replace"))
    if not times:
        print(f"{argv[0]}: no --durations lines found", file=sys.stderr)
        return 2
    slow = sorted(set(load()) | {node for node, t in times.items() if t >= THRESHOLD})
    head = (
        f"# Tests of {THRESHOLD:g} s or more in a measured run (tests/slow_tests.py says how to\n"
        "# regenerate). tests/conftest.py marks each `slow`: the quick run leaves them out.\n"
    )
    LIST.write_text(head + "".join(f"{node}\n" for node in slow), encoding="utf-8")
    kept = sum(t for node, t in times.items() if node not in slow)
    print(f"{len(slow)} slow tests listed; the rest add up to {kept:.0f} s of test time")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
