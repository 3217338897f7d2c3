"""Fixtures for the install tests: the wheel built once per run from a copy of the
repository's tracked files, so a stray build/ or .qm in the checkout cannot leak into it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def clean_env(**extra: str) -> dict[str, str]:
    """The test's environment without what would put the checkout's code on sys.path."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(extra)
    return env


def run(*cmd: str | Path, timeout: float = 300, **kwargs: object) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [str(c) for c in cmd], capture_output=True, text=True, timeout=timeout, check=False, **kwargs
    )  # type: ignore[call-overload]
    assert proc.returncode == 0, f"{cmd} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
    return proc


def tracked_copy(dest: Path) -> Path:
    """The repository's tracked files (as a fresh clone has them) under dest."""
    files = run("git", "ls-files", "-z", cwd=ROOT).stdout.split("\0")
    for name in filter(None, files):
        src = ROOT / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    return dest


@pytest.fixture(scope="session")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tracked_copy(tmp_path_factory.mktemp("source"))


@pytest.fixture(scope="session")
def wheel(source: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`pip wheel` of the project, as the README and docs/packaging.md build it."""
    out = tmp_path_factory.mktemp("wheel")
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", out, source, env=clean_env())
    (built,) = out.glob("memoryd-*.whl")
    return built
