"""memoryd import: move in from Codex, OpenClaw and neighbouring memory systems."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from memoryd.cli import output

KINDS = ("codex", "openclaw", "memory-system", "agent-memory")


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "import",
        parents=[common],
        help="import a memories.json, or sessions and memories from Codex, OpenClaw, memory-system, "
        "agent-memory",
        description="memoryd import FILE.json merges a memories.json (`memoryd export`, another "
        "device) into this store: nothing here is lost, a memory changed on both sides keeps both "
        "versions (see `memoryd sync --conflicts`). Otherwise KIND names another tool's store to "
        "read in; safe to repeat (nothing is duplicated). "
        "codex: ~/.codex/sessions rollouts (PATH: a CODEX_HOME). openclaw: a state dir or workspace. "
        "memory-system: seed 003's layer2 store. agent-memory: seed 004's memory.db. "
        "Example: memoryd import codex --since 2026-11-01",
    )
    p.add_argument("kind", metavar="FILE.json|KIND", help=f"a memories.json, or {', '.join(KINDS)}")
    p.add_argument("path", nargs="?", help="where the store is (codex: default $CODEX_HOME or ~/.codex)")
    p.add_argument("--since", help="codex: only sessions from this date on (YYYY-MM-DD)")
    p.add_argument("--scope", help="put everything in this project (default: where each item came from)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from memoryd.app import Memoryd
    from memoryd.errors import UsageError
    from memoryd.importers.common import stderr_progress

    if args.kind not in KINDS:
        if not args.kind.endswith(".json") and not Path(args.kind).is_file():
            raise UsageError(f"{args.kind}: not a memories.json file nor one of {', '.join(KINDS)}")
        return run_memories(args)
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


def run_memories(args: argparse.Namespace) -> int:
    from memoryd.app import Memoryd
    from memoryd.errors import UsageError

    for flag in ("path", "since", "scope"):
        if getattr(args, flag):
            raise UsageError(f"--{flag} is not used when importing a memories.json")
    report = Memoryd().import_memories(Path(args.kind))
    if args.json:
        output.emit_json(report.__dict__)
        return 0
    output.line(f"imported {report.memories} memories from {args.kind}: {report.written} written here")
    if report.conflicts:
        output.line(f"  {report.conflicts} memories have conflict copies: memoryd sync --conflicts")
    if report.locked:
        output.line(
            f"  {report.locked} sealed memories of sensitive projects arrived encrypted; they open after "
            "`memoryd key import FILE` (and a grant)"
        )
    for why in report.held:
        output.line(f"  kept sensitive: {why}")
    return 0
