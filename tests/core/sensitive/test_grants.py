"""Grant lifetimes on the real clock (issue 18: `MEMORYD_NOW` never creates or extends
access): once = 90 s, session = 8 h, task = until revoked; `grants --json` lists live
grants only; grant files are private. Time is moved the honest way: the person gives a
grant in the past (this process moves `clock.wall` back while granting with the PIN),
and the CLI, on the real clock, judges it."""

from __future__ import annotations

import json
import stat
from datetime import timedelta
from pathlib import Path

import keyring
import pytest

from memoryd import clock
from memoryd.app import Memoryd
from memoryd.scope import resolve

from .support import CANARY, PASSPHRASE, PIN, grant_pin, one_line_error, record, set_pin, tty_cli


@pytest.fixture
def slug(cli, secret_service: str, project: Path) -> str:
    for i in range(2):
        Memoryd().record("fact", f"Grant note {i}", f"{CANARY} {i}", scope_path=project)
    set_pin(cli)
    assert cli("mark-sensitive", str(project), stdin=PIN + "\n").returncode == 0
    return json.loads(cli("list", "--scope", str(project), "--json").stdout)[0]["slug"]


def given(
    monkeypatch: pytest.MonkeyPatch, project: Path, duration: str, ago: timedelta, **kw: str | None
) -> None:
    """The person grants, `ago` before now by the real clock."""
    then = clock.wall() - ago
    with monkeypatch.context() as m:
        m.setattr(clock, "wall", lambda: then)
        Memoryd().grant(project, duration=duration, **({"pin": PIN} | kw))


def _readable(cli, slug: str) -> bool:
    out = cli("get", slug)
    if out.returncode == 3:
        assert out.stderr.count("\n") == 1 and "memoryd grant" in out.stderr, out.stderr
        return False
    assert out.returncode == 0 and CANARY in out.stdout, out.stderr
    return True


def _live(cli) -> list[dict]:
    out = cli("grants", "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_once_lives_90_seconds(cli, slug: str, project: Path, isolated_home: Path, monkeypatch):
    assert not _readable(cli, slug)
    grant_pin(cli, project, "once")
    (g,) = _live(cli)
    assert g["duration"] == "once" and g["root"] == str(project) and "mac" not in g
    span = clock.parse_ts(g["expires_at"]) - clock.parse_ts(g["granted_at"])
    assert span == timedelta(seconds=90)
    assert abs(clock.parse_ts(g["granted_at"]) - clock.wall()) < timedelta(seconds=30)
    assert _readable(cli, slug)

    h = resolve(project).hash
    path = isolated_home / "grants" / f"{h}.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert CANARY not in path.read_text()

    assert cli("revoke", str(project)).returncode == 0
    given(monkeypatch, project, "once", timedelta(seconds=75))
    assert _readable(cli, slug)
    assert cli("revoke", str(project)).returncode == 0
    given(monkeypatch, project, "once", timedelta(seconds=91))
    assert not _readable(cli, slug)
    assert _live(cli) == [] and not path.exists()  # the expired grant left the file


def test_session_lives_8_hours(cli, slug: str, project: Path, monkeypatch):
    given(monkeypatch, project, "session", timedelta(hours=8, seconds=-30))
    assert _readable(cli, slug)
    assert cli("revoke", str(project)).returncode == 0
    given(monkeypatch, project, "session", timedelta(hours=8, seconds=1))
    assert not _readable(cli, slug)


def test_task_lives_until_revoked_and_listing_shows_live_only(cli, slug: str, project: Path, monkeypatch):
    one_line_error(cli("grant", str(project), "--duration", "task", stdin=PIN + "\n"), 2, "--task")
    given(monkeypatch, project, "once", timedelta(seconds=200))  # expired
    given(monkeypatch, project, "task", timedelta(days=400), task="year-end")
    given(monkeypatch, project, "once", timedelta(seconds=10))
    assert {g["duration"] for g in _live(cli)} == {"once", "task"}
    assert cli("revoke", str(project)).returncode == 0
    given(monkeypatch, project, "task", timedelta(days=400), task="year-end")
    (g,) = _live(cli)
    assert g["task"] == "year-end" and g["expires_at"] is None
    assert _readable(cli, slug)

    one_line_error(cli("revoke", str(project), "--task", "no-such-task"), 2, "no-such-task")
    out = cli("revoke", str(project), "--task", "year-end")
    assert out.returncode == 0 and "revoked 1" in out.stdout, out.stderr
    assert not _readable(cli, slug)
    assert _live(cli) == []


def test_task_grant_needs_a_task_name(cli, slug: str, project: Path):
    code, _, term = tty_cli("grant", str(project), "--duration", "task", answer=PIN)
    assert code == 2 and "--task" in term and "Traceback" not in term
    assert "PIN" not in term  # refused before anything was asked
    assert _live(cli) == []


def test_passphrase_grant_key_leaves_the_keyring_when_the_grant_expires(
    cli, secret_service: str, project: Path, monkeypatch
):
    record(cli, project, "Pass note", f"{CANARY} body")
    out = cli("mark-sensitive", str(project), "--passphrase", stdin=PASSPHRASE + "\n")
    assert out.returncode == 0, out.stderr
    h = resolve(project).hash
    slug = json.loads(cli("list", "--scope", str(project), "--json").stdout)[0]["slug"]
    given(monkeypatch, project, "once", timedelta(seconds=30), pin=None, passphrase=PASSPHRASE)
    assert keyring.get_password("memoryd", f"grant-key:{h}")
    assert _readable(cli, slug)
    assert cli("revoke", str(project)).returncode == 0
    assert keyring.get_password("memoryd", f"grant-key:{h}") is None
    given(monkeypatch, project, "once", timedelta(seconds=91), pin=None, passphrase=PASSPHRASE)
    assert keyring.get_password("memoryd", f"grant-key:{h}")
    assert not _readable(cli, slug)
    assert _live(cli) == []
    assert keyring.get_password("memoryd", f"grant-key:{h}") is None


def test_a_passphrase_key_leaves_the_keyring_when_its_grant_ends(
    secret_service: str, project: Path, monkeypatch: pytest.MonkeyPatch
):
    """An outside test (2026-11-28): the key cached for a passphrase scope's grant stayed
    in the OS keyring after the grant ended, until a read was next refused. The capture
    worker's drain removes it (memoryd.sensitive.gate.drop_ended_keys)."""
    from memoryd.capture.worker import drain
    from memoryd.config import Config
    from memoryd.sensitive import gate, state

    app = Memoryd()
    app.record("fact", "Tax id", "The tax id is in the blue folder.", scope_path=project)
    app.mark_sensitive(project, passphrase="correct horse battery staple")
    h = app.scope(project).hash
    Memoryd().grant(project, duration="once", passphrase="correct horse battery staple")
    assert state.keyring_get_quiet(state.grant_entry(h)) is not None
    assert gate.drop_ended_keys(Memoryd().store) == 0  # the grant lives: kept
    drain(Memoryd().store, Config(), wait=True)  # (its one-time reads of older memories done)
    assert state.keyring_get_quiet(state.grant_entry(h)) is not None

    later = clock.wall() + timedelta(minutes=5)
    monkeypatch.setattr(clock, "wall", lambda: later)
    drain(Memoryd().store, Config(), wait=True)
    assert state.keyring_get_quiet(state.grant_entry(h)) is None
