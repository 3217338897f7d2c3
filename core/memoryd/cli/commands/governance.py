"""memoryd analyze-session / analyze-pending / promotions / promote / reject / merge /
not-duplicates / undo / decay-sweep / digest / suspect."""

from __future__ import annotations

import argparse
from typing import Any

from memoryd.cli import output
from memoryd.cli.argtypes import positive
from memoryd.textwidth import fit

LONG_TERM = ["decision", "preference", "fact", "playbook", "warning"]


_id = positive("promotion id")


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    a = sub.add_parser(
        "analyze-session",
        parents=[common],
        help="DURA-score one session and queue it for promotion",
        description="Score a session on D/U/R/A (LLM when configured, rules otherwise); a mean "
        "at or above the threshold queues a pending promotion. Example: "
        "memoryd analyze-session 2026-05-18-abcd1234-9f8e7d6c",
    )
    a.add_argument("slug")
    a.add_argument("--force", action="store_true", help="analyse again even if unchanged")
    a.set_defaults(handler=run_analyze)

    ap = sub.add_parser(
        "analyze-pending",
        parents=[common],
        help="analyse every session not analysed yet (and retry deferred ones)",
        description="Example: memoryd analyze-pending --limit 20",
    )
    ap.add_argument("--limit", type=int)
    ap.set_defaults(handler=run_analyze_pending)

    p = sub.add_parser(
        "promotions",
        parents=[common],
        help="list the promotion queue",
        description="Example: memoryd promotions --status pending",
    )
    p.add_argument("--status", choices=["pending", "approved", "rejected"])
    p.set_defaults(handler=run_promotions)

    pr = sub.add_parser(
        "promote",
        parents=[common],
        help="approve a promotion: write it as long-term memory",
        description="Writes scopes/<hash>/<type>s/promoted-<id>-<slug>.md with promoted_from. "
        "Example: memoryd promote 3 --type preference",
    )
    pr.add_argument("id", type=_id)
    pr.add_argument("--type", choices=LONG_TERM)
    pr.add_argument("--title")
    pr.set_defaults(handler=run_promote)

    rj = sub.add_parser(
        "reject",
        parents=[common],
        help="reject a promotion",
        description="Example: memoryd reject 3 --reason 'one-off'",
    )
    rj.add_argument("id", type=_id)
    rj.add_argument("--reason")
    rj.set_defaults(handler=run_reject)

    m = sub.add_parser(
        "merge",
        parents=[common],
        help="merge duplicates into one memory",
        description="The kept memory absorbs the dropped ones' triggers, tags and recall counts; "
        "the dropped ones go to the trash (`memoryd undo` brings them back); at most 100 at once. "
        "Example: memoryd merge --keep SLUG --drop SLUG2 SLUG3",
    )
    m.add_argument("--keep", required=True)
    m.add_argument("--drop", required=True, nargs="+")
    m.add_argument("--force", action="store_true", help="allow merging across scopes")
    m.set_defaults(handler=run_merge)

    nd = sub.add_parser(
        "not-duplicates",
        parents=[common],
        help="say a duplicate group's memories differ: the digest stops proposing them",
        description="Recorded and audited; `memoryd undo` takes it back. At most 100 memories. "
        "Example: memoryd not-duplicates SLUG1 SLUG2",
    )
    nd.add_argument("slugs", nargs="+", metavar="SLUG")
    nd.set_defaults(handler=run_not_duplicates)

    u = sub.add_parser(
        "undo",
        parents=[common],
        help="undo a review decision: reject, approve, merge or not-duplicates",
        description="Without ID: the latest decision a person made (not the nightly "
        "consolidation's). A rejected proposal is pending again; an approved one too, its memory "
        "moved to the trash; a merge brings the dropped memories back from the trash (kept "
        "30 days) and the kept one as it was. Refused when what it would undo changed since "
        "(--force undoes an approval or merge anyway, over the later changes, and a merge "
        "whose dropped memory the trash lost). Never forced: an approval whose memory kept a "
        "later merge (undo that merge first). "
        "Example: memoryd undo --list ; memoryd undo ; memoryd undo 12",
    )
    u.add_argument("id", nargs="?", type=positive("review action id"), help="from `memoryd undo --list`")
    u.add_argument("--list", action="store_true", help="show the recent decisions that can be undone")
    u.add_argument("--all", action="store_true", help="with --list: the undone ones too")
    u.add_argument("--force", action="store_true", help="undo even though the memory changed since")
    u.set_defaults(handler=run_undo)

    d = sub.add_parser(
        "decay-sweep",
        parents=[common],
        help="move unused memories along alive -> dim -> soft-forgotten -> forgotten",
        description="Run daily (the tray does it at 03:00). Example: memoryd decay-sweep --dry-run",
    )
    d.add_argument("--dry-run", action="store_true", help="show what would change, change nothing")
    d.set_defaults(handler=run_decay)

    g = sub.add_parser(
        "digest",
        parents=[common],
        help="the weekly review: promotions, duplicates, TTL reminders, trends, spend",
        description="Example: memoryd digest --since 2026-05-01 ; memoryd digest --notify ; "
        "memoryd digest --tui (review it in the terminal: j/k move, a approve, r reject, ? keys)",
    )
    g.add_argument("--since", help="start of the window (date or ISO time; default 7 days ago)")
    g.add_argument("--notify", action="store_true", help="also send a desktop notification and an email")
    g.add_argument("--scope", help="only this project's scope (a directory)")
    g.add_argument(
        "--tui", action="store_true", help="review it interactively in the terminal (no desktop needed)"
    )
    g.set_defaults(handler=run_digest)

    su = sub.add_parser(
        "suspect",
        parents=[common],
        help="memories that read as aimed at an AI: list them, or clear one",
        description="A memory whose text reads as instructions to an AI, or hid characters, is "
        "kept out of the start-up snapshot, MEMORY.md and the promotion queue until you clear "
        "it (you vouch for the text as it stands) or forget it (`memoryd forget SLUG`). "
        "Example: memoryd suspect ; memoryd suspect clear 2026-05-18-use-uv-3fa1",
    )
    su.add_argument("action", nargs="?", choices=["list", "clear"], default="list")
    su.add_argument("slug", nargs="?", help="the memory to clear (with `clear`)")
    su.add_argument("--scope", help="only this project's scope (a directory); default: every scope")
    su.set_defaults(handler=run_suspect)


