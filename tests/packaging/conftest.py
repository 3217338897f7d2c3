"""The packaging tests build the real PyInstaller bundle and installer (minutes of CPU), so
the default run deselects them; they run with

    MEMORYD_PACKAGING=1 python3 -m pytest tests/packaging

which builds with packaging/build.py first, or tests what is already built with
MEMORYD_BUNDLE=dist/memoryd (and MEMORYD_DEB=dist/memoryd_<version>_<arch>.deb, else the
.deb found beside the bundle). The `packaging` marker is registered in pyproject.toml.
See docs/packaging.md.
"""

from __future__ import annotations

import os

import pytest

ENV = "MEMORYD_PACKAGING"


def enabled() -> bool:
    return os.environ.get(ENV) == "1"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if enabled():
        return
    chosen = [item for item in items if item.get_closest_marker("packaging")]
    if chosen:
        config.hook.pytest_deselected(items=chosen)
        items[:] = [item for item in items if not item.get_closest_marker("packaging")]


def pytest_report_header(config: pytest.Config) -> str:
    if enabled():
        return f"packaging tests: on ({ENV}=1), bundle: {os.environ.get('MEMORYD_BUNDLE') or 'built now'}"
    return f"packaging tests: deselected (set {ENV}=1 to build and test the bundle)"
