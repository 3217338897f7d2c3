"""Claude through the official SDK, which already does bounded retries honouring
retry-after(-ms); this module only shapes the request and maps failures to LLMError."""

from __future__ import annotations

from typing import Any

import anthropic
import httpx

from memoryd.llm.base import LLMUnavailable, Prompt, Reply, T, Usage
from memoryd.llm.jsonout import parse, scrub


class AnthropicProvider:
    """`generate_json` over the Messages API: one system prompt, one user message."""

    name = "anthropic"

    def __init__(
        self,
        model: str,
        api_key: str,
        *,
        base_url: str | None = None,
        timeout: float = 30.0,
        max_retries: int = 2,
        http_client: httpx.Client | None = None,
    ) -> None:
        self.model = model
        self.max_retries = max_retries
        self._key = api_key
        kwargs: dict[str, Any] = {"api_key": api_key, "timeout": timeout, "max_retries": max_retries}
        if base_url:
            kwargs["base_url"] = base_url
        if http_client is not None:
            kwargs["http_client"] = _sdk_client(http_client)
        self._client = anthropic.Anthropic(**kwargs)

    def generate_json(self, prompt: Prompt, schema: type[T]) -> Reply[T]:
        # No temperature: SDK 2.x / API 2026-10-21 reject it (even at 0); the prompt and
        # schema validation keep the answer on track instead.
        try:
            raw = self._client.messages.with_raw_response.create(
                model=self.model,
                max_tokens=prompt.max_output_tokens,
                system=prompt.system,
                messages=[{"role": "user", "content": prompt.user}],
            )
            message = raw.parse()
        except anthropic.APIError as exc:
            raise self._unavailable(exc) from None
        attempts = raw.retries_taken + 1
        usage = Usage(message.usage.input_tokens or 0, message.usage.output_tokens or 0)
        text = "".join(getattr(block, "text", "") for block in message.content if block.type == "text")
        data = parse(
            text,
            schema,
            usage=usage,
            attempts=attempts,
            who=f"{self.name} {self.model}",
            truncated=message.stop_reason == "max_tokens",
        )
        return Reply(data=data, usage=usage, provider=self.name, model=self.model, attempts=attempts)

    def close(self) -> None:
        self._client.close()

    def _unavailable(self, exc: anthropic.APIError) -> LLMUnavailable:
        """One line naming the cause; never the server's message text, which may quote the key."""
        if isinstance(exc, anthropic.APITimeoutError):
            cause = "request timed out"
        elif isinstance(exc, anthropic.APIConnectionError):
            cause = "cannot connect to the API"
        elif isinstance(exc, anthropic.APIStatusError):
            cause = f"HTTP {exc.status_code}"
            kind = _error_type(exc.body)
            if isinstance(exc, (anthropic.AuthenticationError, anthropic.PermissionDeniedError)):
                cause += " (the API key was refused)"
            elif kind:
                cause += f" ({kind})"
        else:
            cause = type(exc).__name__
        attempts = _attempts(exc)
        tail = f" after {attempts} attempts" if attempts > 1 else ""
        return LLMUnavailable(scrub(f"{self.name}: {cause}{tail}", self._key), attempts=attempts)


def _error_type(body: object) -> str | None:
    error = body.get("error") if isinstance(body, dict) else None
    kind = error.get("type") if isinstance(error, dict) else None
    return kind if isinstance(kind, str) and kind.replace("_", "").isalnum() else None


def _attempts(exc: anthropic.APIError) -> int:
    """The SDK stamps each try with x-stainless-retry-count; the failing one tells how many ran."""
    try:
        return int(exc.request.headers.get("x-stainless-retry-count", "0")) + 1
    except (AttributeError, ValueError, RuntimeError):
        return 1


def _sdk_client(client: httpx.Client) -> Any:
    """The client the installed SDK accepts. Since 2.x it runs on `httpx2` and rejects httpx
    objects, so our httpx.Client (tests route it through httpx.MockTransport) is bridged."""
    roots = {cls.__module__.partition(".")[0] for cls in anthropic.DefaultHttpxClient.__mro__}
    if "httpx2" not in roots:
        return client
    import httpx2

    class _Bridge(httpx2.BaseTransport):
        def handle_request(self, request: httpx2.Request) -> httpx2.Response:
            outgoing = httpx.Request(
                request.method,
                str(request.url),
                headers=request.headers.multi_items(),
                content=request.read(),
                extensions={"timeout": request.extensions.get("timeout", {})},
            )
            try:
                response = client.send(outgoing)
            except httpx.TransportError as exc:
                kind = getattr(httpx2, type(exc).__name__, httpx2.TransportError)
                if not (isinstance(kind, type) and issubclass(kind, httpx2.TransportError)):
                    kind = httpx2.TransportError
                raise kind(str(exc), request=request) from exc
            # The body is already decoded, so its encoding and length headers no longer apply.
            drop = {"content-encoding", "content-length", "transfer-encoding"}
            headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in drop]
            return httpx2.Response(
                response.status_code, headers=headers, content=response.content, request=request
            )

        def close(self) -> None:
            client.close()

    return httpx2.Client(transport=_Bridge())
