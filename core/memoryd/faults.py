"""Crash points for the tests that kill a job part-way (the consolidation's resume test).

`MEMORYD_KILL_AT=name` (or `name@N`, the Nth time the point is reached) makes the process
SIGKILL itself there: no cleanup, no flush, exactly what a power cut or the OOM killer
leaves behind. Unset, a point costs one environment lookup.
"""

from __future__ import annotations

import os
import signal

_hits: dict[str, int] = {}


def point(name: str) -> None:
    want = os.environ.get("MEMORYD_KILL_AT")
    if not want:
        return
    target, _, nth = want.partition("@")
    if target != name:
        return
    _hits[name] = _hits.get(name, 0) + 1
    if _hits[name] >= (int(nth) if nth.isdigit() else 1):
        os.kill(os.getpid(), getattr(signal, "SIGKILL", signal.SIGTERM))
