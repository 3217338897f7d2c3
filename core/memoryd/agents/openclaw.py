"""`memoryd setup openclaw`: the memoryd skill in OpenClaw's shared skills folder.

OpenClaw's hooks and plugins are TypeScript inside its Gateway, so a Python tool reaches
its agents through a skill (a SKILL.md the agent reads and follows, calling the memoryd
CLI) and, for MCP, `openclaw mcp add`. The skill goes to `<state dir>/skills/memoryd/`
(`~/.openclaw` unless OPENCLAW_STATE_DIR says otherwise), which every agent of that
OpenClaw loads; uninstall removes the file and the folder if we left it empty.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from memoryd import bundled
from memoryd.agents import common

SKILL = Path("openclaw") / "memoryd" / "SKILL.md"


def state_dir(home: Path) -> Path:
    env = os.environ.get("OPENCLAW_STATE_DIR")
    return Path(env).expanduser() if env else home / ".openclaw"


def skill_text() -> str:
    return bundled.find(SKILL).read_text(encoding="utf-8")


def plan(home: Path, *, uninstall: bool, dry_run: bool) -> common.SetupReport:
    report = common.SetupReport("openclaw", "uninstall" if uninstall else "install", dry_run=dry_run)
    path = state_dir(home) / "skills" / "memoryd" / "SKILL.md"
    before = common.read_text(path)
    after = None if uninstall else skill_text()
    report.changes.append(common.FileChange(path, before, after, keep_backup=False))
    if not uninstall:
        argv = " ".join([*common.memoryd_argv(), "mcp"])
        report.notes.append(f"for the MCP tools as well, register `{argv}` with `openclaw mcp` (stdio)")
    return report


def tidy(report: common.SetupReport) -> None:
    """After an uninstall, the skill folder goes too if nothing else is in it."""
    if report.action == "uninstall" and not report.dry_run:
        for ch in report.changes:
            with contextlib.suppress(OSError):
                ch.path.parent.rmdir()
