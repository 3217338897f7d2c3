"""memoryd record / update / get / list / forget."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from memoryd.cli import output
from memoryd.errors import UsageError

LONG_TERM = ["decision", "preference", "fact", "playbook", "warning"]
ALL_TYPES = ["session", *LONG_TERM]


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    r = sub.add_parser(
        "record",
        parents=[common],
        help="record a long-term memory",
        description="Record a decision, preference, fact, playbook or warning. Body from "
        "--body or stdin. Example: memoryd record --type decision "
        "--title 'Use Postgres' --trigger database --body 'SQLite locks under load'",
    )
    r.add_argument("--type", required=True, choices=LONG_TERM)
    r.add_argument("--title", required=True)
    r.add_argument("--body")
    r.add_argument(
        "--trigger", action="append", default=[], help="keyword that should recall it (repeatable)"
    )
    r.add_argument("--tag", action="append", default=[])
    r.add_argument("--category")
    r.add_argument("--scope", help="a directory of the project (default: here)")
    r.set_defaults(handler=run_record)

    u = sub.add_parser(
        "update",
        parents=[common],
        help="change a memory's title, body, triggers or tags",
        description="Example: memoryd update 2026-05-18-use-postgres-1a2b --title 'Use Postgres 16'",
    )
    u.add_argument("slug")
    u.add_argument("--title")
    u.add_argument("--body", help="new body ('-' reads stdin)")
    u.add_argument("--trigger", action="append", help="replaces all triggers (repeatable)")
    u.add_argument("--tag", action="append", help="replaces all tags (repeatable)")
    u.set_defaults(handler=run_update)

    g = sub.add_parser(
        "get",
        parents=[common],
        help="show one memory (counts as a recall)",
        description="Example: memoryd get 2026-05-18-use-postgres-1a2b --json",
    )
    g.add_argument("slug")
    g.set_defaults(handler=run_get)

    ls = sub.add_parser(
        "list",
        parents=[common],
        help="list memories",
        description="Example: memoryd list --type decision --all-scopes",
    )
    ls.add_argument("--type", choices=ALL_TYPES)
    _scope_args(ls)
    ls.add_argument("--include-forgotten", action="store_true")
    ls.add_argument("--limit", type=int)
    ls.set_defaults(handler=run_list)

    f = sub.add_parser(
        "forget",
        parents=[common],
        help="archive a memory to forgotten/ (audited)",
        description="Example: memoryd forget 2026-05-18-a1b2c3d4-9f8e7d6c",
    )
    f.add_argument("slug")
    f.set_defaults(handler=run_forget)


def _scope_args(p: argparse.ArgumentParser) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("--scope", metavar="PATH", help="a directory of the project (default: here)")
    g.add_argument("--all-scopes", action="store_true")


def _read_body(value: str | None, *, required: bool) -> str | None:
    if value == "-" or (value is None and required):
        if value is None and sys.stdin.isatty():
            raise UsageError("no body: pass --body TEXT or pipe the text on stdin")
        from memoryd.app import MAX_BODY_BYTES

        # At most one byte past the limit: `< /dev/zero` is refused, not read for ever.
        data = sys.stdin.buffer.read(MAX_BODY_BYTES + 1)
        if len(data) > MAX_BODY_BYTES:
            raise UsageError(
                f"body on stdin is over the limit of {MAX_BODY_BYTES // 1024} KB "
                "(keep the note short and point to a file for the rest)"
            )
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise UsageError("the body on stdin is not UTF-8 text") from None
    return value


def run_record(args: argparse.Namespace) -> int:
    from memoryd.app import Memoryd
    from memoryd.cli.commands.knowledge import report_learned

    body = _read_body(args.body, required=True) or ""
    app = Memoryd()
    doc, changes = app.record(
        args.type,
        args.title,
        body,
        triggers=args.trigger,
        tags=args.tag,
        category=args.category,
        scope_path=args.scope,
    )
    existing = bool(changes.existing)
    learned = report_learned(app) if not args.json else (app.learned.as_dict() if app.learned else None)
    if args.json:
        output.emit_json(
            {
                "slug": doc.meta.slug,
                "type": doc.meta.type.value,
                "scope_hash": doc.meta.scope_hash,
                "existing": existing,
                "knowledge": learned,
            }
        )
    elif existing:  # nothing written: the memory with this type, title and body is that one
        kept = {*doc.meta.triggers, *doc.meta.tags}
        left = [t for t in dict.fromkeys([*args.trigger, *args.tag]) if t not in kept]
        note = f" (not added: {', '.join(left)}; `memoryd update` sets its triggers and tags)" if left else ""
        output.line(f"already recorded as {doc.meta.slug}{note}")
    else:
        output.line(doc.meta.slug)
    return 0


def run_update(args: argparse.Namespace) -> int:
    from memoryd.app import Memoryd

    body = _read_body(args.body, required=False)
    doc, changes = Memoryd().update(
        args.slug, title=args.title, body=body, triggers=args.trigger, tags=args.tag
    )
    if args.json:
        output.emit_json({"slug": doc.meta.slug, "changed": bool(changes.updated)})
    else:
        output.line(f"{doc.meta.slug}: {'updated' if changes.updated else 'unchanged'}")
    return 0


def run_get(args: argparse.Namespace, app: Any = None) -> int:
    """`app`: memoryd.cli.fastread's read path, or None for the full Memoryd."""
    if app is None:
        from memoryd.app import Memoryd

        app = Memoryd()
    app.catch_up()
    view = app.get(args.slug)
    if args.json:
        output.emit_json(view.as_dict())
        return 0
    m = view.doc.meta
    output.line(f"# {m.title}")
    output.line(
        f"{m.type.value} · {m.slug} · scope {m.scope_hash} · {m.decay_state.value} · "
        f"recalled {m.recall_count}×"
    )
    if m.triggers:
        output.line("triggers: " + ", ".join(m.triggers))
    if m.tags:
        output.line("tags: " + ", ".join(m.tags))
    output.line()
    output.block(view.doc.body)
    return 0


def run_list(args: argparse.Namespace, app: Any = None) -> int:
    """`app`: memoryd.cli.fastread's read path, or None for the full Memoryd."""
    if app is None:
        from memoryd.app import Memoryd

        app = Memoryd()
    app.catch_up()
    rows = app.list(
        scopes=app.scope_filter(args.scope, args.all_scopes),
        memory_type=args.type,
        include_forgotten=args.include_forgotten,
        limit=args.limit,
    )
    projects = app.project_names({r["scope_hash"] for r in rows})
    rows = [_with_project(r, projects[r["scope_hash"]].label) for r in rows]
    if args.json:
        output.emit_json(rows)
    elif not rows:
        output.line("no memories")
    else:
        output.table(
            [
                [
                    r["created_at"][:10],
                    r["type"],
                    r["decay_state"],
                    r["slug"],
                    r["project"][:32],
                    r["title"][:60],
                ]
                for r in rows
            ],
            ["created", "type", "state", "slug", "project", "title"],
        )
    return 0


def _with_project(row: dict[str, Any], project: str) -> dict[str, Any]:
    """The row with `project` right after `scope_hash`."""
    out: dict[str, Any] = {}
    for k, v in row.items():
        out[k] = v
        if k == "scope_hash":
            out["project"] = project
    out.setdefault("project", project)
    return out


def run_forget(args: argparse.Namespace) -> int:
    from memoryd.app import Memoryd

    Memoryd().forget(args.slug)
    if args.json:
        output.emit_json({"slug": args.slug, "decay_state": "forgotten"})
    else:
        output.line(f"{args.slug}: moved to forgotten/")
    return 0
