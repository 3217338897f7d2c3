"""`memoryd setup auto-install`: the three timed jobs (consolidate, digest, monthly-report)
as OS timers; an install over an earlier version's removes its decay-sweep and identity
timers.

- cron -> OnCalendar: a table of exact conversions, each checked by systemd's own parser
  (`systemd-analyze calendar`) against APScheduler's firing times (an independent cron
  reading) over many iterations; launchd's StartCalendarInterval dicts likewise.
- systemd user units written under $XDG_CONFIG_HOME, checked by `systemd-analyze --user
  verify`, enabled by the real `systemctl --user` (with no user manager reachable it works
  on the files: XDG_RUNTIME_DIR and the session bus point nowhere, so a developer's own
  manager is never touched); reinstall changes nothing, remove removes exactly them.
- the crontab block through the real `crontab` (Debian's cron, which .ci/run installs) in a
  private mount namespace whose /var/spool/cron/crontabs is the test's folder, so the
  real binary validates every line and no real crontab is touched; where that cannot be
  had (not root, no unshare) a stand-in script keeps the crontab in a file.
- launchd plists (written on any OS with platform="darwin").
"""

from __future__ import annotations

import json
import os
import plistlib
import re
import shlex
import shutil
import subprocess
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memoryd import schedule
from memoryd.agents import autostart, common, systemd_units, timers
from memoryd.errors import UsageError
from tests.core.sensitive.support import one_line_error

Cli = Callable[..., subprocess.CompletedProcess[str]]

TABLE = [
    ("0 9 * * 1", ["Mon *-*-* 09:00:00"]),
    ("0 3 * * *", ["*-*-* 03:00:00"]),
    ("0 4 1 * *", ["*-*-01 04:00:00"]),
    ("0 2 * * 0", ["Sun *-*-* 02:00:00"]),
    ("0 2 * * 7", ["Sun *-*-* 02:00:00"]),
    ("*/15 9-17 * * 1-5", ["Mon..Fri *-*-* 09..17:00/15:00"]),
    ("30 6 * jan,jul sat,sun", ["Sat,Sun *-01,07-* 06:30:00"]),
    ("5 4 * * sun-tue", ["Mon,Tue,Sun *-*-* 04:05:00"]),
    ("0 0 */2 * *", ["*-*-01/2 00:00:00"]),
    ("0,30 */6 * 3-5 *", ["*-03..05-* 00/6:00,30:00"]),
    ("0 12 * * 0-6", ["*-*-* 12:00:00"]),
    ("10 8 1-7 * 1/2", ["Mon,Wed,Fri *-*-* 08:10:00", "*-*-01..07 08:10:00"]),  # cron: either day
    ("0 9 1,15 * mon", ["Mon *-*-* 09:00:00", "*-*-01,15 09:00:00"]),
    ("0 0 */2 * 1", ["Mon *-*-01/2 00:00:00"]),  # a day field starting with * : both must match
]


@pytest.mark.parametrize(("cron", "expected"), TABLE)
def test_cron_to_on_calendar(cron: str, expected: list[str]) -> None:
    assert timers.on_calendar(cron) == expected


@pytest.mark.parametrize(
    "cron", ["0 9 L * *", "0 9 * * 1#2", "61 * * * *", "0 9 * * 8", "5-1 * * * *", "@daily"]
)
def test_outside_the_subset_is_a_clear_usage_error(cron: str) -> None:
    with pytest.raises(UsageError):
        timers.on_calendar(cron)


def _cron_fires(cron: str, start: datetime, end: datetime) -> list[datetime]:
    """Cron's firing times in (start, end], from APScheduler (UTC); for a line restricting
    both day and weekday, cron's "either" is the union of the two one-sided lines."""
    fields = cron.split()
    lines = [cron]
    if not fields[2].startswith("*") and not fields[4].startswith("*"):
        lines = [" ".join([*fields[:2], "*", *fields[3:]]), " ".join([*fields[:4], "*"])]
    out: set[datetime] = set()
    for line in lines:
        trig = schedule.trigger(line, UTC)
        t = trig.get_next_fire_time(None, start + timedelta(microseconds=1))
        while t is not None and t <= end:
            out.add(t)
            t = trig.get_next_fire_time(None, t + timedelta(microseconds=1))
    return sorted(out)


