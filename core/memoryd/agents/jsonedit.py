"""Change a JSON text the user wrote by editing its text, not by dumping a new one.

Setup promises that every byte memoryd does not own stays as it was: the user's indent,
compact arrays, comments (JSONC: // and /* */, which Claude Code itself rejects but people
keep in dotfiles all the same), CRLF newlines, a BOM, a missing final newline. So
`update(text, new)` finds where the parsed text and the wanted value differ and changes
only those spans: a removed key or item is cut out with its own separator, an added one
is written after the last, in the file's style (indent unit, newline, `, `/`: ` spacing,
compact or pretty), a changed scalar is replaced where it stands. Removal is the exact
inverse of insertion, so putting memoryd's entries in and taking them out again gives the
same bytes. Trailing commas, single quotes and other JSON5 are refused, as Claude Code
refuses them.

No library on PyPI does this: round-tripping parsers (json-five, json5kit) keep comments
but leave indenting and separating an inserted entry to the caller, which is the part
that has to be right; a tokenizer and span edits are less code than adapting one.
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from itertools import islice
from typing import Any

BOM = "\ufeff"
MAX_DEPTH = 200
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_LITERALS = {"true": True, "false": False, "null": None}
_WS = re.compile(r"[ \t\r\n]*")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_STRICT = json.JSONDecoder(parse_constant=_no_constant)


class JsonError(ValueError):
    """The text is not JSON (comments allowed); its message names the line and column."""


@dataclass
class Node:
    start: int
    end: int
    value: Any
    kind: str  # "object", "array" or "scalar"
    source: str = ""  # the whole text, for a container whose items are read on demand
    parsed: list[Item] | None = None
    separators: list[int] = field(default_factory=list)

    @property
    def items(self) -> list[Item]:
        """A container read by the json module (no comments inside) is split into items
        only when an edit goes into it: a large ~/.claude.json is read at C speed."""
        if self.parsed is None:
            if self.kind == "scalar":
                self.parsed = []
            else:
                p = _Parser(self.source)
                p.i = p.last = self.start
                full = p.container(0, "}" if self.kind == "object" else "]")
                self.parsed, self.separators = full.parsed, full.separators
        return self.parsed

    @property
    def commas(self) -> list[int]:
        """The comma after items[i]."""
        _ = self.items
        return self.separators


@dataclass
class Item:
    """A member (key: value) or an array element. `lead` is where the whitespace just
    before it begins: the end of the previous token or comment."""

    key: str | None
    start: int
    lead: int
    node: Node
    colon: int = -1

    @property
    def end(self) -> int:
        return self.node.end


@dataclass
class Style:
    newline: str
    unit: str  # one level of indent
    item_ws: str  # after a comma in a one-line container: " " or ""
    key_sep: str  # ": " or ":"


def _line_comment_end(text: str, i: int) -> int:
    j = text.find("\n", i)
    j = len(text) if j < 0 else j
    return j - 1 if text[j - 1] == "\r" and j - 1 >= i + 2 else j


class _Parser:
    def __init__(self, text: str) -> None:
        self.t = text
        self.i = 1 if text.startswith(BOM) else 0
        self.last = self.i  # end of the last token or comment

    def fail(self, what: str, at: int | None = None) -> JsonError:
        pos = self.i if at is None else at
        line = self.t.count("\n", 0, pos) + 1
        col = pos - (self.t.rfind("\n", 0, pos) + 1) + 1
        return JsonError(f"{what} at line {line} column {col}")

    def skip(self) -> None:
        t = self.t
        while True:
            self.i = _WS.match(t, self.i).end()  # type: ignore[union-attr]
            if t.startswith("//", self.i):
                self.i = self.last = _line_comment_end(t, self.i)
            elif t.startswith("/*", self.i):
                j = t.find("*/", self.i + 2)
                if j < 0:
                    raise self.fail("unterminated comment")
                self.i = self.last = j + 2
            else:
                break

    def take(self, n: int = 1) -> None:
        self.i += n
        self.last = self.i

    def peek(self) -> str:
        return self.t[self.i] if self.i < len(self.t) else ""

    def value(self, depth: int) -> Node:
        if depth > MAX_DEPTH:
            raise self.fail("nested too deeply")
        self.skip()
        c, start = self.peek(), self.i
        if c in ("{", "["):
            kind, close = ("object", "}") if c == "{" else ("array", "]")
            try:
                val, end = _STRICT.raw_decode(self.t, start)
            except (ValueError, RecursionError):  # comments inside, or not JSON: read it here
                return self.container(depth, close)
            self.take(end - start)
            return Node(start, end, val, kind, self.t)
        if c == '"':
            s = self.string()
            return Node(start, self.i, s, "scalar")
        m = _NUMBER.match(self.t, self.i)
        if m and m.end() > start:
            self.take(m.end() - start)
            return Node(start, self.i, json.loads(m.group()), "scalar")
        for word, val in _LITERALS.items():
            if self.t.startswith(word, self.i):
                self.take(len(word))
                return Node(start, self.i, val, "scalar")
        raise self.fail("expected a value" if c else "unexpected end")

    def string(self) -> str:
        try:
            s, end = json.decoder.scanstring(self.t, self.i + 1, True)  # type: ignore[attr-defined]
        except ValueError:
            raise self.fail("bad string") from None
        self.take(end - self.i)
        return str(s)

    def container(self, depth: int, close: str) -> Node:
        items: list[Item] = []
        kind = "object" if close == "}" else "array"
        node = Node(self.i, -1, {} if close == "}" else [], kind, self.t, items)
        self.take()
        self.skip()
        if self.peek() == close:
            self.take()
            node.end = self.i
            return node
        while True:
            self.skip()
            lead, start = self.last, self.i
            if close == "}":
                if self.peek() != '"':
                    raise self.fail("expected a key in quotes")
                key = self.string()
                self.skip()
                if self.peek() != ":":
                    raise self.fail("expected ':'")
                colon = self.i
                self.take()
                child = self.value(depth + 1)
                items.append(Item(key, start, lead, child, colon))
                node.value[key] = child.value
            else:
                child = self.value(depth + 1)
                items.append(Item(None, start, lead, child))
                node.value.append(child.value)
            self.skip()
            if self.peek() == ",":
                node.separators.append(self.i)
                self.take()
                continue
            if self.peek() == close:
                self.take()
                node.end = self.i
                return node
            raise self.fail(f"expected ',' or '{close}'")


def parse(text: str) -> Node:
    p = _Parser(text)
    root = p.value(0)
    p.skip()
    if p.i != len(text):
        raise p.fail("unexpected text after the value")
    return root


def has_comments(text: str) -> bool:
    """Whether a text `loads` reads is JSONC rather than JSON (Claude Code, for one,
    rejects the comments: anthropics/claude-code#83190)."""
    try:
        json.loads(text.removeprefix(BOM))
    except ValueError:
        return True
    return False


def loads(text: str) -> Any:
    """The value of a JSON text that may carry comments and a BOM."""
    return parse(text).value


def _line_indent(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    end = start
    while end < pos and text[end] in " \t":
        end += 1
    return text[start:end]


def _walk(node: Node) -> Iterator[Node]:
    """Breadth first: the outer levels, which show the file's style best, come first."""
    todo = deque([node])
    while todo:
        n = todo.popleft()
        yield n
        todo.extend(it.node for it in n.items)


def _style(text: str, root: Node) -> Style:
    newline = "\r\n" if "\r\n" in text else "\n"
    unit, item_ws, key_sep = "", "", ""
    for n in islice(_walk(root), 500):  # the outer levels tell; a big file is not read whole
        for it in n.items:
            ws = text[it.lead : it.start]
            if not unit and "\n" in ws:
                ind, outer = ws[ws.rfind("\n") + 1 :], _line_indent(text, n.start)
                if ind.startswith(outer) and len(ind) > len(outer):
                    unit = ind[len(outer) :]
            if not key_sep and it.colon >= 0:
                sep = text[it.colon : it.node.start]
                key_sep = sep if sep in (":", ": ") else ": "
        for c in n.commas:
            after = text[c + 1 : c + 2]
            if not item_ws and after not in ("\r", "\n", "/"):
                item_ws = " " if after == " " else "\0"
        if unit and item_ws and key_sep:
            break
    return Style(newline, unit or "  ", item_ws.replace("\0", ""), key_sep or ": ")


def _render(value: Any, style: Style, ind: str, inline: bool) -> str:
    if inline:
        return json.dumps(value, ensure_ascii=False, separators=("," + style.item_ws, style.key_sep))
    text = json.dumps(value, ensure_ascii=False, indent=style.unit, separators=(",", style.key_sep))
    return text.replace("\n", style.newline + ind)


Edit = tuple[int, int, str]
Piece = Callable[[str, bool], str]  # (indent, inline) -> the text of one member or item


def _after_line_comments(text: str, pos: int) -> int:
    """Past the comments that follow `pos` on its line: an entry added after a value goes
    after them, so a `// note` stays with the value it was written beside."""
    i = end = pos
    while True:
        while i < len(text) and text[i] in " \t":
            i += 1
        if text.startswith("//", i):
            return _line_comment_end(text, i)
        if text.startswith("/*", i):
            j = text.find("*/", i + 2) + 2
            if "\n" in text[i:j]:
                return end
            i = end = j
            continue
        return end


def _append(text: str, style: Style, c: Node, piece: Piece, own_line: bool) -> list[Edit]:
    close = c.end - 1
    if c.items:
        last = c.items[-1]
        ws = text[last.lead : last.start]
        if "\n" in ws:
            ind = ws[ws.rfind("\n") + 1 :]
            sep, body = style.newline + ind, piece(ind, False)
        else:
            sep = ws if len(c.items) > 1 else style.item_ws
            body = piece("", True)
        p = _after_line_comments(text, last.end)
        if p == last.end:
            return [(p, p, "," + sep + body)]
        return [(last.end, last.end, ","), (p, p, sep + body)]
    if text[c.start + 1 : close].strip():
        # Only comments inside: the entry goes before them, right after the bracket, so it
        # never lands inside a `//` comment and _remove takes out exactly what came in.
        if not own_line:
            return [(c.start + 1, c.start + 1, piece("", True))]
        ind = _line_indent(text, c.start) + style.unit
        return [(c.start + 1, c.start + 1, style.newline + ind + piece(ind, False))]
    p = c.start + 1
    if not own_line:
        return [(p, p, piece("", True))]
    outer = _line_indent(text, c.start)
    ind = outer + style.unit
    tail = "" if "\n" in text[p:close] else style.newline + outer
    return [(p, p, style.newline + ind + piece(ind, False) + tail)]


def _insert_before(text: str, style: Style, c: Node, k: int, piece: Piece) -> list[Edit]:
    it = c.items[k]
    ws = text[it.lead : it.start]
    if "\n" in ws:
        ind = ws[ws.rfind("\n") + 1 :]
        return [(it.start, it.start, piece(ind, False) + "," + ws)]
    return [(it.start, it.start, piece("", True) + "," + (ws or style.item_ws))]


def _remove(text: str, c: Node, k: int) -> list[Edit]:
    """Cut items[k] out with the separator that belongs to it: the inverse of _append
    and _insert_before."""
    it, n = c.items[k], len(c.items)
    if n == 1:
        close = c.end - 1
        pretty = "\n" in text[it.lead : it.start]
        if it.lead == c.start + 1 and pretty and not text[it.end : close].strip():
            return [(it.lead, close, "")]
        return [(it.lead, it.end, "")]
    if k < n - 1:
        end = c.commas[k] + 1
        if it.lead == it.start:
            while end < len(text) and text[end] in " \t":
                end += 1
        return [(it.lead, end, "")]
    comma = c.commas[k - 1]
    return [(comma, comma + 1, ""), (it.lead, it.end, "")]


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values: true is not 1, 1 is not 1.0."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _member(key: str, value: Any, style: Style) -> Piece:
    head = json.dumps(key, ensure_ascii=False) + style.key_sep
    return lambda ind, inline: head + _render(value, style, ind, inline)


def _element(value: Any, style: Style) -> Piece:
    return lambda ind, inline: _render(value, style, ind, inline)


def _first_edit(text: str, style: Style, node: Node, new: Any, own_line: bool) -> list[Edit] | None:
    """One edit that brings `node` closer to `new` (None: equal already)."""
    if _same(node.value, new):
        return None
    inner_own = (lambda it: "\n" in text[it.lead : it.start]) if node.items else (lambda it: False)
    if node.kind == "object" and isinstance(new, dict):
        last: dict[str, int] = {}
        for k, it in enumerate(node.items):
            if it.key not in new:
                return _remove(text, node, k)
            last[str(it.key)] = k
        for key, k in last.items():
            it = node.items[k]
            if not _same(it.node.value, new[key]):
                return _first_edit(text, style, it.node, new[key], inner_own(it))
        for key, value in new.items():
            if key not in last:
                return _append(text, style, node, _member(key, value, style), own_line)
    elif node.kind == "array" and isinstance(new, list):
        old = [_canon(it.node.value) for it in node.items]
        ops = SequenceMatcher(None, old, [_canon(v) for v in new], autojunk=False).get_opcodes()
        for tag, i1, i2, j1, j2 in ops:
            if tag == "equal":
                continue
            if tag == "replace" and i2 - i1 == j2 - j1:
                it = node.items[i1]
                return _first_edit(text, style, it.node, new[j1], inner_own(it))
            if tag in ("delete", "replace"):
                return _remove(text, node, i1)
            if i1 == len(node.items):
                return _append(text, style, node, _element(new[j1], style), own_line)
            return _insert_before(text, style, node, i1, _element(new[j1], style))
    inline = not own_line and "\n" not in text[node.start : node.end]
    ind = _line_indent(text, node.start)
    return [(node.start, node.end, _render(new, style, ind, inline))]


def update(text: str, new: Any) -> str:
    """`text` changed to hold `new`, every byte outside the changed entries kept."""
    for _ in range(100_000):
        root = parse(text)
        edits = _first_edit(text, _style(text, root), root, new, True)
        if edits is None:
            return text
        for start, end, repl in sorted(edits, reverse=True):
            text = text[:start] + repl + text[end:]
        if _same(parse(text).value, root.value):  # an edit that changed no value: never loop on it
            raise JsonError("could not place memoryd's entries in this layout; nothing was changed")
    raise JsonError("too many changes")
