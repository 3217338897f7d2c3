"""`memoryd import openclaw`: transcripts, MEMORY.md bullets and daily logs, once each."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli
from tests.core.importers.fixtures import OpenClawFixture, build_openclaw_state
from tests.core.importers.support import by_key, listed, one_line_error, read_doc, run_import

SOURCE = "openclaw-fs"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project the fixture transcripts ran in (their header cwd)."""
    p = tmp_path_factory.mktemp("openclaw") / "proj"
    p.mkdir()
    return p


@pytest.fixture(scope="module")
def claw(workdir: Path) -> OpenClawFixture:
    """One state dir for the tests that only read it."""
    return build_openclaw_state(workdir.parent, project=workdir)


def total(oc: OpenClawFixture) -> int:
    """Items a full import of the state dir yields."""
    return oc.transcripts + oc.memory_bullets + oc.daily_logs


def titled(rows: list[dict[str, Any]], title: str) -> dict[str, Any]:
    """The one row with this title."""
    found = [r for r in rows if r["title"] == title]
    assert len(found) == 1, (title, [r["title"] for r in rows])
    return found[0]


def test_state_dir_import(claw: OpenClawFixture, workdir: Path, isolated_home: Path) -> None:
    """The state dir yields one session per transcript (in its cwd's scope), one memory per
    MEMORY.md bullet typed by what it says, and one session per daily log (workspace scope)."""
    report = run_import("openclaw", str(claw.root))
    assert report["source"] == SOURCE
    assert report["imported"] == total(claw)
    assert report["malformed"] == claw.malformed_lines
    assert (report["updated"], report["unchanged"], report["skipped"]) == (0, 0, 0)

    sessions = by_key(listed(workdir))
    assert set(sessions) == {f"{SOURCE}:{sid}" for sid in claw.session_ids}
    assert {r["type"] for r in sessions.values()} == {"session"}

    ws = listed(claw.workspace)
    by_key(ws)
    assert len(ws) == claw.memory_bullets + claw.daily_logs
    assert titled(ws, "用户喜欢简洁的回答")["type"] == "preference"
    warning = titled(ws, "Never push to main without running tests")
    assert warning["type"] == "warning"
    doc = read_doc(isolated_home, warning)
    assert "memory-md" in doc.meta.tags and "rules" in doc.meta.tags
    daily = [r for r in ws if r["session_key"].startswith(f"{SOURCE}:daily:")]
    assert len(daily) == claw.daily_logs
    assert {r["type"] for r in daily} == {"session"}
    bullets = [r for r in ws if r not in daily]
    assert len(bullets) == claw.memory_bullets and all(r["type"] != "session" for r in bullets)
    log = next(r for r in daily if r["created_at"].startswith("2026-11-02"))
    assert "用户说以后回答简短一点" in read_doc(isolated_home, log).body


def test_workspace_alone(claw: OpenClawFixture) -> None:
    """A workspace path imports its MEMORY.md and daily logs, and no transcripts."""
    report = run_import("openclaw", str(claw.workspace))
    assert report["imported"] == claw.memory_bullets + claw.daily_logs
    assert report["malformed"] == 0
    assert len(listed(claw.workspace)) == claw.memory_bullets + claw.daily_logs


def test_second_run_changes_nothing(claw: OpenClawFixture, workdir: Path) -> None:
    """A rerun of the state dir imports nothing and duplicates nothing."""
    run_import("openclaw", str(claw.root))
    before = len(listed(workdir)) + len(listed(claw.workspace))
    again = run_import("openclaw", str(claw.root))
    assert (again["imported"], again["updated"], again["unchanged"]) == (0, 0, total(claw))
    assert len(by_key(listed(workdir))) + len(by_key(listed(claw.workspace))) == before == total(claw)


def test_no_openclaw_data_is_a_usage_error(tmp_path: Path) -> None:
    """A directory without OpenClaw data, or no directory at all: exit 2, one line."""
    empty = tmp_path / "empty"
    empty.mkdir()
    one_line_error(run_cli("import", "openclaw", str(empty)), 2, "no OpenClaw data")
    one_line_error(run_cli("import", "openclaw", str(tmp_path / "missing")), 2, "missing")
    assert json.loads(run_cli("list", "--all-scopes", "--json").stdout) == []


def test_added_bullet_is_the_only_import(tmp_path: Path, project: Path) -> None:
    """After a bullet is added to MEMORY.md, a re-import brings in that bullet alone."""
    oc = build_openclaw_state(tmp_path, project=project)
    run_import("openclaw", str(oc.root))
    with (oc.workspace / "MEMORY.md").open("a", encoding="utf-8") as fh:
        fh.write("- Prefers dark mode in every editor\n")
    again = run_import("openclaw", str(oc.root))
    assert (again["imported"], again["updated"], again["unchanged"]) == (1, 0, total(oc))
    ws = listed(oc.workspace)
    assert titled(ws, "Prefers dark mode in every editor")["type"] == "preference"
    assert len(by_key(ws)) == oc.memory_bullets + 1 + oc.daily_logs
