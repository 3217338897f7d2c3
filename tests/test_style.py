"""The codebase stays ruff-clean: checked by the same test command CI runs."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_clean():
    ruff = shutil.which("ruff")
    assert ruff, "ruff is part of the dev extra: pip install -e '.[dev]'"
    res = subprocess.run(
        [ruff, "check", "core", "desktop", "tests", "bench"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert res.returncode == 0, res.stdout[-3000:]