STAMP = re.compile(r"(?:Next elapse|Iter\. #\d+): \w{3} (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) UTC")


@pytest.mark.parametrize(("cron", "expected"), TABLE)
def test_systemd_fires_when_cron_does(cron: str, expected: list[str]) -> None:
    tool = shutil.which("systemd-analyze")
    if not tool:
        pytest.skip("needs systemd-analyze (Debian: systemd)")
    base = datetime(2026, 1, 1, tzinfo=UTC)
    n = 60
    fires: set[datetime] = set()
    for value in timers.on_calendar(cron):
        res = subprocess.run(
            [tool, "calendar", f"--iterations={n}", "--base-time=2026-01-01 00:00:00 UTC", value],
            capture_output=True,
            text=True,
            env={**os.environ, "TZ": "UTC"},
            check=False,
        )
        assert res.returncode == 0, res.stderr
        assert f"Normalized form: {value}" in res.stdout or "Normalized form:" in res.stdout
        fires |= {datetime.fromisoformat(m + "+00:00") for m in STAMP.findall(res.stdout)}
    got = sorted(fires)[:n]
    assert len(got) == n
    assert got == _cron_fires(cron, base, got[-1])


def _launchd_fires(intervals: list[dict[str, int]], start: datetime, days: int) -> list[datetime]:
    """launchd's reading of StartCalendarInterval: a missing key is any value; Weekday 0
    is Sunday."""
    out: set[datetime] = set()
    for d in range(days + 1):
        day = (start + timedelta(days=d)).replace(hour=0, minute=0)
        weekday = (day.weekday() + 1) % 7
        for iv in intervals:
            if iv.get("Day", day.day) != day.day or iv.get("Month", day.month) != day.month:
                continue
            if iv.get("Weekday", weekday) % 7 != weekday:
                continue
            for h in [iv["Hour"]] if "Hour" in iv else range(24):
                for m in [iv["Minute"]] if "Minute" in iv else range(60):
                    out.add(day.replace(hour=h, minute=m))
    return sorted(t for t in out if t > start)


@pytest.mark.parametrize(("cron", "expected"), TABLE)
def test_launchd_intervals_fire_when_cron_does(cron: str, expected: list[str]) -> None:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    got = _launchd_fires(timers.calendar_intervals(cron), start, 200)
    assert got and got == _cron_fires(cron, start, start + timedelta(days=200, hours=23, minutes=59))


# -- fixtures: a test-only config dir, no reachable systemd user manager, a crontab ---------
@pytest.fixture(autouse=True)
def user_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    conf = tmp_path / "xdg-config"
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(conf))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", f"unix:path={runtime}/no-bus")
    monkeypatch.delenv("MEMORYD_SYSTEMCTL", raising=False)
    return conf


@dataclass
class Crontab:
    program: Path
    real: bool

    def read(self) -> str:
        res = subprocess.run([str(self.program), "-l"], capture_output=True, text=True, check=False)
        return res.stdout if res.returncode == 0 else ""

    def write(self, text: str) -> None:
        subprocess.run([str(self.program), "-"], input=text, text=True, check=True, capture_output=True)


def _real_crontab_possible() -> bool:
    if os.geteuid() != 0 or not shutil.which("crontab") or not shutil.which("unshare"):
        return False
    if not os.path.isdir("/var/spool/cron/crontabs"):
        return False
    return subprocess.run(["unshare", "--mount", "true"], capture_output=True, check=False).returncode == 0


