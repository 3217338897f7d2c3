"""The one interface every LLM provider meets: a prompt in, JSON validated against a
pydantic model out, with the tokens it cost. Analysis code sees nothing else."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from pydantic import BaseModel

from memoryd.errors import MemorydError

T = TypeVar("T", bound=BaseModel)


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def total(self) -> int:
        return self.input_tokens + self.output_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens)


@dataclass(frozen=True)
class Prompt:
    """A rendered prompt template (package data under llm/prompts/, versioned)."""

    name: str
    version: int
    system: str
    user: str
    max_output_tokens: int = 400


@dataclass(frozen=True)
class Reply(Generic[T]):
    data: T
    usage: Usage
    provider: str
    model: str
    attempts: int = 1


class LLMError(MemorydError):
    """Analysis could not use the provider this time; the caller defers or falls back.
    `usage` holds tokens already spent (a malformed answer still costs them)."""

    exit_code = 1

    def __init__(self, message: str, *, usage: Usage | None = None, attempts: int = 1) -> None:
        super().__init__(message)
        self.usage = usage or Usage()
        self.attempts = attempts


class LLMUnavailable(LLMError):
    """No key, network down, timeout, rate limit or server errors after the retries."""


class LLMBadOutput(LLMError):
    """The provider answered, but not with JSON matching the schema."""


class Provider(Protocol):
    name: str
    model: str

    def generate_json(self, prompt: Prompt, schema: type[T]) -> Reply[T]: ...
