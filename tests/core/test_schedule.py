"""Scheduled jobs: cron lines read as cron reads them (0 and 7 are Sunday), and the claim
ledger `schedule.json`, so a slot missed while nothing ran is run once at the next look,
once only, whoever looks first (the tray, a timer, a second tray, the CLI)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import tomllib
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import tzlocal

from memoryd import paths, schedule
from memoryd.app import Memoryd
from memoryd.errors import UsageError
from tests.delivery import free_port

# 2026-06-01 is a Monday.
THU = "2026-06-04T12:00:00Z"
MON_DIGEST = "2026-06-08T09:00:00Z"
TUE = "2026-06-09T10:00:00Z"


def _set_zone(name: str | None) -> None:
    if name is None:
        os.environ.pop("TZ", None)
    else:
        os.environ["TZ"] = name
    time.tzset()
    tzlocal.reload_localzone()  # tzlocal caches the zone it found first


@pytest.fixture(autouse=True)
def utc() -> Iterator[None]:
    """Cron times are local: pin the machine's zone to UTC (a test may move it), and put
    it back afterwards, for this process and the CLI processes it starts."""
    saved = os.environ.get("TZ")
    _set_zone("UTC")
    yield
    _set_zone(saved)


@pytest.fixture
def at(monkeypatch: pytest.MonkeyPatch):
    """Move the one clock: at("2026-06-09T10:00:00Z")."""

    def move(when: str) -> None:
        monkeypatch.setenv("MEMORYD_NOW", when)

    return move


def _next(cron: str, after: str) -> str:
    nxt = schedule.next_run(schedule.Job("digest", schedule.check(cron)), datetime.fromisoformat(after))
    assert nxt is not None
    return nxt.astimezone(UTC).strftime("%a %Y-%m-%d %H:%M")


def _one_line_usage(cron: str, *words: str) -> str:
    with pytest.raises(UsageError) as err:
        schedule.check(cron)
    msg = str(err.value)
    assert "\n" not in msg and repr(cron) in msg, msg
    for w in words:
        assert w in msg, (w, msg)
    return msg


def _state(home: Path) -> dict:
    return json.loads((home / "schedule.json").read_text(encoding="utf-8"))


# -- cron lines ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("weekday", "expected"),
    [
        ("0", "sun"),
        ("7", "sun"),
        ("0,7", "sun"),
        ("1", "mon"),
        ("6", "sat"),
        ("1-5", "mon,tue,wed,thu,fri"),
        ("5-7", "sun,fri,sat"),  # 7 in a range is Sunday too
        ("0-6", "sun,mon,tue,wed,thu,fri,sat"),
        ("1,3,5", "mon,wed,fri"),
        ("*/2", "sun,tue,thu,sat"),
        ("1-5/2", "mon,wed,fri"),
        ("1/2", "mon,wed,fri"),  # cronie's N/step: from N to the end
        ("MON,wed", "mon,wed"),
        ("mon-fri", "mon,tue,wed,thu,fri"),
        ("sun", "sun"),
        ("*", "*"),
    ],
)
def test_weekday_field_as_cron_reads_it(weekday: str, expected: str):
    assert schedule._weekdays(weekday) == expected


def test_weekday_numbers_fire_on_the_days_cron_means():
    wed = "2026-06-03T12:00:00+00:00"  # a Wednesday
    assert _next("0 9 * * 0", wed) == "Sun 2026-06-07 09:00"
    assert _next("0 9 * * 7", wed) == "Sun 2026-06-07 09:00"
    assert _next("0 9 * * 1", wed) == "Mon 2026-06-08 09:00"
    assert _next("0 9 * * 6", wed) == "Sat 2026-06-06 09:00"
    assert _next("0 9 * * 1-2", wed) == "Mon 2026-06-08 09:00"
    assert _next("0 9 * * 4-5", wed) == "Thu 2026-06-04 09:00"
    assert _next("0 9 * * 0,6", wed) == "Sat 2026-06-06 09:00"
    assert _next("30 18 * * fri", wed) == "Fri 2026-06-05 18:30"
    assert _next("0 9 * * */3", wed) == "Sat 2026-06-06 09:00"  # 0, 3, 6: Sun, Wed, Sat
    assert _next("0 8 1 * *", wed) == "Wed 2026-07-01 08:00"
    assert schedule.check("  0   9 * *   mon ") == "0 9 * * mon"


@pytest.mark.parametrize(
    ("cron", "words"),
    [
        ("0 9 * * 8", ("bad weekday '8'",)),
        ("0 9 * * fri-mon", ("backwards",)),
        ("0 9 * * 7-1", ("backwards",)),
        ("0 9 * * 1/0", ("bad step",)),
        ("0 9 * * funday", ("bad weekday",)),
        ("61 * * * *", ("not a valid cron line",)),
        ("0 25 * * *", ("not a valid cron line",)),
        ("0 9 32 * *", ("not a valid cron line",)),
        ("0 9 * 13 *", ("not a valid cron line",)),
        ("0 9 * *", ("five cron fields",)),
        ("0 9 * * 1 extra", ("five cron fields",)),
        ("", ("five cron fields",)),
    ],
)
def test_a_bad_field_is_one_usage_line(cron: str, words: tuple[str, ...]):
    _one_line_usage(cron, *words)


# -- config.toml [schedule] ------------------------------------------------------------


def test_schedule_table_in_config(cli, tmp_path: Path, at):
    config = tmp_path / "config.toml"
    at(THU)
    config.write_text('[schedule]\ndigest = "30 18 * * fri"  # Friday evening\n', encoding="utf-8")
    rows = {r["id"]: r for r in Memoryd().schedules()}
    assert rows["digest"]["cron"] == "30 18 * * fri"
    assert rows["digest"]["next_run"] == "2026-06-05T18:30:00Z"
    assert rows["consolidate"]["cron"] == schedule.DEFAULTS["consolidate"]  # the others keep theirs

    for text, words in (
        ('[schedule]\nweekly = "0 9 * * 1"\n', ("unknown key", "weekly", "digest")),
        ('[schedule]\ndigest = "0 9 * * 8"\n', ("'0 9 * * 8'", "bad weekday")),
        ('[schedule]\ndigest = "0 9 * *"\n', ("five cron fields",)),
        ("[schedule]\ndigest = 9\n", ("digest", "cron line in quotes")),
        ('schedule = "daily"\n', ("[schedule] must be a table",)),
    ):
        config.write_text(text, encoding="utf-8")
        # Refused where config.toml is read (every command), and by the scheduler itself.
        with pytest.raises(UsageError) as err:
            Memoryd()
        msg = str(err.value)
        assert msg.startswith(f"{config}: ") and "\n" not in msg, msg
        for w in words:
            assert w in msg, (w, msg)
        with pytest.raises(UsageError):
            schedule.jobs(tomllib.loads(text))
    out = cli("run-job", "digest", "--force")
    assert out.returncode == 2 and out.stdout == "" and out.stderr.count("\n") == 1, out
    assert str(config) in out.stderr and "[schedule]" in out.stderr
    assert "jobs" not in _state(tmp_path / "data")  # nothing was claimed


def test_unknown_job_is_a_usage_error(at):
    at(THU)
    with pytest.raises(UsageError, match="unknown job 'backup'"):
        Memoryd().run_job("backup")


def test_times_are_local_time(at):
    _set_zone("Europe/Berlin")  # CEST in June: UTC+2
    at(THU)
    rows = {r["id"]: r for r in Memoryd().schedules()}
    assert rows["digest"]["next_run"] == "2026-06-08T07:00:00Z"  # Monday 09:00 in Berlin
    assert rows["consolidate"]["next_run"] == "2026-06-05T01:00:00Z"  # 03:00 in Berlin
    at("2026-06-08T07:30:00Z")
    assert Memoryd().due_jobs() == ["consolidate", "digest"]  # identity: the consolidation runs it


# -- the ledger ------------------------------------------------------------------------


def test_fresh_install_does_not_run_past_slots(at, isolated_home: Path):
    at(TUE)  # Monday's digest and this morning's sweep passed before memoryd was installed
    app = Memoryd()
    assert app.due_jobs() == []
    assert all(app.run_job(job) is None for job in schedule.DEFAULTS)
    assert _state(isolated_home)["started"] == TUE
    at("2026-06-09T23:59:59Z")
    assert Memoryd().due_jobs() == []
    at("2026-06-10T03:00:00Z")  # the first slot after the install
    assert Memoryd().due_jobs() == ["consolidate"]


def test_closed_over_monday_runs_the_missed_digest_once(at, isolated_home: Path):
    at(THU)
    assert Memoryd().due_jobs() == []  # first look: the ledger starts here
    at(TUE)  # the app was closed over Monday 09:00
    app = Memoryd()
    assert app.due_jobs() == ["consolidate", "digest"]  # and Sunday's identity slot: not a timer's

    run = app.run_job("digest", notification=False)
    assert run is not None and run.ok, run
    assert (run.job, run.slot, run.runner) == ("digest", MON_DIGEST, "cli")
    assert run.summary == "digest: 0 promotions, 0 duplicate groups, 0 expiring"
    assert run.as_dict()["counts"] == {
        "promotions": 0,
        "duplicates": 0,
        "expiring": 0,
        "supersedes": 0,
        "conflicts": 0,
        "suspect": 0,
    }
    assert app.run_job("digest", notification=False) is None
    assert Memoryd().run_job("digest", runner="tray", notification=False) is None  # nor another runner
    assert "digest" not in app.due_jobs()
    entry = _state(isolated_home)["jobs"]["digest"]
    assert entry == {"last_slot": MON_DIGEST, "last_run": TUE, "last_success": TUE, "runner": "cli"}

    at("2026-06-15T09:00:00Z")  # the next Monday
    assert "digest" in Memoryd().due_jobs()


def test_a_week_of_missed_consolidations_runs_once(at, isolated_home: Path):
    at("2026-06-01T12:00:00Z")
    Memoryd().due_jobs()
    at(TUE)  # eight daily 03:00 slots passed (June 2 to June 9)
    app = Memoryd()
    runs = [app.run_job("consolidate") for _ in range(8)]
    ran = [r for r in runs if r is not None]
    assert len(ran) == 1, runs
    assert ran[0].slot == "2026-06-09T03:00:00Z" and ran[0].ok
    assert ran[0].summary == (
        "consolidation: 0 captured, 0 analysed, 0 queued for promotion, 0 duplicate proposals "
        "rejected, 0 decayed, identity v1, 0 snapshots rendered, 0 files exported, 0 LLM tokens"
    )  # Sunday's identity slot had passed: the consolidation ran the rewrite
    assert "consolidate" not in app.due_jobs()
    at("2026-06-10T03:00:00Z")
    assert Memoryd().run_job("consolidate") is not None


_CLAIMER = """
import json, os, sys, time
from memoryd.app import Memoryd
app = Memoryd()
ready, go = sys.argv[1], sys.argv[2]
open(ready, "w").close()
while not os.path.exists(go):
    time.sleep(0.001)
