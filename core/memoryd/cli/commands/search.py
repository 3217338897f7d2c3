"""memoryd search / traces."""

from __future__ import annotations

import argparse
import shlex
from typing import Any

from memoryd.cli import output
from memoryd.cli.commands.memories import ALL_TYPES, _scope_args
from memoryd.config import SEARCH_MODES


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    s = sub.add_parser(
        "search",
        parents=[common],
        help="search memories (level 1)",
        description="Search this project's memories as you would ask: English, 中文 or both. "
        "Example: memoryd search '前端 性能 why did we drop webpack?'",
    )
    s.add_argument("query", nargs="+")
    _scope_args(s)
    s.add_argument("--type", choices=ALL_TYPES)
    s.add_argument("--limit", type=int)
    s.add_argument("--include-forgotten", action="store_true", help="also soft-forgotten and forgotten")
    _mode_arg(s)
    s.set_defaults(handler=run_search)

    t = sub.add_parser(
        "traces",
        parents=[common],
        help="search raw conversation turns (level 2)",
        description="Search the turns behind session memories when a summary is not "
        "enough. Example: memoryd traces 'migration error' --limit 5",
    )
    t.add_argument("query", nargs="+")
    _scope_args(t)
    t.add_argument("--limit", type=int, default=10)
    t.add_argument("--include-forgotten", action="store_true")
    _mode_arg(t)
    t.set_defaults(handler=run_traces)


def _mode_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--mode",
        choices=SEARCH_MODES,
        help="hybrid: keywords and meaning (finds across languages); keyword: exact words only; "
        "dense: meaning only (default: [search] mode in config.toml, else hybrid)",
    )


def run_search(args: argparse.Namespace) -> int:
    from memoryd.app import Memoryd

    app = Memoryd()
    app.catch_up()
    query = " ".join(args.query)
    scopes = app.scope_filter(args.scope, args.all_scopes)
    results = app.search(
        query,
        scopes=scopes,
        memory_type=args.type,
        limit=args.limit,
        include_forgotten=args.include_forgotten,
        mode=args.mode,
    )
    _withheld(app)
    if args.json:
        output.emit_json([r.as_dict() for r in results])
        return 0
    if not results:
        output.line(_nothing_found(app, args, query, scopes))
    for r in results:
        mark = f"  (superseded by {r.superseded_by})" if r.superseded_by else ""
        output.line(f"{r.slug}  [{r.type}, {r.decay_state}]  {r.title}{mark}")
        if r.snippet:
            output.line(f"    {r.snippet}")
    return 0


def run_traces(args: argparse.Namespace) -> int:
    from memoryd.app import Memoryd

    app = Memoryd()
    app.catch_up()
    hits = app.traces(
        " ".join(args.query),
        scopes=app.scope_filter(args.scope, args.all_scopes),
        limit=args.limit,
        include_forgotten=args.include_forgotten,
        mode=args.mode,
    )
    _withheld(app, traces=True)
    if args.json:
        output.emit_json([h.__dict__ for h in hits])
        return 0
    if not hits:
        where = "any scope" if args.all_scopes else f"scope {app.scope(args.scope).root}"
        output.line(f"no matches in {where}")
    for h in hits:
        text = " ".join(h.text.split())
        output.line(f"{h.slug}#{h.seq}  {h.role}: {text[:200]}")
    return 0


def _nothing_found(app: Any, args: argparse.Namespace, query: str, scopes: list[str] | None) -> str:
    """Which scope was searched, and whether `--all-scopes` would find something: a search
    from the wrong folder must not read as "memoryd knows nothing about this"."""
    if scopes is None:
        return "no matches in any scope"
    here = f"no matches in scope {app.scope(args.scope).root}"
    n = app.matches_elsewhere(
        query, scopes=scopes, memory_type=args.type, include_forgotten=args.include_forgotten
    )
    if not n:
        return f"{here} (none in other scopes either)"
    return f"{here}; {n} in other scopes: memoryd search {shlex.join(args.query)} --all-scopes"


def _withheld(app: Any, *, traces: bool = False) -> None:
    for _h, root, n, why in getattr(app, "unopened", []):
        output.note(
            f"{n} memories of sensitive scope {root} could not be decrypted and were not searched: {why}"
        )
    for _h, root, n in app.withheld:
        if traces:
            output.note(
                f"{n} memories of sensitive scope {root} have no searchable turns (level 2 skips them)"
            )
        else:
            output.note(
                f"{n} memories of sensitive scope {root} were not searched: "
                f"the user can allow it with `memoryd grant {root} --duration once`"
            )
