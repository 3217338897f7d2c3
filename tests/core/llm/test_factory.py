"""Choosing the provider: no provider is a normal outcome, always with a one-line reason."""

from __future__ import annotations

from dataclasses import replace

from memoryd.config import LLMConfig, ProviderConfig
from memoryd.llm import AnthropicProvider, DuraOutput, OllamaProvider, OpenAIProvider, choose, render
from tests.core.llm.replay import Replay, recorded

KEY = "sk-ant-test-0123456789abcdef"


def test_rules_configured() -> None:
    choice = choose(LLMConfig(provider="rules"), env={"ANTHROPIC_API_KEY": KEY})
    assert choice.provider is None
    assert choice.reason == 'provider = "rules" in [llm]: scoring with the rules'


def test_missing_key_names_the_variable() -> None:
    choice = choose(LLMConfig(), env={})
    assert choice.provider is None
    assert choice.reason == "no API key: ANTHROPIC_API_KEY is not set"
    blank = choose(LLMConfig(), env={"ANTHROPIC_API_KEY": "  "})
    assert blank.provider is None and blank.reason == choice.reason


def test_key_read_from_the_configured_variable() -> None:
    cfg = LLMConfig(provider="openai", model="gpt-4o-mini")
    cfg = replace(cfg, providers={**cfg.providers, "openai": ProviderConfig(api_key_env="MY_OPENAI_KEY")})
    assert choose(cfg, env={"OPENAI_API_KEY": KEY}).reason == "no API key: MY_OPENAI_KEY is not set"
    choice = choose(cfg, env={"MY_OPENAI_KEY": KEY})
    assert isinstance(choice.provider, OpenAIProvider)
    assert choice.provider.model == "gpt-4o-mini"
    assert choice.reason == "openai gpt-4o-mini at https://api.openai.com/v1 (key from MY_OPENAI_KEY)"


def test_ollama_needs_no_key() -> None:
    cfg = LLMConfig(provider="ollama")
    cfg = replace(cfg, providers={**cfg.providers, "ollama": ProviderConfig(model="llama3.2")})
    choice = choose(cfg, env={})
    assert isinstance(choice.provider, OllamaProvider)
    assert choice.provider.model == "llama3.2"
    assert choice.reason == "ollama llama3.2 at http://127.0.0.1:11434 (no API key needed)"


def test_anthropic_chosen_and_routed_through_the_transport() -> None:
    replay = Replay(recorded("anthropic", "ok"))
    choice = choose(LLMConfig(max_retries=0), env={"ANTHROPIC_API_KEY": KEY}, transport=replay.transport)
    assert isinstance(choice.provider, AnthropicProvider)
    assert KEY not in choice.reason
    assert choice.reason == "anthropic claude-haiku-4-5 (key from ANTHROPIC_API_KEY)"
    reply = choice.provider.generate_json(render("dura", body="hi", existing=""), DuraOutput)
    assert reply.data.type == "decision"
    assert replay.requests[0].url.path == "/v1/messages"


def test_openai_and_ollama_routed_through_the_transport() -> None:
    for name, env in (("openai", {"OPENAI_API_KEY": KEY}), ("ollama", {})):
        replay = Replay(recorded(name, "ok"))
        choice = choose(LLMConfig(provider=name, model="some-model"), env=env, transport=replay.transport)
        assert choice.provider is not None
        assert choice.provider.generate_json(render("dura", body="hi", existing=""), DuraOutput).attempts == 1
        assert len(replay.requests) == 1
