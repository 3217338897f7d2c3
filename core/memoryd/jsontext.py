"""JSON from outside (transcripts, hook payloads, imported files), read so that whatever it
holds can be written back as UTF-8: a lone surrogate escape (`"\\ud800"`, valid JSON but
no character) becomes U+FFFD, and JSON nested deeper than the decoder recurses is a
ValueError like any other text that is not JSON. Standard library only: the hook path
imports it."""

from __future__ import annotations

import json
import re
from typing import Any

_LONE = re.compile("[\ud800-\udfff]")
# Only a document whose text has a surrogate escape (or, in bytes, a raw one) can decode to a
# lone surrogate.
_ESCAPE_TEXT = re.compile(r"\\u[dD][89a-fA-F]")
# In bytes also a surrogate written raw in UTF-8 (ED A0-BF ..): json.loads decodes bytes
# with surrogatepass, so it needs no escape to become one.
_ESCAPE_BYTES = re.compile(rb"\\u[dD][89a-fA-F]|\xed[\xa0-\xbf]")


def loads(data: str | bytes) -> Any:
    """json.loads; ValueError (UnicodeDecodeError included) for anything it cannot read."""
    try:
        value = json.loads(data)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    if isinstance(data, bytes):
        # The escape is searched for in the bytes as ASCII: in UTF-16 or UTF-32 (json.loads
        # reads those too) it is not there to find, so such a document is always cleaned.
        found = _ESCAPE_BYTES.search(data) or json.detect_encoding(data) != "utf-8"
    else:
        found = _ESCAPE_TEXT.search(data)
    return without_surrogates(value) if found else value


def without_surrogates(value: Any) -> Any:
    """`value` with every lone surrogate in its strings (keys too) replaced by U+FFFD.
    Iterative: a value json.loads could build is never too deep for it."""
    if isinstance(value, str):
        return _LONE.sub("\ufffd", value)
    if not isinstance(value, dict | list):
        return value
    root: list[Any] = [value]
    stack: list[Any] = [root]
    while stack:
        node = stack.pop()
        pairs = list(node.items()) if isinstance(node, dict) else list(enumerate(node))
        if isinstance(node, dict) and any(isinstance(k, str) and _LONE.search(k) for k, _ in pairs):
            node.clear()
            node.update({_LONE.sub("\ufffd", k): v for k, v in pairs})
            pairs = list(node.items())
        for key, item in pairs:
            if isinstance(item, str):
                if _LONE.search(item):
                    node[key] = _LONE.sub("\ufffd", item)
            elif isinstance(item, dict | list):
                stack.append(item)
    return root[0]
