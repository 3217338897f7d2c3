"""Which provider analysis uses, decided once from config and environment. No provider is a
normal outcome (the rules score instead), so the answer always carries a one-line reason."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

import httpx

from memoryd.config import LLMConfig
from memoryd.llm.base import Provider
from memoryd.llm.http_providers import OllamaProvider, OpenAIProvider


@dataclass(frozen=True)
class Choice:
    """`provider` None means "use the rules"; `reason` says why, or what was chosen."""

    provider: Provider | None
    reason: str


ANTHROPIC_URL = "https://api.anthropic.com"
OPENAI_URL = "https://api.openai.com/v1"
OLLAMA_URL = "http://127.0.0.1:11434"


def endpoint(cfg: LLMConfig) -> str | None:
    """Where analysis would send text: the provider and the URL it reaches (None for the
    rules). A sensitive project's consent names it (memoryd.sensitive.llm_access), so a
    base_url changed in the config file afterwards is not covered by it. The Anthropic SDK
    reads ANTHROPIC_BASE_URL from the process environment when the config names no URL."""
    name = cfg.provider
    if name not in ("anthropic", "openai", "ollama"):
        return None
    url = cfg.provider_config(name).base_url
    if not url:
        url = {"anthropic": os.environ.get("ANTHROPIC_BASE_URL") or ANTHROPIC_URL}.get(name)
        url = url or {"openai": OPENAI_URL, "ollama": OLLAMA_URL}[name]
    return f"{name} {url.strip().rstrip('/')}"


def choose(
    cfg: LLMConfig,
    *,
    env: Mapping[str, str] | None = None,
    transport: httpx.BaseTransport | None = None,
    keyring_fallback: bool | None = None,
) -> Choice:
    """The provider `[llm]` asks for, if it can be used; the key is read from `env` (the
    process environment by default), else from the OS keyring where the tray's settings
    store it (only when reading the process environment, unless asked);
    `transport` routes tests' traffic."""
    if keyring_fallback is None:
        keyring_fallback = env is None
    env = os.environ if env is None else env
    name = cfg.provider
    if name == "rules":
        return Choice(None, 'provider = "rules" in [llm]: scoring with the rules')
    pcfg = cfg.provider_config(name)
    model = cfg.model_for(name)
    common = {"timeout": cfg.timeout_seconds, "max_retries": cfg.max_retries}
    if name == "ollama":
        base_url = pcfg.base_url or OLLAMA_URL
        ollama = OllamaProvider(model, base_url=base_url, transport=transport, **common)
        return Choice(ollama, f"ollama {model} at {base_url} (no API key needed)")
    if name not in ("anthropic", "openai"):
        return Choice(None, f"unknown provider {name!r}: scoring with the rules")
    if not pcfg.api_key_env:
        return Choice(None, f"no API key: [llm.{name}] api_key_env is not set")
    key = (env.get(pcfg.api_key_env) or "").strip()
    source = pcfg.api_key_env
    if not key and keyring_fallback:
        from memoryd import secrets

        key, source = secrets.get_api_key(name) or "", "the OS keyring"
    if not key:
        tail = " and none is in the OS keyring" if keyring_fallback else ""
        return Choice(None, f"no API key: {pcfg.api_key_env} is not set{tail}")
    where = f" at {pcfg.base_url}" if pcfg.base_url else ""
    if name == "anthropic":
        from memoryd.llm.anthropic_provider import AnthropicProvider  # the SDK is slow to import

        client = httpx.Client(transport=transport) if transport is not None else None
        provider: Provider = AnthropicProvider(
            model, key, base_url=pcfg.base_url, http_client=client, **common
        )
    else:
        base_url = pcfg.base_url or OPENAI_URL
        where = f" at {base_url}"
        provider = OpenAIProvider(model, key, base_url=base_url, transport=transport, **common)
    return Choice(provider, f"{name} {model}{where} (key from {source})")