@pytest.fixture
def crontab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Crontab]:
    """MEMORYD_CRONTAB for the test: the real crontab(1) with its spool bind-mounted from a
    test folder in a mount namespace of its own; else (not root, no unshare, no cron
    package) a stand-in shell script over one file, since no cron daemon runs here."""
    spool = tmp_path / "cron-spool"
    spool.mkdir()
    program = tmp_path / "crontab"
    real = _real_crontab_possible()
    if real:
        program.write_text(
            "#!/bin/sh\n"
            "exec unshare --mount sh -c "
            '\'mount --bind "$0" /var/spool/cron/crontabs && exec crontab "$@"\' '
            f"'{spool}' \"$@\"\n"
        )
    else:
        store = spool / "crontab"
        program.write_text(
            textwrap.dedent(
                f"""\
                #!/bin/sh
                # stand-in for crontab(1): -l prints, - stores stdin, -r removes
                case "$1" in
                  -l) [ -f '{store}' ] || {{ echo "no crontab for $(id -un)" >&2; exit 1; }}; cat '{store}';;
                  -) cat > '{store}';;
                  -r) rm -f '{store}';;
                  *) echo "usage: crontab -l | - | -r" >&2; exit 1;;
                esac
                """
            )
        )
    program.chmod(0o755)
    monkeypatch.setenv("MEMORYD_CRONTAB", str(program))
    yield Crontab(program, real)


# -- systemd -----------------------------------------------------------------------------
def _units(conf: Path) -> dict[str, str]:
    folder = conf / "systemd" / "user"
    return {p.name: p.read_text() for p in sorted(folder.glob("memoryd-*"))} if folder.is_dir() else {}


def test_systemd_units_install_idempotently_and_remove_exactly(user_dirs: Path, crontab: Crontab) -> None:
    folder = user_dirs / "systemd" / "user"
    folder.mkdir(parents=True)
    (folder / "mine.service").write_text("[Service]\nExecStart=/bin/true\n")
    report = timers.install({"schedule": {"digest": "30 8 * * mon"}}, kind="systemd", platform="linux")
    assert report.ok, report.errors
    units = _units(user_dirs)
    names = [f"memoryd-{j}.{ext}" for j in schedule.TIMED for ext in ("service", "timer")]
    assert sorted(units) == sorted(names)
    assert schedule.TIMED == ("consolidate", "digest", "monthly-report")  # identity: no timer
    service = units["memoryd-digest.service"]
    assert "Type=oneshot" in service
    assert f'Environment="MEMORYD_HOME={os.environ["MEMORYD_HOME"]}"' in service
    assert f'Environment="MEMORYD_CONFIG={os.environ["MEMORYD_CONFIG"]}"' in service
    exec_start = next(ln for ln in service.splitlines() if ln.startswith("ExecStart="))
    argv = exec_start[len("ExecStart=") :].split()
    assert argv == [*common.memoryd_argv(), "run-job", "digest", "--runner", "timer"]
    assert Path(argv[0]).is_absolute()
    timer = units["memoryd-digest.timer"]
    assert "OnCalendar=Mon *-*-* 08:30:00" in timer
    assert "Persistent=true" in timer and "WantedBy=timers.target" in timer
    assert "OnCalendar=*-*-01 04:00:00" in units["memoryd-monthly-report.timer"]

    analyze = shutil.which("systemd-analyze")
    if analyze:  # systemd's own unit checker: no unknown key, no bad value, ExecStart exists
        files = [str(folder / n) for n in units]
        res = subprocess.run(
            [analyze, "--user", "verify", *files], capture_output=True, text=True, check=False
        )
        assert res.returncode == 0 and not res.stderr.strip(), res.stderr

    timer_names = [f"memoryd-{j}.timer" for j in schedule.TIMED]
    wants = folder / "timers.target.wants"
    if shutil.which("systemctl"):
        assert report.commands and report.commands[-1].argv[-3:] == timer_names
        assert "enable" in report.commands[-1].argv
        assert not any("disable" in c.argv for c in report.commands)  # nothing retired to disable
        assert any("no systemd user manager" in n for n in report.notes)
        assert sorted(p.name for p in wants.iterdir()) == sorted(timer_names)
        assert timers.installed("linux") == [f"systemd: {t}" for t in timer_names]
    else:
        assert any("systemctl not found" in n for n in report.notes)

    again = timers.install({"schedule": {"digest": "30 8 * * mon"}}, kind="systemd", platform="linux")
    assert [c.changed for c in again.changes] == [False] * 6 and not again.commands and again.ok
    assert _units(user_dirs) == units

    gone = timers.remove(platform="linux")
    assert gone.ok, gone.errors
    assert gone.kind == "systemd"
    assert _units(user_dirs) == {}
    assert sorted(p.name for p in folder.iterdir() if p != wants) == ["mine.service"]
    assert not wants.exists() or list(wants.iterdir()) == []
    assert timers.installed("linux") == []


