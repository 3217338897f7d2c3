"""Which provider analysis uses, decided once from config and environment. No provider is a
normal outcome (the rules score instead), so the answer always carries a one-line reason."""

from __future__ import annotations

import contextlib
import functools
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal
from urllib.parse import SplitResult, urlsplit

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


# Certificate stores httpx reads from the environment when a client trusts it (every
# client but one for a loopback URL); proxies are read as the clients read them
# (urllib.request.getproxies: any letter case of *_proxy).
CERT_VARS = ("SSL_CERT_FILE", "SSL_CERT_DIR")
_HOST = re.compile(r"[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]")
_PATH = re.compile(r"[A-Za-z0-9._~/%-]*")


def _url(cfg: LLMConfig) -> str | None:
    name = cfg.provider
    if name not in ("anthropic", "openai", "ollama"):
        return None
    url = (cfg.provider_config(name).base_url or "").strip()
    if not url and name == "anthropic":
        url = (os.environ.get("ANTHROPIC_BASE_URL") or "").strip() or ANTHROPIC_URL
    return url or {"openai": OPENAI_URL, "ollama": OLLAMA_URL}.get(name, "")


def _port(parts: SplitResult) -> int | Literal[False] | None:
    """The URL's port; None when it names none; False when it names one no socket has."""
    try:
        return parts.port
    except ValueError:
        return False


def _loopback(host: str) -> bool:
    return host in ("localhost", "127.0.0.1", "::1", "[::1]")


def endpoint(cfg: LLMConfig) -> str | None:
    """Where analysis would send text, as a sensitive project's consent names it
    (memoryd.sensitive.llm_access): the provider, its URL, and what in this process's
    environment reroutes the request or exposes it (a proxy in any letter case, a
    certificate store, SSLKEYLOGFILE: reviews on 2026-11-28 read a project allowed for
    api.anthropic.com through a TLS proxy of their own); for Ollama the model too (a
    `-cloud` model forwards off the machine). None for the rules. The Anthropic SDK reads
    ANTHROPIC_BASE_URL when the config names no URL."""
    url = _url(cfg)
    if url is None:
        return None
    parts = urlsplit(url)
    port = _port(parts)
    host = (parts.hostname or "").lower()
    shown_host = f"[{host}]" if ":" in host else host
    user = "…@" if "@" in parts.netloc else ""
    canon = f"{parts.scheme.lower()}://{user}{shown_host}{f':{port}' if port else ''}{parts.path.rstrip('/')}"
    if parts.query or parts.fragment:
        canon += "?…"
    out = f"{cfg.provider} {canon}"
    if cfg.provider == "ollama":
        out += f" model {cfg.model_for('ollama')}"
    route = _route(trusts_env=cfg.provider == "anthropic" or not _loopback(host))
    return out + (f" via {' '.join(route)}" if route else "")


def _route(trusts_env: bool) -> list[str]:
    """What in this process's environment changes where a request goes or who can read it."""
    import urllib.request

    route = []
    if trusts_env:
        route += [f"{k}_proxy={_shown(v)}" for k, v in sorted(urllib.request.getproxies().items())]
        route += [f"{k}={os.environ[k].strip()}" for k in CERT_VARS if os.environ.get(k, "").strip()]
        route = [r for r in route if not _usual_certs(r)]
    if os.environ.get("SSLKEYLOGFILE", "").strip():  # every TLS context Python makes writes its secrets there
        route.append(f"SSLKEYLOGFILE={os.environ['SSLKEYLOGFILE'].strip()}")
    return route


@functools.cache
def _default_stores() -> frozenset[str]:
    import ssl

    paths = ssl.get_default_verify_paths()
    # the compiled-in places only: .cafile and .capath follow SSL_CERT_FILE / SSL_CERT_DIR
    found = {paths.openssl_cafile, paths.openssl_capath}
    with contextlib.suppress(ImportError):
        import certifi

        found.add(certifi.where())
    return frozenset(os.path.realpath(p) for p in found if p)


def _usual_certs(item: str) -> bool:
    """SSL_CERT_FILE / SSL_CERT_DIR naming the system's own store (many images set them):
    no reroute, so no part of the consent."""
    var, _, value = item.partition("=")
    return var in CERT_VARS and os.path.realpath(value) in _default_stores()


def _shown(value: str) -> str:
    """A proxy's user name and password are no part of where it goes: kept out of the
    consent, the prompt and `doctor`."""
    value = value.strip()
    return re.sub(r"(?<=://)[^/@\s]*@", "…@", value)


def endpoint_problem(cfg: LLMConfig) -> str | None:
    """Why a consent may not be given for this endpoint: a URL that does not say plainly
    where it goes (a user name before an @, characters no host has, a query), or text
    sent in the clear to another machine."""
    url = _url(cfg)
    if url is None:
        return None
    parts = urlsplit(url)
    if _port(parts) is False:
        return f"[llm] base_url {url!r} has no valid port"
    host = parts.hostname or ""
    if parts.scheme.lower() not in ("http", "https"):
        return f"[llm] base_url {url!r} is not an http or https URL"
    if "@" in parts.netloc:
        return "[llm] base_url carries a user name before its host: it does not say plainly where it goes"
    if not _HOST.fullmatch(parts.netloc.rsplit(":", 1)[0] if parts.port else parts.netloc) or not host:
        return f"[llm] base_url {url!r} has characters no host name has"
    if not _PATH.fullmatch(parts.path) or parts.query or parts.fragment:
        return f"[llm] base_url {url!r} has characters, a query or a fragment a provider's URL does not"
    if parts.scheme.lower() == "http" and not _loopback(host.lower()):
        return "[llm] base_url sends in the clear (http) to another machine: use https"
    if os.environ.get("SSLKEYLOGFILE", "").strip():
        return "SSLKEYLOGFILE is set: the TLS secrets of every request would be written to that file"
    return None


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
