"""Let a bundled executable stand in for the Python interpreter it replaces.

memoryd starts helper processes with `sys.executable`:

- `python -P -m memoryd.capture.worker`: the detached capture worker (memoryd.capture.hook);
- `python -P -m memoryd consolidate --fallback`: an overdue nightly job (memoryd.fallback);
- `python -S <package>/memoryd/hookrun.py capture ...`: the agent hooks `memoryd setup` writes
  (memoryd.agents.common.hook_argv).

In a PyInstaller bundle `sys.executable` is the bundle's own `memoryd` or `memoryd-tray`, so
those command lines arrive at the bundle's entry point. `run_if_interpreter_call` runs them
as the interpreter would; any other command line is left to the app.
"""

from __future__ import annotations

import runpy
import sys
from collections.abc import Sequence
from pathlib import PurePath
from typing import NamedTuple

# Interpreter options that take no value. They only tune start-up (site, bytecode, the
# cwd on sys.path), which a frozen app has already settled, so they are accepted and ignored.
FLAGS = frozenset({"-B", "-E", "-I", "-O", "-OO", "-P", "-S", "-s", "-u", "-q"})
HOOKRUN = ("memoryd", "hookrun.py")


class Call(NamedTuple):
    kind: str  # "module", "cli" (memoryd's hookrun.py) or "script"
    target: str
    args: list[str]


def interpreter_call(args: Sequence[str]) -> Call | None:
    """The interpreter form of a command line (`[flags] -m MODULE args` or `flags SCRIPT.py
    args`), else None. A script is recognised only after at least one flag, so the CLI's own
    arguments are never mistaken for one."""
    i = 0
    while i < len(args) and args[i] in FLAGS:
        i += 1
    rest = list(args[i:])
    if len(rest) >= 2 and rest[0] == "-m":
        return Call("module", rest[1], rest[2:])
    if i > 0 and rest and rest[0].endswith(".py"):
        path = PurePath(rest[0])
        kind = "cli" if (path.parent.name, path.name) == HOOKRUN else "script"
        return Call(kind, rest[0], rest[1:])
    return None


def run_if_interpreter_call() -> None:
    """Run an interpreter-style command line and exit; return at once for any other."""
    call = interpreter_call(sys.argv[1:])
    if call is None:
        return
    if call.kind == "cli":
        # hookrun.py only puts memoryd on sys.path and calls the CLI; the bundle has it there.
        from memoryd.cli.main import main

        sys.argv = [sys.argv[0], *call.args]
        raise SystemExit(main())
    sys.argv = [call.target, *call.args]
    if call.kind == "module":
        runpy.run_module(call.target, run_name="__main__", alter_sys=True)
    else:
        runpy.run_path(call.target, run_name="__main__")
    raise SystemExit(0)
