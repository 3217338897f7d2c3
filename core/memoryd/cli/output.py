"""How every command prints: `--json` for machines, short aligned text for people.

Text for people never carries a control character to the terminal: a memory's title or
body can come from an agent, a transcript or an import, and `\x1b[...` in it would recolour,
move the cursor or retitle the window, and a bidi override would reorder what is shown. So
every text line goes through `clean`, which shows C0 and C1 controls (but newline and tab),
DEL, the bidi controls, the line and paragraph separators and the invisible Unicode tag
characters as visible escapes, `\x1b`, `\u202e`, `\U000e0041` (Python's notation). Applied
whether stdout is a terminal or a pipe (a pipe often ends in one: `| less -R`); the exact
text is in `--json`, where JSON escaping keeps it inert.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from memoryd.textwidth import pad, width

_BIDI = (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x2028, 0x2029)
_ESCAPES: dict[int, str] = {
    **{c: f"\\x{c:02x}" for c in (*range(0x20), 0x7F, *range(0x80, 0xA0)) if c not in (0x09, 0x0A)},
    **{c: f"\\u{c:04x}" for c in _BIDI},
    **{c: f"\\U{c:08x}" for c in range(0xE0000, 0xE0080)},
}
_ONE_LINE = {**_ESCAPES, 0x09: "\\t", 0x0A: "\\n"}


def clean(text: str, *, one_line: bool = False) -> str:
    """`text` with every control that a terminal would act on shown as an escape; with
    `one_line`, newline and tab too (a table cell, a title)."""
    if one_line:
        return text.translate(_ONE_LINE)
    return text.replace("\r\n", "\n").translate(_ESCAPES)  # a CRLF file is not an attack


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
