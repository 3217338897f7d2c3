"""memoryd export / sync: memories across devices (docs/sync.md)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from memoryd.cli import output


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    e = sub.add_parser(
        "export",
        parents=[common],
        help="write memories to a memories.json (the cross-device format)",
        description="Every memory (or one project's) with its versions, in the format `memoryd import` "
        "and `memoryd sync` read (docs/sync.md). Memories of sensitive projects are written as "
        "ciphertext (encrypted: true); their key travels only by `memoryd key export`. Grants, the "
        "spool and the audit log are never exported. Example: memoryd export --out memories.json",
    )
    e.add_argument("--out", required=True, type=Path, help="the file to write")
    e.add_argument("--scope", help="only this project folder (default: every project)")
    e.add_argument("--force", action="store_true", help="replace --out if it exists")
    e.set_defaults(handler=run_export)

    s = sub.add_parser(
        "sync",
        parents=[common],
        help="merge memories with other devices through a shared folder",
        description="Writes this device's changes into FOLDER/memoryd-sync/ and merges every other "
        "device's file found there. Any folder something else replicates works: Syncthing, iCloud "
        "Drive, Dropbox, a git repository you commit and pull. A memory changed on two devices "
        "keeps both versions: the newer one in the file, the other as a conflict copy "
        "(--conflicts, --show, --resolve). Example: memoryd sync --folder ~/Sync/memoryd",
    )
    s.add_argument("--folder", type=Path, help='the shared folder (default: [sync] folder = "..." in config)')
    s.add_argument("--conflicts", action="store_true", help="list memories with conflict copies")
    s.add_argument("--show", metavar="SLUG", help="print every version of a conflicted memory")
    s.add_argument("--resolve", metavar="SLUG", help="keep one version of a conflicted memory")
    s.add_argument("--take", metavar="REV", help="with --resolve: the version to keep (default: the newer)")
    s.set_defaults(handler=run_sync)


def run_export(args: argparse.Namespace) -> int:
    from memoryd.app import Memoryd

    app = Memoryd()
    scopes = [app.scope(args.scope).hash] if args.scope else None
    n = app.export_memories(args.out, scopes=scopes, force=args.force)
    if args.json:
        output.emit_json({"out": str(args.out), "memories": n})
    else:
        output.line(f"exported {n} memories to {args.out}")
    return 0


def run_sync(args: argparse.Namespace) -> int:
    from memoryd.app import Memoryd
    from memoryd.errors import UsageError

    app = Memoryd()
    if args.take and not args.resolve:
        raise UsageError("--take goes with --resolve SLUG")
    if args.conflicts:
        rows = app.sync_conflicts()
        if args.json:
            output.emit_json(rows)
            return 0
        if not rows:
            output.line("no conflict copies")
        for r in rows:
            kept = r["kept"]
            output.line(f"{r['slug']}  kept: {kept['title']} ({kept['updated_at']}, {kept['rev'][:8]})")
            for c in r["copies"]:
                output.line(f"    copy: {c['title']} ({c['updated_at']}, {c['rev'][:8]})")
        return 0
    if args.show:
        versions = app.sync_show(args.show)
        if args.json:
            output.emit_json(versions)
            return 0
        for v in versions:
            label = "kept" if v["kept"] else "copy"
            output.line(f"== {label} {v['rev']} ({v['updated_at']}){' deleted' if v['deleted'] else ''}")
            if v["encrypted"]:
                output.line("(sealed: open it with a grant after resolving)")
            elif v["content"]:
                output.line(v["content"].rstrip("\n"))
        return 0
    if args.resolve:
        rev = app.sync_resolve(args.resolve, take=args.take)
        if args.json:
            output.emit_json({"slug": args.resolve, "rev": rev})
        else:
            output.line(
                f"{args.resolve}: kept version {rev[:8]}; other devices drop the copies when they sync"
            )
        return 0
    report = app.sync(args.folder)
    if args.json:
        output.emit_json(report.as_dict())
        return 0
    others = len(report.devices)
    output.line(
        f"synced with {others} other device{'s' if others != 1 else ''} through {report.folder}: "
        f"{report.sent} change{'s' if report.sent != 1 else ''} sent, {report.received} received, "
        f"{report.memories} memories"
    )
    if report.conflicts:
        output.line(f"  {report.conflicts} memories have conflict copies: memoryd sync --conflicts")
    if report.locked:
        output.line(f"  {report.locked} sealed memories wait for their project's key (memoryd key import)")
    for why in report.skipped[:10]:
        output.line(f"  skipped {why}")
    return 0
