"""The nightly consolidation (memoryd.consolidate) through the real CLI: every phase has work
in one fixture store; a run SIGKILLed at any crash point resumes to exactly the store an
uninterrupted run leaves; one run at a time; the 48-hour fallback fires once."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock

from memoryd import clock, consolidate, schedule
from memoryd.paths import Layout
from memoryd.testing import claude_exchange, stop_payload, write_jsonl

from .governance.sessions import REMEMBER, ROUTINE

T0 = datetime(2026, 1, 1, 12, 0, 0, tzinfo=clock.UTC)
NOW_DT = T0 + timedelta(days=220)
NOW = clock.iso(NOW_DT)  # every run of these tests happens at this instant
FAIL_KEYRING = "keyring.backends.fail.Keyring"
PHASES = consolidate.PHASES

# Each phase's boundaries, then every point inside a phase (decay:batch@2 is the archive
# batch after the fade batch).
POINTS = [f"{p}:{edge}" for p in PHASES for edge in ("start", "end")] + [
    "capture:saved",
    "analyze:queued",
    "dedupe:item",
    "decay:batch",
    "decay:batch@2",
    "identity:claimed",
    "snapshots:item",
    "exports:item",
]

REMEMBER_B = ("Remember: always run ruff format before committing here. This is important.", "Understood.")
REMEMBER_C = ("Remember: from now on we deploy with ansible, never by hand. Important.", "OK, ansible only.")
REMEMBER_D = ("Remember: always keep the API docs in docs/api.md. This is important.", "OK, noted.")


# -- the fixture store ------------------------------------------------------------------
@dataclass(frozen=True)
class World:
    base: Path
    project_a: Path
    project_b: Path
    template: Path  # a MEMORYD_HOME with work for every phase, before any consolidation
    counts: dict[str, Any]  # what the template holds (see _counts)


def _at(days: float) -> str:
    return clock.iso(T0 + timedelta(days=days))


def _spool(base: Path, project: Path, sid: str, exchanges: list[tuple[str, str]]) -> None:
    """What the Claude Code Stop hook spools: a real transcript, the real hook code."""
    from memoryd.capture.hook import capture

    lines: list[dict[str, Any]] = []
    for prompt, answer in exchanges:
        lines += claude_exchange(prompt, answer, session_id=sid, cwd=str(project))
    transcript = write_jsonl(base / "transcripts" / f"{sid}.jsonl", lines)
    name, warnings = capture("claude-code", stop_payload(sid, transcript, project), spawn=False)
    assert name and not warnings, warnings


def _build(base: Path, mp: pytest.MonkeyPatch) -> World:
    """Sessions whose decay is due (alive -> dim, soft-forgotten -> forgotten), pending
    promotions that repeat a memory or each other, spooled captures (two of them worth
    promoting) in two projects, the weekly identity slot passed, nothing consolidated."""
    import keyring
    import keyring.backends.fail

    from memoryd.app import Memoryd

    a, b, home = base / "projA", base / "projB", base / "template"
    for d in (a, b, base / "userhome"):
        d.mkdir()
    (base / "build-config.toml").write_text("")
    for var, value in {
        "MEMORYD_HOME": str(home),
        "MEMORYD_CONFIG": str(base / "build-config.toml"),
        "HOME": str(base / "userhome"),
        "PYTHON_KEYRING_BACKEND": FAIL_KEYRING,
        "MEMORYD_NO_WORKER": "1",
        "MEMORYD_NO_FALLBACK": "1",
    }.items():
        mp.setenv(var, value)
    for var in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "MEMORYD_KILL_AT"):
        mp.delenv(var, raising=False)
    keyring.set_keyring(keyring.backends.fail.Keyring())

    # Day 0: two sessions, analysed; swept to dim on day 90 and to soft-forgotten on day
    # 120, so on day 220 they are archived (forgotten).
    mp.setenv("MEMORYD_NOW", _at(0))
    _spool(base, a, "old-a", [("Deploy the staging box with ansible", "Done.")])
    _spool(base, b, "old-b", [ROUTINE])
    app = Memoryd()
    assert len(app.drain_spool(wait=True).captured) == 2
    assert [x.status for x in app.analyze_pending()] == ["scored", "scored"]
    mp.setenv("MEMORYD_NOW", _at(90))
    assert Memoryd().decay_sweep().counts() == {"dim": 2}
    mp.setenv("MEMORYD_NOW", _at(120))
    assert Memoryd().decay_sweep().counts() == {"soft-forgotten": 2}

    # Day 125: two more, idle 95 days on day 220: alive -> dim.
    mp.setenv("MEMORYD_NOW", _at(125))
    _spool(base, a, "mid-a", [("how do I list the docker images", "Run docker images.")])
    _spool(base, b, "mid-b", [("what port does the api use", "Port 8080.")])
    app = Memoryd()
    assert len(app.drain_spool(wait=True).captured) == 2
    app.analyze_pending()

    # Day 210: pending promotions for dedupe: one repeats a memory recorded after it was
    # queued, two (in the other project) repeat each other.
    mp.setenv("MEMORYD_NOW", _at(210))
    _spool(base, a, "dupmem-a", [REMEMBER])
    _spool(base, b, "dup-b1", [REMEMBER_B])
    _spool(base, b, "dup-b2", [REMEMBER_B])
    app = Memoryd()
    assert len(app.drain_spool(wait=True).captured) == 3
    queued = [x.promotion for x in app.analyze_pending()]
    assert queued == ["queued"] * 3, queued
    (pnpm,) = [p for p in app.promotions(status="pending") if p["scope_hash"] == app.scope(a).hash]
    app.record("preference", "Use pnpm, not npm", pnpm["proposed_body"], scope_path=a, triggers=["pnpm"])
    app.record(
        "warning", "The CI cache breaks on Fridays", "Clear it with `make ci-clean` first.", scope_path=a
    )
    app.record("decision", "We use Postgres 16", "Chosen for JSONB.", scope_path=a)
    app.record("fact", "Staging is on db-2", "Host db-2.", scope_path=b)

    # Day 215: four captures the hook spooled and no worker drained, two worth promoting.
    mp.setenv("MEMORYD_NOW", _at(215))
    _spool(base, a, "new-a1", [REMEMBER_C])
    _spool(base, a, "new-a2", [ROUTINE])
    _spool(base, b, "new-b1", [REMEMBER_D])
    _spool(base, b, "new-b2", [("what is 2+2", "4")])
    # memoryd first looked 8 days before the run: Sunday's identity slot has passed since.
    schedule.Ledger(Layout(home)).started(NOW_DT - timedelta(days=8))
    return World(base, a, b, home, _counts(home))


@contextlib.contextmanager
def _db(home: Path) -> Iterator[sqlite3.Connection]:
    """index.db read-only, as another process sees it."""
    db = sqlite3.connect(f"file:{home / 'index.db'}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    try:
        yield db
    finally:
        db.close()


def _counts(home: Path) -> dict[str, Any]:
    with _db(home) as db:
        return {
            "spooled": len(list((home / "spool").glob("*.json"))),
            "sessions": db.execute("SELECT count(*) FROM memories WHERE type = 'session'").fetchone()[0],
            "promotions": db.execute("SELECT count(*) FROM promotions").fetchone()[0],
            "states": dict(db.execute("SELECT slug, decay_state FROM memories").fetchall()),
            "audit": len((home / "audit" / "audit.jsonl").read_text().splitlines()),
        }


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    with pytest.MonkeyPatch.context() as mp:
        built = _build(tmp_path_factory.mktemp("consolidate-world"), mp)
    assert built.counts["spooled"] == 4 and built.counts["promotions"] == 3
    states = built.counts["states"]
    assert [states[_slug(states, sid)] for sid in ("old-a", "old-b", "mid-a", "mid-b")] == [
        "soft-forgotten",
        "soft-forgotten",
        "alive",
        "alive",
    ]
    yield built


@dataclass(frozen=True)
class Copy:
    home: Path
    config: Path
    export: Path
    env: dict[str, str]


def _copy(world: World, where: Path, environ: dict[str, str] | None = None) -> Copy:
    """The template as a fresh MEMORYD_HOME in `where`, with its own config.toml whose one
    `[[exports.markdown]]` target is project A into `where/export`. `environ`: the base
    environment (a copy taken on the main thread, for the background pipelines)."""
    home, config, out = where / "data", where / "config.toml", where / "export"
    shutil.copytree(world.template, home, symlinks=True)
    config.write_text(f'[[exports.markdown]]\nscope = "{world.project_a}"\nout = "{out}"\n')
    full = {
        **(os.environ if environ is None else environ),
        "MEMORYD_HOME": str(home),
        "MEMORYD_CONFIG": str(config),
        "MEMORYD_NOW": NOW,
        "MEMORYD_NO_FALLBACK": "1",
        "MEMORYD_NO_WORKER": "1",
        "PYTHON_KEYRING_BACKEND": FAIL_KEYRING,
        "HOME": str(world.base / "userhome"),
    }
    for var in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "MEMORYD_KILL_AT"):
        full.pop(var, None)
    return Copy(home, config, out, full)


@pytest.fixture
def store(world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Copy:
    """A copy of the template as this test's MEMORYD_HOME (also for in-process reads)."""
    shutil.rmtree(tmp_path / "data", ignore_errors=True)
    c = _copy(world, tmp_path)
    for var in ("MEMORYD_HOME", "MEMORYD_CONFIG", "MEMORYD_NOW", "MEMORYD_NO_FALLBACK", "MEMORYD_NO_WORKER"):
        monkeypatch.setenv(var, c.env[var])
    return c


