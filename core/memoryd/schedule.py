"""The recurring jobs of seed 000, their times, and which run is due.

One list serves both runners: the tray's scheduler and the timers `memoryd setup
auto-install` writes for people who do not run the tray. Whoever runs a job first claims
its slot (the latest scheduled time that has passed) in `schedule.json` under a file lock,
so the other runner, a second tray or a run started late never repeats it, and a slot
missed while the machine slept or nothing was running is run once at the next look, not
once per missed day.

Times are cron expressions in local time (`[schedule]` in config.toml). APScheduler's
CronTrigger parses them, so the tray's scheduler and this module agree on every slot.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path
from typing import Any

from memoryd import atomic, clock
from memoryd.errors import UsageError
from memoryd.paths import Layout

STATE_FILE = "schedule.json"
# What config.toml calls each job (a TOML key) -> its id (a CLI word).
KEYS = {
    "consolidate": "consolidate",
    "digest": "digest",
    "identity": "identity",
    "monthly_report": "monthly-report",
}
# Keys of earlier versions, still read: the nightly decay sweep became the consolidation.
LEGACY_KEYS = {"decay_sweep": "consolidate"}
DEFAULTS = {
    "consolidate": "0 3 * * *",  # daily 03:00
    "digest": "0 9 * * 1",  # Monday 09:00
    "identity": "0 2 * * 0",  # Sunday 02:00
    "monthly-report": "0 4 1 * *",  # the 1st, 04:00
}
# Jobs with their own timer (tray or OS). The identity rewrite has a time but no timer:
# the consolidation runs it when that time has passed.
TIMED = ("consolidate", "digest", "monthly-report")
# Timers that earlier versions installed, removed by the next `setup auto-install`; a
# `run-job decay-sweep` they still start runs the consolidation.
RETIRED = ("decay-sweep", "identity")
ALIASES = {"decay-sweep": "consolidate"}
UNIT_IDS = (*TIMED, *RETIRED)
# What the consolidate job runs, in order (memoryd.consolidate; here so the CLI's parser can
# name them without importing the database layer).
CONSOLIDATION_PHASES = ("capture", "analyze", "dedupe", "decay", "identity", "snapshots", "exports")
# The command a timer runs for each job (after `memoryd`): the same code path as the tray.
COMMANDS = {job: ("run-job", job) for job in TIMED}
TIME_KEYS = ("last_slot", "last_run", "last_success")
MAX_SLOTS = 5000  # a daily job unclaimed for 13 years: stop walking, the latest is near enough


@dataclass(frozen=True)
class Job:
    id: str
    cron: str

    @property
    def key(self) -> str:
        return next(k for k, v in KEYS.items() if v == self.id)

    @property
    def timed(self) -> bool:
        """Whether a timer fires it (else the consolidation runs it when due)."""
        return self.id in TIMED


@dataclass(frozen=True)
class JobState:
    """What `schedule.json` remembers of one job."""

    last_slot: str | None = None  # the latest scheduled time claimed (run or running)
    last_run: str | None = None  # when that run started
    last_success: str | None = None
    last_error: str | None = None
    runner: str | None = None  # tray / timer / cli


def local_zone() -> tzinfo:
    """The zone cron times mean: the machine's own."""
    from tzlocal import get_localzone

    return get_localzone()


DAY_NAMES = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")


def _weekdays(field: str) -> str:
    """Cron's weekday field (0 or 7 = Sunday, names allowed) as APScheduler 3 reads it:
    its numbers start at Monday, so numbers are spelled out as day names."""
    if field == "*":
        return field
    days: set[int] = set()
    for part in field.lower().split(","):
        span, slash, step_text = part.partition("/")
        step = int(step_text) if step_text.isdigit() and int(step_text) > 0 else None
        if slash and step is None:  # "1/" too: cron refuses an empty step
            raise ValueError(f"bad step in weekday field {field!r}")

        def day(token: str) -> int:
            if token in DAY_NAMES:
                return DAY_NAMES.index(token)
            if token.isdigit() and int(token) <= 7:
                return int(token)
            raise ValueError(f"bad weekday {token!r}")

        if span == "*":
            lo, hi = 0, 6
        elif "-" in span:
            a, b = span.split("-", 1)
            lo, hi = day(a), day(b)
            if lo > hi:
                raise ValueError(f"weekday range {span!r} runs backwards")
        else:
            lo = hi = day(span)
            if step is not None:
                hi = 6
        days.update(range(lo, hi + 1, step or 1))
    return ",".join(DAY_NAMES[d % 7] for d in sorted({d % 7 for d in days}))


