"""Each provider against recorded responses in its API's wire format, through the real
clients (the anthropic SDK, plain httpx): parsing, usage, retries and error mapping."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anthropic
import httpx
import pytest

from memoryd.errors import MemorydError
from memoryd.llm import (
    AnthropicProvider,
    DuraOutput,
    LLMBadOutput,
    LLMUnavailable,
    OllamaProvider,
    OpenAIProvider,
    Provider,
    Usage,
    render,
)
from tests.core.llm.replay import Loopback, Replay, recorded

KEY = "sk-test-SECRET-0123456789"
PROMPT = render(
    "dura", body="user: let's keep Markdown as the source of truth\nassistant: agreed", existing="(none)"
)


@dataclass
class Api:
    """How to build one provider and what its requests must look like."""

    name: str
    model: str
    build: Callable[..., Provider]

    def check_request(self, body: dict[str, Any], headers: httpx.Headers | dict[str, str]) -> None:
        assert body["model"] == self.model
        if self.name == "anthropic":
            assert body["system"] == PROMPT.system
            assert body["messages"] == [{"role": "user", "content": PROMPT.user}]
            assert body["max_tokens"] == PROMPT.max_output_tokens
            assert "temperature" not in body  # rejected by the 2026-10-21 API version
            assert headers.get("authorization") == f"Bearer {KEY}" or headers.get("x-api-key") == KEY
            return
        assert body["messages"] == [
            {"role": "system", "content": PROMPT.system},
            {"role": "user", "content": PROMPT.user},
        ]
        if self.name == "openai":
            assert body["max_completion_tokens"] == PROMPT.max_output_tokens
            assert body["response_format"] == {"type": "json_object"}
            assert headers.get("authorization") == f"Bearer {KEY}"
        else:
            assert body["stream"] is False and body["format"] == "json"
            assert body["options"]["num_predict"] == PROMPT.max_output_tokens
            assert "authorization" not in headers


def _anthropic(
    transport: httpx.BaseTransport | None = None, *, base_url: str | None = None, **kw: Any
) -> Provider:
    client = httpx.Client(transport=transport) if transport else None
    return AnthropicProvider("claude-haiku-4-5", KEY, base_url=base_url, http_client=client, timeout=5, **kw)


def _openai(
    transport: httpx.BaseTransport | None = None, *, base_url: str | None = None, **kw: Any
) -> Provider:
    url = base_url or "https://api.openai.com/v1"
    return OpenAIProvider("gpt-4o-mini", KEY, base_url=url, transport=transport, timeout=5, **kw)


def _ollama(
    transport: httpx.BaseTransport | None = None, *, base_url: str | None = None, **kw: Any
) -> Provider:
    url = base_url or "http://127.0.0.1:11434"
    return OllamaProvider("llama3.2", base_url=url, transport=transport, timeout=5, **kw)


APIS = [
    Api("anthropic", "claude-haiku-4-5", _anthropic),
    Api("openai", "gpt-4o-mini", _openai),
    Api("ollama", "llama3.2", _ollama),
]
USAGE = {"anthropic": Usage(1087, 164), "openai": Usage(1043, 158), "ollama": Usage(1021, 171)}


@pytest.fixture(params=APIS, ids=lambda a: a.name)
def api(request: pytest.FixtureRequest) -> Api:
    return request.param


@pytest.fixture
def sleeps() -> list[float]:
    return []


def provider(api: Api, replay: Replay, sleeps: list[float], max_retries: int = 2) -> Provider:
    kw: dict[str, Any] = {"max_retries": max_retries}
    if api.name != "anthropic":
        kw["sleep"] = sleeps.append
    return api.build(replay.transport, **kw)


def test_good_answer_is_parsed_with_usage(api: Api, sleeps: list[float]) -> None:
    replay = Replay(recorded(api.name, "ok"))
    reply = provider(api, replay, sleeps).generate_json(PROMPT, DuraOutput)

    assert isinstance(reply.data, DuraOutput)
    assert reply.data.type == "decision" and reply.data.D == 0.85
    assert reply.data.supersedes == ["memoryd-uses-sqlite-as-primary-store"]
    assert reply.usage == USAGE[api.name]
    assert (reply.provider, reply.model, reply.attempts) == (api.name, api.model, 1)
    assert len(replay.requests) == 1
    api.check_request(replay.bodies()[0], replay.requests[0].headers)


def test_malformed_json_is_bad_output_with_usage(api: Api, sleeps: list[float]) -> None:
    replay = Replay(recorded(api.name, "malformed"))
    with pytest.raises(LLMBadOutput) as caught:
        provider(api, replay, sleeps).generate_json(PROMPT, DuraOutput)
    assert caught.value.usage.output_tokens == 360
    assert caught.value.usage.input_tokens > 0
    assert "not a JSON object" in str(caught.value) and "max_output_tokens" in str(caught.value)
    assert len(replay.requests) == 1  # a bad answer is not retried: it would cost again


def test_answer_not_matching_schema_is_bad_output(api: Api, sleeps: list[float]) -> None:
    replay = Replay(recorded(api.name, "schema_mismatch"))
    with pytest.raises(LLMBadOutput) as caught:
        provider(api, replay, sleeps).generate_json(PROMPT, DuraOutput)
    message = str(caught.value)
    assert "DuraOutput" in message and "D:" in message and "\n" not in message
    assert caught.value.usage.total > 0
    assert isinstance(caught.value, MemorydError)


def test_rate_limit_then_success(api: Api, sleeps: list[float], no_real_waits: list[float]) -> None:
    replay = Replay(recorded(api.name, "rate_limited"), recorded(api.name, "ok"))
    reply = provider(api, replay, sleeps).generate_json(PROMPT, DuraOutput)

    assert reply.attempts == 2
    assert len(replay.requests) == 2
    if api.name == "anthropic":
        assert no_real_waits == [pytest.approx(0.002)]  # the SDK honoured retry-after-ms
    else:
        assert sleeps == [1.0]  # Retry-After: 1


def test_server_errors_until_giving_up(api: Api, sleeps: list[float]) -> None:
    replay = Replay(recorded(api.name, "server_error"))
    with pytest.raises(LLMUnavailable) as caught:
        provider(api, replay, sleeps, max_retries=2).generate_json(PROMPT, DuraOutput)

    assert len(replay.requests) == 3
    assert caught.value.attempts == 3
    assert str(caught.value) == f"{api.name}: HTTP 500" + (
        " (api_error)" if api.name == "anthropic" else ""
    ) + (" after 3 attempts")
    if api.name != "anthropic":
        assert sleeps == [0.5, 1.0]  # exponential, no Retry-After


def test_timeout_is_unavailable(api: Api, sleeps: list[float], monkeypatch: pytest.MonkeyPatch) -> None:
    # Timeouts carry no retry-after, so shrink the SDK's exponential base to keep this fast.
    monkeypatch.setattr(anthropic._base_client, "INITIAL_RETRY_DELAY", 0.001)
    replay = Replay(httpx.ReadTimeout("timed out"))
    with pytest.raises(LLMUnavailable) as caught:
        provider(api, replay, sleeps, max_retries=1).generate_json(PROMPT, DuraOutput)

    assert len(replay.requests) == 2
    assert caught.value.attempts == 2
    assert "timed out" in str(caught.value)


def test_connection_refused_is_unavailable(api: Api, sleeps: list[float]) -> None:
    replay = Replay(httpx.ConnectError("[Errno 111] Connection refused"))
    with pytest.raises(LLMUnavailable, match="connect"):
        provider(api, replay, sleeps, max_retries=0).generate_json(PROMPT, DuraOutput)
    assert len(replay.requests) == 1


@pytest.mark.parametrize("api", [a for a in APIS if a.name != "ollama"], ids=lambda a: a.name)
def test_refused_key_is_not_retried_and_never_echoed(api: Api, sleeps: list[float]) -> None:
    replay = Replay(recorded(api.name, "unauthorized"))
    with pytest.raises(LLMUnavailable) as caught:
        provider(api, replay, sleeps).generate_json(PROMPT, DuraOutput)
    assert len(replay.requests) == 1
    assert str(caught.value) == f"{api.name}: HTTP 401 (the API key was refused)"
    assert KEY not in str(caught.value) and KEY[-4:] not in str(caught.value)


def test_key_never_in_any_error_message(api: Api, sleeps: list[float]) -> None:
    for name in ("malformed", "schema_mismatch", "server_error", "rate_limited"):
        replay = Replay(recorded(api.name, name))
        with pytest.raises(Exception) as caught:
            provider(api, replay, sleeps, max_retries=0).generate_json(PROMPT, DuraOutput)
        assert isinstance(caught.value, (LLMBadOutput, LLMUnavailable))
        assert KEY not in str(caught.value) and KEY not in repr(caught.value.args)


def test_ollama_missing_model_names_the_cause(sleeps: list[float]) -> None:
    replay = Replay(recorded("ollama", "model_missing"))
    with pytest.raises(LLMUnavailable) as caught:
        _ollama(replay.transport, sleep=sleeps.append).generate_json(PROMPT, DuraOutput)
    assert str(caught.value) == 'ollama: HTTP 404 (model "llama3.2" not found, try pulling it first)'
    assert len(replay.requests) == 1


def test_openai_compatible_server_gets_max_tokens(sleeps: list[float]) -> None:
    replay = Replay(recorded("openai", "ok"))
    provider = OpenAIProvider(
        "qwen2.5-7b", None, base_url="http://localhost:1234/v1/", transport=replay.transport
    )
    provider.generate_json(PROMPT, DuraOutput)
    request = replay.requests[0]
    assert str(request.url) == "http://localhost:1234/v1/chat/completions"
    assert replay.bodies()[0]["max_tokens"] == PROMPT.max_output_tokens
    assert "authorization" not in request.headers  # no key configured, none sent


@pytest.mark.parametrize("api", APIS, ids=lambda a: a.name)
def test_over_a_real_loopback_socket(api: Api, sleeps: list[float]) -> None:
    """No mock transport at all: the real clients talk HTTP to a local server."""
    server = Loopback(recorded(api.name, "rate_limited"), recorded(api.name, "ok"))
    kw: dict[str, Any] = {} if api.name == "anthropic" else {"sleep": sleeps.append}
    with server.running():
        base = server.url + ("/v1" if api.name == "openai" else "")
        reply = api.build(base_url=base, max_retries=2, **kw).generate_json(PROMPT, DuraOutput)

    assert reply.attempts == 2 and reply.usage == USAGE[api.name]
    assert [s.path for s in server.seen] == [
        {"anthropic": "/v1/messages", "openai": "/v1/chat/completions", "ollama": "/api/chat"}[api.name]
    ] * 2
    body = server.seen[0].body
    assert body["model"] == api.model
    if api.name == "openai":
        # A non-api.openai.com base URL is treated as an OpenAI-compatible server.
        body = {**body, "max_completion_tokens": body.pop("max_tokens")}
    api.check_request(body, server.seen[0].headers)
