"""Hypothesis strategies for hostile outside input: structurally plausible documents (the
shapes agents and other stores really write) with every field open to the wrong type, deep
nesting, invalid UTF-8, NUL bytes, lone surrogates, CRLF, BOM, stray `---` fences, YAML
tricks, very long lines and Unicode controls. Random bytes alone would be rejected by the
first json.loads and never reach the code behind it."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

# Pieces that have broken parsers before, or look like they could: fences, YAML syntax
# (anchors, tags, merge keys, block scalars, flow collections), line-ending and encoding
# marks, bidi and invisible characters, terminal escapes, JSON that is almost JSON.
TRICKS = (
    "---",
    "\n---\n",
    "---\r\n",
    "...",
    "\ufeff",
    "\r\n",
    "\r",
    "\x00",
    "\x1b[31m",
    "\u202e",
    "\u2066",
    "\u200b",
    "\U000e0041",
    "\ud800",
    "\udfff",
    "\x85",
    "\u2028",
    ": ",
    "- ",
    "? ",
    "&a ",
    "*a",
    "!!python/object:os.system ",
    "!!binary ",
    "<<: ",
    "|",
    ">-",
    "{",
    "}",
    "[",
    "]",
    "'",
    '"',
    "#",
    "%YAML 1.1\n",
    "~",
    "null",
    "true",
    "1e999",
    "0x1F",
    "2026-13-45T99:99:99Z",
    "[REDACTED:",
    "*** Update File: ",
    "<command-name>",
    "exit code: 1",
    "title: x\n",
    "\t",
    "\\",
)

_chars = st.characters(codec=None, exclude_categories=())  # every code point, surrogates too
hostile_text = st.lists(st.one_of(st.sampled_from(TRICKS), st.text(_chars, max_size=8)), max_size=6).map(
    "".join
)
long_text = st.builds(
    lambda piece, n: piece * n, st.sampled_from(["a", "é", "\x00", "- x\n", "中"]), st.integers(1000, 30_000)
)
text_values = st.one_of(hostile_text, hostile_text, long_text)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    text_values,
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.one_of(hostile_text, st.sampled_from(["type", "content", "text"])), inner, max_size=4
        ),
    ),
    max_leaves=12,
)


def nested(depth: int, leaf: Any = 1) -> Any:
    """`depth` levels of lists and objects around `leaf` (not recursive: no RecursionError here)."""
    value = leaf
    for i in range(depth):
        value = [value] if i % 2 else {"content": value}
    return value


deep_values = st.builds(nested, st.integers(50, 400))


def deep_json(depth: int, opener: str = "[") -> str:
    """JSON text nested deeper than json.dumps (or a recursive reader) can go."""
    close = {"[": "]", '{"content":': "}"}[opener]
    return opener * depth + "1" + close * depth


deep_texts = st.builds(deep_json, st.integers(900, 200_000), st.sampled_from(["[", '{"content":']))


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON value: keys of objects, indexes of lists."""
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*prefix, i))
    return out


def _replace(value: Any, path: tuple[Any, ...], new: Any, drop: bool) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict) and head in value:
        out = dict(value)
        if drop and not rest:
            del out[head]
        else:
            out[head] = _replace(value[head], rest, new, drop)
        return out
    if isinstance(value, list) and isinstance(head, int) and head < len(value):
        out_list = list(value)
        if drop and not rest:
            del out_list[head]
        else:
            out_list[head] = _replace(value[head], rest, new, drop)
        return out_list
    return value


@st.composite
def mutated(draw: st.DrawFn, value: Any) -> Any:
    """`value` with a few of its fields, at any depth, dropped or swapped for a hostile
    value of any type; the rest of the shape survives, so the parser gets past its first
    checks and the hostile part reaches the code behind them."""
    paths = _paths(value)
    for _ in range(draw(st.integers(0, 3))):
        path = draw(st.sampled_from(paths))
        if draw(st.integers(0, 4)) == 0:
            value = _replace(value, path, None, drop=True)
        else:
            value = _replace(value, path, draw(st.one_of(json_values, text_values, deep_values)), drop=False)
    return value


def dumps(value: Any, *, ascii_only: bool = True) -> str:
    """JSON as a writer that is not Python's might emit it: NaN and lone surrogates escaped."""
    return json.dumps(value, ensure_ascii=ascii_only)


@st.composite
def jsonl_bytes(draw: st.DrawFn, records: list[Any]) -> bytes:
    """A JSONL file of the (mutated) records, with damaged lines, blank lines, CRLF, a BOM,
    invalid UTF-8 and truncation mixed in."""
    lines: list[bytes] = []
    for rec in records:
        text = dumps(draw(mutated(rec)), ascii_only=draw(st.booleans()))
        raw = text.encode("utf-8", "surrogatepass")
        damage = draw(st.integers(0, 11))
        if damage == 0:
            raw = raw[: draw(st.integers(0, len(raw)))]
        elif damage == 1:
            raw = raw.replace(b'"', b"\xff", 1)
        elif damage == 2:
            raw = draw(st.binary(max_size=40))
        elif damage == 3:
            raw = draw(deep_texts).encode()
        lines.append(raw)
    if draw(st.booleans()):
        lines.insert(draw(st.integers(0, len(lines))), b"")
    sep = draw(st.sampled_from([b"\n", b"\r\n", b"\n\n"]))
    data = sep.join(lines) + draw(st.sampled_from([b"", b"\n", sep]))
    if draw(st.integers(0, 5)) == 0:
        data = b"\xef\xbb\xbf" + data
    return data