run = app.run_job("consolidate", runner=os.path.basename(ready))
print(json.dumps(run.as_dict() if run else None))
"""


def test_concurrent_processes_run_a_slot_once(at, isolated_home: Path, tmp_path: Path):
    at(THU)
    Memoryd().due_jobs()
    at(TUE)
    go = tmp_path / "go"
    procs = []
    for i in range(3):
        ready = tmp_path / f"claimer-{i}"
        procs.append(
            subprocess.Popen(
                [sys.executable, "-c", _CLAIMER, str(ready), str(go)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    deadline = time.monotonic() + 60
    while not all((tmp_path / f"claimer-{i}").exists() for i in range(3)):
        assert time.monotonic() < deadline and all(p.poll() is None for p in procs), "claimers did not start"
        time.sleep(0.01)
    go.touch()  # all three call run_job at once
    results = []
    for p in procs:
        out, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
        results.append(json.loads(out))
    ran = [r for r in results if r is not None]
    assert len(ran) == 1, results
    assert ran[0]["slot"] == "2026-06-09T03:00:00Z"
    assert _state(isolated_home)["jobs"]["consolidate"]["runner"] == ran[0]["runner"]


def test_concurrent_threads_run_a_slot_once(at, isolated_home: Path):
    at(THU)
    Memoryd().due_jobs()
    at(TUE)
    apps = [Memoryd() for _ in range(4)]
    barrier = threading.Barrier(len(apps))
    results: list[object] = []
    errors: list[BaseException] = []

    def claim(app: Memoryd, n: int) -> None:
        try:
            barrier.wait()
            results.append(app.run_job("digest", runner=f"thread-{n}", notification=False))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=claim, args=(a, n)) for n, a in enumerate(apps)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    ran = [r for r in results if r is not None]
    assert len(results) == 4 and len(ran) == 1, results


def test_force_runs_now_and_keeps_the_next_slot(at, isolated_home: Path):
    at(THU)
    app = Memoryd()
    assert app.run_job("digest", notification=False) is None  # nothing due
    run = app.run_job("digest", force=True, notification=False)
    assert run is not None and run.slot == THU
    forced_again = app.run_job("digest", force=True, runner="tray", notification=False)
    assert forced_again is not None  # the user asked twice: it ran twice
    assert _state(isolated_home)["jobs"]["digest"]["runner"] == "tray"
    assert app.run_job("digest", notification=False) is None
    at("2026-06-08T09:00:05Z")  # the forced run does not use up Monday's slot
    run = Memoryd().run_job("digest", notification=False)
    assert run is not None and run.slot == MON_DIGEST


def test_failed_delivery_is_recorded_and_the_next_slot_runs(
    at, tmp_path: Path, isolated_home: Path, smtp_server
):
    config = tmp_path / "config.toml"
    config.write_text(
        "[email]\n"
        'host = "127.0.0.1"\n'
        f"port = {free_port()}  # nothing listens here\n"
        'security = "none"\n'
        'from_addr = "memoryd@example.org"\n'
        'to = ["me@example.org"]\n'
        "timeout_seconds = 5\n",
        encoding="utf-8",
    )
    at(THU)
    Memoryd().due_jobs()
    at(TUE)
    run = Memoryd().run_job("digest", notification=False)
    assert run is not None and not run.ok
    assert "not delivered" in run.summary
    (email,) = run.deliveries
    assert email[0] == "email" and not email[1]
    row = {r["id"]: r for r in Memoryd().schedules()}["digest"]
    assert row["last_run"] == TUE and row["last_success"] is None
    assert row["last_error"] == run.summary and "\n" not in row["last_error"]
    assert Memoryd().run_job("digest", notification=False) is None  # the slot is not retried

    server = smtp_server()
    app = Memoryd()
    app.update_config({"email.port": server.port})
    at("2026-06-15T09:30:00Z")
    run = app.run_job("digest", notification=False)
    assert run is not None and run.ok and run.slot == "2026-06-15T09:00:00Z", run
    assert [d[:2] for d in run.deliveries] == [("email", True)]
    assert len(server.box.received) == 1
    row = {r["id"]: r for r in Memoryd().schedules()}["digest"]
    assert row["last_error"] is None and row["last_success"] == "2026-06-15T09:30:00Z"


def test_a_job_that_raises_records_the_error_and_the_next_slot_runs(at, isolated_home: Path):
    at("2026-05-20T12:00:00Z")
    Memoryd().due_jobs()
    blocker = isolated_home / "profile" / "change-reports"
    blocker.parent.mkdir(parents=True, exist_ok=True)
    blocker.write_text("not a folder\n")  # the report cannot be written
    at("2026-06-01T05:00:00Z")
    with pytest.raises(OSError) as err:  # NotADirectoryError, as the job raised it
        Memoryd().run_job("monthly-report")
    entry = _state(isolated_home)["jobs"]["monthly-report"]
    assert entry["last_slot"] == "2026-06-01T04:00:00Z" and "last_success" not in entry
    assert entry["last_error"].startswith(type(err.value).__name__ + ": ")
    assert Memoryd().run_job("monthly-report") is None  # the failed slot is not retried at once

    blocker.unlink()
    at("2026-07-01T05:00:00Z")
    run = Memoryd().run_job("monthly-report")
    assert run is not None and run.ok and run.summary.startswith("monthly report ")
    entry = _state(isolated_home)["jobs"]["monthly-report"]
    assert "last_error" not in entry and entry["last_success"] == "2026-07-01T05:00:00Z"


@pytest.mark.parametrize("damage", [b"{not json", b"", b"\x00\xff\xfe", b"[1, 2, 3]", b'"text"'])
def test_damaged_ledger_does_not_crash(at, isolated_home: Path, damage: bytes):
    at(THU)
    paths.ensure_dir(isolated_home)
    (isolated_home / "schedule.json").write_bytes(damage)
    app = Memoryd()
    assert app.due_jobs() == []  # starts over from now: no flood of "missed" runs
    assert len(app.schedules()) == 4
    run = app.run_job("digest", force=True, notification=False)
    assert run is not None and run.ok
    state = _state(isolated_home)
    assert state["started"] == THU and state["jobs"]["digest"]["last_success"] == THU


@pytest.mark.parametrize(
    "damage",
    [
        {"started": "not a time"},
        {"started": "2026-06-01T00:00:00Z", "jobs": []},
        {"started": "2026-06-01T00:00:00Z", "jobs": {"digest": "oops"}},
        {"started": "2026-06-01T00:00:00Z", "jobs": {"digest": {"last_slot": "nope"}}},
    ],
)
def test_ledger_of_the_wrong_shape_does_not_crash(at, isolated_home: Path, damage: dict):
    at(THU)
    paths.ensure_dir(isolated_home)
    (isolated_home / "schedule.json").write_text(json.dumps(damage), encoding="utf-8")
    app = Memoryd()
    app.due_jobs()
    app.schedules()
    assert app.run_job("digest", force=True, notification=False) is not None


def test_schedules_show_next_and_last_runs(at, isolated_home: Path):
    at(THU)
    rows = Memoryd().schedules()
    assert [(r["id"], r["key"], r["cron"], r["next_run"]) for r in rows] == [
        ("consolidate", "consolidate", "0 3 * * *", "2026-06-05T03:00:00Z"),
        ("digest", "digest", "0 9 * * 1", MON_DIGEST),
        ("identity", "identity", "0 2 * * 0", "2026-06-07T02:00:00Z"),
        ("monthly-report", "monthly_report", "0 4 1 * *", "2026-07-01T04:00:00Z"),
    ]
    assert all(r["last_run"] is None and r["due"] is False for r in rows)
    assert {r["id"]: r["timed"] for r in rows} == {
        "consolidate": True,
        "digest": True,
        "identity": False,  # no timer: the consolidation runs it once its slot has passed
        "monthly-report": True,
    }

    at(TUE)
    app = Memoryd()
    assert {r["id"]: r["due"] for r in app.schedules()} == {
        "consolidate": True,
        "digest": True,
        "identity": True,
        "monthly-report": False,
    }
    app.run_job("digest", runner="tray", notification=False)
    digest = {r["id"]: r for r in app.schedules()}["digest"]
    assert digest == {
        "id": "digest",
        "key": "digest",
        "cron": "0 9 * * 1",
        "next_run": "2026-06-15T09:00:00Z",
        "due": False,
        "last_run": TUE,
        "last_success": TUE,
        "last_error": None,
        "runner": "tray",
        "timed": True,
    }


def test_set_schedule_writes_config_and_moves_the_next_run(at, tmp_path: Path):
    at(THU)
    app = Memoryd()
    app.set_schedule("digest", "0 18 * * 5")
    assert "[schedule]" in (tmp_path / "config.toml").read_text(encoding="utf-8")
    assert {r["id"]: r for r in Memoryd().schedules()}["digest"]["next_run"] == "2026-06-05T18:00:00Z"
    before = (tmp_path / "config.toml").read_bytes()
    with pytest.raises(UsageError):
        app.set_schedule("digest", "0 18 * * 9")
    with pytest.raises(UsageError):
        app.set_schedule("backup", "0 18 * * 5")
    assert (tmp_path / "config.toml").read_bytes() == before


# -- the nightly consolidation ---------------------------------------------------------


def test_the_old_decay_sweep_key_sets_the_consolidation_time(at, tmp_path: Path):
    """config.toml of an earlier version: `decay_sweep` is read as the consolidation's time
    (there is no decay-sweep job any more); `consolidate`, once set, wins."""
    config = tmp_path / "config.toml"
    at(THU)
    config.write_text(
        '[schedule]\ndecay_sweep = "30 1 * * *"  # the key of earlier versions\n', encoding="utf-8"
    )
    app = Memoryd()
    rows = {r["id"]: r for r in app.schedules()}
    assert sorted(rows) == ["consolidate", "digest", "identity", "monthly-report"]
    assert rows["consolidate"]["cron"] == "30 1 * * *" and rows["consolidate"]["key"] == "consolidate"
    assert rows["consolidate"]["next_run"] == "2026-06-05T01:30:00Z"
    assert schedule.find(schedule.jobs(app.config.raw), "consolidate").cron == "30 1 * * *"
    fire = app.job_triggers()["consolidate"].get_next_fire_time(None, datetime(2026, 6, 4, 12, tzinfo=UTC))
    assert fire == datetime(2026, 6, 5, 1, 30, tzinfo=UTC)  # the tray's timer fires at that time too

    app.set_schedule("decay-sweep", "45 2 * * *")  # the old name still finds the job
    assert tomllib.loads(config.read_text(encoding="utf-8"))["schedule"]["consolidate"] == "45 2 * * *"
    assert {r["id"]: r for r in Memoryd().schedules()}["consolidate"]["cron"] == "45 2 * * *"

    config.write_text('[schedule]\ndecay_sweep = "0 3 * * 8"\n', encoding="utf-8")
    with pytest.raises(UsageError, match="bad weekday"):  # still checked like any time
        Memoryd()


def test_identity_has_a_time_but_no_timer(at, isolated_home: Path):
    """The tray and the timers fire only the timed jobs; identity's slot is claimed by the
    consolidation's identity phase once it has passed."""
    at(THU)
    app = Memoryd()
    assert set(app.job_triggers()) == {"consolidate", "digest", "monthly-report"}
    assert app.due_jobs() == []
    at(TUE)  # Sunday 02:00 (identity), Monday 09:00 (digest), Tuesday 03:00 (consolidate) passed
    app = Memoryd()
    assert app.due_jobs() == ["consolidate", "digest"]
    assert set(app.job_triggers()) == {"consolidate", "digest", "monthly-report"}
    assert {r["id"]: r["due"] for r in app.schedules()}["identity"] is True  # its slot waits
    run = app.run_job("consolidate")
    assert run is not None and run.ok and "identity v1" in run.summary
    entry = _state(isolated_home)["jobs"]["identity"]
    assert entry["last_slot"] == "2026-06-07T02:00:00Z" and entry["runner"] == "consolidate"
    assert {r["id"]: r["due"] for r in app.schedules()}["identity"] is False
    assert app.due_jobs() == ["digest"]


