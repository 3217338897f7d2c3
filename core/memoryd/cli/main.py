"""Entry point. `capture` takes a fast path that imports only the standard library and the
hook module; everything else builds the full parser.

Conventions for every command: `--json` for machine-readable output, `--help`, errors as
one line on stderr with exit 2 for bad usage and 1 for failures, never a traceback.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from memoryd.errors import MemorydError


def _fast_capture(argv: Sequence[str]) -> int | None:
    """`memoryd capture --source=X` with JSON on stdin (or as the last argument, as
    Codex's notify sends it), without building the full CLI."""
    args = list(argv[1:])
    if not argv or argv[0] != "capture" or any(a in ("-h", "--help") for a in args):
        return None
    source, rest = None, []
    it = iter(args)
    for a in it:
        if a.startswith("--source="):
            source = a.split("=", 1)[1]
        elif a == "--source":
            source = next(it, None)
        else:
            rest.append(a)
    if source is None or any(r.startswith("-") for r in rest) or len(rest) > 1:
        return None
    from memoryd.capture.hook import capture

    raw = rest[0].encode("utf-8") if rest else sys.stdin.buffer.read()
    try:
        _, warnings = capture(source, raw)
    except MemorydError as exc:
        sys.stderr.write(f"memoryd: {exc}\n")
        return exc.exit_code
    for w in warnings:
        sys.stderr.write(f"memoryd: warning: {w}\n")
    return 0


def _fast_inject(argv: Sequence[str]) -> int | None:
    """`memoryd inject`, the SessionStart hook: read a prebuilt snapshot and print it,
    without argparse or the database (memoryd.startup)."""
    if not argv or argv[0] != "inject":
        return None
    from memoryd import startup

    parsed = startup.parse_args(argv[1:])
    if parsed is None:
        return None
    try:
        out = startup.run(*parsed)
    except MemorydError as exc:
        sys.stderr.write(f"memoryd: {exc}\n")
        return exc.exit_code
    except Exception as exc:  # the agent shows stderr's first line: one line, never a trace
        sys.stderr.write(f"memoryd: inject failed: {exc.__class__.__name__}: {exc}\n")
        return 1
    # Bytes, UTF-8: a Windows console's code page cannot encode every title.
    sys.stdout.buffer.write((out if out.endswith("\n") else out + "\n").encode("utf-8"))
    sys.stdout.flush()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    os.umask(0o077)  # memories, index, logs and locks are the user's alone
    fast = _fast_capture(argv)
    if fast is None:
        fast = _fast_inject(argv)
    if fast is not None:
        return fast
    from memoryd.envpaths import full_site

    full_site()  # every other command imports third-party packages
    from memoryd.cli.parser import build_parser

    parser = build_parser()
    from memoryd import paths
    from memoryd.sensitive import broker

    broker.install(paths.layout(), "cli")  # a missing grant is asked of the tray, if it runs
    if sys.stdin.isatty():
        from memoryd.cli.commands.sensitive import read_passphrase
        from memoryd.sensitive.keys import set_prompt

        set_prompt(lambda s: read_passphrase(f"Passphrase of {s.root}: "))
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "handler", None):
            parser.print_help()
            return 2
        _fallback(args.command)
        return int(args.handler(args) or 0)
    except MemorydError as exc:
        sys.stderr.write(f"memoryd: {exc}\n")
        return exc.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("memoryd: interrupted\n")
        return 130
    except BrokenPipeError:
        return 1
    except Exception as exc:  # last resort: one line for the user, the trace in the log
        path = _log_crash()
        sys.stderr.write(f"memoryd: internal error: {exc.__class__.__name__}: {exc} (trace in {path})\n")
        return 1


# Commands that do not set off an overdue consolidation: the job itself and its runners,
# and the hooks, which must stay quick and quiet (an agent's `mcp` start may set it off).
NO_FALLBACK = {"consolidate", "run-job", "run-due", "capture", "inject", "backup", "restore"}


def _fallback(command: str | None) -> None:
    """Seed 003's fallback trigger (memoryd.fallback): a consolidation that has not
    succeeded for 48 hours is set off in the background by the next CLI start, never in
    the way of the command. Only config and one SQLite row are read here."""
    if command in NO_FALLBACK:
        return
    try:
        from memoryd import config, fallback, paths

        hours = config.load().consolidation.fallback_hours
        if fallback.fallback(paths.layout(), hours, fallback.spawn_consolidation):
            sys.stderr.write("memoryd: consolidation is overdue; it runs in the background now\n")
    except Exception:
        return


def _log_crash() -> str:
    import traceback

    from memoryd import paths

    try:
        logs = paths.ensure_dir(paths.layout().logs)
        path = logs / "cli-errors.log"
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(traceback.format_exc() + "\n")
        return str(path)
    except OSError:
        return "nowhere: the log directory is not writable"


if __name__ == "__main__":
    sys.exit(main())
