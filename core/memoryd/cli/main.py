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
    Codex's notify sends it), without building the full CLI. This form, the one `memoryd
    setup` writes, is hook mode (memoryd.hookmode): exit 0 whatever happens, one line on
    stderr, logged. `capture --json` and malformed command lines go to argparse and keep
    the CLI's exit codes: a person typed those."""
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
    from memoryd import hookmode

    try:
        from memoryd.capture.hook import MAX_PAYLOAD, capture

        # os.fsencode: the argument's own bytes, even when they are not UTF-8. One byte
        # more than the limit is enough to know it is over.
        if rest:
            raw = os.fsencode(rest[0])
        else:  # no stdin at all (a closed descriptor) reads as an empty one
            raw = sys.stdin.buffer.read(MAX_PAYLOAD + 1) if sys.stdin is not None else b""
        _, warnings = capture(source, raw)
    except BaseException as exc:  # hook mode: the agent must not be steered
        return hookmode.fail("capture", "capture skipped, nothing kept", exc)
    if warnings:
        hookmode.say("capture", "warning: " + "; ".join(warnings))
    return 0


def _hook_format(args: Sequence[str]) -> bool:
    """`inject --format claude-hook` (either spelling): the SessionStart hook."""
    from itertools import pairwise

    return "--format=claude-hook" in args or ("--format", "claude-hook") in pairwise(args)


def _fast_inject(argv: Sequence[str]) -> int | None:
    """`memoryd inject`, the SessionStart hook: read a prebuilt snapshot and print it,
    without argparse or the database (memoryd.startup). With --format claude-hook it is
    hook mode (memoryd.hookmode): exit 0 whatever happens, and on a failure nothing on
    stdout (the session starts without memory rather than with half of it), one line on
    stderr. Plain `inject`, and `inject --format claude-hook --json` (argparse), keep the
    CLI's exit codes."""
    if not argv or argv[0] != "inject":
        return None
    hook = _hook_format(argv[1:])
    from memoryd import hookmode, startup

    try:
        parsed = startup.parse_args(argv[1:])
        if parsed is None:
            if hook and not any(a in ("-h", "--help", "--json") for a in argv[1:]):
                hookmode.say("inject", f"inject skipped: arguments not understood: {' '.join(argv[1:])}")
                return 0
            return None
        out, warning = startup.run_hook(*parsed)
        data = (out if out.endswith("\n") else out + "\n").encode("utf-8")
    except BaseException as exc:  # one line, never a trace
        if hook:
            return hookmode.fail("inject", "inject skipped, no memory context given", exc)
        if isinstance(exc, MemorydError):
            sys.stderr.write(f"memoryd: {exc}\n")
            return exc.exit_code
        if not isinstance(exc, Exception):
            raise
        sys.stderr.write(f"memoryd: inject failed: {exc.__class__.__name__}: {exc}\n")
        return 1
    try:
        # Bytes, UTF-8: a Windows console's code page cannot encode every title.
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    except BaseException as exc:  # the reader went away
        _stdout_to_devnull()  # or the interpreter's exit flush says so again, with a trace
        if hook:
            return hookmode.fail("inject", "inject output not delivered", exc)
        return 1
    if warning:
        if hook:
            hookmode.say("inject", f"warning: {warning}")
        else:
            sys.stderr.write(f"memoryd: warning: {warning}\n")
    return 0


def _stdout_to_devnull() -> None:
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, sys.stdout.fileno())
        os.close(fd)
    except (OSError, ValueError, AttributeError):
        pass


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
    fast = _fast_read(argv)
    if fast is not None:
        return fast
    from memoryd.cli.parser import build_parser

    parser = build_parser()
    from memoryd import paths
    from memoryd.sensitive import broker

    broker.install(paths.layout(), "cli")  # a missing grant is asked of the tray, if it runs
    if sys.stdin.isatty():
        from memoryd.cli.commands.sensitive import read_passphrase
        from memoryd.sensitive.keys import set_prompt
        from memoryd.sensitive.state import label

        set_prompt(lambda s: read_passphrase(f"Passphrase of {label(s.scope_hash, s.root)}: "))
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "handler", None):
            parser.print_help()
            return 2
        _fallback(args.command)
        return int(args.handler(args) or 0)
    except BaseException as exc:
        return _failed(exc)


def _fast_read(argv: Sequence[str]) -> int | None:
    """`search`, `get`, `list` and `scope` over the standard library's sqlite3 when they
    can be served there exactly as the full path serves them (memoryd.cli.fastread);
    None sends the command down the full path."""
    from memoryd.cli import fastread

    args = fastread.parse(argv)
    app = fastread.prepare(args) if args is not None else None
    if args is None or app is None:
        return None
    try:
        _fallback(args.command)
        return int(args.handler(args, app) or 0)
    except BaseException as exc:
        return _failed(exc)
    finally:
        fastread.finish(app)


def _failed(exc: BaseException) -> int:
    """A command's error as the CLI reports it: one line, never a trace (called from the
    `except` that caught it, so the crash log gets its trace)."""
    if isinstance(exc, MemorydError):
        sys.stderr.write(f"memoryd: {exc}\n")
        return exc.exit_code
    if isinstance(exc, KeyboardInterrupt):
        sys.stderr.write("memoryd: interrupted\n")
        return 130
    if isinstance(exc, BrokenPipeError):
        return 1
    if not isinstance(exc, Exception):  # SystemExit and the like go on as they came
        raise exc
    path = _log_crash()  # last resort: one line for the user, the trace in the log
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
