"""Turning a model's text into a validated schema object, shared by every provider so they
all forgive the same things (a ```json fence, prose around the object) and fail the same way."""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ValidationError

from memoryd import jsontext
from memoryd.llm.base import LLMBadOutput, T, Usage

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.S)
_DECODER = json.JSONDecoder()


def extract_object(text: str) -> dict[str, Any] | None:
    """The one JSON object in `text`, or None. Models asked for bare JSON still sometimes
    wrap it in a fence or a sentence; anything beyond that is a bad answer."""
    text = text.strip()
    candidates = [text, *(m.group(1).strip() for m in _FENCE.finditer(text))]
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    start = text.find("{")
    while start != -1:
        try:
            value, _ = _DECODER.raw_decode(text, start)
        except ValueError:
            value = None
        if isinstance(value, dict):
            return value
        start = text.find("{", start + 1)
    return None


def parse(text: str, schema: type[T], *, usage: Usage, attempts: int, who: str, truncated: bool = False) -> T:
    """Validate the answer; a failure keeps the usage already spent so budgets stay honest."""
    obj = extract_object(text)
    cut = " (the answer was cut at max_output_tokens)" if truncated else ""
    if obj is None:
        raise LLMBadOutput(f"{who}: the answer is not a JSON object{cut}", usage=usage, attempts=attempts)
    try:  # half a character escaped ("\\ud800") is valid JSON: U+FFFD, as in any JSON read
        return schema.model_validate(jsontext.without_surrogates(obj))
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}" for err in exc.errors()[:3]
        )
        message = f"{who}: the answer does not match {schema.__name__} ({problems}){cut}"
        raise LLMBadOutput(message, usage=usage, attempts=attempts) from None


def scrub(message: str, secret: str | None) -> str:
    """Last guard: whatever went into a message, the API key never leaves in it."""
    if secret and len(secret) >= 4:
        message = message.replace(secret, "***")
    return " ".join(message.split())