def test_without_systemctl_the_units_are_written_and_not_counted(
    monkeypatch: pytest.MonkeyPatch, user_dirs: Path
) -> None:
    monkeypatch.setenv("MEMORYD_SYSTEMCTL", "")  # "there is none"
    report = timers.install({}, kind="systemd", platform="linux")
    assert len(_units(user_dirs)) == 6 and not report.commands
    assert any("systemctl not found" in n and "enable --now" in n for n in report.notes)
    assert timers.installed("linux") == []  # not enabled: the tray must still run the jobs
    assert len(timers.remove(kind="systemd", platform="linux").changes) == 6 and _units(user_dirs) == {}


def test_dry_run_writes_nothing(user_dirs: Path) -> None:
    report = timers.plan({}, kind="systemd", platform="linux")
    assert report.dry_run and len([c for c in report.changes if c.changed]) == 6
    assert "OnCalendar=Mon *-*-* 09:00:00" in "".join(c.diff() for c in report.changes)
    assert _units(user_dirs) == {}


def test_a_bad_schedule_is_refused_before_anything_is_written(user_dirs: Path) -> None:
    with pytest.raises(UsageError):
        timers.install({"schedule": {"digest": "0 9 * * 1#2"}}, kind="systemd", platform="linux")
    assert _units(user_dirs) == {}


# What earlier versions installed: a decay-sweep and an identity timer beside the others.
RETIRED = ("decay-sweep", "identity")
OLD_TIMES = {"decay-sweep": "0 3 * * *", "identity": "0 2 * * 0"}


def _old_service(job_id: str) -> str:
    """An earlier version's service unit for a job it had a timer for."""
    env = autostart.baked_env()
    argv = [*common.memoryd_argv(), "run-job", job_id, "--runner", "timer"]
    return "\n".join(
        [
            "[Unit]",
            f"Description=memoryd: the {job_id} job (memoryd setup auto-install)",
            "",
            "[Service]",
            "Type=oneshot",
            *(f'Environment="{k}={v}"' for k, v in env.items()),
            "ExecStart=" + " ".join(argv),
            "",
        ]
    )


@pytest.fixture
def systemctl_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """MEMORYD_SYSTEMCTL: the real systemctl (when there is one) behind a wrapper that notes
    each call; without one, a stand-in that answers "offline" (no user manager)."""
    log = tmp_path / "systemctl.log"
    real = shutil.which("systemctl")
    wrapper = tmp_path / "systemctl"
    tail = (
        f"exec '{real}' \"$@\"\n"
        if real
        else 'case "$*" in *is-system-running*) echo offline; exit 1;; esac\nexit 0\n'
    )
    wrapper.write_text(f"#!/bin/sh\necho \"$*\" >> '{log}'\n" + tail)
    wrapper.chmod(0o755)
    monkeypatch.setenv("MEMORYD_SYSTEMCTL", str(wrapper))
    return log


