"""memoryd scope."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from memoryd.cli import output


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "scope",
        parents=[common],
        help="show the scope of a directory, or link two scopes",
        description="Print the scope hash, project name and root of PATH (default: here). "
        "`memoryd scope link HASH_A HASH_B` makes two scopes one (the same project checked out "
        "at different paths on two machines); clones of one git repository (same origin URL) "
        "are linked by themselves. "
        "Example: memoryd scope ~/code/app ; memoryd scope link 1a2b3c4d5e6f 0f9e8d7c6b5a",
    )
    p.add_argument("path", nargs="?", default=".", help="a folder, or `link`")
    p.add_argument("hashes", nargs="*", help=argparse.SUPPRESS)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace, app: Any = None) -> int:
    """`app`: memoryd.cli.fastread's read path, or None for the full Memoryd."""
    from memoryd.errors import UsageError
    from memoryd.scope import resolve

    if args.path == "link" and (args.hashes or not Path("link").is_dir()):
        if len(args.hashes) != 2:
            raise UsageError("memoryd scope link takes two scope hashes")
        done = (app or _memoryd()).scope_link(*args.hashes)
        if args.json:
            output.emit_json(done)
        else:
            output.line(
                f"linked: {', '.join(done['aliases'])} -> {done['scope_hash']} (moved {done['moved']})"
            )
        return 0
    if args.hashes:
        raise UsageError(f"unexpected argument(s): {' '.join(args.hashes)}")
    raw = resolve(args.path)
    app = app or _memoryd()
    s = app.scope(args.path)
    app.note_project(s)
    project = app.project_names([s.hash])[s.hash]
    if args.json:
        out = {"scope_hash": s.hash, "project": project.label, "root": str(s.root), "kind": s.kind}
        if s.hash != raw.hash:
            out["linked_from"] = raw.hash
        output.emit_json(out)
    else:
        note = f"  (linked from {raw.hash})" if s.hash != raw.hash else ""
        output.line(f"{s.hash}  {project.label}  {s.root}  ({s.kind}){note}")
    return 0


def _memoryd() -> Any:
    from memoryd.app import Memoryd

    return Memoryd()
