"""Argument types shared by commands: a bad value is argparse's one-line usage error."""

from __future__ import annotations

import argparse
from collections.abc import Callable

# SQLite integers are 64-bit; anything larger is a typo, not an id.
MAX_INT = 2**62


def positive(what: str) -> Callable[[str], int]:
    """A whole number from 1 to MAX_INT, named `what` in the error."""

    def parse(value: str) -> int:
        try:
            n = int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} must be a number, not {value!r}") from None
        if not 1 <= n <= MAX_INT:
            raise argparse.ArgumentTypeError(f"{what} must be between 1 and {MAX_INT}")
        return n

    parse.__name__ = what  # argparse names the type in some messages
    return parse
