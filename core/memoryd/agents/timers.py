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
`crontab` / `systemctl` (tests; an empty MEMORYD_SYSTEMCTL means "there is none")."""

from __future__ import annotations

import difflib
import itertools
import os
import plistlib
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memoryd import atomic, schedule
from memoryd.agents import autostart, common
from memoryd.errors import UsageError

KINDS = ("systemd", "cron", "launchd")
BEGIN = "# BEGIN memoryd"
END = "# END memoryd"
CRON_NOTE = "# written by `memoryd setup auto-install`; `--uninstall` removes this block"
CRON_CATCH_UP = "# catch-up: a slot missed while the machine was off or asleep runs within the hour"
CATCH_UP_MINUTE = 17
LAUNCHD_PREFIX = "dev.memoryd."
MAX_INTERVALS = 2000  # launchd dicts for one job: a cron line that needs more is refused
TIMEOUT = 20  # seconds for one crontab / systemctl / launchctl run
RUNNING = ("running", "degraded", "starting", "initializing", "maintenance", "stopping")


# -- the cron subset: five fields of numbers, names, lists, ranges, steps and * -----------
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
DAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
# (name, lowest, highest, names for lowest..): weekday 7 is Sunday again.
FIELDS = (
    ("minute", 0, 59, ()),
    ("hour", 0, 23, ()),
    ("day", 1, 31, ()),
    ("month", 1, 12, MONTHS),
    ("weekday", 0, 7, DAYS),
)
SYSTEMD_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


@dataclass(frozen=True)
class Cron:
    """A parsed cron line: the values of each field, and whether the day and weekday
    fields start with `*` (cron's rule: when neither does, a day matching either runs)."""

    minute: frozenset[int]
    hour: frozenset[int]
    day: frozenset[int]
    month: frozenset[int]
    weekday: frozenset[int]  # 0 = Sunday .. 6 = Saturday
    day_star: bool
    weekday_star: bool

    @property
    def either_day(self) -> bool:
        return not self.day_star and not self.weekday_star


def _field(text: str, name: str, lo: int, hi: int, names: tuple[str, ...]) -> frozenset[int]:
    def number(token: str) -> int:
        if token in names:
            return lo + names.index(token)
        if token.isdigit() and lo <= int(token) <= hi:
            return int(token)
        raise UsageError(f"cron {name} {token!r} is out of range {lo}-{hi}")

    out: set[int] = set()
    for part in text.lower().split(","):
        span, slash, step_text = part.partition("/")
        if slash and not (step_text.isdigit() and int(step_text) > 0):
            raise UsageError(f"cron {name} step {step_text!r} is not a positive number")
        step = int(step_text) if slash else 1
        if span == "*":
            a, b = lo, hi
        elif "-" in span:
            first, last = span.split("-", 1)
            a, b = number(first), number(last)
            if a > b:
                raise UsageError(f"cron {name} range {span!r} runs backwards")
        else:  # `N/step` runs to the top (Saturday for weekdays, as memoryd.schedule reads it)
            a = number(span)
            b = (6 if name == "weekday" else hi) if slash else a
        out.update(range(a, b + 1, step))
    if name == "weekday":
        out = {d % 7 for d in out}
    return frozenset(out)


def parse(cron: str) -> Cron:
    """A five-field cron line; UsageError for anything outside the subset (L, W, #, @daily)."""
    parts = str(cron).split()
    if len(parts) != 5:
        raise UsageError(f"schedule {cron!r} must be five cron fields: minute hour day month weekday")
    for part in parts:
        if not re.fullmatch(r"[0-9A-Za-z*/,-]+", part):
            raise UsageError(f"cron field {part!r} is outside what the timers support")
    values = [_field(p, *spec) for p, spec in zip(parts, FIELDS, strict=True)]
    return Cron(*values, day_star=parts[2].startswith("*"), weekday_star=parts[4].startswith("*"))


def _full(values: frozenset[int], lo: int, hi: int) -> bool:
    return values >= set(range(lo, hi + 1))


def _numbers(values: frozenset[int], lo: int, hi: int) -> str:
    """One OnCalendar field: *, a repetition `start/step`, or a list with `a..b` runs."""
    if _full(values, lo, hi):
        return "*"
    vals = sorted(values)
    if len(vals) >= 2:
        step = vals[1] - vals[0]
        if len(vals) >= 3 and step > 1 and vals == list(range(vals[0], hi + 1, step)):
            return f"{vals[0]:02d}/{step}"
    return ",".join(_runs(vals, lambda v: f"{v:02d}"))


def _runs(vals: list[int], show: Any) -> list[str]:
    """Consecutive values of three or more as `a..b`, others one by one."""
    out: list[str] = []
    for _, group in itertools.groupby(enumerate(vals), lambda iv: iv[1] - iv[0]):
        run = [v for _, v in group]
        if len(run) >= 3:
            out.append(f"{show(run[0])}..{show(run[-1])}")
        else:
            out.extend(show(v) for v in run)
    return out


def _weekdays(days: frozenset[int]) -> str:
    """systemd counts from Monday: Mon..Fri, Sat,Sun."""
    order = sorted((d + 6) % 7 for d in days)
    return ",".join(_runs(order, lambda i: SYSTEMD_DAYS[i]))


def on_calendar(cron: str) -> list[str]:
    """The OnCalendar= values that fire exactly when the cron line does. Two when both day
    and weekday are restricted: cron runs on a day matching either, systemd on both."""
    c = parse(cron)
    time = f"{_numbers(c.hour, 0, 23)}:{_numbers(c.minute, 0, 59)}:00"
    month = _numbers(c.month, 1, 12)
    day = _numbers(c.day, 1, 31)
    all_days = _full(c.weekday, 0, 6)
    if c.either_day and not all_days and day != "*":
        return [f"{_weekdays(c.weekday)} *-{month}-* {time}", f"*-{month}-{day} {time}"]
    if c.either_day and (all_days or day == "*"):
        # one of the two is every day: cron's "either" is then every day
        return [f"*-{month}-* {time}"]
    prefix = "" if all_days else _weekdays(c.weekday) + " "
    return [f"{prefix}*-{month}-{day} {time}"]


def calendar_intervals(cron: str) -> list[dict[str, int]]:
    """launchd's StartCalendarInterval: one dict per combination of the restricted
    fields (a missing key is a wildcard); day-or-weekday lines get dicts of each kind."""
    c = parse(cron)
    keys = [("Minute", c.minute, 0, 59), ("Hour", c.hour, 0, 23), ("Month", c.month, 1, 12)]
    day = ("Day", c.day, 1, 31)
    weekday = ("Weekday", c.weekday, 0, 6)
    if c.either_day:
        if _full(c.weekday, 0, 6) or _full(c.day, 1, 31):
            variants = [keys]
        else:
            variants = [[*keys, day], [*keys, weekday]]
    else:
        variants = [[*keys, day, weekday]]
    out: list[dict[str, int]] = []
    for variant in variants:
        used = [(k, sorted(v)) for k, v, lo, hi in variant if not _full(v, lo, hi)]
        for combo in itertools.product(*(vals for _, vals in used)):
            out.append(dict(zip((k for k, _ in used), combo, strict=True)))
            if len(out) > MAX_INTERVALS:
                raise UsageError(f"schedule {cron!r} needs over {MAX_INTERVALS} launchd intervals")
    return out


# -- what a plan is --------------------------------------------------------------------
@dataclass
class Change:
    target: str  # a file, or "crontab"
    before: str | None  # None: absent
    after: str | None  # None: to be removed

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        a = (self.before or "").splitlines(keepends=True)
        b = (self.after or "").splitlines(keepends=True)
        return "".join(difflib.unified_diff(a, b, f"{self.target} (now)", f"{self.target} (after)"))


@dataclass
class Command:
    argv: list[str]
    must_succeed: bool = True
    first: bool = False  # run before the files change (a disable needs its unit file)


@dataclass
class Report:
    kind: str  # one kind, or several joined by "," (an uninstall of everything)
    action: str  # "install" or "uninstall"
    dry_run: bool = False
    changes: list[Change] = field(default_factory=list)
    commands: list[Command] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "action": self.action,
            "dry_run": self.dry_run,
            "changed": [c.target for c in self.changes if c.changed],
            "unchanged": [c.target for c in self.changes if not c.changed],
            "commands": [shlex.join(c.argv) for c in self.commands],
            "notes": self.notes,
            "errors": self.errors,
        }


