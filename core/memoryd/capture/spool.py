"""The spool: hook payloads written atomically, deleted only after their memory is
committed. Standard library only (the hook path imports it)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from memoryd import atomic, jsontext
from memoryd.envpaths import ensure_dir

SUFFIX = ".json"


def put(spool_dir: str, source: str, payload: dict[str, Any], received_at: str) -> str:
    """Write one payload; returns the spool file's name."""
    payload_id = os.urandom(16).hex()
    # A payload's JSON may escape a lone surrogate ("\ud800"): no UTF-8 file can hold it.
    payload = jsontext.without_surrogates(payload)
    record = {"payload_id": payload_id, "source": source, "received_at": received_at, "payload": payload}
    # time first so a plain sort replays one session's payloads in arrival order
    name = f"{time.time_ns():020d}-{os.getpid()}-{payload_id[:8]}{SUFFIX}"
    atomic.write_text(os.path.join(spool_dir, name), json.dumps(record, ensure_ascii=False))
    return name


def pending(spool_dir: Path) -> list[Path]:
    if not spool_dir.exists():
        return []
    return sorted(p for p in spool_dir.iterdir() if p.name.endswith(SUFFIX) and p.is_file())


def reject(path: Path, rejected_dir: Path, reason: str) -> Path:
    """Keep a payload the worker cannot use, with the reason beside it, out of the queue."""
    ensure_dir(str(rejected_dir))
    target = rejected_dir / path.name
    os.replace(path, target)
    atomic.write_text(target.with_suffix(".reason.txt"), reason + "\n")
    return target
