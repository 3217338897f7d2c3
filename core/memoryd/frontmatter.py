"""Markdown with YAML frontmatter: parse and render so that a read then a write of a file
memoryd wrote changes no byte."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from typing import Any

import yaml
from pydantic import ValidationError

from memoryd.clock import iso
from memoryd.errors import CorruptFile
from memoryd.models import Frontmatter

FENCE = "---"
# libyaml when the wheel has it: the same bytes as the pure-Python dumper, ~10x faster.
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass
class Document:
    meta: Frontmatter
    body: str


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return iso(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def render(doc: Document) -> str:
    data = {k: _plain(v) for k, v in doc.meta.model_dump().items()}
    for optional in ("session_id", "superseded_by"):  # absent rather than null
        if data.get(optional) is None:
            data.pop(optional, None)
    head = yaml.dump(
        data, Dumper=_DUMPER, sort_keys=False, allow_unicode=True, default_flow_style=False, width=10_000
    )
    return f"{FENCE}\n{head}{FENCE}\n{doc.body}"


def parse(text: str, *, where: str = "memory file") -> Document:
    """Split and validate; any defect is one CorruptFile naming the file."""
    if not text.startswith(FENCE + "\n"):
        raise CorruptFile(f"{where}: no frontmatter (file must start with '---')")
    end = text.find(f"\n{FENCE}\n", len(FENCE))
    if end < 0:
        raise CorruptFile(f"{where}: frontmatter is not closed by '---'")
    head = text[len(FENCE) + 1 : end + 1]
    body = text[end + len(FENCE) + 2 :]
    try:
        data = yaml.load(head, Loader=_LOADER)  # _LOADER is a safe loader
    except yaml.YAMLError as exc:
        problem = str(exc).splitlines()[0]
        raise CorruptFile(f"{where}: frontmatter is not valid YAML ({problem})") from None
    except (ValueError, OverflowError, RecursionError) as exc:
        # YAML that parses but cannot be built: a date out of range (`2026-13-45`, an
        # offset of +99:00), or nesting deeper than the constructor recurses.
        problem = (str(exc).splitlines() or [exc.__class__.__name__])[0][:120]
        raise CorruptFile(f"{where}: frontmatter holds a value that cannot be read ({problem})") from None
    if not isinstance(data, dict):
        raise CorruptFile(f"{where}: frontmatter is not a mapping")
    try:
        meta = Frontmatter.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "frontmatter"
        raise CorruptFile(f"{where}: {loc}: {first['msg']}") from None
    return Document(meta=meta, body=body)


def parse_bytes(data: bytes, *, where: str = "memory file") -> Document:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise CorruptFile(f"{where}: not UTF-8 text") from None
    return parse(text, where=where)