@pytest.fixture
def small(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Copy:
    """A fresh data dir with one spooled capture, the fallback not disabled."""
    home, config = tmp_path / "data", tmp_path / "config.toml"
    config.write_text("")
    env = {
        **os.environ,
        "MEMORYD_HOME": str(home),
        "MEMORYD_CONFIG": str(config),
        "MEMORYD_NOW": NOW,
        "MEMORYD_NO_WORKER": "1",
        "PYTHON_KEYRING_BACKEND": FAIL_KEYRING,
    }
    for var in ("MEMORYD_NO_FALLBACK", "MEMORYD_KILL_AT"):
        env.pop(var, None)
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("MEMORYD_NOW", NOW)
    monkeypatch.setenv("MEMORYD_NO_WORKER", "1")
    project = tmp_path / "proj"
    project.mkdir(exist_ok=True)
    _spool(tmp_path, project, "fallback-1", [ROUTINE])
    return Copy(home, config, tmp_path / "export", env)


def _memoryd(*args: str, env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memoryd", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        check=False,
    )


# -- what a finished store looks like ------------------------------------------------------
def _audit(home: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (home / "audit" / "audit.jsonl").read_text().splitlines()]


def _event_key(e: dict[str, Any]) -> tuple[Any, ...]:
    details = json.loads(e["details"])
    if e["event_type"] == "consolidate":  # its run id, retries and counts are the run's own
        return ("consolidate", e["actor"], details["trigger"], details["ok"])
    return (e["event_type"], e["actor"], e["scope_hash"], e["target_id"], details)


def _observe(home: Path, export: Path) -> dict[str, Any]:
    scopes = home / "scopes"
    files = {
        str(p.relative_to(scopes)): p.read_bytes()
        for p in sorted(scopes.glob("*/*/*"))
        if p.is_file() and not p.name.startswith(".")
    }
    with _db(home) as db:
        promotions = [
            dict(r)
            for r in db.execute(
                "SELECT id, status, source_session_slug, proposed_type, proposed_title, proposed_body, "
                "proposed_triggers, scope_hash, decided_at FROM promotions ORDER BY id"
            )
        ]
        states = dict(db.execute("SELECT slug, decay_state FROM memories").fetchall())
        versions = [tuple(r) for r in db.execute("SELECT version_num, content_md FROM profile_versions")]
    identity = home / "profile" / "identity.md"
    return {
        "memory files": files,
        "promotions": promotions,
        "decay states": states,
        "identity versions": versions,
        "identity.md": identity.read_text() if identity.exists() else None,
        "snapshots": {
            str(p.relative_to(scopes)): p.read_bytes() for p in sorted(scopes.glob("*/snapshot.md"))
        },
        "exports": {p.name: p.read_bytes() for p in sorted(export.glob("*"))} if export.exists() else {},
        "audit": [_event_key(e) for e in _audit(home)],
        "spool": sorted(p.name for p in (home / "spool").glob("*.json")),
    }


@pytest.fixture(scope="module")
def reference(world: World, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The store an uninterrupted `memoryd consolidate --force` leaves, and its report."""
    c = _copy(world, tmp_path_factory.mktemp("reference"))
    out = _memoryd("consolidate", "--force", "--json", env=c.env)
    assert out.returncode == 0, out.stderr
    return {"report": json.loads(out.stdout), "store": _observe(c.home, c.export), "home": c.home}


def _state(home: Path) -> dict[str, Any]:
    with _db(home) as db:
        row = db.execute("SELECT * FROM consolidation_state WHERE id = 1").fetchone()
    return dict(row) if row else {}


def _attempts(home: Path, run_id: str) -> dict[str, int]:
    with _db(home) as db:
        rows = db.execute(
            "SELECT phase, attempts FROM consolidation_phases WHERE run_id = ? AND finished_at IS NOT NULL",
            (run_id,),
        ).fetchall()
    return dict(rows)


def _slug(states: dict[str, str], sid: str) -> str:
    (slug,) = [s for s in states if f"-{sid.replace('-', '')}-" in s]
    return slug


# -- the uninterrupted run ------------------------------------------------------------------
def test_an_uninterrupted_run_has_work_in_every_phase(world: World, reference: dict[str, Any]):
    """The fixture is worth resuming: each phase does something (else the crash tests below
    would compare empty stores)."""
    rep, st = reference["report"], reference["store"]
    assert rep["ok"] and not rep["resumed"] and [p["name"] for p in rep["phases"]] == list(PHASES)
    assert all(p["error"] is None for p in rep["phases"]), rep["phases"]
    s = rep["summary"]
    assert (s["captured"], s["analysed"], s["queued"], s["deduplicated"]) == (4, 4, 2, 2), s
    # The identity rewrite marks every scope stale (the profile is in each snapshot): the
    # snapshots phase renders each once.
    assert (s["decayed"], s["identity_version"], s["rendered"], s["exported"]) == (4, 1, 2, 2), s
    (decay,) = [p for p in rep["phases"] if p["name"] == "decay"]
    assert decay["result"]["counts"] == {"dim": 2, "forgotten": 2}
    assert st["spool"] == []

    states = world.counts["states"]
    by_session = {p["source_session_slug"]: p for p in st["promotions"]}
    # One promotion per qualifying session; the duplicates rejected, with the reason.
    assert len(by_session) == len(st["promotions"]) == 5
    dup_b1, dup_b2, dupmem = (_slug(states, s) for s in ("dup-b1", "dup-b2", "dupmem-a"))
    assert by_session[dup_b1]["status"] == "pending"
    assert by_session[dup_b2]["status"] == by_session[dupmem]["status"] == "rejected"
    reasons = {e[3]: e[4]["reason"] for e in st["audit"] if e[0] == "reject" and e[1] == consolidate.ACTOR}
    assert set(reasons) == {str(by_session[dup_b2]["id"]), str(by_session[dupmem]["id"])}, reasons
    assert reasons[str(by_session[dup_b2]["id"])] == f"duplicate of promotion {by_session[dup_b1]['id']}"
    assert reasons[str(by_session[dupmem]["id"])].startswith("duplicate of memory 2026-07-30-use-pnpm")
    new = [p for p in st["promotions"] if p["id"] > 3]  # the two spooled sessions worth promoting
    assert {p["status"] for p in new} == {"pending"}
    assert sorted(("ansible" in p["proposed_body"], "API docs" in p["proposed_body"]) for p in new) == [
        (False, True),
        (True, False),
    ]
    assert {p["scope_hash"] for p in new} == {p["scope_hash"] for p in st["promotions"]}  # both projects

    # Decay: the day-125 sessions dim, the day-0 ones archived with their transcripts.
    for sid in ("mid-a", "mid-b"):
        assert st["decay states"][_slug(states, sid)] == "dim"
    for sid in ("old-a", "old-b"):
        slug = _slug(states, sid)
        assert slug not in st["decay states"]
        for suffix in (".md", ".turns.jsonl"):
            assert [k for k in st["memory files"] if k.endswith(f"/forgotten/{slug}{suffix}")], slug
    # Identity, snapshots and the export target.
    assert len(st["identity versions"]) == 1 and st["identity.md"] == st["identity versions"][0][1]
    assert "## Preferences" in st["identity.md"]
    assert len(st["snapshots"]) == 2
    memory_md = st["exports"]["MEMORY.md"].decode()
    assert "### Use pnpm, not npm" in memory_md and "### We use Postgres 16" in memory_md
    assert st["exports"]["USER.md"].decode().endswith(st["identity.md"].lstrip("\n"))
    assert [e[0] for e in st["audit"]][-1] == "consolidate"


# -- the acceptance test: a kill anywhere, then a resume -------------------------------------
def _partial(point: str, world: World, home: Path) -> None:
    """What a kill at a mid-phase point leaves: the work it interrupts, half done."""
    before = world.counts
    now = _counts(home)
    if point == "capture:saved":  # a session written, its spool file still there
        assert now["spooled"] == before["spooled"] and now["sessions"] == before["sessions"] + 1
    elif point == "analyze:queued":  # a promotion queued for a session not yet marked analysed
        assert now["promotions"] == before["promotions"] + 1
    elif point == "dedupe:item":
        with _db(home) as db:
            assert db.execute("SELECT count(*) FROM promotions WHERE status = 'rejected'").fetchone()[0] == 1
    elif point == "decay:batch":  # the fade batch's files and audit written, the index not
        assert {k: now["states"][k] for k in before["states"]} == before["states"]
        assert now["audit"] > before["audit"]
        mid = _slug(before["states"], "mid-a")
        (path,) = home.glob(f"scopes/*/sessions/{mid}.md")
        assert "decay_state: dim" in path.read_text()
    elif point == "decay:batch@2":  # the archive batch: files moved, rows not yet deleted
        old = _slug(before["states"], "old-a")
        assert now["states"][old] == "soft-forgotten"
        assert list(home.glob(f"scopes/*/forgotten/{old}.md"))
    elif point == "identity:claimed":
        ledger = json.loads((home / "schedule.json").read_text())
        assert "running" in ledger["jobs"]["identity"]
        with _db(home) as db:
            assert db.execute("SELECT count(*) FROM profile_versions").fetchone()[0] == 0


@dataclass
class Crash:
    """One point's run: killed there, then resumed, and what each left."""

    killed: subprocess.CompletedProcess[str]
    after_kill: dict[str, Any]
    partial: str | None  # what _partial found wrong, if anything
    resumed: subprocess.CompletedProcess[str]
    after: dict[str, Any]
    attempts: dict[str, int]
    store: dict[str, Any]
    audit: list[dict[str, Any]]


def _crash_and_resume(world: World, where: Path, point: str, environ: dict[str, str]) -> Crash:
    c = _copy(world, where, environ)
    killed = _memoryd("consolidate", "--force", env={**c.env, "MEMORYD_KILL_AT": point})
    after_kill = _state(c.home)
    try:
        _partial(point, world, c.home)
        partial = None
    except AssertionError as exc:
        partial = f"after the kill: {exc!r}"
    resumed = _memoryd("consolidate", env=c.env)
    return Crash(
        killed,
        after_kill,
        partial,
        resumed,
        _state(c.home),
        _attempts(c.home, after_kill.get("run_id") or ""),
        _observe(c.home, c.export),
        _audit(c.home),
    )


KILL_TEST = "test_a_run_killed_at_any_point_resumes_to_the_same_store"


@pytest.fixture(scope="module")
def crashes(
    world: World, tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[dict[str, Future[Crash]]]:
    """The selected points' kill-and-resume pipelines, run a few at a time in the
    background (each in its own data dir and processes), each test waiting for its own."""
    wanted = [
        item.callspec.params["point"]
        for item in request.session.items
        if getattr(item, "originalname", None) == KILL_TEST and item.module is request.module
    ]
    environ = dict(os.environ)  # the tests on the main thread change os.environ meanwhile
    pool = ThreadPoolExecutor(max_workers=max(1, min(4, os.cpu_count() or 1)))
    try:
        yield {
            p: pool.submit(_crash_and_resume, world, tmp_path_factory.mktemp("crash"), p, environ)
            for p in wanted
        }
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


@pytest.mark.parametrize("point", POINTS)
def test_a_run_killed_at_any_point_resumes_to_the_same_store(
    point: str, world: World, reference: dict[str, Any], crashes: dict[str, Future[Crash]]
):
    phase = point.split(":")[0]
    crash = crashes[point].result(timeout=600)
    killed, st = crash.killed, crash.after_kill
    assert killed.returncode == -signal.SIGKILL, (killed.returncode, killed.stdout, killed.stderr)
    assert st["run_id"] and st["current_phase"] == phase and st["last_success"] is None, st
    assert crash.partial is None, crash.partial

    resumed = crash.resumed
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert resumed.stderr == ""
    assert resumed.stdout.startswith(f"resuming the run of {NOW} at {phase}\n"), resumed.stdout
    for name in PHASES[: PHASES.index(phase)]:
        assert f"{name}: done before the interruption" in resumed.stdout
    after = crash.after
    assert (after["run_id"], after["current_phase"], after["retry_count"], after["last_success"]) == (
        None,
        None,
        1,
        NOW,
    )
    # Every phase finished once; only the one killed was started twice.
    assert crash.attempts == {p: 2 if p == phase else 1 for p in PHASES}

    got, want = crash.store, reference["store"]
    for key in want:
        assert got[key] == want[key], f"{key} differs from an uninterrupted run"

    # No double promotion: one promotion per session.
    per_session = Counter(p["source_session_slug"] for p in got["promotions"])
    assert set(per_session.values()) == {1}, per_session
    # No double decay step: each memory moved once, from the state it had before the run.
    moves = [
        m
        for e in crash.audit[world.counts["audit"] :]
        if e["event_type"] == "decay"
        for m in json.loads(e["details"])["moves"]
    ]
    assert sorted(m[0] for m in moves) == sorted({m[0] for m in moves}), moves
    assert all(world.counts["states"][slug] == frm for slug, frm, _ in moves), moves
    (event,) = [e for e in crash.audit if e["event_type"] == "consolidate"]
    assert event["target_id"] == st["run_id"] and json.loads(event["details"])["retries"] == 1


# -- state, lock, --phase, not due ---------------------------------------------------------
@pytest.mark.parametrize("point", ["capture:saved", "analyze:queued", "dedupe:item", "decay:batch"])
def test_a_resume_the_next_day_after_other_writes_logs_nothing_twice(
    world: World, reference: dict[str, Any], tmp_path: Path, point: str
):
    """What a user's machine does: the run is killed, other commands write audit events,
    and the next night (a day later) resumes it. The work interrupted is not logged again."""
    c = _copy(world, tmp_path)
    killed = _memoryd("consolidate", "--force", env={**c.env, "MEMORYD_KILL_AT": point})
    assert killed.returncode == -signal.SIGKILL
    project = tmp_path / "elsewhere"
    project.mkdir()
    for i in range(3):
        rec = _memoryd(
            "record", "--type", "fact", "--title", f"Note {i}", "--body", f"Meanwhile {i}.",
            "--scope", str(project), env=c.env,
        )  # fmt: skip
        assert rec.returncode == 0, rec.stderr
    later = {**c.env, "MEMORYD_NOW": clock.iso(clock.parse_ts(NOW) + timedelta(days=1))}
    resumed = _memoryd("consolidate", env=later)
    assert resumed.returncode == 0 and "resuming" in resumed.stdout, resumed.stdout + resumed.stderr
    keys = [
        (e["event_type"], e["target_id"], json.loads(e["details"]).get("dedupe"))
        for e in _audit(c.home)
        if json.loads(e["details"]).get("dedupe")
    ]
    twice = sorted({k for k in keys if keys.count(k) > 1})
    assert twice == [], twice
    kinds = Counter(e["event_type"] for e in _audit(c.home))
    ref = Counter(e[0] for e in reference["store"]["audit"])
    for kind in ("capture", "analyze", "promotion_queued", "reject", "decay", "consolidate"):
        assert kinds[kind] == ref[kind], (kind, kinds[kind], ref[kind])


def test_status_after_a_kill_and_after_the_resume(store: Copy):
    killed = _memoryd("consolidate", "--force", env={**store.env, "MEMORYD_KILL_AT": "dedupe:item"})
    assert killed.returncode == -signal.SIGKILL
    out = _memoryd("consolidate", "--status", "--json", env=store.env)
    assert out.returncode == 0, out.stderr
    st = json.loads(out.stdout)
    assert st["run_id"] and st["run_id"].startswith(NOW) and st["current_phase"] == "dedupe"
    assert (st["retry_count"], st["last_success"], st["running"], st["run_trigger"]) == (
        0,
        None,
        False,
        "cli",
    )
    assert [(p["phase"], p["finished_at"] is not None) for p in st["phases"]] == [
        ("capture", True),
        ("analyze", True),
        ("dedupe", False),
    ]
    text = _memoryd("consolidate", "--status", env=store.env).stdout
    assert f"interrupted:   the run of {NOW} stopped in dedupe (retries 0)" in text, text

    assert _memoryd("consolidate", env=store.env).returncode == 0
    st = json.loads(_memoryd("consolidate", "--status", "--json", env=store.env).stdout)
    assert (st["run_id"], st["current_phase"], st["retry_count"]) == (None, None, 1)
    assert (st["last_success"], st["last_run"], st["last_error"], st["phases"]) == (NOW, NOW, None, [])
    assert st["recent_runs"][0]["retries"] == 1 and st["recent_runs"][0]["finished"] == len(PHASES)


def test_one_run_at_a_time(store: Copy):
    lock = FileLock(consolidate.lock_path(Layout(store.home)))
    with lock.acquire(timeout=0):
        out = _memoryd("consolidate", "--force", env=store.env)
        st = json.loads(_memoryd("consolidate", "--status", "--json", env=store.env).stdout)
    assert out.returncode == 1, (out.stdout, out.stderr)
    assert out.stdout == "" and out.stderr.count("\n") == 1 and "already running" in out.stderr
    assert "Traceback" not in out.stderr
    assert st["running"] is True
    assert _counts(store.home)["spooled"] == 4 and _state(store.home).get("last_run") is None  # nothing ran


def test_phase_runs_one_phase_and_leaves_an_interrupted_run_alone(world: World, store: Copy):
    killed = _memoryd("consolidate", "--force", env={**store.env, "MEMORYD_KILL_AT": "analyze:start"})
    assert killed.returncode == -signal.SIGKILL
    interrupted = _state(store.home)["run_id"]

    out = _memoryd("consolidate", "--phase", "decay", "--json", env=store.env)
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout)
    assert [p["name"] for p in rep["phases"]] == ["decay"] and rep["ok"]
    assert rep["phases"][0]["result"]["counts"] == {"dim": 2, "forgotten": 2}
    now = _counts(store.home)
    assert now["spooled"] == 0  # the killed run had drained the spool before it died
    assert now["promotions"] == world.counts["promotions"]  # analyze, dedupe: not run
    with _db(store.home) as db:
        assert db.execute("SELECT count(*) FROM profile_versions").fetchone()[0] == 0
        pending = db.execute("SELECT count(*) FROM promotions WHERE status = 'pending'").fetchone()[0]
    assert pending == 3 and not store.export.exists()
    st = _state(store.home)
    assert (st["run_id"], st["current_phase"], st["last_success"]) == (interrupted, "analyze", None)

    bad = _memoryd("consolidate", "--phase", "x", env=store.env)
    assert bad.returncode == 2 and bad.stdout == "" and bad.stderr.count("\n") == 1, bad.stderr
    assert "--phase" in bad.stderr and "invalid choice" in bad.stderr and "Traceback" not in bad.stderr


def test_the_snapshots_phase_renders_the_scopes_written_to(store: Copy):
    """Without an identity rewrite that renders everything, the phase renders exactly the
    scopes whose stale marker the night's writes left, and clears the markers."""
    assert _memoryd("consolidate", "--phase", "capture", env=store.env).returncode == 0
    stale = sorted(p.parent.name for p in (store.home / "scopes").glob("*/.snapshot-stale"))
    assert len(stale) == 2, stale  # the two projects the spooled sessions belong to
    out = _memoryd("consolidate", "--phase", "snapshots", "--json", env=store.env)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["phases"][0]["result"]["rendered"] == 2
    assert not list((store.home / "scopes").glob("*/.snapshot-stale*"))
    assert all((store.home / "scopes" / h / "snapshot.md").exists() for h in stale)


def test_nothing_to_do_after_a_success_until_the_next_nightly_slot(small: Copy):
    env = {**small.env, "MEMORYD_NO_FALLBACK": "1"}
    first = _memoryd("consolidate", env=env)
    assert first.returncode == 0 and "summary: 1 captured" in first.stdout, first.stdout + first.stderr
    again = _memoryd("consolidate", env=env)
    assert again.returncode == 0, again.stderr
    assert again.stdout == (
        f"nothing to do: already consolidated at {NOW}, after the last nightly slot; --force runs it again\n"
    )
    forced = _memoryd("consolidate", "--force", env=env)
    assert forced.returncode == 0 and "summary: 0 captured" in forced.stdout, forced.stdout
    # A day later the nightly slot has passed: due again without --force.
    later = _memoryd("consolidate", env={**env, "MEMORYD_NOW": clock.iso(NOW_DT + timedelta(days=1))})
    assert later.returncode == 0 and "summary:" in later.stdout, later.stdout
    runs = [e for e in _audit(small.home) if e["event_type"] == "consolidate"]
    assert [json.loads(e["details"])["trigger"] for e in runs] == ["cli"] * 3


# -- a phase that fails ----------------------------------------------------------------------
def test_a_failing_export_target_fails_the_run_but_not_the_other_phases(store: Copy):
    store.export.write_text("a file where the workspace folder should be\n")
    out = _memoryd("consolidate", "--force", env=store.env)
    assert "Traceback" not in out.stderr and "Traceback" not in out.stdout
    (line,) = [ln for ln in out.stdout.splitlines() if ln.startswith("exports: ")]
    assert "fail" in line, out.stdout
    for other in ("capture: 4 captured", "identity: version 1", "decay: 2 to dim, 2 to forgotten"):
        assert other in out.stdout, out.stdout
    assert out.stderr == "" and not (store.home / "logs" / "consolidate.log").exists()  # expected, no trace
    assert out.returncode == 1, f"a target that could not be written must fail the run:\n{out.stdout}"
    st = json.loads(_memoryd("consolidate", "--status", "--json", env=store.env).stdout)
    assert st["last_success"] is None and st["run_id"] is None, st
    assert "exports" in (st["last_error"] or "") and str(store.export) in st["last_error"], st


def test_an_unexpected_error_in_a_phase_is_logged_and_the_rest_still_runs(store: Copy):
    profile = store.home / "profile"
    shutil.rmtree(profile, ignore_errors=True)
    profile.write_text("not a folder\n")  # identity.md cannot be read or written
    out = _memoryd("consolidate", "--force", env=store.env)
    assert out.returncode == 1, (out.stdout, out.stderr)
    assert "Traceback" not in out.stderr + out.stdout and out.stderr == ""
    assert "identity: failed: NotADirectoryError" in out.stdout, out.stdout
    for after in ("snapshots: 2 rendered", "summary: 4 captured"):
        assert after in out.stdout, out.stdout
    assert _counts(store.home)["spooled"] == 0
    st = json.loads(_memoryd("consolidate", "--status", "--json", env=store.env).stdout)
    assert st["last_success"] is None and st["run_id"] is None
    assert st["last_error"].startswith("identity: NotADirectoryError"), st["last_error"]
    log = (store.home / "logs" / "consolidate.log").read_text()
    assert "phase identity failed" in log and "Traceback (most recent call last)" in log
    events = [e for e in _audit(store.home) if e["event_type"] == "consolidate"]
    assert [json.loads(e["details"])["ok"] for e in events] == [False]


def test_a_phase_that_failed_before_a_kill_still_fails_the_resumed_run(store: Copy):
    profile = store.home / "profile"
    shutil.rmtree(profile, ignore_errors=True)
    profile.write_text("not a folder\n")  # the identity phase fails, then the run is killed
    killed = _memoryd("consolidate", "--force", env={**store.env, "MEMORYD_KILL_AT": "snapshots:start"})
    assert killed.returncode == -signal.SIGKILL
    resumed = _memoryd("consolidate", "--json", env=store.env)
    assert resumed.returncode == 1, resumed.stdout + resumed.stderr
    rep = json.loads(resumed.stdout)
    (ident,) = [p for p in rep["phases"] if p["name"] == "identity"]
    assert rep["resumed"] and not rep["ok"] and ident["earlier"] and "NotADirectoryError" in ident["error"]
    st = json.loads(_memoryd("consolidate", "--status", "--json", env=store.env).stdout)
    assert st["last_success"] is None and st["last_error"].startswith("identity: NotADirectoryError")


# -- the 48-hour fallback ------------------------------------------------------------------
FALLBACK_LINE = "memoryd: consolidation is overdue; it runs in the background now\n"


def _set_state(home: Path, **values: str | None) -> None:
    db = sqlite3.connect(home / "index.db")
    with db:
        db.execute("INSERT OR IGNORE INTO consolidation_state (id, since) VALUES (1, ?)", (NOW,))
        for k, v in values.items():
            db.execute(f"UPDATE consolidation_state SET {k} = ? WHERE id = 1", (v,))
    db.close()


def _ago(hours: float) -> str:
    return clock.iso(NOW_DT - timedelta(hours=hours))


def _children(home: Path) -> list[int]:
    """Live `memoryd consolidate --fallback` processes of this data dir (Linux /proc)."""
    out = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            cmd = (proc / "cmdline").read_bytes().split(b"\0")
            if b"--fallback" not in cmd or b"consolidate" not in cmd:
                continue
            if f"MEMORYD_HOME={home}".encode() in (proc / "environ").read_bytes().split(b"\0"):
                out.append(int(proc.name))
        except OSError:
            continue
    return out


def _settle(home: Path, timeout: float = 20) -> None:
    """Until no fallback run of this data dir is alive and the lock is free."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not _children(home) and not consolidate.running(Layout(home)):
            return
        time.sleep(0.1)
    raise AssertionError(f"a fallback run still going after {timeout} s: {_children(home)}")


def _runs(home: Path) -> tuple[set[str], list[dict[str, Any]]]:
    with _db(home) as db:
        run_ids = {r[0] for r in db.execute("SELECT DISTINCT run_id FROM consolidation_phases")}
    events = [json.loads(e["details"]) for e in _audit(home) if e["event_type"] == "consolidate"]
    return run_ids, events


def _wait_for_success(home: Path, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _state(home).get("last_success") == NOW:
            _settle(home)
            return
        time.sleep(0.2)
    raise AssertionError(f"the background run did not succeed in {timeout} s: {_state(home)}")


def _ready(c: Copy) -> None:
    """index.db made (in-process: quicker than a CLI start), nothing consolidated yet."""
    from memoryd.app import Memoryd

    assert Memoryd().store.layout.index_db == c.home / "index.db"
    assert (c.home / "index.db").exists() and _state(c.home)["last_success"] is None


def test_fallback_fires_once_when_overdue(small: Copy):
    _ready(small)
    _set_state(small.home, since=_ago(24 * 10), last_run=_ago(72), last_success=_ago(72))
    out = _memoryd("stats", env=small.env)
    assert out.returncode == 0 and out.stderr == FALLBACK_LINE, out.stderr
    _wait_for_success(small.home)
    run_ids, events = _runs(small.home)
    assert len(run_ids) == 1 and len(events) == 1, (run_ids, events)
    # The job really ran: the session the hook spooled (drained by `stats`) is analysed now.
    assert events[0]["trigger"] == "fallback" and events[0]["ok"] and events[0]["analysed"] == 1, events
    # Not overdue any more: the next command sets nothing off.
    again = _memoryd("stats", env=small.env)
    assert again.returncode == 0 and again.stderr == ""
    _settle(small.home)
    assert _runs(small.home)[0] == run_ids


def test_fallback_does_not_fire_while_a_run_holds_the_lock(small: Copy):
    _ready(small)
    _set_state(small.home, last_run=_ago(72), last_success=_ago(72))
    with FileLock(consolidate.lock_path(Layout(small.home))).acquire(timeout=0):
        out = _memoryd("stats", env=small.env)
        assert out.returncode == 0 and out.stderr == "", out.stderr
        assert _children(small.home) == []
    time.sleep(1.0)
    _settle(small.home)
    assert _runs(small.home) == (set(), [])
    assert _state(small.home)["last_success"] == _ago(72)


def test_two_commands_at_the_same_moment_make_one_run(small: Copy):
    _ready(small)
    _set_state(small.home, last_run=_ago(72), last_success=_ago(72))
    argv = [sys.executable, "-m", "memoryd", "stats"]
    procs = [
        subprocess.Popen(argv, env=small.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in "ab"
    ]
    errs = [p.communicate(timeout=60)[1].decode() for p in procs]
    assert all(p.returncode == 0 for p in procs) and FALLBACK_LINE in errs, errs
    _wait_for_success(small.home)
    time.sleep(0.5)
    _settle(small.home)
    run_ids, events = _runs(small.home)
    assert len(run_ids) == 1 and [e["trigger"] for e in events] == ["fallback"], (run_ids, events)


def test_fallback_is_quiet_when_not_overdue_and_on_a_fresh_install(small: Copy):
    out = _memoryd("stats", env=small.env)  # a fresh install: index.db made by this first command
    assert out.returncode == 0 and out.stderr == "", out.stderr
    st = _state(small.home)
    assert st["since"] and (st["last_success"], st["last_run"]) == (None, None), st
    since = clock.parse_ts(st["since"])  # when memoryd first looked

    def stats_at(moment: datetime) -> str:
        out = _memoryd("stats", env={**small.env, "MEMORYD_NOW": clock.iso(moment)})
        assert out.returncode == 0, out.stderr
        return out.stderr

    # Never succeeded, but first looked only 47 hours ago: not overdue.
    assert stats_at(since + timedelta(hours=47)) == ""
    # A success 47 hours ago, or a failed attempt within the hour: not overdue.
    for values in (
        {"last_success": _ago(47), "last_run": _ago(47)},
        {"last_success": _ago(72), "last_run": _ago(0.5)},
    ):
        _set_state(small.home, **values)
        assert stats_at(NOW_DT) == "", values
    _settle(small.home)
    assert _runs(small.home) == (set(), [])
    # The fresh install 49 hours on, never having succeeded: overdue, counted from `since`.
    _set_state(small.home, last_success=None, last_run=None)
    later = since + timedelta(hours=49)
    assert stats_at(later) == FALLBACK_LINE
    deadline = time.monotonic() + 20
    while _state(small.home).get("last_success") is None and time.monotonic() < deadline:
        time.sleep(0.2)
    _settle(small.home)
    assert _state(small.home)["last_success"] == clock.iso(later)
    assert len(_runs(small.home)[0]) == 1