def test_run_job_consolidate_records_the_slot_and_the_consolidation_state(at, isolated_home: Path):
    at(THU)
    app = Memoryd()
    app.due_jobs()
    assert app.consolidation_state()["last_success"] is None
    at(TUE)
    run = Memoryd().run_job("consolidate", runner="timer")
    assert run is not None and run.ok and (run.job, run.slot) == ("consolidate", "2026-06-09T03:00:00Z")
    assert _state(isolated_home)["jobs"]["consolidate"] == {
        "last_slot": "2026-06-09T03:00:00Z",
        "last_run": TUE,
        "last_success": TUE,
        "runner": "timer",
    }
    state = Memoryd().consolidation_state()
    assert state["last_success"] == TUE and state["last_run"] == TUE and state["last_error"] is None
    assert state["run_id"] is None and not state["overdue"] and not state["running"]
    assert state["recent_runs"][0]["finished"] == 7
    [event] = Memoryd().audit_events(event_type="consolidate")
    assert event.details_obj["trigger"] == "schedule" and event.details_obj["ok"] is True


def test_run_job_decay_sweep_runs_the_consolidation(at, isolated_home: Path):
    """What a timer an earlier version installed still runs: the consolidation, under its id."""
    at(THU)
    Memoryd().due_jobs()
    at(TUE)
    run = Memoryd().run_job("decay-sweep", runner="timer")
    assert run is not None and run.ok and run.job == "consolidate"
    assert run.summary.startswith("consolidation: 0 captured, ")
    jobs = _state(isolated_home)["jobs"]
    assert "decay-sweep" not in jobs and jobs["consolidate"]["last_slot"] == "2026-06-09T03:00:00Z"
    assert Memoryd().consolidation_state()["last_success"] == TUE
    assert Memoryd().run_job("consolidate") is None  # the same slot: taken