def test_an_install_over_an_earlier_one_removes_and_disables_the_retired_units(
    user_dirs: Path, systemctl_log: Path
) -> None:
    folder = user_dirs / "systemd" / "user"
    wants = folder / "timers.target.wants"
    wants.mkdir(parents=True)
    for job_id in (*RETIRED, "digest"):  # the digest's old unit too: it is rewritten, not removed
        (folder / f"memoryd-{job_id}.service").write_text(_old_service(job_id))
        (folder / f"memoryd-{job_id}.timer").write_text(
            "[Timer]\nOnCalendar=*-*-* 03:00:00\nPersistent=true\n\n[Install]\nWantedBy=timers.target\n"
        )
        (wants / f"memoryd-{job_id}.timer").symlink_to(folder / f"memoryd-{job_id}.timer")
    assert timers.installed("linux") == [
        "systemd: memoryd-digest.timer",
        "systemd: memoryd-decay-sweep.timer",
        "systemd: memoryd-identity.timer",
    ]

    report = timers.install({}, kind="systemd", platform="linux")

    assert report.ok, report.errors
    retired_timers = [f"memoryd-{j}.timer" for j in RETIRED]
    timer_names = [f"memoryd-{j}.timer" for j in schedule.TIMED]
    disable = [c for c in report.commands if "disable" in c.argv]
    assert len(disable) == 1 and disable[0].first and not disable[0].must_succeed
    assert disable[0].argv[-2:] == retired_timers  # before their files go: systemctl reads them
    assert report.commands[-1].argv[-3:] == timer_names and "enable" in report.commands[-1].argv
    removed = sorted(Path(c.target).name for c in report.changes if c.after is None and c.before)
    assert removed == sorted(f"memoryd-{j}.{ext}" for j in RETIRED for ext in ("service", "timer"))
    assert sorted(_units(user_dirs)) == sorted(
        f"memoryd-{j}.{ext}" for j in schedule.TIMED for ext in ("service", "timer")
    )
    assert "run-job consolidate" in _units(user_dirs)["memoryd-consolidate.service"]
    calls = systemctl_log.read_text().splitlines()
    assert f"--user disable {' '.join(retired_timers)}" in calls
    assert calls.index(f"--user disable {' '.join(retired_timers)}") < len(calls) - 1  # enable after
    if shutil.which("systemctl"):  # the real one disabled them: their links are gone
        assert sorted(p.name for p in wants.iterdir()) == sorted(timer_names)
        assert timers.installed("linux") == [f"systemd: {t}" for t in timer_names]

    again = timers.install({}, kind="systemd", platform="linux")  # nothing retired is left
    assert again.ok and not again.commands and not any(c.changed for c in again.changes)


def test_an_install_over_an_earlier_launchd_install_removes_the_retired_agents(crontab: Crontab) -> None:
    agents = Path(os.environ["HOME"]) / "Library" / "LaunchAgents"
    agents.mkdir(parents=True)
    for job_id in RETIRED:
        old = {"Label": f"dev.memoryd.{job_id}", "ProgramArguments": ["memoryd", "run-job", job_id]}
        (agents / f"dev.memoryd.{job_id}.plist").write_bytes(plistlib.dumps(old))
    report = timers.install({}, kind="launchd", platform="darwin")
    assert report.ok, report.errors
    assert sorted(p.name for p in agents.iterdir()) == sorted(
        f"dev.memoryd.{j}.plist" for j in schedule.TIMED
    )
    if os.uname().sysname == "Darwin":  # unloaded before the file goes
        bootouts = [c.argv[-1] for c in report.commands if "bootout" in c.argv]
        assert sorted(bootouts) == sorted(f"gui/{os.getuid()}/dev.memoryd.{j}" for j in RETIRED)


# -- cron --------------------------------------------------------------------------------
MINE = "# my own jobs\nMAILTO=me@example.org\n15 * * * * /usr/bin/backup --quick\n"


def test_crontab_block_install_replace_remove_keeps_the_rest(crontab: Crontab) -> None:
    crontab.write(MINE)
    report = timers.install({}, kind="cron", platform="linux")
    assert report.ok, report.errors
    text = crontab.read()
    assert text.startswith(MINE)
    block = text[len(MINE) :].splitlines()
    assert block[0] == "# BEGIN memoryd" and block[-1] == "# END memoryd"
    lines = [ln for ln in block if not ln.startswith("#")]
    memoryd = common.memoryd_argv()[0]
    assert lines[1].startswith("0 9 * * 1 MEMORYD_HOME=")
    assert f"{memoryd} run-job digest --runner timer >/dev/null" in lines[1]
    assert [ln.split()[:5] for ln in lines[:3]] == [schedule.DEFAULTS[j].split() for j in schedule.TIMED]
    assert lines[3].startswith("17 * * * * MEMORYD_HOME=")  # the hourly catch-up
    assert lines[3].endswith(f"{memoryd} run-due --runner timer >/dev/null") and len(lines) == 4
    assert timers.installed("linux") == [
        "cron: consolidate (0 3 * * *)",
        "cron: digest (0 9 * * 1)",
        "cron: monthly-report (0 4 1 * *)",
    ]
    assert " identity " not in text  # the identity rewrite runs inside the consolidation

    again = timers.install({}, kind="cron", platform="linux")
    assert not again.commands and crontab.read() == text  # nothing to change, nothing run

    crontab.write(text + "0 0 * * * /usr/bin/after-ours\n")
    changed = {"digest": "30 8 * * mon,fri", "monthly_report": "15 2 1/2 * *"}
    assert timers.install({"schedule": changed}, kind="cron", platform="linux").ok
    replaced = crontab.read()
    assert replaced.count("# BEGIN memoryd") == 1 and replaced.startswith(MINE)
    assert replaced.endswith("# END memoryd\n0 0 * * * /usr/bin/after-ours\n")
    assert "\n30 8 * * 1,5 MEMORYD_HOME=" in replaced  # names as numbers: every cron reads them
    assert "\n15 2 1-31/2 * * MEMORYD_HOME=" in replaced  # Debian's cron refuses `1/2`

    gone = timers.remove(kind="cron", platform="linux")
    assert gone.ok, gone.errors
    assert crontab.read() == MINE + "0 0 * * * /usr/bin/after-ours\n"
    assert timers.installed("linux") == []
    assert not timers.remove(kind="cron", platform="linux").commands  # nothing left to remove


