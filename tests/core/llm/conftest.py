"""Provider tests exercise retries; none may really wait, or the suite would crawl."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def no_real_waits(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[float]]:
    """Every time.sleep (the anthropic SDK's retry wait included) is recorded; a test
    that asked for more than a blink fails."""
    waits: list[float] = []
    real = time.sleep

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        real(min(seconds, 0.05))

    monkeypatch.setattr(time, "sleep", sleep)
    started = time.monotonic()
    yield waits
    assert sum(waits) < 0.25, f"real waits requested: {waits}"
    assert time.monotonic() - started < 5.0


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Loopback tests must reach 127.0.0.1 directly, whatever the CI's proxy settings."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    for name in ("ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
