"""OpenAI-compatible endpoints and Ollama over plain httpx: no SDK, so the bounded retry
(429, 5xx, timeouts, connection errors) lives here, with an injectable sleep for tests."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import httpx

from memoryd.llm.base import LLMUnavailable, Prompt, Reply, T, Usage
from memoryd.llm.jsonout import parse, scrub

# Seconds. A Retry-After longer than this is not waited out: the caller defers instead.
MAX_BACKOFF = 8.0
BASE_BACKOFF = 0.5

Sleep = Callable[[float], None]


def backoff(retry: int, retry_after: float | None) -> float:
    """Wait before retry number `retry` (1-based): the server's hint if any, else 0.5 s doubling."""
    if retry_after is not None and retry_after >= 0:
        return min(retry_after, MAX_BACKOFF)
    return min(BASE_BACKOFF * 2 ** (retry - 1), MAX_BACKOFF)


def _retry_after(response: httpx.Response) -> float | None:
    for header, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = response.headers.get(header)
        if value is None:
            continue
        try:
            return float(value) / scale
        except ValueError:
            continue  # an HTTP date: rare enough to fall back to the exponential wait
    return None


def _is_loopback(url: str) -> bool:
    return (urlsplit(url).hostname or "") in ("localhost", "127.0.0.1", "::1")


class _HTTPProvider:
    """The shared request loop; subclasses build the body and read the answer."""

    name = "http"

    def __init__(
        self,
        model: str,
        *,
        base_url: str,
        api_key: str | None,
        timeout: float,
        max_retries: int,
        client: httpx.Client | None,
        transport: httpx.BaseTransport | None,
        sleep: Sleep,
    ) -> None:
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.max_retries = max_retries
        self.timeout = timeout
        self._key = api_key
        self._sleep = sleep
        # A local server must not be sent through the user's HTTP(S)_PROXY.
        self._client = client or httpx.Client(transport=transport, trust_env=not _is_loopback(self.base_url))

    def close(self) -> None:
        self._client.close()

    def _headers(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self._key}"} if self._key else {}

    def _fail(self, cause: str, attempts: int) -> LLMUnavailable:
        tail = f" after {attempts} attempts" if attempts > 1 else ""
        return LLMUnavailable(scrub(f"{self.name}: {cause}{tail}", self._key), attempts=attempts)

    def _post(self, path: str, body: dict[str, Any]) -> tuple[dict[str, Any], int]:
        """POST with bounded retries; returns the decoded JSON envelope and the attempts used."""
        url = f"{self.base_url}{path}"
        attempts = 0
        while True:
            attempts += 1
            retry_after: float | None = None
            try:
                response = self._client.post(url, json=body, headers=self._headers(), timeout=self.timeout)
            except httpx.TimeoutException:
                cause = f"request timed out ({self.timeout:g} s)"
            except httpx.TransportError as exc:
                cause = f"cannot connect to {urlsplit(url).netloc} ({type(exc).__name__})"
            else:
                status = response.status_code
                if status == 429 or status >= 500:
                    cause = f"HTTP {status}"
                    retry_after = _retry_after(response)
                elif status >= 400:
                    raise self._fail(f"HTTP {status}{self._error_hint(response)}", attempts)
                else:
                    try:
                        envelope = response.json()
                    except ValueError:
                        envelope = None
                    if not isinstance(envelope, dict):
                        raise self._fail(f"HTTP {status} with a body that is not a JSON object", attempts)
                    return envelope, attempts
            if attempts > self.max_retries:
                raise self._fail(cause, attempts)
            self._sleep(backoff(attempts, retry_after))

    def _error_hint(self, response: httpx.Response) -> str:
        """The error's type or code only: the message text can quote part of the key."""
        if response.status_code in (401, 403):
            return " (the API key was refused)"
        try:
            error = response.json().get("error")
        except (ValueError, AttributeError):
            return ""
        if isinstance(error, dict):
            kind = error.get("code") or error.get("type")
            return f" ({kind})" if isinstance(kind, str) and kind.replace("_", "").isalnum() else ""
        if isinstance(error, str) and error:
            return f" ({error[:120]})"
        return ""

    def _reply(self, text: str, schema: type[T], usage: Usage, attempts: int, *, truncated: bool) -> Reply[T]:
        who = f"{self.name} {self.model}"
        data = parse(text, schema, usage=usage, attempts=attempts, who=who, truncated=truncated)
        return Reply(data=data, usage=usage, provider=self.name, model=self.model, attempts=attempts)


class OpenAIProvider(_HTTPProvider):
    """Any OpenAI-compatible /chat/completions endpoint (OpenAI, vLLM, LM Studio, gateways)."""

    name = "openai"

    def __init__(
        self,
        model: str,
        api_key: str | None,
        *,
        base_url: str = "https://api.openai.com/v1",
        timeout: float = 30.0,
        max_retries: int = 2,
        client: httpx.Client | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Sleep = time.sleep,
    ) -> None:
        super().__init__(
            model,
            base_url=base_url,
            api_key=api_key,
            timeout=timeout,
            max_retries=max_retries,
            client=client,
            transport=transport,
            sleep=sleep,
        )

    def generate_json(self, prompt: Prompt, schema: type[T]) -> Reply[T]:
        # api.openai.com's newer models accept only max_completion_tokens; other
        # OpenAI-compatible servers mostly know only max_tokens.
        official = urlsplit(self.base_url).hostname == "api.openai.com"
        limit = "max_completion_tokens" if official else "max_tokens"
        body = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": prompt.system},
                {"role": "user", "content": prompt.user},
            ],
            limit: prompt.max_output_tokens,
            "response_format": {"type": "json_object"},
        }
        envelope, attempts = self._post("/chat/completions", body)
        raw_usage = envelope.get("usage") or {}
        usage = Usage(int(raw_usage.get("prompt_tokens") or 0), int(raw_usage.get("completion_tokens") or 0))
        try:
            choice = envelope["choices"][0]
            text = choice["message"]["content"] or ""
        except (KeyError, IndexError, TypeError):
            choice, text = {}, ""
        return self._reply(text, schema, usage, attempts, truncated=choice.get("finish_reason") == "length")


class OllamaProvider(_HTTPProvider):
    """A local Ollama server's /api/chat; no key, and usage comes from its eval counters."""

    name = "ollama"

    def __init__(
        self,
        model: str,
        *,
        base_url: str = "http://127.0.0.1:11434",
        timeout: float = 30.0,
        max_retries: int = 2,
        client: httpx.Client | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Sleep = time.sleep,
    ) -> None:
        super().__init__(
            model,
            base_url=base_url,
            api_key=None,
            timeout=timeout,
            max_retries=max_retries,
            client=client,
            transport=transport,
            sleep=sleep,
        )

    def generate_json(self, prompt: Prompt, schema: type[T]) -> Reply[T]:
        body = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": prompt.system},
                {"role": "user", "content": prompt.user},
            ],
            "stream": False,
            "format": "json",
            "options": {"temperature": 0, "num_predict": prompt.max_output_tokens},
        }
        envelope, attempts = self._post("/api/chat", body)
        usage = Usage(int(envelope.get("prompt_eval_count") or 0), int(envelope.get("eval_count") or 0))
        message = envelope.get("message")
        text = (message.get("content") or "") if isinstance(message, dict) else ""
        return self._reply(text, schema, usage, attempts, truncated=envelope.get("done_reason") == "length")