def test_an_install_over_an_earlier_crontab_block_drops_the_retired_lines(crontab: Crontab) -> None:
    """An earlier version's block ran decay-sweep and identity too: the new block replaces
    it in place, with the consolidation instead, and the user's lines stay."""
    prefix = "".join(f"{k}={shlex.quote(v)} " for k, v in autostart.baked_env().items())
    memoryd = shlex.join(common.memoryd_argv())
    old_jobs = {**OLD_TIMES, "digest": "0 9 * * 1", "monthly-report": "0 4 1 * *"}
    old_block = [
        "# BEGIN memoryd",
        "# written by `memoryd setup auto-install`; `--uninstall` removes this block",
        *(
            f"{cron} {prefix}{memoryd} run-job {job} --runner timer >/dev/null"
            for job, cron in old_jobs.items()
        ),
        f"17 * * * * {prefix}{memoryd} run-due --runner timer >/dev/null",
        "# END memoryd",
    ]
    crontab.write(MINE + "\n".join(old_block) + "\n0 0 * * * /usr/bin/after-ours\n")
    assert "cron: decay-sweep (0 3 * * *)" in timers.installed("linux")

    report = timers.install({}, kind="cron", platform="linux")

    assert report.ok, report.errors
    text = crontab.read()
    assert text.startswith(MINE) and text.endswith("# END memoryd\n0 0 * * * /usr/bin/after-ours\n")
    assert text.count("# BEGIN memoryd") == 1
    assert " run-job decay-sweep " not in text and " run-job identity " not in text
    assert timers.installed("linux") == [
        "cron: consolidate (0 3 * * *)",
        "cron: digest (0 9 * * 1)",
        "cron: monthly-report (0 4 1 * *)",
    ]


def test_crontab_of_our_own_only_is_removed_whole(crontab: Crontab) -> None:
    timers.install({}, kind="cron", platform="linux")
    assert "# END memoryd" in crontab.read()
    report = timers.remove(platform="linux")  # no kind: whatever is installed
    assert report.kind == "cron" and report.commands[-1].argv[-1] == "-r"
    assert crontab.read() == ""


def test_crontab_lines_for_another_data_dir_do_not_count(
    crontab: Crontab, monkeypatch: pytest.MonkeyPatch
) -> None:
    timers.install({}, kind="cron", platform="linux")
    monkeypatch.setenv("MEMORYD_HOME", "/some/where/else")
    assert timers.installed("linux") == []


def test_a_damaged_block_is_left_for_the_user(crontab: Crontab) -> None:
    crontab.write(MINE + "# BEGIN memoryd\n0 3 * * * true\n")
    with pytest.raises(UsageError, match="crontab -e"):
        timers.install({}, kind="cron", platform="linux")
    assert crontab.read() == MINE + "# BEGIN memoryd\n0 3 * * * true\n"
    assert timers.installed("linux") == []