def _app() -> Any:
    from memoryd.app import Memoryd

    return Memoryd()


def _analysis_line(a: Any) -> str:
    if a.status == "skipped":
        return f"{a.slug}: {a.note}"
    if a.status == "deferred":
        return f"{a.slug}: {a.note}; `memoryd analyze-pending` retries"
    s = a.scores
    text = (
        f"{a.slug}: D {s['D']:.2f} U {s['U']:.2f} R {s['R']:.2f} A {s['A']:.2f} mean {a.mean:.2f} by {a.by}"
    )
    if a.promotion:
        text += f"; promotion #{a.promotion_id} {a.promotion}"
    if a.note:
        text += f" ({a.note})"
    return text


def run_analyze(args: argparse.Namespace) -> int:
    app = _app()
    app.catch_up()
    res = app.analyze_session(args.slug, force=args.force)
    if args.json:
        output.emit_json(res.as_dict())
    else:
        output.line(_analysis_line(res))
    return 0 if res.status != "deferred" else 1


def run_analyze_pending(args: argparse.Namespace) -> int:
    app = _app()
    app.catch_up()
    results = app.analyze_pending(limit=args.limit)
    if args.json:
        output.emit_json([r.as_dict() for r in results])
        return 0
    for r in results:
        output.line(_analysis_line(r))
    deferred = sum(r.status == "deferred" for r in results)
    output.line(f"{len(results)} session(s): {len(results) - deferred} scored, {deferred} deferred")
    return 0


