"""memoryd supersede / history / graph: the knowledge graph and how decisions evolved."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from memoryd.cli import output
from memoryd.cli.argtypes import positive


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    sp = sub.add_parser(
        "supersede",
        parents=[common],
        help="confirm or dismiss a supersede the digest lists, or link two memories yourself",
        description="A newer memory that probably replaces an older one waits for you (confidence "
        "between [knowledge] supersede_review and supersede_auto). "
        "Example: memoryd supersede confirm 3",
    )
    ss = sp.add_subparsers(dest="action", metavar="ACTION", parser_class=type(sp))
    c = ss.add_parser(
        "confirm",
        parents=[common],
        help="the newer memory replaces the older one",
        description="Example: memoryd supersede confirm 3",
    )
    c.add_argument("id", type=positive("supersede id"))
    c.set_defaults(handler=run_confirm)
    d = ss.add_parser(
        "dismiss",
        parents=[common],
        help="both stay current; not asked again",
        description="Example: memoryd supersede dismiss 3",
    )
    d.add_argument("id", type=positive("supersede id"))
    d.set_defaults(handler=run_dismiss)
    ls = ss.add_parser(
        "list",
        parents=[common],
        help="the supersedes waiting (or decided)",
        description="Example: memoryd supersede list --status dismissed",
    )
    ls.add_argument("--status", default="pending", help="pending (default), confirmed or dismissed")
    ls.set_defaults(handler=run_list)
    ln = ss.add_parser(
        "link",
        parents=[common],
        help="say yourself that NEW replaces OLD",
        description="Example: memoryd supersede link 2026-11-20-use-solid 2026-05-02-use-react",
    )
    ln.add_argument("new")
    ln.add_argument("old")
    ln.set_defaults(handler=run_link)
    un = ss.add_parser(
        "undo",
        parents=[common],
        help="take back that NEW replaces OLD (both current again; not proposed again)",
        description="Example: memoryd supersede undo 2026-11-20-use-solid 2026-05-02-use-react",
    )
    un.add_argument("new")
    un.add_argument("old")
    un.set_defaults(handler=run_undo)
    sp.set_defaults(handler=lambda args: (sp.print_help(), 2)[1])

    h = sub.add_parser(
        "history",
        parents=[common],
        help="the supersedes chain a memory belongs to, oldest first",
        description="Example: memoryd history 2026-11-20-prefer-solid",
    )
    h.add_argument("slug")
    h.set_defaults(handler=run_history)

    g = sub.add_parser(
        "graph",
        parents=[common],
        help="the knowledge graph: an entity, the entities, an export for a graph viewer",
        description="Entities (person, organization, place, library, tool, project, concept) the "
        "memories name. Example: memoryd graph entity React",
    )
    gs = g.add_subparsers(dest="action", metavar="ACTION", parser_class=type(g))
    e = gs.add_parser(
        "entity",
        parents=[common],
        help="an entity's memories and neighbours",
        description="Any spelling works: React, react.js, ReactJS. Example: memoryd graph entity react.js",
    )
    e.add_argument("name")
    e.set_defaults(handler=run_entity)
    es = gs.add_parser(
        "entities",
        parents=[common],
        help="entities by mentions",
        description="Example: memoryd graph entities --type library --top 10",
    )
    es.add_argument(
        "--type", dest="kind", help="person, organization, place, library, tool, project or concept"
    )
    es.add_argument("--top", type=positive("--top"), help="only the N most mentioned")
    es.set_defaults(handler=run_entities)
    x = gs.add_parser(
        "export",
        parents=[common],
        help="GraphML or node-link JSON (Gephi, yEd, Cytoscape, networkx)",
        description="Example: memoryd graph export --format graphml --out memoryd.graphml",
    )
    x.add_argument("--format", dest="fmt", default="graphml", help="graphml (default) or json")
    x.add_argument("--out", type=Path, help="file to write (default: stdout)")
    x.add_argument("--scope", help="only this project's relations (a path)")
    x.set_defaults(handler=run_export)
    xt = gs.add_parser(
        "extract",
        parents=[common],
        help="find entities in memories written before the graph",
        description="By the rules unless --llm. Example: memoryd graph extract",
    )
    xt.add_argument("--all", action="store_true", help="every memory, not only those without entities")
    xt.add_argument("--llm", action="store_true", help="ask the configured LLM (uses the token budget)")
    xt.set_defaults(handler=run_extract)
    g.set_defaults(handler=lambda args: (g.print_help(), 2)[1])


def _app() -> Any:
    from memoryd.app import Memoryd

    return Memoryd()


def report_learned(app: Any) -> dict[str, Any] | None:
    """What the graph did after a record / update / promote, for people (on stderr, so
    stdout stays the slug scripts read) and for --json."""
    learned = app.learned
    if learned is None:
        return None
    for j in learned.judgements:
        if j["outcome"] == "superseded":
            output.note(f"supersedes {j['older']} (confidence {j['confidence']:.2f}, {learned.judged_by})")
        elif j["outcome"] == "pending":
            output.note(
                f"may supersede {j['older']} (confidence {j['confidence']:.2f}): "
                f"`memoryd supersede confirm {j['pending_id']}` or `dismiss {j['pending_id']}`"
            )
    for n in learned.notes:
        output.note(n)
    return learned.as_dict()


def run_confirm(args: argparse.Namespace) -> int:
    row = _app().confirm_supersede(args.id)
    if args.json:
        output.emit_json(row)
    else:
        output.line(f"#{args.id}: {row['newer_memory_id']} supersedes {row['older_memory_id']}")
    return 0


def run_dismiss(args: argparse.Namespace) -> int:
    row = _app().dismiss_supersede(args.id)
    if args.json:
        output.emit_json(row)
    else:
        output.line(f"#{args.id} dismissed: both stay current")
    return 0


def run_list(args: argparse.Namespace) -> int:
    rows = _app().pending_supersedes(status=args.status)
    if args.json:
        output.emit_json(rows)
        return 0
    if not rows:
        output.line(f"no {args.status} supersedes")
    for r in rows:
        output.line(
            f"#{r['id']} [{r['status']}] {r['confidence']:.2f} {r['newer_memory_id']} -> supersedes "
            f"{r['older_memory_id']}"
        )
        output.line(f'    "{r["newer_title"] or ""}" replaces "{r["older_title"] or ""}"')
        if r["reason"]:
            output.line(f"    why: {r['reason']}")
    return 0


def run_link(args: argparse.Namespace) -> int:
    _app().link_supersede(args.new, args.old)
    if args.json:
        output.emit_json({"newer": args.new, "older": args.old})
    else:
        output.line(f"{args.new} supersedes {args.old}")
    return 0


def run_undo(args: argparse.Namespace) -> int:
    _app().undo_supersede(args.new, args.old)
    if args.json:
        output.emit_json({"newer": args.new, "older": args.old, "undone": True})
    else:
        output.line(f"{args.new} no longer supersedes {args.old}")
    return 0


def run_history(args: argparse.Namespace) -> int:
    h = _app().history(args.slug)
    if args.json:
        output.emit_json(h)
        return 0
    by_pair = {(link["newer_memory_id"], link["older_memory_id"]): link for link in h["links"]}
    if not h["links"]:
        output.line(f"{args.slug}: no supersedes (it neither replaced nor was replaced)")
    for m in h["chain"]:
        here = "  <- this one" if m["slug"] == args.slug else ""
        state = "current" if not m["superseded_by"] else f"superseded by {m['superseded_by']}"
        if m["state"] == "gone":
            state = "gone (forgotten or merged)"
        output.line(f"{m['created_at'][:10] or '?':<10}  {m['type'] or '?':<10}  {m['slug']}{here}")
        output.line(f"            {m['title']}  [{state}]")
        link = by_pair.get((m["superseded_by"], m["slug"])) if m["superseded_by"] else None
        if link:
            how = f"{link['decided_by']}, confidence {link['confidence']:.2f}, {link['decided_at'][:10]}"
            output.line(f"            replaced ({how}){': ' + link['reason'] if link['reason'] else ''}")
    for p in h["pending"]:
        output.line(
            f"waiting: #{p['id']} {p['newer_memory_id']} may supersede {p['older_memory_id']} "
            f"({p['confidence']:.2f}); memoryd supersede confirm {p['id']}"
        )
    return 0


def run_entity(args: argparse.Namespace) -> int:
    e = _app().entity(args.name)
    if args.json:
        output.emit_json(e)
        return 0
    aliases = f"; also written {', '.join(e['aliases'])}" if e["aliases"] else ""
    output.line(f"{e['name']}  ({e['type']}{', ' + e['context'] if e['context'] else ''})  {e['id']}")
    output.line(
        f"  {e['mention_count']} mention(s) in {len(e['memories'])} memories, "
        f"first {e['first_seen_at'][:10]}, "
        f"last {e['last_seen_at'][:10]}{aliases}"
    )
    output.line("Memories:")
    for m in e["memories"]:
        mark = f" (superseded by {m['superseded_by']})" if m["superseded_by"] else ""
        how = ",".join(x for x in m["predicates"] if x) or "mentions"
        output.line(f"  {m['created_at'][:10]}  {how:<9} [{m['type']}] {m['title']}{mark}")
        output.line(f"              {m['slug']}")
    if e["related"]:
        output.line("Named alongside:")
        for r in e["related"]:
            output.line(f"  {r['name']} ({r['type']}) in {r['memories']} memories")
    for other in e["also"]:
        output.line(f"also an entity of this name: {other['name']} ({other['type']}) {other['id']}")
    return 0


def run_entities(args: argparse.Namespace) -> int:
    rows = _app().entities(kind=args.kind, top=args.top)
    if args.json:
        output.emit_json(rows)
        return 0
    if not rows:
        output.line("no entities yet (`memoryd graph extract` finds them in existing memories)")
    output.table(
        [[str(r["mention_count"]), r["name"], r["type"], r["last_seen_at"][:10], r["id"]] for r in rows],
        ["MENTIONS", "NAME", "TYPE", "LAST SEEN", "ID"],
    )
    return 0


def run_export(args: argparse.Namespace) -> int:
    app = _app()
    scopes = [app.scope(args.scope).hash] if args.scope else None
    text = app.graph_export(args.fmt, scopes=scopes)
    if args.out is None:
        sys.stdout.write(text)
        return 0
    from memoryd import atomic

    try:
        atomic.write_text(args.out, text)
    except OSError as exc:
        from memoryd.errors import UsageError

        raise UsageError(f"cannot write {args.out}: {exc.strerror}") from None
    if args.json:
        output.emit_json({"out": str(args.out), "format": args.fmt, "bytes": len(text.encode())})
    else:
        output.line(f"wrote {args.out} ({args.fmt})")
    return 0


def run_extract(args: argparse.Namespace) -> int:
    from memoryd.importers.common import stderr_progress

    progress = None if args.json else stderr_progress("extracting entities")
    rep = _app().graph_extract(all_memories=args.all, use_llm=args.llm, progress=progress)
    if args.json:
        output.emit_json(rep)
    else:
        output.line(
            f"{rep['extracted']} of {rep['memories']} memories read, {rep['entities']} entity mention(s); "
            f"{rep['skipped']} skipped (locked or unreadable)"
        )
    return 0
