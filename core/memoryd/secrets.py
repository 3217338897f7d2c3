"""API keys in the OS keyring (service "memoryd-llm", user = provider name), never in
config.toml. The environment variable `[llm.<provider>] api_key_env` names still wins, so
CI and cron need no keyring; the tray's settings write here."""

from __future__ import annotations

import contextlib

from memoryd import oskeyring
from memoryd.errors import KeyUnavailable, UsageError

SERVICE = "memoryd-llm"
PROVIDERS_WITH_KEYS = ("anthropic", "openai")


def _check(provider: str) -> None:
    if provider not in PROVIDERS_WITH_KEYS:
        raise UsageError(f"only {', '.join(PROVIDERS_WITH_KEYS)} take an API key, not {provider!r}")


def get_api_key(provider: str) -> str | None:
    """The stored key, or None when none is stored or no keyring exists here."""
    import keyring

    _check(provider)
    try:
        return oskeyring.call(lambda: keyring.get_password(SERVICE, provider)) or None
    except oskeyring.unavailable():
        return None


def set_api_key(provider: str, key: str | None) -> None:
    """Store (or, with None or blank, delete) the key; KeyUnavailable without a keyring, or
    with one that does not keep it (the null backend of `keyring --disable` drops it)."""
    import keyring
    from keyring.errors import PasswordDeleteError

    _check(provider)
    value = (key or "").strip()
    if any(c.isspace() for c in value):
        raise UsageError("an API key has no spaces or line breaks in it")
    kept = True
    try:
        if value:
            oskeyring.call(lambda: keyring.set_password(SERVICE, provider, value))
            kept = oskeyring.call(lambda: keyring.get_password(SERVICE, provider)) == value
        else:
            with contextlib.suppress(PasswordDeleteError):  # nothing stored: already deleted
                oskeyring.call(lambda: keyring.delete_password(SERVICE, provider))
    except oskeyring.unavailable() as exc:
        raise KeyUnavailable(
            f"no OS keyring to hold the {provider} API key ({exc.__class__.__name__}); "
            "set the environment variable instead"
        ) from None
    if value and not kept:
        raise KeyUnavailable(
            f"the OS keyring ({keyring.get_keyring().name}) did not keep the {provider} API key; "
            "set the environment variable instead"
        )
