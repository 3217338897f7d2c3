"""Each embed test loads the model afresh, from the run's shared cache (tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memoryd import embed


@pytest.fixture(autouse=True)
def model_cache(shared_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("MEMORYD_CACHE_DIR", str(shared_cache))
    saved = dict(embed._loaded)
    embed._loaded.clear()  # each test loads afresh
    yield shared_cache
    embed._loaded.clear()
    embed._loaded.update(saved)
