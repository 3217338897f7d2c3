"""What a timer install or removal plans (files to change, commands to run), and the file
reading and program running the three timer kinds share.

A plan is made whole before anything is touched, so `--dry-run` shows exactly what an
install would do, and one report carries the outcome of every kind."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memoryd import schedule
from memoryd.agents import common
from memoryd.errors import UsageError

TIMEOUT = 20  # seconds for one crontab / systemctl / launchctl run


@dataclass
class Change:
    """One file (or the crontab) before and after, so a plan can show its diff."""

    target: str  # a file, or "crontab"
    before: str | None  # None: absent
    after: str | None  # None: to be removed

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        return common.unified_diff(self.before, self.after, self.target)


@dataclass
class Command:
    """A program to run around the file changes (enable, bootstrap, crontab -)."""

    argv: list[str]
    must_succeed: bool = True
    first: bool = False  # run before the files change (a disable needs its unit file)


@dataclass
class Report:
    """The plan, and after `apply` what came of it: errors are reported, not raised."""

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


def job_argv(job_id: str) -> list[str]:
    """What every kind of timer runs: the tray's code path, marked as a timer's run."""
    return [*common.memoryd_argv(), *schedule.COMMANDS[job_id], "--runner", "timer"]


def read_file(path: Path) -> str | None:
    """A file's text, None when absent; an unreadable one is the user's to fix."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from None


def find_program(env_var: str, name: str) -> str | None:
    """The program to run: $env_var when set (empty: none), else `name` on PATH."""
    if env_var in os.environ:
        return os.environ[env_var] or None
    return shutil.which(name)


def run(argv: list[str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run a program with a time limit: a hung crontab or systemctl must not hang us."""
    return subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=TIMEOUT, check=False)


def first_line(text: str) -> str:
    """A program's first words, for an error that stays on one line."""
    return next((ln.strip() for ln in text.splitlines() if ln.strip()), "no message")
