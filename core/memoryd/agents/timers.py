"""`memoryd setup auto-install`: the four scheduled jobs as OS timers, for people who do
not keep the tray running.

Each timer runs `memoryd run-job <id> --runner timer`, the code path the tray uses, and
the claim ledger (memoryd.schedule) makes sure a slot runs once whoever fires first. So a
timer only has to fire at (or after) every slot of its cron line: systemd user timers
(OnCalendar converted from the cron line, Persistent=true so a slot missed while the
machine was off runs at the next boot), a marked block in the user's crontab, or launchd
agents with StartCalendarInterval. All three read the cron line in local time, as the
tray does.

Only files (and a crontab block) that carry our names are written or removed; the
environment a non-default data dir needs is written into them, since timers start with
almost none. MEMORYD_CRONTAB / MEMORYD_SYSTEMCTL name other programs to run instead of
`crontab` / `systemctl` (tests; an empty MEMORYD_SYSTEMCTL means "there is none").

This module plans, applies and reports across the kinds; each kind is written by its own
module (systemd_units, crontab, launch_agents), the cron line is converted in calendar,
and the plan's parts are in timer_plan. Their public names are importable from here."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path
from typing import Any, Protocol

from memoryd import atomic, schedule
from memoryd.agents import autostart, crontab, launch_agents, systemd_units
from memoryd.agents.calendar import (
    DAYS,
    FIELDS,
    MAX_INTERVALS,
    MONTHS,
    SYSTEMD_DAYS,
    Cron,
    calendar_intervals,
    on_calendar,
    parse,
)
from memoryd.agents.crontab import (
    BEGIN,
    CATCH_UP_MINUTE,
    CRON_CATCH_UP,
    CRON_NOTE,
    END,
    cron_block,
    cron_numeric,
    read_crontab,
    split_block,
)
from memoryd.agents.launch_agents import LAUNCHD_PREFIX, agents_dir, label, launch_agent
from memoryd.agents.systemd_units import (
    RUNNING,
    check_calendars,
    manager_running,
    service_unit,
    timer_unit,
    unit_dir,
    unit_name,
)
from memoryd.agents.timer_plan import TIMEOUT, Change, Command, Report, first_line, job_argv, run
from memoryd.errors import UsageError

# The names callers have always imported from here, wherever they now live.
__all__ = [
    "BEGIN",
    "CATCH_UP_MINUTE",
    "CRON_CATCH_UP",
    "CRON_NOTE",
    "DAYS",
    "END",
    "FIELDS",
    "KINDS",
    "LAUNCHD_PREFIX",
    "MAX_INTERVALS",
    "MONTHS",
    "RUNNING",
    "SYSTEMD_DAYS",
    "TIMEOUT",
    "Change",
    "Command",
    "Cron",
    "Report",
    "agents_dir",
    "apply",
    "calendar_intervals",
    "check_calendars",
    "cron_block",
    "cron_numeric",
    "default_kind",
    "install",
    "installed",
    "job_argv",
    "label",
    "launch_agent",
    "manager_running",
    "on_calendar",
    "parse",
    "plan",
    "read_crontab",
    "remove",
    "service_unit",
    "split_block",
    "timer_unit",
    "unit_dir",
    "unit_name",
]

KINDS = ("systemd", "cron", "launchd")


class _Kind(Protocol):
    """What each kind's module offers, so install, remove and `installed` treat all alike."""

    def plan(self, report: Report, jobs: list[schedule.Job], uninstall: bool) -> None: ...

    def has_files(self) -> bool: ...

    def installed(self, env: dict[str, str]) -> list[str]: ...


_WRITERS: dict[str, _Kind] = {"systemd": systemd_units, "cron": crontab, "launchd": launch_agents}


def _platform(platform: str | None) -> str:
    return autostart._platform(platform)


# -- the API ---------------------------------------------------------------------------
def default_kind(platform: str | None = None) -> str:
    """launchd on macOS; on Linux systemd when a user manager runs, else cron."""
    plat = _platform(platform)
    if plat == "darwin":
        return "launchd"
    if plat == "win32":
        raise UsageError(
            "timers without the tray are not supported on Windows; "
            "start the tray at login instead: memoryd setup autostart"
        )
    if manager_running():
        return "systemd"
    if crontab.program():
        return "cron"
    raise UsageError("neither a systemd user session nor crontab here: choose --kind, or run the tray")


