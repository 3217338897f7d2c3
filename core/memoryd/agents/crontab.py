"""The jobs as a marked block in the user's crontab, where neither systemd nor launchd
runs timers for us.

cron never runs a slot the machine was off or asleep for, so the block carries an hourly
`run-due` as well; only the lines between our BEGIN and END marks are ever touched."""

from __future__ import annotations

import itertools
import re
import shlex
import subprocess

from memoryd import schedule
from memoryd.agents import autostart, common
from memoryd.agents.calendar import DAYS, MONTHS, parse
from memoryd.agents.timer_plan import Change, Command, Report, find_program, first_line, job_argv, run
from memoryd.errors import UsageError

BEGIN = "# BEGIN memoryd"
END = "# END memoryd"
CRON_NOTE = "# written by `memoryd setup auto-install`; `--uninstall` removes this block"
CRON_CATCH_UP = "# catch-up: a slot missed while the machine was off or asleep runs within the hour"
CATCH_UP_MINUTE = 17
_ENV_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=.*", re.S)


def program() -> str | None:
    """The crontab program (MEMORYD_CRONTAB names another; empty: none)."""
    return find_program("MEMORYD_CRONTAB", "crontab")


def read_crontab(prog: str | None = None) -> str:
    """The user's crontab ("" when there is none yet)."""
    prog = prog or program()
    if not prog:
        raise UsageError("no crontab program here: install cron, or choose --kind systemd")
    try:
        res = run([prog, "-l"])
    except (OSError, subprocess.SubprocessError) as exc:
        raise UsageError(f"cannot run {prog} -l: {exc}") from None
    if res.returncode != 0:
        if "no crontab" in res.stderr.lower():
            return ""
        raise UsageError(f"{prog} -l failed: {first_line(res.stderr)}")
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


def plan(report: Report, jobs: list[schedule.Job], uninstall: bool) -> None:
    """Add the crontab with our block put in (or taken out) and the `crontab -` run."""
    prog = program()
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


def has_files() -> bool:
    """Whether the crontab holds our block (what an uninstall looks for)."""
    prog = program()
    return bool(prog) and BEGIN in read_crontab(prog)


def installed(env: dict[str, str]) -> list[str]:
    """Our crontab lines that run a job with this data dir's environment."""
    out: list[str] = []
    prog = program()
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
