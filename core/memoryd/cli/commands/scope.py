"""memoryd scope."""

from __future__ import annotations

import argparse
from typing import Any

from memoryd.cli import output


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "scope",
        parents=[common],
        help="show the scope of a directory",
        description="Print the scope hash and root of PATH (default: here). "
        "Example: memoryd scope ~/code/app",
    )
    p.add_argument("path", nargs="?", default=".")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from memoryd.scope import resolve

    s = resolve(args.path)
    if args.json:
        output.emit_json({"scope_hash": s.hash, "root": str(s.root), "kind": s.kind})
    else:
        output.line(f"{s.hash}  {s.root}  ({s.kind})")
    return 0
