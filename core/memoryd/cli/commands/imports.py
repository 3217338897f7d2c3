"""memoryd import: move in from Codex, OpenClaw and neighbouring memory systems."""

from __future__ import annotations

import argparse
from typing import Any

from memoryd.cli import output

KINDS = ("codex", "openclaw", "memory-system", "agent-memory")


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "import",
        parents=[common],
        help="import sessions and memories from Codex, OpenClaw, memory-system, agent-memory",
        description="Read another tool's store into memoryd; safe to repeat (nothing is duplicated). "
        "codex: ~/.codex/sessions rollouts (PATH: a CODEX_HOME). openclaw: a state dir or workspace. "
        "memory-system: seed 003's layer2 store. agent-memory: seed 004's memory.db. "
        "Example: memoryd import codex --since 2026-11-01",
    )
    p.add_argument("kind", choices=KINDS)
    p.add_argument("path", nargs="?", help="where the store is (codex: default $CODEX_HOME or ~/.codex)")
    p.add_argument("--since", help="codex: only sessions from this date on (YYYY-MM-DD)")
    p.add_argument("--scope", help="put everything in this project (default: where each item came from)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from memoryd.app import Memoryd
    from memoryd.importers.common import stderr_progress

    progress = None if args.json else stderr_progress(f"importing {args.kind}")
    report = Memoryd().import_from(
        args.kind, args.path, since=args.since, scope_path=args.scope, progress=progress
    )
    if args.json:
        output.emit_json(report.as_dict())
        return 0
    output.line(report.summary())
    for why in report.skipped[:20]:
        output.line(f"  skipped {why}")
    if len(report.skipped) > 20:
        output.line(f"  ... and {len(report.skipped) - 20} more (see --json)")
    return 0
