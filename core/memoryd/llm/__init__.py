"""The LLM provider layer: a prompt in, schema-checked JSON and its token cost out.
Analysis imports from here; which vendor answers is the factory's business.
AnthropicProvider is imported on first use: the SDK takes over a second to import."""

from typing import TYPE_CHECKING, Any

from memoryd.llm.base import LLMBadOutput, LLMError, LLMUnavailable, Prompt, Provider, Reply, Usage
from memoryd.llm.factory import Choice, choose
from memoryd.llm.http_providers import OllamaProvider, OpenAIProvider
from memoryd.llm.pricing import cost
from memoryd.llm.prompts import PromptError, render
from memoryd.llm.schemas import (
    PROMPT_SCHEMAS,
    ChangeReport,
    DuraOutput,
    Entities,
    Entity,
    IdentityRewrite,
    SupersedesJudgement,
)
from memoryd.llm.tokens import estimate, trim

if TYPE_CHECKING:
    from memoryd.llm.anthropic_provider import AnthropicProvider

__all__ = [
    "PROMPT_SCHEMAS",
    "AnthropicProvider",
    "ChangeReport",
    "Choice",
    "DuraOutput",
    "Entities",
    "Entity",
    "IdentityRewrite",
    "LLMBadOutput",
    "LLMError",
    "LLMUnavailable",
    "OllamaProvider",
    "OpenAIProvider",
    "Prompt",
    "PromptError",
    "Provider",
    "Reply",
    "SupersedesJudgement",
    "Usage",
    "choose",
    "cost",
    "estimate",
    "render",
    "trim",
]


def __getattr__(name: str) -> Any:
    if name == "AnthropicProvider":
        from memoryd.llm.anthropic_provider import AnthropicProvider

        return AnthropicProvider
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
