"""Grant lifetimes on the one clock (MEMORYD_NOW): once = 90 s, session = 8 h, task =
until revoked; `grants --json` lists live grants only; grant files are private."""

from __future__ import annotations

import json
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path

import keyring
import pytest

from memoryd.app import Memoryd
from memoryd.scope import resolve

from .support import CANARY, PASSPHRASE, grant_passphrase, grant_tty, one_line_error, record

T0 = datetime(2026, 6, 1, 9, 0, 0, tzinfo=UTC)


def at(**delta: float) -> dict[str, str]:
    return {"MEMORYD_NOW": (T0 + timedelta(**delta)).strftime("%Y-%m-%dT%H:%M:%SZ")}


@pytest.fixture
def slug(cli, secret_service: str, project: Path) -> str:
    for i in range(2):
        Memoryd().record("fact", f"Grant note {i}", f"{CANARY} {i}", scope_path=project)
    assert cli("mark-sensitive", str(project), env=at()).returncode == 0
    return json.loads(cli("list", "--scope", str(project), "--json").stdout)[0]["slug"]


def _readable(cli, slug: str, env: dict[str, str]) -> bool:
    out = cli("get", slug, env=env)
    if out.returncode == 3:
        assert out.stderr.count("\n") == 1 and "memoryd grant" in out.stderr, out.stderr
        return False
    assert out.returncode == 0 and CANARY in out.stdout, out.stderr
    return True


def _live(cli, env: dict[str, str]) -> list[dict]:
    out = cli("grants", "--json", env=env)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_once_lives_90_seconds(cli, slug: str, project: Path, isolated_home: Path):
    assert not _readable(cli, slug, at())
    grant_tty(project, "once", env=at())
    assert _readable(cli, slug, at(seconds=1))
    assert _readable(cli, slug, at(seconds=89))
    (g,) = _live(cli, at(seconds=89))
    assert g["duration"] == "once" and g["root"] == str(project) and g["expires_at"] == "2026-06-01T09:01:30Z"
    assert not _readable(cli, slug, at(seconds=91))
    assert _live(cli, at(seconds=91)) == []

    h = resolve(project).hash
    path = isolated_home / "grants" / f"{h}.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert CANARY not in path.read_text()


def test_session_lives_8_hours(cli, slug: str, project: Path):
    grant_tty(project, "session", env=at())
    assert _readable(cli, slug, at(hours=8, seconds=-1))
    assert not _readable(cli, slug, at(hours=8, seconds=1))


def test_task_lives_until_revoked_and_listing_shows_live_only(cli, slug: str, project: Path):
    one_line_error(cli("grant", str(project), "--duration", "task", stdin="y\n"), 2)
    grant_tty(project, "once", env=at())
    grant_tty(project, "task", "--task", "year-end", env=at(seconds=10))
    assert {g["duration"] for g in _live(cli, at(seconds=60))} == {"once", "task"}
    (g,) = _live(cli, at(days=400))
    assert g["task"] == "year-end" and g["expires_at"] is None
    assert _readable(cli, slug, at(days=400))

    one_line_error(cli("revoke", str(project), "--task", "no-such-task", env=at(days=400)), 2, "no-such-task")
    out = cli("revoke", str(project), "--task", "year-end", env=at(days=400))
    assert out.returncode == 0 and "revoked 1" in out.stdout, out.stderr
    assert not _readable(cli, slug, at(days=400))
    assert _live(cli, at(days=400)) == []
    assert _live(cli, at(seconds=60)) == []  # revoking also drops the dead ones


def test_task_grant_needs_a_task_name(cli, slug: str, project: Path):
    from .support import tty_cli

    code, _, term = tty_cli("grant", str(project), "--duration", "task")
    assert code == 2 and "--task" in term and "Traceback" not in term
    assert _live(cli, at()) == []


def test_passphrase_grant_key_leaves_the_keyring_when_the_grant_expires(
    cli, secret_service: str, project: Path
):
    record(cli, project, "Pass note", f"{CANARY} body")
    out = cli("mark-sensitive", str(project), "--passphrase", stdin=PASSPHRASE + "\n", env=at())
    assert out.returncode == 0, out.stderr
    h = resolve(project).hash
    slug = json.loads(cli("list", "--scope", str(project), "--json").stdout)[0]["slug"]
    grant_passphrase(cli, project, "once", env=at())
    assert keyring.get_password("memoryd", f"grant-key:{h}")
    assert _readable(cli, slug, at(seconds=30))
    assert not _readable(cli, slug, at(seconds=91))
    assert _live(cli, at(seconds=91)) == []
    assert keyring.get_password("memoryd", f"grant-key:{h}") is None