# -- where things go -------------------------------------------------------------------
def _platform(platform: str | None) -> str:
    return autostart._platform(platform)


def unit_dir() -> Path:
    return autostart.config_home() / "systemd" / "user"


def agents_dir() -> Path:
    return Path.home() / "Library" / "LaunchAgents"


def unit_name(job_id: str) -> str:
    return f"memoryd-{job_id}"


def label(job_id: str) -> str:
    return f"{LAUNCHD_PREFIX}{job_id}"


def job_argv(job_id: str) -> list[str]:
    return [*common.memoryd_argv(), *schedule.COMMANDS[job_id], "--runner", "timer"]


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from None


def _program(env_var: str, name: str) -> str | None:
    """The program to run: $env_var when set (empty: none), else `name` on PATH."""
    if env_var in os.environ:
        return os.environ[env_var] or None
    return shutil.which(name)


def _run(argv: list[str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=TIMEOUT, check=False)


def _first_line(text: str) -> str:
    return next((ln.strip() for ln in text.splitlines() if ln.strip()), "no message")


# -- systemd ---------------------------------------------------------------------------
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
        res = _run([tool, "calendar", *calendars])
    except (OSError, subprocess.SubprocessError):
        return
    if res.returncode != 0:
        raise UsageError(f"systemd does not accept the converted schedule: {_first_line(res.stderr)}")


def _wants(job_id: str) -> Path:
    return unit_dir() / "timers.target.wants" / f"{unit_name(job_id)}.timer"


def manager_running(systemctl: str | None = None) -> bool:
    """Whether `systemctl --user` reaches a running user manager."""
    prog = systemctl or _program("MEMORYD_SYSTEMCTL", "systemctl")
    if not prog:
        return False
    try:
        res = _run([prog, "--user", "is-system-running"])
    except (OSError, subprocess.SubprocessError):
        return False
    return res.stdout.strip() in RUNNING


def _plan_systemd(report: Report, jobs: list[schedule.Job], uninstall: bool) -> None:
    folder = unit_dir()
    env = autostart.baked_env()
    timers: list[str] = []
    for job_id in schedule.DEFAULTS:
        job = next((j for j in jobs if j.id == job_id), None)
        service, timer = folder / f"{unit_name(job_id)}.service", folder / f"{unit_name(job_id)}.timer"
        if uninstall:
            before_t = _read(timer)
            if before_t is not None:
                timers.append(timer.name)
            report.changes.append(Change(str(timer), before_t, None))
            report.changes.append(Change(str(service), _read(service), None))
        elif job is not None:
            timers.append(timer.name)
            report.changes.append(Change(str(service), _read(service), service_unit(job, env)))
            report.changes.append(Change(str(timer), _read(timer), timer_unit(job)))
    report.changes = [c for c in report.changes if c.before is not None or c.after is not None]
    if not uninstall:
        check_calendars([oc for j in jobs for oc in on_calendar(j.cron)])
    systemctl = _program("MEMORYD_SYSTEMCTL", "systemctl")
    enabled = all(_wants(j).exists() for j in schedule.DEFAULTS if f"{unit_name(j)}.timer" in timers)
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
        if running:
            report.commands.append(Command([*user, "daemon-reload"]))
        report.commands.append(Command([*user, "enable", *(["--now"] if running else []), *timers]))
    if not running:
        report.notes.append(
            "no systemd user manager answers here: the timers are "
            + ("disabled in their files" if uninstall else "enabled and start with your next login session")
        )


# -- cron ------------------------------------------------------------------------------
def _crontab() -> str | None:
    return _program("MEMORYD_CRONTAB", "crontab")


def read_crontab(prog: str | None = None) -> str:
    """The user's crontab ("" when there is none yet)."""
    prog = prog or _crontab()
    if not prog:
        raise UsageError("no crontab program here: install cron, or choose --kind systemd")
    try:
        res = _run([prog, "-l"])
    except (OSError, subprocess.SubprocessError) as exc:
        raise UsageError(f"cannot run {prog} -l: {exc}") from None
    if res.returncode != 0:
        if "no crontab" in res.stderr.lower():
            return ""
        raise UsageError(f"{prog} -l failed: {_first_line(res.stderr)}")
    return res.stdout


def _cron_escape(command: str) -> str:
    """cron turns an unescaped % into a line break."""
    return command.replace("%", "\\%")


def cron_numeric(cron: str) -> str:
    """The line as every cron reads it: month and weekday names as numbers (not every cron
    takes names in a list or range), `N/step` as a range; checked against the subset."""
    parse(cron)
    parts = cron.lower().split()
    parts[3] = re.sub(r"[a-z]{3}", lambda m: str(MONTHS.index(m.group()) + 1), parts[3])
    parts[4] = re.sub(r"[a-z]{3}", lambda m: str(DAYS.index(m.group())), parts[4])
    tops = (59, 23, 31, 12, 6)
    for i, top in enumerate(tops):  # Debian's cron refuses `N/step`: spell it `N-top/step`
        parts[i] = re.sub(r"(?:(?<=,)|^)(\d+)/", lambda m, t=top: f"{m.group(1)}-{t}/", parts[i])
    return " ".join(parts)


def cron_block(jobs: list[schedule.Job], env: dict[str, str]) -> list[str]:
    """One line per job, and an hourly `run-due`: cron never runs a slot the machine was
    off or asleep for, so the next hour awake runs it (the ledger runs each slot once)."""
    prefix = "".join(f"{k}={shlex.quote(v)} " for k, v in env.items())
    lines = [BEGIN, CRON_NOTE]
    for job in jobs:
        command = prefix + shlex.join(job_argv(job.id)) + " >/dev/null"
        lines.append(f"{cron_numeric(job.cron)} {_cron_escape(command)}")
    catch_up = prefix + shlex.join([*common.memoryd_argv(), "run-due", "--runner", "timer"]) + " >/dev/null"
    lines += [CRON_CATCH_UP, f"{CATCH_UP_MINUTE} * * * * {_cron_escape(catch_up)}", END]
    return lines


def split_block(text: str) -> tuple[list[str], list[str] | None, int]:
    """The crontab's lines without our block, the block (None when absent) and where it
    was. A BEGIN without an END is the user's to fix: we never guess its end."""
    lines = text.splitlines()
    starts = [i for i, ln in enumerate(lines) if ln.strip() == BEGIN]
    if not starts:
        return lines, None, len(lines)
    start = starts[0]
    end = next((i for i in range(start + 1, len(lines)) if lines[i].strip() == END), None)
    if end is None or len(starts) > 1:
        raise UsageError(f"the crontab has a damaged `{BEGIN}` block; fix it with `crontab -e` first")
    return lines[:start] + lines[end + 1 :], lines[start : end + 1], start


def _plan_cron(report: Report, jobs: list[schedule.Job], uninstall: bool) -> None:
    prog = _crontab()
    before = read_crontab(prog)
    rest, block, at = split_block(before)
    after_lines = rest if uninstall else [*rest[:at], *cron_block(jobs, autostart.baked_env()), *rest[at:]]
    after = "\n".join(after_lines) + "\n" if after_lines else ""
    if uninstall and block is None:
        after = before
    report.changes.append(Change("crontab", before, after))
    if report.changes[-1].changed:
        report.commands.append(Command([str(prog), "-" if after else "-r"]))


def _cron_lines(text: str) -> list[str]:
    try:
        _, block, _ = split_block(text)
    except UsageError:
        return []
    return [ln for ln in block or [] if ln.strip() and not ln.lstrip().startswith("#")]


# -- launchd ---------------------------------------------------------------------------
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


def _plan_launchd(report: Report, jobs: list[schedule.Job], uninstall: bool) -> None:
    env = autostart.baked_env()
    on_mac = sys.platform == "darwin"
    domain = f"gui/{os.getuid()}" if on_mac and hasattr(os, "getuid") else ""
    for job_id in schedule.DEFAULTS:
        job = next((j for j in jobs if j.id == job_id), None)
        path = agents_dir() / f"{label(job_id)}.plist"
        before = _read(path)
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
    if _crontab():
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
    jobs = [] if uninstall else schedule.jobs(raw_config or {})
    report = Report(kind=",".join(kinds), action="uninstall" if uninstall else "install", dry_run=True)
    if not kinds:
        report.notes.append("no timers of memoryd are installed")
    for k in kinds:
        {"systemd": _plan_systemd, "cron": _plan_cron, "launchd": _plan_launchd}[k](report, jobs, uninstall)
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
        if kind == "systemd":
            names = [f"{unit_name(j)}.{ext}" for j in schedule.DEFAULTS for ext in ("timer", "service")]
            return any((unit_dir() / name).exists() for name in names)
        if kind == "launchd":
            return any((agents_dir() / f"{label(j)}.plist").exists() for j in schedule.DEFAULTS)
        prog = _crontab()
        return bool(prog) and BEGIN in read_crontab(prog)
    except (OSError, UsageError, subprocess.SubprocessError):
        return False


def apply(report: Report) -> Report:
    """Run the planned commands that must come first (disable, bootout), write and remove
    the planned files, then run the rest (enable, bootstrap, crontab -); a failed command
    is an error in the report, not an exception."""
    report.dry_run = False
    crontab = next((c for c in report.changes if c.target == "crontab"), None)
    _commands(report, [c for c in report.commands if c.first], crontab)
    for ch in report.changes:
        if not ch.changed or ch.target == "crontab":
            continue
        path = Path(ch.target)
        if ch.after is None:
            path.unlink(missing_ok=True)
        else:
            atomic.write_text(path, ch.after)
    _commands(report, [c for c in report.commands if not c.first], crontab)
    if "systemd" in report.kind.split(",") and report.action == "uninstall":
        for job_id in schedule.DEFAULTS:  # enablement links left pointing at nothing
            link = _wants(job_id)
            if link.is_symlink() and not link.exists():
                link.unlink(missing_ok=True)
    return report


def _commands(report: Report, commands: list[Command], crontab: Change | None) -> None:
    for cmd in commands:
        stdin = crontab.after if crontab is not None and cmd.argv[-1:] == ["-"] else None
        try:
            res = _run(cmd.argv, stdin)
        except (OSError, subprocess.SubprocessError) as exc:
            report.errors.append(f"{shlex.join(cmd.argv)}: {exc}")
            continue
        if res.returncode != 0 and cmd.must_succeed:
            report.errors.append(f"{shlex.join(cmd.argv)} failed: {_first_line(res.stderr + res.stdout)}")


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
            out.extend(_installed(kind, env))
        except Exception:  # a tray must start whatever the machine holds
            continue
    return out


_ENV_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=.*", re.S)


def _env_of_unit(text: str) -> dict[str, str]:
    found = {}
    for ln in text.splitlines():
        if ln.startswith("Environment="):
            for word in shlex.split(ln[len("Environment=") :].replace("%%", "%")):
                k, _, v = word.partition("=")
                found[k] = v
    return found


def _installed(kind: str, env: dict[str, str]) -> list[str]:
    out = []
    if kind == "systemd":
        for job_id in schedule.DEFAULTS:
            service = _read(unit_dir() / f"{unit_name(job_id)}.service")
            if _wants(job_id).exists() and service is not None and _env_of_unit(service) == env:
                out.append(f"systemd: {unit_name(job_id)}.timer")
    elif kind == "launchd":
        for job_id in schedule.DEFAULTS:
            path = agents_dir() / f"{label(job_id)}.plist"
            if not path.is_file():
                continue
            data = plistlib.loads(path.read_bytes())
            if data.get("EnvironmentVariables", {}) == env:
                out.append(f"launchd: {label(job_id)}")
    elif kind == "cron":
        prog = _crontab()
        if not prog:
            return out
        for ln in _cron_lines(read_crontab(prog)):
            fields = ln.split(None, 5)
            if len(fields) < 6:
                continue
            words = shlex.split(fields[5].replace("\\%", "%"))
            assigned = dict(w.split("=", 1) for w in itertools.takewhile(_ENV_WORD.fullmatch, words))
            if "run-job" in words[:-1] and assigned == env:
                job = words[words.index("run-job") + 1]
                out.append(f"cron: {job} ({' '.join(fields[:5])})")
    return out
