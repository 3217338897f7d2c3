"""memoryd inject / setup / mcp: how agents reach memoryd."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from memoryd.cli import output

AGENTS = ("claude-code", "codex", "openclaw", "autostart", "auto-install")
TIMER_KINDS = ("systemd", "cron", "launchd")


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
        help="connect an agent (hooks, MCP server, skill); start the tray at login; install timers",
        description="Wire memoryd into an agent's own config files, keeping everything else in them; "
        "a backup of each changed file is kept beside it. `autostart` starts the tray at login; "
        "`auto-install` runs the scheduled jobs (nightly consolidation, digest, monthly report) from "
        "systemd user timers, the crontab or launchd, for people who do not run the tray. "
        "Example: memoryd setup claude-code --dry-run ; memoryd setup auto-install --kind cron",
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
    s.add_argument(
        "--kind",
        choices=TIMER_KINDS,
        help="auto-install: which timers (default: systemd, else cron; launchd on macOS)",
    )
    s.set_defaults(handler=run_setup)

    m = sub.add_parser(
        "mcp",
        help="run the MCP server (stdio, or Streamable HTTP on loopback)",
        description="Serve the tools mem_search, mem_get, mem_traces, mem_record and mem_recent, the "
        "prompts recall, decision and weekly-review, and the resources memoryd://snapshot, "
        "memoryd://digest and memoryd://memory/{slug} over MCP. Agents start it on stdio; `memoryd "
        "setup` registers it. --http serves a host that prefers a URL, on a loopback address only, "
        "to requests carrying the token from --new-token. Example: memoryd mcp ; memoryd mcp --new-token ; "
        "memoryd mcp --http 127.0.0.1:8765",
    )
    how = m.add_mutually_exclusive_group()
    how.add_argument(
        "--http",
        metavar="HOST:PORT",
        help="serve Streamable HTTP at http://HOST:PORT/mcp (HOST: 127.0.0.1, ::1 or localhost)",
    )
    how.add_argument(
        "--new-token",
        action="store_true",
        help="make the bearer token --http demands, save it (0600) in the data folder, print it once",
    )
    m.add_argument(
        "--verbose", action="store_true", help="show the MCP SDK's and the HTTP server's INFO logs"
    )
    m.set_defaults(handler=run_mcp)


def run_inject(args: argparse.Namespace) -> int:
    from memoryd import startup

    out = startup.run(args.cwd, args.budget, args.format)
    if args.json:
        from memoryd import tokencount

        text = out if args.format == "text" else json.loads(out)["hookSpecificOutput"]["additionalContext"]
        output.emit_json({"context": text, "tokens": tokencount.count(text), "chars": len(text)})
        return 0
    sys.stdout.write(out if out.endswith("\n") else out + "\n")
    return 0


def run_setup(args: argparse.Namespace) -> int:
    from memoryd.agents import connect
    from memoryd.errors import UsageError

    home = Path.home()
    if args.project is not None and args.agent != "claude-code":
        raise UsageError("--project is for claude-code only; Codex and OpenClaw are set up per user")
    if args.force and args.agent != "codex":
        raise UsageError("--force is for codex only")
    if args.kind is not None and args.agent != "auto-install":
        raise UsageError("--kind is for auto-install only")
    if args.agent == "autostart":
        return _setup_autostart(args)
    if args.agent == "auto-install":
        return _setup_timers(args)
    project = None
    if args.project is not None:
        from memoryd.scope import resolve

        project = resolve(args.project).root
    report = connect.plan(
        args.agent, home, project, uninstall=args.uninstall, dry_run=args.dry_run, force=args.force
    )
    connect.apply(report)
    _print_report(report, args.json)
    return 0


def _print_report(report: Any, as_json: bool) -> None:
    for w in report.warnings:
        output.warn(w)
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
    for n in report.due_notes:
        output.line(f"note: {n}")


def _setup_autostart(args: argparse.Namespace) -> int:
    """The tray at login: through the facade, so the change is in the audit log."""
    from memoryd.agents import autostart

    path = autostart.where()
    on = not args.uninstall
    if args.dry_run:
        now = autostart.enabled()
        if args.json:
            output.emit_json({"path": str(path), "enabled": now, "would_enable": on, "dry_run": True})
            return 0
        if on:
            output.line(f"would write  {path}")
            sys.stdout.write(autostart.entry().rstrip("\n") + "\n")
        else:
            output.line(f"would remove  {path}" if now else f"nothing to remove at {path}")
        return 0
    from memoryd.app import Memoryd

    where = Memoryd().set_autostart(on)
    if args.json:
        output.emit_json({"path": str(path), "enabled": on, "entry": where})
    elif on:
        output.line(f"the tray starts at login: {where}")
    else:
        output.line(f"removed {where}" if where else f"the tray did not start at login (no {path})")
    return 0


def _setup_timers(args: argparse.Namespace) -> int:
    from memoryd import config
    from memoryd.agents import timers

    raw = {} if args.uninstall else config.load().raw
    if args.dry_run:
        report = timers.plan(raw, args.kind, uninstall=args.uninstall)
    elif args.uninstall:
        report = timers.remove(args.kind)
    else:
        report = timers.install(raw, args.kind)
    if args.json:
        output.emit_json(report.as_dict())
    else:
        verb = "would change" if report.dry_run else "changed"
        for ch in report.changes:
            output.line(f"{verb}  {ch.target}" if ch.changed else f"unchanged  {ch.target}")
            if report.dry_run and ch.changed:
                sys.stdout.write(ch.diff())
        for cmd in report.commands:
            output.line(("would run  " if report.dry_run else "ran  ") + shlex.join(cmd.argv))
        for n in report.notes:
            output.line(f"note: {n}")
    for e in report.errors:
        output.warn(e)
    return 0 if report.ok else 1


def run_mcp(args: argparse.Namespace) -> int:
    if args.new_token:
        from memoryd import mcphttp, paths

        home = paths.layout().home
        token = mcphttp.new_token(home)
        output.line(token)
        output.note(
            f"saved in {mcphttp.token_path(home)} (readable by you only); a host sends it as "
            "`Authorization: Bearer <token>`. Restart a running `memoryd mcp --http` to use it."
        )
        return 0
    from memoryd import mcpserver

    return mcpserver.main(http=args.http, verbose=args.verbose)
