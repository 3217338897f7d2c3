"""The full argument parser, built only when a command other than the hook's fast path
runs (argparse and gettext cost the hook a few milliseconds)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

Handler = Callable[[argparse.Namespace], int]


class Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line and exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"memoryd: {message} (see `{self.prog} --help`)\n")
        raise SystemExit(2)


def build_parser() -> Parser:
    from memoryd import __version__
    from memoryd.cli.commands import (
        agents,
        audit,
        backup,
        capture,
        consolidation,
        exchange,
        governance,
        imports,
        knowledge,
        maintenance,
        memories,
        profile,
        schedule,
        scope,
        search,
        sensitive,
    )

    parser = Parser(prog="memoryd", description="Local long-term memory for AI agents.")
    parser.add_argument("--version", action="version", version=f"memoryd {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    common = Parser(add_help=False)
    common.add_argument("--json", action="store_true", help="print machine-readable JSON")
    modules = (
        capture,
        scope,
        memories,
        search,
        governance,
        profile,
        knowledge,
        sensitive,
        agents,
        imports,
        maintenance,
        consolidation,
        exchange,
        schedule,
        backup,
        audit,
    )
    for module in modules:
        module.register(sub, common)
    return parser
