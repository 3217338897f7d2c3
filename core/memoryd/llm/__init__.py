"""The LLM provider layer: a prompt in, schema-checked JSON and its token cost out.
Analysis imports from here; which vendor answers is the factory's business.

Every name is imported on first use: `stats` and the tray only need the price table,
and the HTTP clients (httpx) and the Anthropic SDK (over a second) would cost them."""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memoryd.llm.anthropic_provider import AnthropicProvider
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

_WHERE = {
    "AnthropicProvider": "anthropic_provider",
    **dict.fromkeys(
        ("LLMBadOutput", "LLMError", "LLMUnavailable", "Prompt", "Provider", "Reply", "Usage"), "base"
    ),
    "Choice": "factory",
    "choose": "factory",
    "OllamaProvider": "http_providers",
    "OpenAIProvider": "http_providers",
    "cost": "pricing",
    "PromptError": "prompts",
    "render": "prompts",
    **dict.fromkeys(
        (
            "PROMPT_SCHEMAS",
            "ChangeReport",
            "DuraOutput",
            "Entities",
            "Entity",
            "IdentityRewrite",
            "SupersedesJudgement",
        ),
        "schemas",
    ),
    "estimate": "tokens",
    "trim": "tokens",
}

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
assert sorted(__all__) == sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(import_module(f"memoryd.llm.{_WHERE[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
