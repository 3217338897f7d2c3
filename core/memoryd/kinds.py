"""Memory types and decay states: standard library only, so the read path
(memoryd.reader) and search can name them without importing pydantic (memoryd.models
re-exports them beside the frontmatter model)."""

from __future__ import annotations

from enum import StrEnum


class MemoryType(StrEnum):
    session = "session"
    decision = "decision"
    preference = "preference"
    fact = "fact"
    playbook = "playbook"
    warning = "warning"

    @property
    def folder(self) -> str:
        """One folder per type under scopes/<hash>/ (sessions/, decisions/, ...)."""
        return f"{self.value}s"

    @property
    def long_term(self) -> bool:
        return self is not MemoryType.session


LONG_TERM_TYPES = tuple(t for t in MemoryType if t.long_term)


class DecayState(StrEnum):
    alive = "alive"
    dim = "dim"
    soft_forgotten = "soft-forgotten"
    forgotten = "forgotten"
