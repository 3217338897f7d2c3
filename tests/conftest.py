"""Every test gets its own data dir, config and HOME: no test touches a real user directory."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from tests import slow_tests

try:
    import fcntl
except ImportError:  # Windows: no test is run alone there
    fcntl = None  # type: ignore[assignment]

pytest_plugins = ["tests.delivery", "tests.keyrings", "pytester"]

ROOT = Path(__file__).resolve().parents[1]

# Hypothesis: CI replays the same examples on every run (a red build is reproducible and a
# green one stays green without a code change); a local run explores new ones each time and
# keeps what it found in .hypothesis/. Each test sets its own example count and deadline.
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.register_profile("dev")
settings.load_profile("ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE", "dev"))

# The suite runs on pytest-xdist workers (pyproject's addopts): one test per work unit, except
# these modules, each kept whole on one worker. Their module-scoped fixtures are costly and
# every worker that ran one of their tests would build them again: test_consolidate's store
# and reference run, and its `crashes` fixture, which starts the kill-and-resume pipelines of
# all the module's selected points at once (on each such worker).
ONE_WORKER = ("tests/core/test_consolidate.py", "tests/bench/test_proposal_quality.py")
# The longest work units, started first so that no worker is left with one at the end while
# the others idle (the scheduler hands out units in collection order).
FIRST = (
    "tests/core/test_consolidate.py",
    "tests/bench/test_proposal_quality.py",
    "tests/e2e/test_tray_screenshots.py",
    "tests/e2e/test_tray_desktop.py",
    "tests/e2e/test_tray_clicks.py",
)
# The `slow` marker (pyproject.toml), given per folder or module so that a new test there is
# covered too: Qt windows and a desktop on Xvfb, the installer bundle (tests/packaging) and
# the built wheel in fresh virtualenvs (tests/install), the benchmarks, and the
# kill-and-resume runs, and the tests measured at 4 s or more (MEASURED_SLOW below).
# `python3 -m pytest -m "not slow"` is the quick
# run (README, Tests); the README's test command and CI run everything.
SLOW_FOLDERS = ("tests/desktop/", "tests/e2e/", "tests/packaging/", "tests/install/", "tests/bench/")
SLOW_MODULES = (
    "tests/core/test_consolidate.py",  # SIGKILL at every crash point, then a resume
    "tests/core/sensitive/test_interrupted_mark.py",  # a mark SIGKILLed half-way, then finished
    "tests/core/importers/test_large_import.py",  # 3,000 records
    "tests/core/capture/test_capture_e2e.py",  # a worker killed at random points; 8 hooks at once
    "tests/core/sensitive/test_mark_during_captures.py",  # 200 captures while a mark runs
    "tests/core/sensitive/test_tamper.py",  # every flip, swap and rename, each read by the CLI
)
# Single tests of 15 s or more (a `-n 2 --durations` run): whole lifecycles through the CLI.
SLOW_TESTS = (
    "tests/core/governance/test_decay.py::test_session_walks_every_state_and_a_recall_resets_it",
    "tests/core/governance/test_merge_promote.py::test_merge_absorbs_and_audits_each_dropped",
    "tests/core/governance/test_merge_promote.py::test_merge_refuses_bad_requests_and_changes_nothing",
    "tests/core/governance/test_merge_promote.py::test_promote_options_and_errors",
    "tests/core/governance/test_no_key_end_to_end.py::test_capture_analyze_digest_promote_without_any_key",
    "tests/core/governance/test_no_key_end_to_end.py::test_reanalysis_never_queues_a_second_promotion",
    "tests/core/agents/test_hook_commands.py::test_every_setup_hook_command_survives_hostile_input",
)
# And every test that took 4 s or more in a measured run (tests/slow_tests.py).
MEASURED_SLOW = slow_tests.load()
# Tests that assert a wall-clock budget: they run while no other test of the run does (see
# one_at_a_time), as in a serial run, so that the budget is measured on an idle machine and
# not on one that the other workers keep busy. They are scheduled last, after the long units.
ALONE = (
    # Claude Code's 1.5 s SessionEnd budget for `memoryd capture` (two runs of the CLI)
    "tests/e2e/test_claude_code_hooks.py::test_precompact_and_session_end_return_at_once_and_capture",
    # the digest window opens on 500 promotions in under 0.3 s
    "tests/desktop/test_digest_window.py::test_500_pending_promotions_open_fast",
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "alone: run while no other test of the run does (under xdist; see tests/conftest.py)"
    )
    if not hasattr(config, "workerinput"):  # the controller (or a run without xdist)
        _compile_sources()


def _compile_sources() -> None:
    """Bytecode for the project's own modules before any test starts: most tests run the CLI
    in subprocesses, and with PYTHONDONTWRITEBYTECODE set (as on this project's machines)
    each of them, and each xdist worker, would compile memoryd from source again. Stale
    caches are recompiled (they are checked by the sources' mtime and size, as Python does)."""
    import compileall

    for folder in ("core", "desktop", "tests"):
        compileall.compile_dir(ROOT / folder, quiet=1)


@pytest.hookimpl(tryfirst=True)  # before xdist reads the xdist_group marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        if item.get_closest_marker("alone"):
            return len(FIRST) + 1
        path = Path(str(item.fspath)).relative_to(ROOT).as_posix()
        return FIRST.index(path) if path in FIRST else len(FIRST)

    for item in items:
        path = Path(str(item.fspath)).relative_to(ROOT).as_posix()
        if path in ONE_WORKER:
            item.add_marker(pytest.mark.xdist_group(path))
        if f"{path}::{item.name}" in ALONE:
            item.add_marker(pytest.mark.alone)
        slow = (
            path in SLOW_MODULES
            or f"{path}::{item.originalname}" in SLOW_TESTS
            or item.nodeid in MEASURED_SLOW
        )
        if slow or path.startswith(SLOW_FOLDERS):
            item.add_marker(pytest.mark.slow)
    items.sort(key=rank)  # stable: the collection order otherwise


@pytest.fixture(autouse=True)
def one_at_a_time(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Under xdist, a test marked `alone` runs while no other test does: every test holds a
    shared lock on a file of this run while it runs, an `alone` one the exclusive lock. The
    gate makes it a writer-first lock: an `alone` test waiting for the running ones to end
    keeps new ones from starting, else it might never find a moment with none running."""
    if "PYTEST_XDIST_WORKER" not in os.environ or fcntl is None:
        yield
        return
    folder = tmp_path_factory.getbasetemp().parent  # shared by this run's workers, and only theirs
    alone = request.node.get_closest_marker("alone") is not None
    with open(folder / "alone.gate", "a") as gate, open(folder / "alone.lock", "a") as lock:
        fcntl.flock(gate, fcntl.LOCK_EX)
        fcntl.flock(lock, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        if not alone:
            fcntl.flock(gate, fcntl.LOCK_UN)
        yield  # closing the files lets go of the locks


@pytest.fixture(scope="session")
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One embedding-model cache per test run, shared by its xdist workers: the per-test
    HOME would otherwise make every test that searches build the model pack (seconds)."""
    base = tmp_path_factory.getbasetemp()
    # under xdist each worker's base is popen-gwN inside the run's folder
    run = base.parent if "PYTEST_XDIST_WORKER" in os.environ else base
    return run / "model-cache"


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared_cache: Path) -> Path:
    home = tmp_path / "data"
    monkeypatch.setenv("MEMORYD_CACHE_DIR", str(shared_cache))
    monkeypatch.setenv("MEMORYD_HOME", str(home))
    monkeypatch.setenv("MEMORYD_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setenv("HOME", str(tmp_path / "userhome"))
    monkeypatch.delenv("MEMORYD_NOW", raising=False)
    monkeypatch.delenv("MEMORYD_NO_WORKER", raising=False)
    # Tests pin the clock years ahead; an overdue consolidation must not start in the
    # background of a test about something else (the fallback's own tests unset this).
    monkeypatch.setenv("MEMORYD_NO_FALLBACK", "1")
    # Nor may the first-run welcome open over the windows a test clicks (test_welcome unsets it).
    monkeypatch.setenv("MEMORYD_NO_WELCOME", "1")
    # No test may reach a real LLM or mail server with the developer's own credentials.
    for var in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "MEMORYD_SMTP_PASSWORD"):
        monkeypatch.delenv(var, raising=False)
    # Core writes prose for people in the locale's language (memoryd.locale_text): tests
    # read English unless they choose Chinese, whatever the developer's own locale.
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
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
