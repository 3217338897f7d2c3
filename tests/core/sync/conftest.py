"""Fixtures every sync test uses: the shared folder and the pinned clock."""

from __future__ import annotations

from pathlib import Path

import pytest

from .homes import Clock


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    f = tmp_path / "Sync"
    f.mkdir()
    return f


@pytest.fixture
def clk(monkeypatch: pytest.MonkeyPatch) -> Clock:
    return Clock(monkeypatch)
