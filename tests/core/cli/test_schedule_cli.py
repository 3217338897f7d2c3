"""The tray's menu and settings from a terminal, through the real CLI: `memoryd schedule`,
`run-job` (due or forced, once per slot, exit 1 when a run fails), `run-due`,
`pause-capture` / `resume-capture` against the real capture hook, and `api-key` (a real
Secret Service, a machine with no keyring, and a key typed at a real pseudo-terminal
that is never echoed). MEMORYD_NOW pins the clock; TZ=UTC makes the cron lines' local
time UTC."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from memoryd.testing import stop_payload
from tests.core.sensitive.support import one_line_error
from tests.delivery import shown

Cli = Callable[..., subprocess.CompletedProcess[str]]

SUNDAY_NOON = "2026-11-22T12:00:00+00:00"  # the first look: the ledger's clock starts here
MONDAY_0305 = "2026-11-23T03:00:05+00:00"  # past the nightly 03:00 consolidation
MONDAY_0500 = "2026-11-23T05:00:00+00:00"
TUESDAY_DEC_1 = "2026-12-01T05:00:00+00:00"  # past every job's slot once


@pytest.fixture
def at(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> Callable[..., subprocess.CompletedProcess[str]]:
    """The CLI at a pinned time, in UTC, with no session bus unless the test gives one."""
    monkeypatch.setenv("TZ", "UTC")
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)

    def run(when: str, *args: str, **kw: object) -> subprocess.CompletedProcess[str]:
        env = {"MEMORYD_NOW": when, **kw.pop("env", {})}  # type: ignore[dict-item]
        return cli(*args, env=env, **kw)

    return run


def test_schedule_lists_the_four_jobs_with_the_configured_times(at, tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text('[schedule]\ndigest = "30 8 * * mon"\n')
    out = at(SUNDAY_NOON, "schedule", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert [(j["id"], j["cron"], j["timed"]) for j in data["jobs"]] == [
        ("consolidate", "0 3 * * *", True),
        ("digest", "30 8 * * mon", True),
        ("identity", "0 2 * * 0", False),  # no timer: the consolidation runs it when due
        ("monthly-report", "0 4 1 * *", True),
    ]
    nxt = {j["id"]: j["next_run"] for j in data["jobs"]}
    assert nxt["digest"] == "2026-11-23T08:30:00Z" and nxt["monthly-report"] == "2026-12-01T04:00:00Z"
    assert not any(j["due"] for j in data["jobs"])
    assert data["timers"] == [] and data["capture_paused"] is False
    text = at(SUNDAY_NOON, "schedule").stdout
    assert text.splitlines()[0].split()[:3] == ["job", "cron", "(local)"]
    assert "digest          30 8 * * mon  2026-11-23 08:30" in text
    assert "timers: none" in text


def test_run_job_once_per_slot(at) -> None:
    assert at(SUNDAY_NOON, "schedule").returncode == 0
    first = at(MONDAY_0305, "run-job", "consolidate")
    assert first.returncode == 0 and first.stdout.startswith("consolidation: "), first.stdout + first.stderr
    second = at(MONDAY_0305, "run-job", "consolidate")
    assert (second.returncode, second.stdout) == (0, "nothing due for consolidate\n")
    assert json.loads(at(MONDAY_0500, "run-job", "consolidate", "--json").stdout) == {
        "job": "consolidate",
        "ran": False,
    }
    [job] = [
        j
        for j in json.loads(at(MONDAY_0500, "schedule", "--json").stdout)["jobs"]
        if j["id"] == "consolidate"
    ]
    assert job["runner"] == "cli" and job["last_success"] == MONDAY_0305.replace("+00:00", "Z")


def test_run_job_digest_force_delivers_to_a_real_notification_daemon(at, dunst: tuple[str, Path]) -> None:
    bus, record = dunst
    out = at(
        MONDAY_0500,
        "run-job",
        "digest",
        "--force",
        "--runner",
        "timer",
        env={"DBUS_SESSION_BUS_ADDRESS": bus},
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout == "digest: 0 promotions, 0 duplicate groups, 0 expiring\n"
    [(app, summary, _body)] = shown(record)
    assert app == "memoryd" and summary
    # forced at 05:00; the next slot (Monday 09:00) has not come: nothing more to run
    assert at(MONDAY_0500, "run-job", "digest").stdout == "nothing due for digest\n"
    [job] = [
        j for j in json.loads(at(MONDAY_0500, "schedule", "--json").stdout)["jobs"] if j["id"] == "digest"
    ]
    assert job["runner"] == "timer" and job["last_error"] is None


def test_a_failed_run_exits_1_and_is_remembered(at, tmp_path: Path) -> None:
    """The digest's email cannot be delivered (nothing listens on the SMTP port), so the
    run failed (exit 1, no trace). No session bus alone is not a failure: cron has none."""
    from tests.delivery import free_port

    (tmp_path / "config.toml").write_text(
        f'[email]\nhost = "127.0.0.1"\nport = {free_port()}\nsecurity = "none"\nto = ["me@example.org"]\n'
    )
    out = at(MONDAY_0500, "run-job", "digest", "--force", "--json")
    assert out.returncode == 1 and "Traceback" not in out.stderr
    run = json.loads(out.stdout)
    assert run["ran"] is True and run["ok"] is False and "not delivered" in run["summary"]
    assert run["counts"] == {
        "promotions": 0,
        "duplicates": 0,
        "expiring": 0,
        "supersedes": 0,
        "conflicts": 0,
        "suspect": 0,
    }
    [job] = [
        j for j in json.loads(at(MONDAY_0500, "schedule", "--json").stdout)["jobs"] if j["id"] == "digest"
    ]
    assert "not delivered" in job["last_error"]
    assert "failed: digest:" in at(MONDAY_0500, "schedule").stdout


def test_run_due_runs_each_missed_job_once(at) -> None:
    assert at(SUNDAY_NOON, "schedule").returncode == 0
    early = at(MONDAY_0500, "run-due")
    assert early.returncode == 0 and early.stdout.startswith("consolidation: "), early.stdout + early.stderr
    assert len(early.stdout.splitlines()) == 1
    assert at(MONDAY_0500, "run-due").stdout == "nothing due\n"

    # A week asleep: each job runs once for its latest slot, however many passed; with no
    # session bus (as under cron) the digest's notification is skipped, not a failure.
    later = at(TUESDAY_DEC_1, "run-due", "--json")
    assert later.returncode == 0, later.stdout + later.stderr
    runs = {r["job"]: r for r in json.loads(later.stdout)}
    assert sorted(runs) == ["consolidate", "digest", "monthly-report"]  # identity: in the consolidation
    assert runs["consolidate"]["slot"] == "2026-12-01T03:00:00Z"
    assert "identity v1" in runs["consolidate"]["summary"]
    assert runs["digest"]["slot"] == "2026-11-30T09:00:00Z" and runs["digest"]["ok"] is True
    assert all(r["ok"] for r in runs.values())
    assert runs["monthly-report"]["summary"].startswith("monthly report 2026-11")
    assert at(TUESDAY_DEC_1, "run-due", "--json").stdout.strip() == "[]"
    jobs = {j["id"]: j for j in json.loads(at(TUESDAY_DEC_1, "schedule", "--json").stdout)["jobs"]}
    assert jobs["identity"]["runner"] == "consolidate" and jobs["identity"]["last_success"]
    assert not jobs["identity"]["due"]


def test_run_job_decay_sweep_of_an_old_timer_runs_the_consolidation(at) -> None:
    assert at(SUNDAY_NOON, "schedule").returncode == 0
    out = at(MONDAY_0305, "run-job", "decay-sweep", "--runner", "timer", "--json")
    assert out.returncode == 0, out.stdout + out.stderr
    run = json.loads(out.stdout)
    assert run["ran"] is True and run["job"] == "consolidate" and run["ok"] is True
    assert run["summary"].startswith("consolidation: ")
    jobs = {j["id"]: j for j in json.loads(at(MONDAY_0305, "schedule", "--json").stdout)["jobs"]}
    assert "decay-sweep" not in jobs and jobs["consolidate"]["runner"] == "timer"


def test_pause_capture_keeps_nothing_until_resumed(cli: Cli, isolated_home: Path, tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("")
    payload = stop_payload("s-paused", transcript, tmp_path)
    spool = isolated_home / "spool"

    def spooled() -> list[str]:
        return sorted(p.name for p in spool.glob("*.json")) if spool.is_dir() else []

    paused = cli("pause-capture")
    assert paused.returncode == 0 and paused.stdout == "capture paused: agent hooks keep nothing\n"
    assert cli("pause-capture").stdout == "capture was already paused\n"
    assert json.loads(cli("schedule", "--json").stdout)["capture_paused"] is True

    hook = cli("capture", "--source=claude-code", stdin=payload, env={"MEMORYD_NO_WORKER": "1"})
    assert hook.returncode == 0 and "capture is paused" in hook.stderr
    assert spooled() == []

    resumed = cli("resume-capture", "--json")
    assert json.loads(resumed.stdout) == {"paused": False, "changed": True}
    hook = cli("capture", "--source=claude-code", stdin=payload, env={"MEMORYD_NO_WORKER": "1"})
    assert hook.returncode == 0 and "paused" not in hook.stderr, hook.stderr
    assert len(spooled()) == 1

    events = [e["event_type"] for e in json.loads(cli("audit", "--json").stdout)]
    assert events.count("capture_paused") == 1 and events.count("capture_resumed") == 1


def test_api_key_without_a_keyring_is_one_line(cli: Cli) -> None:
    one_line_error(cli("api-key", "set", "anthropic", stdin="sk-ant-test-0000\n"), 1, "keyring")
    one_line_error(cli("api-key", "set", "anthropic", stdin=""), 2, "empty")
    one_line_error(cli("api-key", "set", "ollama", stdin="x\n"), 2, "ollama")
    one_line_error(cli("api-key"), 2, "set, delete or status")
    status = json.loads(cli("api-key", "status", "--json").stdout)
    assert [(r["provider"], r["keyring"]) for r in status] == [("anthropic", False), ("openai", False)]


def test_api_key_into_a_keyring_that_keeps_nothing_is_an_error(cli: Cli, null_keyring: None) -> None:
    """`keyring --disable`: the null backend takes the key without error and drops it."""
    key = "sk-ant-api03-" + "N" * 40
    out = cli("api-key", "set", "anthropic", stdin=key + "\n")
    one_line_error(out, 1, "did not keep")
    assert key not in out.stdout + out.stderr
    settings = [e for e in json.loads(cli("audit", "--json").stdout) if e["event_type"] == "settings"]
    assert not [e for e in settings if e["details"].get("stored")], settings


def test_api_key_in_a_real_secret_service(cli: Cli, secret_service: str) -> None:
    key = "sk-ant-api03-" + "Q" * 40
    out = cli("api-key", "set", "anthropic", stdin=key + "\n")
    assert out.returncode == 0, out.stderr
    assert key not in out.stdout + out.stderr
    status = {r["provider"]: r for r in json.loads(cli("api-key", "status", "--json").stdout)}
    assert status["anthropic"]["keyring"] is True and status["openai"]["keyring"] is False
    assert status["anthropic"]["in_use"] is True and status["anthropic"]["env_var"] == "ANTHROPIC_API_KEY"
    assert "stored" in cli("api-key", "status").stdout
    assert cli("api-key", "delete", "anthropic").returncode == 0
    status = {r["provider"]: r for r in json.loads(cli("api-key", "status", "--json").stdout)}
    assert status["anthropic"]["keyring"] is False
    audit = cli("audit", "--json").stdout
    assert key not in audit
    details = [json.loads(e["details"]) for e in json.loads(audit) if e["event_type"] == "settings"]
    assert details == [{"api_key": "anthropic", "stored": True}, {"api_key": "anthropic", "stored": False}]


def test_api_key_typed_at_a_terminal_is_not_echoed() -> None:
    """getpass on a real pseudo-terminal: the prompt shows, the typed key does not."""
    key = "sk-typed-" + "Z" * 30
    master, slave = os.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "memoryd.cli.main", "api-key", "set", "openai"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        close_fds=True,
    )
    os.close(slave)
    seen, typed = b"", False
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(master, 4096)
                except OSError:
                    chunk = b""
                if not chunk and proc.poll() is not None:
                    break
                seen += chunk
                if not typed and b"openai API key: " in seen:
                    os.write(master, key.encode() + b"\n")
                    typed = True
            elif proc.poll() is not None:
                break
        code = proc.wait(timeout=10)
    finally:
        os.close(master)
    text = seen.decode("utf-8", "replace")
    assert typed, text
    assert key not in text
    assert code == 1 and "no OS keyring" in text  # the hermetic test keyring: none
