"""How every command prints: `--json` for machines, short aligned text for people."""

from __future__ import annotations

import json
import sys
from typing import Any


def emit_json(value: Any) -> None:
    json.dump(value, sys.stdout, ensure_ascii=False, indent=2, default=str)
    sys.stdout.write("\n")


def line(text: str = "") -> None:
    sys.stdout.write(text + "\n")


def note(text: str) -> None:
    """Progress for people that must not mix with --json output on stdout."""
    sys.stderr.write(f"memoryd: {text}\n")


def warn(text: str) -> None:
    sys.stderr.write(f"memoryd: warning: {text}\n")


def table(rows: list[list[str]], headers: list[str]) -> None:
    if not rows:
        return
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    line("  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip())
    for r in rows:
        line("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
