"""Text shown to a person with its hidden controls made visible.

A memory's title or body can come from an agent, a transcript, an import or a file edited
by hand: a terminal escape in it would act on the terminal, and a bidi override would
reorder what is shown ("Invoice \\u202efdp.exe" reads "Invoice exe.pdf"). `clean` shows C0
and C1 controls (but newline and tab), DEL, the bidi controls, the line and paragraph
separators and the invisible Unicode tag characters as escapes in Python's notation. The
command line prints every line through it (memoryd.cli.output); the tray shows titles and
bodies through it. Standard library only, no I/O.
"""

from __future__ import annotations

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
