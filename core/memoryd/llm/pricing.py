"""What a call cost, so spend can be shown next to tokens. Prices drift: the built-in table is
a convenience, `[llm.prices]` overrides it, and an unknown model is "cost unknown", not 0."""

from __future__ import annotations

import re
from collections.abc import Mapping

from memoryd.llm.base import Usage

# USD per million tokens, (input, output); list prices, checked 2025.
PRICES: dict[str, tuple[float, float]] = {
    "claude-haiku-4-5": (1.00, 5.00),
    "claude-sonnet-4-5": (3.00, 15.00),
    "claude-sonnet-4": (3.00, 15.00),
    "claude-opus-4-1": (15.00, 75.00),
    "claude-3-5-haiku": (0.80, 4.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4.1": (2.00, 8.00),
}

# Dated snapshots and aliases price like their family: claude-haiku-4-5-20251001,
# gpt-4o-mini-2024-07-18, claude-3-5-haiku-latest.
_DATED = re.compile(r"(.+?)-(?:\d{8}|\d{4}-\d{2}-\d{2}|latest)")


Prices = Mapping[str, tuple[float, float]]


def price(model: str, overrides: Prices | None = None) -> tuple[float, float] | None:
    """(input, output) USD per million tokens for `model`, or None if not known."""
    table = {**PRICES, **(overrides or {})}
    if model in table:
        return table[model]
    dated = _DATED.fullmatch(model)
    return table.get(dated.group(1)) if dated else None


def cost(
    provider: str,
    model: str,
    usage: Usage,
    overrides: Prices | None = None,
) -> float | None:
    """USD spent on `usage`; None means the model's price is unknown (show "cost unknown").
    Ollama runs on the user's machine, so it is always free."""
    if provider == "ollama":
        return 0.0
    rates = price(model, overrides)
    if rates is None:
        return None
    return (usage.input_tokens * rates[0] + usage.output_tokens * rates[1]) / 1_000_000
