"""memoryd capture / memoryd worker."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from memoryd.cli import output


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "capture",
        parents=[common],
        help="capture an agent session (hook JSON on stdin)",
        description="Spool an agent hook payload and return at once; a detached worker turns it "
        "into a session memory. Example: memoryd capture --source=claude-code < payload.json",
    )
    p.add_argument("--source", required=True, choices=["claude-code", "codex", "openclaw", "manual"])
    p.add_argument(
        "payload", nargs="?", help="the payload JSON as an argument (Codex notify) instead of stdin"
    )
    p.set_defaults(handler=run_capture)

    w = sub.add_parser(
        "worker",
        parents=[common],
        help="process spooled captures now",
        description="Turn every spooled hook payload into session memories. Example: memoryd worker --wait",
    )
    w.add_argument(
        "--wait", action="store_true", help="wait for a running worker instead of leaving it the work"
    )
    w.set_defaults(handler=run_worker)


def run_capture(args: argparse.Namespace) -> int:
    from memoryd.capture.hook import capture

    raw = args.payload.encode("utf-8") if args.payload else sys.stdin.buffer.read()
    name, warnings = capture(args.source, raw)
    for w in warnings:
        output.warn(w)
    if args.json:
        output.emit_json({"spooled": name})
    return 0


def run_worker(args: argparse.Namespace) -> int:
    from memoryd.app import Memoryd

    report = Memoryd().drain_spool(wait=args.wait)
    if args.json:
        output.emit_json(
            {
                "captured": report.captured,
                "rejected": report.rejected,
                "deferred": [{"spooled": n, "why": report.why_deferred.get(n, "")} for n in report.deferred],
                "busy": report.busy,
            }
        )
    elif report.busy:
        output.line("another worker is processing the spool")
    else:
        counts = f"captured {len(report.captured)}, rejected {len(report.rejected)}"
        output.line(counts + (f", deferred {len(report.deferred)}" if report.deferred else ""))
        # A deferred payload is not lost: it waits in the spool for its sensitive scope's key.
        for why in dict.fromkeys(report.why_deferred.get(n, "") for n in report.deferred):
            output.line(f"  deferred (kept in the spool until the key can be had): {why}")
    return 0
