"""Which agents live on this machine, and connecting one: what `memoryd setup <agent>`
and the tray's first-run welcome share, so both write the same files the same way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memoryd.agents import claude_code, codex, common, openclaw
from memoryd.errors import MemorydError, UsageError

AGENTS = ("claude-code", "codex", "openclaw")


def folder(agent: str, home: Path) -> Path:
    """The folder an agent keeps its own settings in: its being there says it is installed."""
    if agent == "claude-code":
        return home / ".claude"
    if agent == "codex":
        return codex.codex_home(home)
    if agent == "openclaw":
        return openclaw.state_dir(home)
    raise UsageError(f"unknown agent {agent!r}; one of {', '.join(AGENTS)}")


def plan(
    agent: str,
    home: Path,
    project: Path | None = None,
    *,
    uninstall: bool = False,
    dry_run: bool = False,
    force: bool = False,
) -> common.SetupReport:
    if agent == "claude-code":
        return claude_code.plan(home, project, uninstall=uninstall, dry_run=dry_run)
    if agent == "codex":
        return codex.plan(home, uninstall=uninstall, dry_run=dry_run, force=force)
    if agent == "openclaw":
        return openclaw.plan(home, uninstall=uninstall, dry_run=dry_run)
    raise UsageError(f"unknown agent {agent!r}; one of {', '.join(AGENTS)}")


def apply(report: common.SetupReport) -> common.SetupReport:
    common.apply(report)
    if report.agent == "openclaw":
        openclaw.tidy(report)
    return report


def found(home: Path) -> list[dict[str, Any]]:
    """Each agent: its folder, whether that exists, and whether memoryd is connected
    already (a dry run would change nothing); `problem` when its files cannot be read."""
    out = []
    for agent in AGENTS:
        where = folder(agent, home)
        entry: dict[str, Any] = {
            "agent": agent,
            "folder": str(where),
            "present": where.is_dir(),
            "connected": False,
            "problem": "",
        }
        if entry["present"]:
            try:
                entry["connected"] = not any(c.changed for c in plan(agent, home, dry_run=True).changes)
            except MemorydError as exc:
                entry["problem"] = str(exc)
        out.append(entry)
    return out