def test_a_scheduled_consolidation_while_another_runs_leaves_it_alone(at, isolated_home: Path):
    from filelock import FileLock

    from memoryd import consolidate

    at(THU)
    Memoryd().due_jobs()
    at(TUE)
    with FileLock(consolidate.lock_path(paths.layout())):  # e.g. a `memoryd consolidate` under way
        run = Memoryd().run_job("consolidate")
    assert run is not None and run.ok
    assert run.summary == "consolidation: already running (started by another runner)"
    assert Memoryd().consolidation_state()["last_success"] is None


# -- bugs found while writing these tests ----------------------------------------------


def test_identity_job_runs(at, isolated_home: Path, project: Path):
    at(THU)
    app = Memoryd()
    app.record("preference", "Tabs over spaces", "The user indents with tabs.", scope_path=project)
    assert app.due_jobs() == []
    at(TUE)  # Sunday 02:00 passed
    run = Memoryd().run_job("identity")
    assert run is not None and run.ok and run.summary.startswith("identity: ")


def test_monthly_report_job_reports_the_month_that_ended(at, isolated_home: Path):
    at("2026-11-20T12:00:00Z")
    Memoryd().due_jobs()
    at("2026-12-01T05:00:00Z")
    run = Memoryd().run_job("monthly-report")
    assert run is not None and run.ok
    assert run.summary.startswith("monthly report 2026-11:"), run.summary


