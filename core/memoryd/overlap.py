"""A thread for the part of a search that can run beside the rest.

A hybrid search embeds the query and scans the vectors (numpy, which lets go of the GIL
in its products) while it looks up its keywords (SQLite and the warm index): on two
cores the two overlap (issue 20). A thread per call (about 0.1 ms): no pool to outlive a
fork, and no concurrent.futures import (7 ms) on the CLI's read path.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Job(Generic[T]):
    """`fn` running on its own thread; `result()` waits for it and returns its value, or
    raises what it raised."""

    def __init__(self, fn: Callable[[], T]) -> None:
        self._fn = fn
        self._value: T | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="memoryd-search", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._value = self._fn()
        except BaseException as exc:  # handed to the caller of result()
            self._error = exc

    def result(self) -> T:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]


def start(fn: Callable[[], T]) -> Job[T]:
    return Job(fn)
