"""One writer of memory files at a time, across processes and threads (the store and
the CLI's read path, memoryd.reader, take the same lock).

Writers read a memory, change it and write it back: the capture worker (a later payload
of the same session), the analysis (scores, minutes after it read the body), a search
(recall counters), the decay sweep. Without a common lock the slower one writes back what
it read and a newer capture is lost. The lock is held only around read-change-write, never
across an LLM call: the analysis checks under it that the body is still the one it scored.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Concatenate, ParamSpec, Protocol, TypeVar

from filelock import FileLock, Timeout

from memoryd.envpaths import FILE_MODE


class WriteLock:
    """Reentrant in one thread (save() inside a caller's own locked section), exclusive
    between threads (the tray's) and between processes (flock on one file)."""

    def __init__(self, path: Path) -> None:
        self._file = FileLock(str(path), mode=FILE_MODE, thread_local=False)
        self._thread = threading.RLock()
        self._depth = 0

    @contextmanager
    def held(self) -> Iterator[None]:
        with self._thread:
            if self._depth == 0:
                self._file.acquire()
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
                if self._depth == 0:
                    self._file.release()

    @contextmanager
    def attempt(self) -> Iterator[bool]:
        """Held if it is free right now (True), else not waited for (False): for work that
        can as well be done by a later process, never worth blocking a start-up on."""
        if not self._thread.acquire(blocking=False):
            yield False
            return
        try:
            if self._depth == 0:
                try:
                    self._file.acquire(timeout=0)
                except Timeout:
                    yield False
                    return
            self._depth += 1
            try:
                yield True
            finally:
                self._depth -= 1
                if self._depth == 0:
                    self._file.release()
        finally:
            self._thread.release()


class Writable(Protocol):
    def writing(self) -> AbstractContextManager[None]: ...


_S = TypeVar("_S", bound=Writable)
_P = ParamSpec("_P")
_R = TypeVar("_R")


def serialised(fn: Callable[Concatenate[_S, _P], _R]) -> Callable[Concatenate[_S, _P], _R]:
    """Run `fn(store, ...)` (or a Store method) under the store's write lock."""

    @functools.wraps(fn)
    def run(store: _S, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        with store.writing():
            return fn(store, *args, **kwargs)

    return run