def trigger(cron: str, zone: tzinfo | None = None) -> Any:
    """An APScheduler CronTrigger for a five-field cron line (standard cron meaning, so the
    timers `setup auto-install` writes agree); a clear error otherwise."""
    from apscheduler.triggers.cron import CronTrigger

    fields = str(cron).split()
    if len(fields) != 5:
        raise UsageError(f"schedule {cron!r} must be five cron fields: minute hour day month weekday")
    minute, hour, day, month, weekday = fields
    zone = zone or local_zone()
    try:
        if not day.startswith("*") and not weekday.startswith("*"):
            # cron runs when either the day of the month or the weekday matches (unless one
            # of them starts with "*", as in */2); one CronTrigger asks for both, so two
            # are combined
            from apscheduler.triggers.combining import OrTrigger

            by_day = CronTrigger(minute=minute, hour=hour, day=day, month=month, timezone=zone)
            by_weekday = CronTrigger(
                minute=minute, hour=hour, month=month, day_of_week=_weekdays(weekday), timezone=zone
            )
            return OrTrigger([by_day, by_weekday])
        return CronTrigger(
            minute=minute,
            hour=hour,
            day=day,
            month=month,
            day_of_week=_weekdays(weekday),
            timezone=zone,
        )
    except (ValueError, TypeError) as exc:
        raise UsageError(f"schedule {cron!r} is not a valid cron line: {exc}") from None


def check(cron: str) -> str:
    """The cron line normalised, or UsageError."""
    trigger(cron)
    return " ".join(cron.split())


def jobs(raw_config: dict[str, Any]) -> list[Job]:
    """The four jobs with the times config.toml's `[schedule]` sets (defaults otherwise)."""
    table = raw_config.get("schedule") or {}
    if not isinstance(table, dict):
        raise UsageError("[schedule] must be a table")
    unknown = sorted(set(table) - set(KEYS) - set(LEGACY_KEYS))
    if unknown:
        raise UsageError(f"unknown key(s) in [schedule]: {', '.join(unknown)} (known: {', '.join(KEYS)})")
    out = []
    for key, job in KEYS.items():
        legacy = next((k for k, v in LEGACY_KEYS.items() if v == job and k in table), None)
        cron = table.get(key, table[legacy] if legacy else DEFAULTS[job])
        if not isinstance(cron, str):
            raise UsageError(f"[schedule] {key} must be a cron line in quotes, like {DEFAULTS[job]!r}")
        out.append(Job(job, check(cron)))
    return out


def find(all_jobs: list[Job], job_id: str) -> Job:
    job_id = ALIASES.get(job_id, job_id)
    for job in all_jobs:
        if job.id == job_id:
            return job
    raise UsageError(f"unknown job {job_id!r}: one of {', '.join(DEFAULTS)}")


def _after(trig: Any, moment: datetime) -> datetime | None:
    """The first fire time strictly after `moment`, in UTC. Stepping in UTC keeps the
    repeated hour of an autumn clock change apart (a local time loses which of the two
    02:00s it was when a microsecond is added)."""
    nxt = trig.get_next_fire_time(None, moment.astimezone(UTC) + timedelta(microseconds=1))
    return None if nxt is None else nxt.astimezone(UTC)


def next_run(job: Job, after: datetime) -> datetime | None:
    """The first scheduled time strictly after `after`."""
    nxt = _after(trigger(job.cron), after)
    return None if nxt is None else nxt.astimezone(after.tzinfo)


WINDOWS = (timedelta(hours=2), timedelta(days=2), timedelta(days=40), timedelta(days=400))


def latest_slot(job: Job, since: datetime, now: datetime) -> datetime | None:
    """The latest scheduled time in (since, now], or None when none fell in it.

    Searched backwards in widening windows, so a job that fires every minute and was
    missed for a week is found at once rather than walked slot by slot. A slot at the
    same local wall-clock time as `since` is the repeated hour of an autumn clock change
    (02:00 twice): it is the slot `since` already claimed, not a new one."""
    trig = trigger(job.cron)
    zone = local_zone()
    since = min(since, now)  # a ledger time ahead of the clock must not stop all runs
    claimed_wall = since.astimezone(zone).replace(tzinfo=None)
    for window in (*WINDOWS, now - since):
        start = max(since, now - window)
        slot = None
        cursor = start
        for _ in range(MAX_SLOTS):
            nxt = _after(trig, cursor)
            if nxt is None or nxt > now:
                break
            if nxt.astimezone(zone).replace(tzinfo=None) != claimed_wall:
                slot = nxt
            cursor = nxt
        if slot is not None:
            return slot.astimezone(now.tzinfo)
        if start == since:
            return None
    return None


def _is_running(value: object) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("pid"), int)
        and not isinstance(value.get("pid"), bool)
        and _is_time(value.get("slot"))
    )


def _alive(pid: int) -> bool:
    """Whether a process still runs (POSIX; elsewhere assumed alive, so nothing reruns)."""
    if os.name != "posix":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, owned by someone else
    return True


def _abandoned(entry: dict[str, Any]) -> datetime | None:
    """The slot of a run that was claimed and never finished because its process died."""
    running = entry.get("running")
    if not _is_running(running) or running["pid"] == os.getpid() or _alive(running["pid"]):
        return None
    return clock.parse_ts(running["slot"])