def run_promotions(args: argparse.Namespace) -> int:
    rows = _app().promotions(status=args.status)
    if args.json:
        output.emit_json(rows)
        return 0
    output.table(
        [
            [
                str(r["id"]),
                r["status"],
                r["type"],
                f"{sum(r['dura_score'].values()) / max(1, len(r['dura_score'])):.2f}",
                fit(r["proposed_title"], 60),
                r["source_session_slug"],
            ]
            for r in rows
        ],
        ["ID", "STATUS", "TYPE", "DURA", "TITLE", "FROM"],
    )
    if not rows:
        output.line("no promotions" + (f" with status {args.status}" if args.status else ""))
    return 0


def run_promote(args: argparse.Namespace) -> int:
    from memoryd.cli.commands.knowledge import report_learned

    app = _app()
    doc, _ = app.promote(args.id, memory_type=args.type, title=args.title)
    if args.json:
        learned = app.learned.as_dict() if app.learned else None
        output.emit_json(
            {"id": args.id, "slug": doc.meta.slug, "type": doc.meta.type.value, "knowledge": learned}
        )
        return 0
    output.line(f"promotion #{args.id} approved: {doc.meta.type.value} {doc.meta.slug}")
    report_learned(app)
    return 0


def run_reject(args: argparse.Namespace) -> int:
    row = _app().reject(args.id, reason=args.reason)
    if args.json:
        output.emit_json({"id": row["id"], "status": row["status"]})
    else:
        output.line(f"promotion #{args.id} rejected")
    return 0


def run_merge(args: argparse.Namespace) -> int:
    res, _ = _app().merge(args.keep, args.drop, force=args.force)
    if args.json:
        output.emit_json(
            {
                "kept": res.kept.meta.slug,
                "dropped": list(res.dropped),
                "triggers_added": res.triggers_added,
                "recalls_added": res.recalls_added,
            }
        )
    else:
        output.line(
            f"kept {res.kept.meta.slug}; dropped {len(res.dropped)} "
            f"(+{res.triggers_added} triggers, +{res.recalls_added} recalls)"
        )
    return 0


def run_not_duplicates(args: argparse.Namespace) -> int:
    app = _app()
    action = app.not_duplicates(args.slugs)
    if args.json:
        output.emit_json({"action": action, "slugs": sorted(set(args.slugs))})
    else:
        output.line(
            f"{len(set(args.slugs))} memories marked as not duplicates "
            f"(review action #{action}; `memoryd undo {action}` takes it back)"
        )
    return 0


def run_undo(args: argparse.Namespace) -> int:
    from memoryd.errors import UsageError

    app = _app()
    if args.list:
        if args.id is not None or args.force:
            raise UsageError("--list takes no ID and no --force")
        actions = app.review_actions(undone=args.all)
        if args.json:
            output.emit_json([a.as_dict() for a in actions])
            return 0
        output.table(
            [[str(a.id), a.at, a.actor, fit(a.describe(), 70), a.undone_at or ""] for a in actions],
            ["ID", "AT", "BY", "WHAT", "UNDONE"],
        )
        if not actions:
            output.line("nothing to undo")
        return 0
    if args.all:
        raise UsageError("--all goes with --list")
    done, _ = app.undo(args.id, force=args.force)
    if args.json:
        output.emit_json(done.as_dict())
        return 0
    line = f"undone #{done.action.id}: {done.action.describe()}"
    if done.reopened is not None:
        line += f"; promotion #{done.reopened} is pending again"
    if done.removed:
        line += f"; {', '.join(done.removed)} moved to the trash"
    if done.restored:
        line += f"; restored {', '.join(done.restored)}"
    if done.missing:
        line += f"; not restored: {', '.join(done.missing)} (missing from the trash)"
    if done.promotions:
        line += f"; {_numbered('promotion', done.promotions)} back"
    if done.lost_promotions:
        line += f"; not restored: {_numbered('promotion', done.lost_promotions)} (missing from the trash)"
    if done.relinked:
        line += f"; {', '.join(done.relinked)} superseded by the restored memory again"
    output.line(line)
    return 0