def _kinds_for(platform: str | None) -> tuple[str, ...]:
    plat = _platform(platform)
    return {"linux": ("systemd", "cron"), "darwin": ("launchd", "cron")}.get(plat, ())


def plan(
    raw_config: dict[str, Any] | None = None,
    kind: str | None = None,
    platform: str | None = None,
    *,
    uninstall: bool = False,
) -> Report:
    """What install (or, with uninstall, remove) would write, remove and run; writes
    nothing. An uninstall without a kind covers every kind found installed."""
    if kind is not None and kind not in KINDS:
        raise UsageError(f"--kind must be one of {', '.join(KINDS)}, not {kind!r}")
    if kind is not None and kind not in _kinds_for(platform):
        here = _platform(platform)
        if not _kinds_for(here):
            default_kind(here)  # Windows: says what to do instead
        raise UsageError(f"--kind {kind} does not run on {here}: choose {' or '.join(_kinds_for(here))}")
    if uninstall and kind is None:
        kinds = [k for k in _kinds_for(platform) if _has_files(k)]
    else:
        kinds = [kind or default_kind(platform)]
    jobs = [] if uninstall else [j for j in schedule.jobs(raw_config or {}) if j.timed]
    report = Report(kind=",".join(kinds), action="uninstall" if uninstall else "install", dry_run=True)
    if not kinds:
        report.notes.append("no timers of memoryd are installed")
    for k in kinds:
        _WRITERS[k].plan(report, jobs, uninstall)
    if not uninstall:
        others = [o for o in installed(platform) if not o.startswith(kinds[0] + ":")]
        if others:
            report.notes.append(
                "also installed: " + "; ".join(others) + " (harmless: a slot runs once; "
                "`memoryd setup auto-install --kind KIND --uninstall` removes one)"
            )
    return report


def _has_files(kind: str) -> bool:
    try:
        return _WRITERS[kind].has_files()
    except (OSError, UsageError, subprocess.SubprocessError):
        return False


def apply(report: Report) -> Report:
    """Run the planned commands that must come first (disable, bootout), write and remove
    the planned files, then run the rest (enable, bootstrap, crontab -); a failed command
    is an error in the report, not an exception."""
    report.dry_run = False
    tab = next((c for c in report.changes if c.target == "crontab"), None)
    _commands(report, [c for c in report.commands if c.first], tab)
    for ch in report.changes:
        if not ch.changed or ch.target == "crontab":
            continue
        path = Path(ch.target)
        if ch.after is None:
            path.unlink(missing_ok=True)
        else:
            atomic.write_text(path, ch.after)
    _commands(report, [c for c in report.commands if not c.first], tab)
    if "systemd" in report.kind.split(","):  # an uninstall, or retired units an install removed
        systemd_units.prune_links()
    return report


def _commands(report: Report, commands: list[Command], tab: Change | None) -> None:
    for cmd in commands:
        stdin = tab.after if tab is not None and cmd.argv[-1:] == ["-"] else None
        try:
            res = run(cmd.argv, stdin)
        except (OSError, subprocess.SubprocessError) as exc:
            report.errors.append(f"{shlex.join(cmd.argv)}: {exc}")
            continue
        if res.returncode != 0 and cmd.must_succeed:
            report.errors.append(f"{shlex.join(cmd.argv)} failed: {first_line(res.stderr + res.stdout)}")


def install(raw_config: dict[str, Any], kind: str | None = None, platform: str | None = None) -> Report:
    """Install the four jobs' timers (idempotent: a second run changes nothing). Starts the
    claim ledger's clock too, so the first slot after now is run, not taken as the start."""
    report = apply(plan(raw_config, kind, platform))
    from memoryd import clock, paths

    schedule.Ledger(paths.layout()).started(clock.now())
    return report


def remove(kind: str | None = None, platform: str | None = None) -> Report:
    """Remove exactly what install wrote (every kind found, without `kind`)."""
    return apply(plan(None, kind, platform, uninstall=True))


def installed(platform: str | None = None) -> list[str]:
    """What runs the jobs besides the tray, for this data dir: enabled systemd timers, our
    crontab lines, launchd agents. Cheap and never raises (the tray asks at start)."""
    out: list[str] = []
    env = autostart.baked_env()
    for kind in _kinds_for(platform):
        try:
            out.extend(_WRITERS[kind].installed(env))
        except Exception:  # a tray must start whatever the machine holds
            continue
    return out
