"""Crash points for the tests that kill a job part-way (the consolidation's resume test),
and failure points for the tests that show one failing item does not stop the rest.

`MEMORYD_KILL_AT=name` (or `name@N`, the Nth time the point is reached) makes the process
SIGKILL itself there: no cleanup, no flush, exactly what a power cut or the OOM killer
leaves behind. `MEMORYD_PAUSE_AT=name` holds it there until the test lets it go, so two
real processes can be made to interleave exactly as a race would. Unset, a point costs one
environment lookup.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

_hits: dict[str, int] = {}


class InjectedFault(RuntimeError):
    """What `MEMORYD_FAIL_AT` raises: an error no code path expects, as a bug would be."""


def _due(variable: str, name: str) -> bool:
    want = os.environ.get(variable)
    if not want:
        return False
    target, _, nth = want.partition("@")
    if target != name:
        return False
    key = f"{variable}:{name}"
    _hits[key] = _hits.get(key, 0) + 1
    return _hits[key] == (int(nth) if nth.isdigit() else 1)


def point(name: str) -> None:
    if _due("MEMORYD_KILL_AT", name):
        os.kill(os.getpid(), getattr(signal, "SIGKILL", signal.SIGTERM))


def fail(name: str) -> None:
    """`MEMORYD_FAIL_AT=name@N`: raise InjectedFault the Nth time (only) `name` is reached."""
    if _due("MEMORYD_FAIL_AT", name):
        raise InjectedFault(f"fault injected at {name}")


PAUSE_LIMIT = 120.0


def pause(name: str) -> None:
    """`MEMORYD_PAUSE_AT=name` (with `MEMORYD_PAUSE_DIR`): create `<dir>/<name>.reached`,
    then wait (at most PAUSE_LIMIT seconds) until the test creates `<dir>/<name>.go`."""
    if not _due("MEMORYD_PAUSE_AT", name):
        return
    folder = Path(os.environ.get("MEMORYD_PAUSE_DIR", "."))
    (folder / f"{name}.reached").touch()
    deadline = time.monotonic() + PAUSE_LIMIT
    while not (folder / f"{name}.go").exists() and time.monotonic() < deadline:
        time.sleep(0.02)
