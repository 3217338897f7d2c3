"""Spend from usage: built-in prices, dated model names, overrides, unknown and local models."""

from __future__ import annotations

import pytest

from memoryd.llm.base import Usage
from memoryd.llm.pricing import cost, price


def test_built_in_prices() -> None:
    assert cost("anthropic", "claude-haiku-4-5", Usage(1_000_000, 0)) == pytest.approx(1.0)
    assert cost("anthropic", "claude-haiku-4-5", Usage(0, 1_000_000)) == pytest.approx(5.0)
    assert cost("anthropic", "claude-sonnet-4-5", Usage(800, 200)) == pytest.approx(
        (800 * 3 + 200 * 15) / 1e6
    )
    assert cost("openai", "gpt-4o-mini", Usage(1000, 200)) == pytest.approx((1000 * 0.15 + 200 * 0.60) / 1e6)
    assert price("gpt-4.1-mini") == (0.40, 1.60)


def test_dated_snapshots_price_like_their_family() -> None:
    assert price("claude-haiku-4-5-20251001") == price("claude-haiku-4-5")
    assert price("gpt-4o-mini-2024-07-18") == price("gpt-4o-mini")
    assert price("gpt-4o-mini") != price("gpt-4o")
    assert price("gpt-4o-mini-extra") is None


def test_unknown_model_is_unknown_not_free() -> None:
    assert cost("openai", "some-new-model", Usage(100, 100)) is None
    assert cost("anthropic", "claude-haiku-4-5", Usage()) == 0.0


def test_ollama_is_free() -> None:
    assert cost("ollama", "llama3.2", Usage(10_000, 5_000)) == 0.0


def test_overrides_win() -> None:
    overrides = {"claude-haiku-4-5": (2.0, 10.0), "my-model": (1.0, 1.0)}
    assert cost("anthropic", "claude-haiku-4-5", Usage(1_000_000, 0), overrides) == pytest.approx(2.0)
    assert cost("openai", "my-model", Usage(500_000, 500_000), overrides) == pytest.approx(1.0)