def test_slot_missed_across_the_autumn_clock_change_runs_once(isolated_home: Path):
    _set_zone("Europe/Berlin")  # 2026-10-25: 03:00 CEST -> 02:00 CET, 02:00 happens twice
    ledger = schedule.Ledger(paths.layout())
    job = schedule.Job("identity", "0 2 * * 0")  # the default identity time
    ledger.started(datetime(2026, 10, 24, 12, tzinfo=UTC))
    now = datetime(2026, 11, 3, 12, tzinfo=UTC)  # closed for ten days
    claims = [ledger.claim(job, now, "tray") for _ in range(3)]
    assert claims == [datetime(2026, 11, 1, 1, tzinfo=UTC), None, None]


def test_cron_trigger_is_the_trigger_the_tray_schedules(isolated_home: Path):
    """The settings' live "next run" reads a line through `cron_trigger`: for a job's own
    line it fires when `job_triggers` (the tray's scheduler) does; a bad line is refused."""
    app = Memoryd()
    after = datetime(2026, 6, 4, 12, tzinfo=UTC)
    crons = {r["id"]: r["cron"] for r in app.schedules()}

    def fires(trig: object) -> datetime:
        return trig.get_next_fire_time(None, after)  # type: ignore[attr-defined]

    for job_id, trig in app.job_triggers().items():
        assert fires(Memoryd.cron_trigger(crons[job_id])) == fires(trig)
    either = "0 4 1 * 1"  # the 1st or a Monday, as cron means it
    assert fires(Memoryd.cron_trigger(either)) == fires(schedule.trigger(either))
    with pytest.raises(UsageError, match="not a valid cron line"):
        Memoryd.cron_trigger("0 25 * * *")
    with pytest.raises(UsageError, match="five cron fields"):
        Memoryd.cron_trigger("0 3 * *")