def _as_cron_runs(line: str, when: datetime) -> subprocess.CompletedProcess[str]:
    """A crontab line's command the way cron runs it: `/bin/sh -c` with cron's small
    environment (no MEMORYD_* of ours: the line must carry them), `\\%` read as `%`."""
    command = line.split(None, 5)[5].replace("\\%", "%")
    env = {
        "HOME": os.environ["HOME"],
        "LOGNAME": "root",
        "PATH": "/usr/bin:/bin",
        "SHELL": "/bin/sh",
        "MEMORYD_NOW": when.isoformat(),  # the test's clock
    }
    return subprocess.run(["/bin/sh", "-c", command], env=env, capture_output=True, text=True, check=False)


def _job(cli: Cli, job_id: str, when: datetime) -> dict[str, object]:
    jobs = json.loads(cli("schedule", "--json", env={"MEMORYD_NOW": when.isoformat()}).stdout)["jobs"]
    return next(j for j in jobs if j["id"] == job_id)


def test_the_crontab_lines_run_as_cron_runs_them(crontab: Crontab, cli: Cli) -> None:
    """The job line and the hourly catch-up, run as cron would, reach this data dir and
    claim their slots as the timer. Installing starts the claim ledger's clock too: without
    that, the first timer run would take its own time as the start and run nothing."""
    before = datetime.now(UTC).astimezone()
    timers.install({}, kind="cron", platform="linux")
    lines = [ln for ln in crontab.read().splitlines() if ln and not ln.startswith("#")]
    nightly = next(ln for ln in lines if " run-job consolidate " in ln)
    catch_up = next(ln for ln in lines if " run-due " in ln)
    slot = schedule.next_run(schedule.Job("consolidate", "0 3 * * *"), before)
    assert slot is not None

    res = _as_cron_runs(nightly, slot + timedelta(seconds=5))
    assert res.returncode == 0 and res.stdout == "", res.stderr
    job = _job(cli, "consolidate", slot + timedelta(minutes=1))
    assert job["runner"] == "timer" and job["last_success"] and job["last_error"] is None

    # the machine was off at the next day's 03:00: the next hourly catch-up runs that slot
    later = slot + timedelta(days=1, hours=1, minutes=17)
    res = _as_cron_runs(catch_up, later)
    assert "Traceback" not in res.stderr  # other jobs may fall due too, depending on the weekday
    job = _job(cli, "consolidate", later)
    assert job["last_run"] == later.astimezone(UTC).isoformat().replace("+00:00", "Z")
    assert job["runner"] == "timer"


def test_the_systemd_service_runs_as_systemd_runs_it(user_dirs: Path, cli: Cli) -> None:
    """ExecStart split by systemd's rules for plain words, with only the Environment= lines."""
    timers.install({}, kind="systemd", platform="linux")
    service = (user_dirs / "systemd" / "user" / "memoryd-consolidate.service").read_text()
    argv = next(ln for ln in service.splitlines() if ln.startswith("ExecStart=")).split("=", 1)[1].split()
    env = {"HOME": os.environ["HOME"], "PATH": "/usr/bin:/bin", **systemd_units._env_of_unit(service)}
    now = datetime.now(UTC)
    res = subprocess.run([*argv, "--force"], env=env, capture_output=True, text=True, check=False)
    assert res.returncode == 0 and res.stdout.startswith("consolidation: "), res.stdout + res.stderr
    assert _job(cli, "consolidate", now + timedelta(minutes=1))["runner"] == "timer"


