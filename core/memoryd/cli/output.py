"""How every command prints: `--json` for machines, short aligned text for people.

Text for people never carries a control character to the terminal: a memory's title or
body can come from an agent, a transcript or an import, and `\x1b[...` in it would recolour,
move the cursor or retitle the window, and a bidi override would reorder what is shown. So
every text line goes through `clean`, which shows C0 and C1 controls (but newline and tab),
DEL, the bidi controls, the line and paragraph separators and the invisible Unicode tag
characters as visible escapes, `\x1b`, `\u202e`, `\U000e0041` (Python's notation;
memoryd.visible, which the tray uses too). Applied whether stdout is a terminal or a pipe (a
pipe often ends in one: `| less -R`); the exact text is in `--json`, where JSON escaping
keeps it inert.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from memoryd.textwidth import pad, width
from memoryd.visible import clean


def emit_json(value: Any) -> None:
    json.dump(value, sys.stdout, ensure_ascii=False, indent=2, default=str)
    sys.stdout.write("\n")


def line(text: str = "") -> None:
    sys.stdout.write(clean(text) + "\n")


def block(body: str) -> None:
    """A block of text as it is (a memory's body, a profile), cleaned like a line."""
    sys.stdout.write(clean(body))


def note(text: str) -> None:
    """Progress for people that must not mix with --json output on stdout."""
    sys.stderr.write(f"memoryd: {clean(text)}\n")


def warn(text: str) -> None:
    sys.stderr.write(f"memoryd: warning: {clean(text)}\n")


def table(rows: list[list[str]], headers: list[str]) -> None:
    """Columns aligned by display width (a Chinese character takes two columns)."""
    if not rows:
        return
    rows = [[clean(c, one_line=True) for c in r] for r in rows]
    widths = [max(width(h), *(width(r[i]) for r in rows)) for i, h in enumerate(headers)]
    line("  ".join(pad(h, w) for h, w in zip(headers, widths, strict=True)).rstrip())
    for r in rows:
        line("  ".join(pad(c, w) for c, w in zip(r, widths, strict=True)).rstrip())
