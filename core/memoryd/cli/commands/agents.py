"""memoryd inject / setup / mcp: how agents reach memoryd."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from memoryd.cli import output

AGENTS = ("claude-code", "codex", "openclaw")


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "inject",
        parents=[common],
        help="print the start-up context for an agent (the scope's snapshot)",
        description="Print who the user is, the project's constraints, its key memories and recent "
        "sessions, within a token budget. The SessionStart hook runs it. "
        "Example: memoryd inject --cwd ~/code/app --budget 1500",
    )
    p.add_argument("--cwd", help="the project directory (default: the hook's cwd, else here)")
    p.add_argument("--budget", type=int, default=2000, help="most tokens to print (default 2000)")
    p.add_argument(
        "--format",
        choices=["text", "claude-hook"],
        default="text",
        help="claude-hook: SessionStart JSON (hookSpecificOutput.additionalContext)",
    )
    p.set_defaults(handler=run_inject)

    s = sub.add_parser(
        "setup",
        parents=[common],
        help="connect an agent: hooks, MCP server, skill",
        description="Wire memoryd into an agent's own config files, keeping everything else in them; "
        "a backup of each changed file is kept beside it. Example: memoryd setup claude-code --dry-run",
    )
    s.add_argument("agent", choices=AGENTS)
    where = s.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true", help="for every project (default)")
    where.add_argument(
        "--project", nargs="?", const=".", metavar="PATH", help="Claude Code only: this project's files"
    )
    s.add_argument("--uninstall", action="store_true", help="remove exactly what setup added")
    s.add_argument("--dry-run", action="store_true", help="show the changes, write nothing")
    s.add_argument("--force", action="store_true", help="Codex: replace another notify program")
    s.set_defaults(handler=run_setup)

    m = sub.add_parser(
        "mcp",
        help="run the MCP server on stdio",
        description="Serve mem_search, mem_get, mem_traces, mem_record, mem_recent and the snapshot "
        "resource over MCP (stdio). Agents start it; `memoryd setup` registers it. Example: memoryd mcp",
    )
    m.set_defaults(handler=run_mcp)


def run_inject(args: argparse.Namespace) -> int:
    from memoryd import inject

    out = inject.run(args.cwd, args.budget, args.format)
    if args.json:
        from memoryd import tokencount

        text = out if args.format == "text" else json.loads(out)["hookSpecificOutput"]["additionalContext"]
        output.emit_json({"context": text, "tokens": tokencount.count(text), "chars": len(text)})
        return 0
    sys.stdout.write(out if out.endswith("\n") else out + "\n")
    return 0


def run_setup(args: argparse.Namespace) -> int:
    from memoryd.agents import claude_code, codex, common, openclaw
    from memoryd.errors import UsageError

    home = Path.home()
    if args.project is not None and args.agent != "claude-code":
        raise UsageError("--project is for claude-code only; Codex and OpenClaw are set up per user")
    if args.force and args.agent != "codex":
        raise UsageError("--force is for codex only")
    if args.agent == "claude-code":
        project = None
        if args.project is not None:
            from memoryd.scope import resolve

            project = resolve(args.project).root
        report = claude_code.plan(home, project, uninstall=args.uninstall, dry_run=args.dry_run)
    elif args.agent == "codex":
        report = codex.plan(home, uninstall=args.uninstall, dry_run=args.dry_run, force=args.force)
    else:
        report = openclaw.plan(home, uninstall=args.uninstall, dry_run=args.dry_run)
    common.apply(report)
    if args.agent == "openclaw":
        openclaw.tidy(report)
    _print_report(report, args.json)
    return 0


def _print_report(report: Any, as_json: bool) -> None:
    if as_json:
        output.emit_json(report.as_dict())
        return
    verb = "would change" if report.dry_run else "changed"
    for ch in report.changes:
        if not ch.changed:
            output.line(f"unchanged  {ch.path}")
            continue
        output.line(f"{verb}  {ch.path}" + (f"  (backup: {ch.backup.name})" if ch.backup else ""))
        if report.dry_run:
            sys.stdout.write(ch.diff())
    for n in report.notes:
        output.line(f"note: {n}")


def run_mcp(args: argparse.Namespace) -> int:
    from memoryd import mcpserver

    return mcpserver.main()