# -- launchd -----------------------------------------------------------------------------
def test_launchd_plists_on_any_os_with_platform_darwin(crontab: Crontab) -> None:
    agents = Path(os.environ["HOME"]) / "Library" / "LaunchAgents"
    config = {"schedule": {"monthly_report": "0 2 1,15 * *"}}
    report = timers.install(config, kind="launchd", platform="darwin")
    assert report.ok and sorted(p.name for p in agents.iterdir()) == sorted(
        f"dev.memoryd.{j}.plist" for j in schedule.TIMED
    )
    digest = plistlib.loads((agents / "dev.memoryd.digest.plist").read_bytes())
    assert digest["Label"] == "dev.memoryd.digest"
    assert digest["ProgramArguments"] == [*common.memoryd_argv(), "run-job", "digest", "--runner", "timer"]
    assert digest["StartCalendarInterval"] == {"Minute": 0, "Hour": 9, "Weekday": 1}
    assert digest["EnvironmentVariables"]["MEMORYD_HOME"] == os.environ["MEMORYD_HOME"]
    assert digest["RunAtLoad"] is True  # a login catches up a slot missed while off
    monthly = plistlib.loads((agents / "dev.memoryd.monthly-report.plist").read_bytes())
    assert monthly["StartCalendarInterval"] == [
        {"Minute": 0, "Hour": 2, "Day": 1},
        {"Minute": 0, "Hour": 2, "Day": 15},
    ]
    if os.uname().sysname != "Darwin":
        assert not report.commands and any("only on macOS" in n for n in report.notes)
    assert timers.installed("darwin") == [f"launchd: dev.memoryd.{j}" for j in schedule.TIMED]
    again = timers.install(config, kind="launchd", platform="darwin")
    assert not any(c.changed for c in again.changes)
    timers.remove(platform="darwin")
    assert list(agents.iterdir()) == [] and timers.installed("darwin") == []


def test_default_kind(monkeypatch: pytest.MonkeyPatch, crontab: Crontab) -> None:
    assert timers.default_kind("darwin") == "launchd"
    with pytest.raises(UsageError, match="Windows"):
        timers.default_kind("win32")
    # no user manager is reachable in the tests: cron
    assert timers.default_kind("linux") == "cron"
    monkeypatch.setenv("MEMORYD_CRONTAB", "")
    monkeypatch.setenv("MEMORYD_SYSTEMCTL", "")
    with pytest.raises(UsageError, match="--kind"):
        timers.default_kind("linux")


@pytest.mark.parametrize(
    ("kind", "platform", "words"),
    [
        ("launchd", "linux", "systemd or cron"),
        ("systemd", "darwin", "launchd or cron"),
        ("cron", "win32", "setup autostart"),
        ("upstart", "linux", "one of systemd, cron, launchd"),
    ],
)
def test_a_kind_the_platform_lacks_is_refused(kind: str, platform: str, words: str, user_dirs: Path) -> None:
    with pytest.raises(UsageError, match=words):
        timers.install({}, kind=kind, platform=platform)
    assert not user_dirs.exists() and not (Path(os.environ["HOME"]) / "Library").exists()


def test_installed_never_raises(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    broken = tmp_path / "broken-crontab"
    broken.write_text("#!/bin/sh\necho 'crontab: cannot open spool' >&2\nexit 3\n")
    broken.chmod(0o755)
    monkeypatch.setenv("MEMORYD_CRONTAB", str(broken))
    assert timers.installed("linux") == []
    monkeypatch.setenv("MEMORYD_CRONTAB", str(tmp_path / "missing"))
    assert timers.installed("linux") == [] and timers.installed("win32") == []


# -- the CLI -----------------------------------------------------------------------------
def test_setup_auto_install_cli(cli: Cli, crontab: Crontab, user_dirs: Path) -> None:
    """The subprocesses inherit the fixtures' MEMORYD_CRONTAB and XDG_* variables."""
    dry = cli("setup", "auto-install", "--kind", "cron", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "would change  crontab" in dry.stdout and "+# BEGIN memoryd" in dry.stdout
    assert crontab.read() == ""

    done = cli("setup", "auto-install", "--json")  # default here: cron
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["kind"] == "cron" and json.loads(done.stdout)["changed"] == ["crontab"]
    shown = json.loads(cli("schedule", "--json").stdout)
    assert shown["timers"] == [
        "cron: consolidate (0 3 * * *)",
        "cron: digest (0 9 * * 1)",
        "cron: monthly-report (0 4 1 * *)",
    ]
    text = cli("schedule").stdout
    assert "timers: cron: consolidate" in text

    gone = cli("setup", "auto-install", "--uninstall")
    assert gone.returncode == 0 and "changed  crontab" in gone.stdout, gone.stderr
    assert crontab.read() == "" and json.loads(cli("schedule", "--json").stdout)["timers"] == []
    bad = cli("setup", "auto-install", "--kind", "upstart")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    one_line_error(cli("setup", "auto-install", "--kind", "launchd"), 2, "systemd or cron")
