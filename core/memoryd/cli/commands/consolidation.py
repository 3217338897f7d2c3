"""memoryd consolidate / export-md: the nightly job by hand, and the files for hosts that read
memory from Markdown."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from memoryd.cli import output
from memoryd.schedule import CONSOLIDATION_PHASES as PHASES


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    c = sub.add_parser(
        "consolidate",
        parents=[common],
        help="the nightly job: capture, analyse, dedupe, decay, identity, snapshots, exports",
        description="Runs the seven phases in order, one progress line each, then a summary. A run "
        "that was killed resumes at its phase. Without --force it runs only if it has not succeeded "
        "since the nightly time ([schedule] consolidate) last passed. "
        "Example: memoryd consolidate ; memoryd consolidate --phase decay",
    )
    c.add_argument("--force", action="store_true", help="run now even if it already ran tonight")
    c.add_argument("--phase", choices=PHASES, help="run only this phase (for debugging)")
    c.add_argument("--status", action="store_true", help="show the state (last run, last success, phase)")
    # The background run a CLI or tray start sets off when overdue (seed 003's fallback).
    c.add_argument("--fallback", action="store_true", help=argparse.SUPPRESS)
    c.set_defaults(handler=run_consolidate)

    e = sub.add_parser(
        "export-md",
        parents=[common],
        help="write a project's MEMORY.md and the user's USER.md into a folder",
        description="For hosts that read memory from files (an OpenClaw workspace, an agent that "
        "loads USER.md). The files say they are generated; a MEMORY.md or USER.md that memoryd did "
        "not write is left alone unless --overwrite. Sensitive projects are never exported. With "
        "--keep the pair is added to config.toml and rewritten whenever the memories change. "
        "Example: memoryd export-md --scope ~/code/app --out ~/.openclaw/workspace --keep",
    )
    e.add_argument("--scope", default=".", help="the project folder (default: here)")
    e.add_argument("--out", required=True, type=Path, help="the folder to write MEMORY.md and USER.md into")
    e.add_argument("--overwrite", action="store_true", help="replace files memoryd did not write")
    e.add_argument("--keep", action="store_true", help="keep them up to date ([[exports.markdown]])")
    e.set_defaults(handler=run_export_md)


def run_consolidate(args: argparse.Namespace) -> int:
    from memoryd.app import Memoryd

    app = Memoryd()
    if args.status:
        st = app.consolidation_state()
        if args.json:
            output.emit_json(st)
            return 0
        output.line(f"last run:      {st.get('last_run') or 'never'}")
        output.line(f"last success:  {st.get('last_success') or 'never'}")
        if st.get("run_id"):
            output.line(
                f"interrupted:   the run of {st['run_started']} stopped in {st['current_phase']} "
                f"(retries {st['retry_count']}); the next run resumes it"
            )
        if st.get("last_error"):
            output.line(f"last error:    {st['last_error']}")
        output.line(f"running now:   {'yes' if st['running'] else 'no'}")
        output.line(f"overdue:       {'yes' if st['overdue'] else 'no'}")
        return 0
    trigger = "fallback" if args.fallback else "cli"
    progress: Any = None if args.json else output.line
    if args.fallback:  # detached, no terminal: the lines go to logs/consolidate.log
        from memoryd.consolidate import log_line

        def progress(text: str) -> None:
            log_line(app.layout, f"fallback: {text}")

    try:
        rep = app.consolidate(force=args.force, phase=args.phase, trigger=trigger, progress=progress)
    except Exception as exc:
        from memoryd.consolidate import Busy

        if args.fallback and isinstance(exc, Busy):
            return 0  # another start set one off first: that one runs
        raise
    if args.json:
        output.emit_json(rep.as_dict())
    elif rep.skipped and not args.fallback:
        output.line(f"nothing to do: {rep.skipped}")
    return 0 if rep.ok else 1


def run_export_md(args: argparse.Namespace) -> int:
    from memoryd.app import Memoryd

    app = Memoryd()
    out = args.out.expanduser().absolute()
    done = app.export_md(args.scope, out, overwrite=args.overwrite)
    kept = [f"{name}: {state}" for name, state in done.files.items() if state.startswith("kept")]
    if args.keep and not kept:  # a target over the user's own file would be refused every night
        scope_root = str(app.scope(args.scope).root)
        targets = [{"scope": t.scope, "out": t.out} for t in app.config.exports]
        mine = {"scope": scope_root, "out": str(out)}
        if mine not in targets:
            app.update_config({"exports.markdown": [*targets, mine]})
    if args.json:
        output.emit_json({**done.as_dict(), "kept_up_to_date": bool(args.keep and not kept)})
    else:
        for name, state in done.files.items():
            output.line(f"{out / name}: {state}")
    return 1 if kept else 0