def _numbered(noun: str, ids: tuple[int, ...]) -> str:
    return f"{noun}{'s' if len(ids) > 1 else ''} {', '.join(f'#{i}' for i in ids)}"


def _check_tui(args: argparse.Namespace) -> None:
    import sys

    from memoryd.errors import UsageError

    if args.json or args.notify:
        raise UsageError("--tui is interactive: it cannot be combined with --json or --notify")
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError(
            "--tui needs a terminal on stdin and stdout; without one use `memoryd digest` or --json"
        )


def run_decay(args: argparse.Namespace) -> int:
    rep = _app().decay_sweep(dry_run=args.dry_run)
    if args.json:
        output.emit_json(rep.as_dict())
        return 0
    verb = "would move" if rep.dry_run else "moved"
    counts = rep.counts()
    summary = ", ".join(f"{n} to {state}" for state, n in sorted(counts.items())) or "nothing"
    output.line(f"decay sweep at {rep.at}: {verb} {summary}")
    for t in rep.transitions[:50]:
        output.line(f"  {t.slug}: {t.from_state} -> {t.to_state} (idle {t.idle_days} days)")
    if len(rep.transitions) > 50:
        output.line(f"  ... and {len(rep.transitions) - 50} more (--json lists all)")
    for s in rep.skipped:
        output.warn(f"skipped {s}")
    return 0


def run_digest(args: argparse.Namespace) -> int:
    from memoryd.governance import digest

    if args.tui:
        _check_tui(args)
    app = _app()
    app.catch_up()
    scopes = [app.scope(args.scope).hash] if args.scope else None
    d = app.digest(since=args.since, scopes=scopes)
    if args.tui:
        from memoryd import tui  # textual is imported only here

        return tui.run(app, since=args.since, scopes=scopes, digest=d)
    if args.json:
        output.emit_json(d.model_dump(mode="json"))
    else:
        output.line(digest.render_text(d).rstrip("\n"))
    if not args.notify:
        return 0
    failed = False
    for channel, ok, message in app.deliver_digest(d):
        if ok:
            output.note(f"{channel}: {message}")
        elif channel == "email" and message.startswith("not configured"):
            output.warn(f"{channel}: {message}")
        else:
            failed = True
            output.note(f"{channel} failed: {message}")
    return 1 if failed else 0


def run_suspect(args: argparse.Namespace) -> int:
    from memoryd.errors import UsageError

    app = _app()
    if args.action == "clear":
        if not args.slug:
            raise UsageError("`memoryd suspect clear` needs the memory's slug")
        reasons = list(app.store.row(args.slug).get("suspect") or [])
        app.clear_suspect(args.slug)
        if args.json:
            output.emit_json({"slug": args.slug, "cleared": reasons})
        else:
            output.line(f"{args.slug}: cleared; agents see it again")
        return 0
    if args.slug:
        raise UsageError("a slug goes with `clear`: memoryd suspect clear SLUG")
    app.catch_up()
    rows = app.suspects(scopes=[app.scope(args.scope).hash] if args.scope else None)
    if args.json:
        output.emit_json(
            [
                {k: r[k] for k in ("slug", "type", "title", "scope_hash", "source", "created_at", "suspect")}
                for r in rows
            ]
        )
        return 0
    for r in rows:
        output.line(f'{r["slug"]}  {r["type"]}  "{r["title"]}"  [{r["scope_hash"]}]')
        for reason in r["suspect"]:
            output.line(f"    why: {reason}")
    if rows:
        output.line(
            "clear: memoryd suspect clear SLUG    forget: memoryd forget SLUG    read: memoryd get SLUG"
        )
    else:
        output.line("no suspect memories")
    return 0
