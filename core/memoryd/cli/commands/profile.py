"""memoryd profile: the identity profile and its versions."""

from __future__ import annotations

import argparse
from typing import Any

from memoryd.cli import output


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "profile",
        parents=[common],
        help="the identity profile: rewrite it, list, show and diff its versions",
        description="profile/identity.md says who you are to every agent (its Summary opens each "
        "project's start-up snapshot). Example: memoryd profile rewrite-identity",
    )
    ps = p.add_subparsers(dest="action", metavar="ACTION", parser_class=type(p))
    rw = ps.add_parser(
        "rewrite-identity",
        parents=[common],
        help="rewrite identity.md from the long-term memories (LLM, or rules without one)",
        description="Example: memoryd profile rewrite-identity --weekly",
    )
    rw.add_argument("--weekly", action="store_true", help="mark it as the weekly rewrite (what cron runs)")
    rw.set_defaults(handler=run_rewrite)
    v = ps.add_parser(
        "versions",
        parents=[common],
        help="list the versions",
        description="Example: memoryd profile versions",
    )
    v.set_defaults(handler=run_versions)
    sh = ps.add_parser(
        "show",
        parents=[common],
        help="print a version (default: the latest)",
        description="Example: memoryd profile show 3",
    )
    sh.add_argument("version", nargs="?", type=int)
    sh.set_defaults(handler=run_show)
    d = ps.add_parser(
        "diff",
        parents=[common],
        help="what changed between two versions",
        description="Example: memoryd profile diff 2 3",
    )
    d.add_argument("a", type=int)
    d.add_argument("b", type=int)
    d.set_defaults(handler=run_diff)
    m = ps.add_parser(
        "generate-monthly-report",
        parents=[common],
        help="write profile/change-reports/YYYY-MM.md: how the profile changed in a month",
        description="Example: memoryd profile generate-monthly-report --month 2026-10",
    )
    m.add_argument("--month", help="YYYY-MM (default: this month)")
    m.set_defaults(handler=run_report)
    c = ps.add_parser(
        "changes",
        parents=[common],
        help="what a month changed (preferences, supersedes, entities) without writing a report",
        description="Example: memoryd profile changes --month 2026-10 --json",
    )
    c.add_argument("--month", help="YYYY-MM (default: this month)")
    c.set_defaults(handler=run_changes)
    p.set_defaults(handler=lambda args: (p.print_help(), 2)[1])


def _app() -> Any:
    from memoryd.app import Memoryd

    return Memoryd()


def run_rewrite(args: argparse.Namespace) -> int:
    res = _app().rewrite_identity(trigger="weekly_cron" if args.weekly else "manual")
    if args.json:
        output.emit_json(res.as_dict())
        return 0
    if not res.changed:
        output.line(f"no change (still version {res.version}); {res.note}")
        return 0
    output.line(f"identity profile version {res.version} by {res.by}: {res.change_summary}")
    if res.note:
        output.note(res.note)
    return 0


def run_versions(args: argparse.Namespace) -> int:
    app = _app()
    rows = app.profile_versions()
    if args.json:
        output.emit_json(rows)
        return 0
    hidden = app.profile_withheld()
    if not rows:
        output.line("no versions yet: run `memoryd profile rewrite-identity`")
    else:
        output.table(
            [[str(r["version_num"]), r["written_at"], r["trigger"], r["change_summary"] or ""] for r in rows],
            ["version", "written", "trigger", "change"],
        )
    if hidden.versions or hidden.reports:
        names = app.project_names(hidden.scopes)
        output.note(
            f"{hidden.versions} version(s) and {hidden.reports} monthly report(s) drew on sensitive "
            f"projects ({', '.join(names[h].label for h in hidden.scopes)}) and are hidden: "
            "a grant on them (`memoryd grant PATH`) shows them"
        )
    return 0


def run_show(args: argparse.Namespace) -> int:
    row = _app().profile_version(args.version)
    if args.json:
        output.emit_json(row)
    else:
        output.block(row["content_md"])
    return 0


def run_diff(args: argparse.Namespace) -> int:
    text = _app().profile_diff(args.a, args.b)
    if args.json:
        output.emit_json({"a": args.a, "b": args.b, "diff": text})
    else:
        output.block(text or f"versions {args.a} and {args.b} are the same\n")
    return 0


def run_report(args: argparse.Namespace) -> int:
    rep = _app().monthly_report(args.month)
    if args.json:
        output.emit_json(rep.as_dict())
    else:
        output.line(
            f"{rep.path}: {rep.versions} version(s), {rep.supersedes} supersede(s), "
            f"{rep.entities_added} new and {rep.entities_dropped} dropped entities"
        )
        if rep.changes is not None:
            _print_changes(rep.changes)
    return 0


def run_changes(args: argparse.Namespace) -> int:
    found = _app().monthly_changes(args.month)
    if args.json:
        output.emit_json(found.as_dict())
        return 0
    output.line(f"{found.period}: {len(found.versions)} version(s) of the profile")
    _print_changes(found)
    return 0


def _print_changes(found: Any) -> None:
    from memoryd.profile import report

    shown = [(title, items) for title, items in report.sections(found) if items]
    if not shown:
        output.line("nothing changed in the memories this month")
    for title, items in shown:
        output.line(f"{title}:")
        for item in items:
            output.line(f"  {item}")
