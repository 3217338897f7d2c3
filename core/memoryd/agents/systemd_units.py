"""systemd user timers for the jobs: a service and a timer unit per job under
$XDG_CONFIG_HOME/systemd/user, enabled with `systemctl --user`.

Persistent=true makes systemd run a slot missed while the machine was off at the next
boot, which is why systemd is preferred to cron on Linux when a user manager runs."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

from memoryd import schedule
from memoryd.agents import autostart
from memoryd.agents.calendar import on_calendar
from memoryd.agents.timer_plan import (
    Change,
    Command,
    Report,
    find_program,
    first_line,
    job_argv,
    read_file,
    run,
)
from memoryd.errors import UsageError

RUNNING = ("running", "degraded", "starting", "initializing", "maintenance", "stopping")


def unit_dir() -> Path:
    return autostart.config_home() / "systemd" / "user"


def unit_name(job_id: str) -> str:
    return f"memoryd-{job_id}"


_SD_PLAIN = re.compile(r"[A-Za-z0-9_@+=:,./-]+")


def _sd_word(arg: str) -> str:
    """One ExecStart word: %% for specifiers, $$ against variable expansion, double quotes
    (with C escapes) around anything else than plain characters."""
    arg = arg.replace("%", "%%").replace("$", "$$")
    if _SD_PLAIN.fullmatch(arg):
        return arg
    return '"' + arg.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _sd_env(name: str, value: str) -> str:
    text = f"{name}={value}".replace("%", "%%")
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def service_unit(job: schedule.Job, env: dict[str, str]) -> str:
    lines = [
        "[Unit]",
        f"Description=memoryd: the {job.id} job (memoryd setup auto-install)",
        "",
        "[Service]",
        "Type=oneshot",
        *(f"Environment={_sd_env(k, v)}" for k, v in env.items()),
        "ExecStart=" + " ".join(_sd_word(w) for w in job_argv(job.id)),
        "Nice=10",
        "",
    ]
    return "\n".join(lines)


def timer_unit(job: schedule.Job) -> str:
    lines = [
        "[Unit]",
        f"Description=memoryd: {job.id} at cron {job.cron!r} (local time)",
        "",
        "[Timer]",
        *(f"OnCalendar={oc}" for oc in on_calendar(job.cron)),
        "Persistent=true",
        "",
        "[Install]",
        "WantedBy=timers.target",
        "",
    ]
    return "\n".join(lines)


def check_calendars(calendars: list[str]) -> None:
    """Ask systemd whether it reads every OnCalendar value, when systemd-analyze exists."""
    tool = shutil.which("systemd-analyze")
    if not tool or not calendars:
        return
    try:
        res = run([tool, "calendar", *calendars])
    except (OSError, subprocess.SubprocessError):
        return
    if res.returncode != 0:
        raise UsageError(f"systemd does not accept the converted schedule: {first_line(res.stderr)}")


def _wants(job_id: str) -> Path:
    return unit_dir() / "timers.target.wants" / f"{unit_name(job_id)}.timer"


def manager_running(systemctl: str | None = None) -> bool:
    """Whether `systemctl --user` reaches a running user manager."""
    prog = systemctl or find_program("MEMORYD_SYSTEMCTL", "systemctl")
    if not prog:
        return False
    try:
        res = run([prog, "--user", "is-system-running"])
    except (OSError, subprocess.SubprocessError):
        return False
    return res.stdout.strip() in RUNNING


def plan(report: Report, jobs: list[schedule.Job], uninstall: bool) -> None:
    """Add the units to write (or remove) and the systemctl runs that enable them."""
    folder = unit_dir()
    env = autostart.baked_env()
    timers: list[str] = []
    retired: list[str] = []  # an earlier version's timer that this install removes
    for job_id in schedule.UNIT_IDS:
        job = next((j for j in jobs if j.id == job_id), None)
        service, timer = folder / f"{unit_name(job_id)}.service", folder / f"{unit_name(job_id)}.timer"
        if uninstall or job is None:
            before_t = read_file(timer)
            if before_t is not None:
                (timers if uninstall else retired).append(timer.name)
            report.changes.append(Change(str(timer), before_t, None))
            report.changes.append(Change(str(service), read_file(service), None))
        else:
            timers.append(timer.name)
            report.changes.append(Change(str(service), read_file(service), service_unit(job, env)))
            report.changes.append(Change(str(timer), read_file(timer), timer_unit(job)))
    report.changes = [c for c in report.changes if c.before is not None or c.after is not None]
    if not uninstall:
        check_calendars([oc for j in jobs for oc in on_calendar(j.cron)])
    systemctl = find_program("MEMORYD_SYSTEMCTL", "systemctl")
    enabled = all(_wants(j).exists() for j in schedule.UNIT_IDS if f"{unit_name(j)}.timer" in timers)
    changed = any(c.changed for c in report.changes)
    if not timers or (not uninstall and not changed and enabled):
        return
    if not systemctl:
        report.notes.append(
            "systemctl not found: the units are removed; where a user manager still runs them, "
            "`systemctl --user daemon-reload` stops them"
            if uninstall
            else "systemctl not found: the units are written but not enabled; run `systemctl --user "
            f"daemon-reload && systemctl --user enable --now {' '.join(timers)}`"
        )
        return
    running = manager_running(systemctl)
    user = [systemctl, "--user"]
    if uninstall:
        report.commands.append(
            Command([*user, "disable", *(["--now"] if running else []), *timers], first=True)
        )
        if running:
            report.commands.append(Command([*user, "daemon-reload"], must_succeed=False))
    else:
        if retired:
            report.commands.append(
                Command(
                    [*user, "disable", *(["--now"] if running else []), *retired],
                    must_succeed=False,
                    first=True,
                )
            )
        if running:
            report.commands.append(Command([*user, "daemon-reload"]))
        report.commands.append(Command([*user, "enable", *(["--now"] if running else []), *timers]))
    if not running:
        report.notes.append(
            "no systemd user manager answers here: the timers are "
            + ("disabled in their files" if uninstall else "enabled and start with your next login session")
        )


def has_files() -> bool:
    """Whether any of our units is there, enabled or not (what an uninstall looks for)."""
    names = [f"{unit_name(j)}.{ext}" for j in schedule.UNIT_IDS for ext in ("timer", "service")]
    return any((unit_dir() / name).exists() for name in names)


def prune_links() -> None:
    """Enablement links an uninstall left pointing at nothing (no systemctl to remove them)."""
    for job_id in schedule.UNIT_IDS:
        link = _wants(job_id)
        if link.is_symlink() and not link.exists():
            link.unlink(missing_ok=True)


def _env_of_unit(text: str) -> dict[str, str]:
    found = {}
    for ln in text.splitlines():
        if ln.startswith("Environment="):
            for word in shlex.split(ln[len("Environment=") :].replace("%%", "%")):
                k, _, v = word.partition("=")
                found[k] = v
    return found


def installed(env: dict[str, str]) -> list[str]:
    """Our enabled timers whose units carry this data dir's environment."""
    out = []
    for job_id in schedule.UNIT_IDS:
        service = read_file(unit_dir() / f"{unit_name(job_id)}.service")
        if _wants(job_id).exists() and service is not None and _env_of_unit(service) == env:
            out.append(f"systemd: {unit_name(job_id)}.timer")
    return out
