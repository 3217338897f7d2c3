"""One model cache per test run, shared by its xdist workers: building the pack costs a
few seconds, and the tests that are not about the cache just need it to be there."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from memoryd import embed


@pytest.fixture(scope="session")
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.getbasetemp()
    # under xdist each worker's base is popen-gwN inside the run's folder
    run = base.parent if "PYTEST_XDIST_WORKER" in os.environ else base
    return run / "model-cache"


@pytest.fixture(autouse=True)
def model_cache(shared_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("MEMORYD_CACHE_DIR", str(shared_cache))
    saved = dict(embed._loaded)
    embed._loaded.clear()  # each test loads afresh
    yield shared_cache
    embed._loaded.clear()
    embed._loaded.update(saved)
