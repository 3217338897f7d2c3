"""The jobs as launchd agents (~/Library/LaunchAgents), the timers of macOS: one plist
per job with StartCalendarInterval, loaded with `launchctl bootstrap`.

Plists are written on any OS (tests, a dry run), but launchctl runs only on macOS."""

from __future__ import annotations

import os
import plistlib
import sys
from pathlib import Path
from typing import Any

from memoryd import schedule
from memoryd.agents import autostart
from memoryd.agents.calendar import calendar_intervals
from memoryd.agents.timer_plan import Change, Command, Report, job_argv, read_file

LAUNCHD_PREFIX = "dev.memoryd."


def agents_dir() -> Path:
    return Path.home() / "Library" / "LaunchAgents"


def label(job_id: str) -> str:
    return f"{LAUNCHD_PREFIX}{job_id}"


def launch_agent(job: schedule.Job, env: dict[str, str]) -> str:
    """launchd runs a slot missed while asleep at wake; RunAtLoad runs the job at login
    too, which catches up a slot missed while the machine was off (`run-job` runs only
    an unclaimed slot, so a login with none due runs nothing)."""
    intervals = calendar_intervals(job.cron)
    plist: dict[str, Any] = {
        "Label": label(job.id),
        "ProgramArguments": job_argv(job.id),
        "StartCalendarInterval": intervals[0] if len(intervals) == 1 else intervals,
        "RunAtLoad": True,
        "ProcessType": "Background",
    }
    if env:
        plist["EnvironmentVariables"] = env
    return plistlib.dumps(plist, fmt=plistlib.FMT_XML, sort_keys=True).decode("utf-8")


def plan(report: Report, jobs: list[schedule.Job], uninstall: bool) -> None:
    """Add the agents to write (or remove) and, on macOS, the launchctl runs that load them."""
    env = autostart.baked_env()
    on_mac = sys.platform == "darwin"
    domain = f"gui/{os.getuid()}" if on_mac and hasattr(os, "getuid") else ""
    for job_id in schedule.UNIT_IDS:
        job = next((j for j in jobs if j.id == job_id), None)
        path = agents_dir() / f"{label(job_id)}.plist"
        before = read_file(path)
        after = None if uninstall or job is None else launch_agent(job, env)
        if before is None and after is None:
            continue
        ch = Change(str(path), before, after)
        report.changes.append(ch)
        if not on_mac or not ch.changed:
            continue
        if before is not None:
            report.commands.append(
                Command(["launchctl", "bootout", f"{domain}/{label(job_id)}"], must_succeed=False, first=True)
            )
        if after is not None:
            report.commands.append(Command(["launchctl", "bootstrap", domain, str(path)]))
    if not on_mac and any(c.changed for c in report.changes):
        report.notes.append("launchctl runs only on macOS: the agents load at the next login there")


def has_files() -> bool:
    """Whether any of our agents is there (what an uninstall looks for)."""
    return any((agents_dir() / f"{label(j)}.plist").exists() for j in schedule.UNIT_IDS)


def installed(env: dict[str, str]) -> list[str]:
    """Our agents that carry this data dir's environment."""
    out = []
    for job_id in schedule.UNIT_IDS:
        path = agents_dir() / f"{label(job_id)}.plist"
        if not path.is_file():
            continue
        data = plistlib.loads(path.read_bytes())
        if data.get("EnvironmentVariables", {}) == env:
            out.append(f"launchd: {label(job_id)}")
    return out
