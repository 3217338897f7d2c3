"""memoryd audit [verify]."""

from __future__ import annotations

import argparse
import re
from typing import Any

from memoryd.cli import output


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "audit",
        parents=[common],
        help="show or verify the audit log",
        description="List audit events, or `memoryd audit verify` to check the hash chain and, "
        "where an OS keyring holds this data dir's key, each event's MAC and the head it recorded "
        "(exit 1 naming the first bad seq). Example: memoryd audit --event-type capture",
    )
    p.add_argument("action", nargs="?", choices=["list", "verify"], default="list")
    p.add_argument("--scope", help="a scope hash or a directory")
    p.add_argument("--since", help="ISO-8601 time, e.g. 2026-05-01T00:00:00Z")
    p.add_argument("--event-type")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from memoryd.app import Memoryd

    app = Memoryd()
    if args.action == "verify":
        v = app.audit_verify()
        if args.json:
            output.emit_json(v.__dict__)
        else:
            if v.ok:
                output.line(f"audit chain intact: {v.events} events")
            output.line(f"anchor: {v.anchor}")
        if not v.ok:
            import sys

            sys.stderr.write(f"memoryd: audit chain broken at seq {v.first_bad_seq}: {v.reason}\n")
            return 1
        return 0
    scope = None
    if args.scope:
        scope = args.scope if re.fullmatch(r"[0-9a-f]{12}", args.scope) else app.scope(args.scope).hash
    events = app.audit_events(scope_hash=scope, since=args.since, event_type=args.event_type)
    if args.json:
        output.emit_json([e.as_dict() for e in events])
        return 0
    for e in events:
        output.line(
            f"{e.seq:>6}  {e.ts}  {e.actor:<20} {e.event_type:<10} {e.scope_hash or '-':<12} "
            f"{e.target_id or '-'}"
        )
    if not events:
        output.line("no events")
    return 0