def _is_time(value: object) -> bool:
    if not isinstance(value, str):
        return False
    try:
        clock.parse_ts(value)
    except UsageError:
        return False
    return True


class Ledger:
    """`schedule.json`: per job, the slot last claimed and how its run went.

    Read and written under a file lock, so the tray, a timer and a CLI run agree on who
    runs a slot. `started` is when memoryd first looked: slots before it are not "missed"
    (a new install does not run last Monday's digest)."""

    def __init__(self, layout: Layout) -> None:
        self.path: Path = layout.home / STATE_FILE
        self.lock_path: Path = layout.home / f".{STATE_FILE}.lock"

    @contextmanager
    def _locked(self) -> Iterator[dict[str, Any]]:
        from filelock import FileLock

        layout_home = self.path.parent
        layout_home.mkdir(parents=True, exist_ok=True)
        with FileLock(str(self.lock_path), timeout=30):
            data = self._read()
            before = json.dumps(data, sort_keys=True)
            yield data
            if json.dumps(data, sort_keys=True) != before:
                atomic.write_text(self.path, json.dumps(data, indent=2, sort_keys=True) + "\n")

    def _read(self) -> dict[str, Any]:
        """The file's content with anything of the wrong shape dropped: a damaged ledger
        starts over from now rather than stop the scheduling."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict):
            return {}
        out: dict[str, Any] = {}
        if _is_time(data.get("started")):
            out["started"] = data["started"]
        jobs = data.get("jobs")
        if isinstance(jobs, dict):
            out["jobs"] = {
                name: {
                    **{
                        k: v
                        for k, v in entry.items()
                        if isinstance(v, str) and (k not in TIME_KEYS or _is_time(v))
                    },
                    **({"running": entry["running"]} if _is_running(entry.get("running")) else {}),
                }
                for name, entry in jobs.items()
                if isinstance(name, str) and isinstance(entry, dict)
            }
        return out

    def started(self, now: datetime) -> datetime:
        with self._locked() as data:
            if not isinstance(data.get("started"), str):
                data["started"] = clock.iso(now)
            return clock.parse_ts(data["started"])

    def state(self, job_id: str) -> JobState:
        raw = self._read().get("jobs", {}).get(job_id, {})
        fields = JobState.__dataclass_fields__
        return JobState(**{k: v for k, v in raw.items() if k in fields and isinstance(v, str)})

    def due(self, job: Job, now: datetime) -> datetime | None:
        """The slot to run now: one that passed since the last claimed (or since
        `started`), or a claimed one whose run died unfinished (the tray quit mid-job)."""
        entry = self._read().get("jobs", {}).get(job.id, {})
        abandoned = _abandoned(entry)
        if abandoned is not None:
            return abandoned
        since = clock.parse_ts(entry["last_slot"]) if entry.get("last_slot") else self.started(now)
        return latest_slot(job, since, now)

    def claim(self, job: Job, now: datetime, runner: str, *, force: bool = False) -> datetime | None:
        """Take the due slot for this runner; None when nothing is due or another took it.
        `force` claims `now` itself (a run the user asked for)."""
        with self._locked() as data:
            if not isinstance(data.get("started"), str):
                data["started"] = clock.iso(now)
            entry = data.setdefault("jobs", {}).setdefault(job.id, {})
            since = (
                clock.parse_ts(entry["last_slot"])
                if entry.get("last_slot")
                else clock.parse_ts(data["started"])
            )
            slot = now if force else (_abandoned(entry) or latest_slot(job, since, now))
            if slot is None:
                return None
            entry.update(last_slot=clock.iso(max(slot, since)), last_run=clock.iso(now), runner=runner)
            entry["running"] = {"pid": os.getpid(), "slot": clock.iso(slot)}
            return slot

    def finish(self, job_id: str, now: datetime, error: str | None) -> None:
        with self._locked() as data:
            entry = data.setdefault("jobs", {}).setdefault(job_id, {})
            entry.pop("running", None)
            if error is None:
                entry["last_success"] = clock.iso(now)
                entry.pop("last_error", None)
            else:
                entry["last_error"] = error[:500]


def describe(all_jobs: list[Job], ledger: Ledger, now: datetime) -> list[dict[str, Any]]:
    """For `memoryd schedule` and the tray's settings: times, next run, how the last went."""
    out = []
    for job in all_jobs:
        st = ledger.state(job.id)
        nxt = next_run(job, now)
        out.append(
            {
                "id": job.id,
                "key": job.key,
                "cron": job.cron,
                "next_run": clock.iso(nxt) if nxt else None,
                "due": ledger.due(job, now) is not None,
                "last_run": st.last_run,
                "last_success": st.last_success,
                "last_error": st.last_error,
                "runner": st.runner,
                "timed": job.timed,
            }
        )
    return out
