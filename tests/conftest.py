"""Every test gets its own data dir, config and HOME: no test touches a real user directory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest_plugins = ["tests.delivery", "tests.keyrings"]


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "data"
    monkeypatch.setenv("MEMORYD_HOME", str(home))
    monkeypatch.setenv("MEMORYD_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setenv("HOME", str(tmp_path / "userhome"))
    monkeypatch.delenv("MEMORYD_NOW", raising=False)
    monkeypatch.delenv("MEMORYD_NO_WORKER", raising=False)
    # Tests pin the clock years ahead; an overdue consolidation must not start in the
    # background of a test about something else (the fallback's own tests unset this).
    monkeypatch.setenv("MEMORYD_NO_FALLBACK", "1")
    # No test may reach a real LLM or mail server with the developer's own credentials.
    for var in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "MEMORYD_SMTP_PASSWORD"):
        monkeypatch.delenv(var, raising=False)
    (tmp_path / "userhome").mkdir()
    return home


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A plain project directory (not a git repository)."""
    p = tmp_path / "proj"
    p.mkdir()
    return p


def run_cli(
    *args: str,
    stdin: bytes | str | None = None,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """Run the real `memoryd` CLI in a subprocess, as an agent or a user would."""
    data = stdin.encode() if isinstance(stdin, str) else stdin
    proc = subprocess.run(
        [sys.executable, "-m", "memoryd.cli.main", *args],
        input=data,
        capture_output=True,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        timeout=timeout,
        check=False,
    )
    return subprocess.CompletedProcess(
        proc.args,
        proc.returncode,
        proc.stdout.decode("utf-8", "replace"),
        proc.stderr.decode("utf-8", "replace"),
    )


@pytest.fixture
def cli():
    return run_cli
