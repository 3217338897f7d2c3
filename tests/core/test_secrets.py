"""API keys in the OS keyring (a real gnome-keyring Secret Service), never in config.toml;
the environment variable still wins, and a machine without a keyring says so in one line."""

from __future__ import annotations

from pathlib import Path

import keyring
import pytest

from memoryd import secrets
from memoryd.app import Memoryd
from memoryd.config import LLMConfig
from memoryd.errors import KeyUnavailable, UsageError
from memoryd.llm import AnthropicProvider, DuraOutput, OpenAIProvider, choose, render
from tests.core.llm.replay import Replay, recorded

STORED = "sk-ant-stored-0123456789abcdef"
FROM_ENV = "sk-ant-environment-fedcba9876543210"


def _sent_key(provider, replay: Replay) -> str:
    """Send one request through the real SDK; the key it carried (as x-api-key or a bearer token)."""
    provider.generate_json(render("dura", body="hi", existing=""), DuraOutput)
    headers = replay.requests[-1].headers
    return headers.get("x-api-key") or headers["authorization"].removeprefix("Bearer ")


def test_set_get_delete(secret_service: str, isolated_home: Path, tmp_path: Path):
    assert secrets.get_api_key("anthropic") is None
    secrets.set_api_key("anthropic", f"  {STORED}\n")  # pasted with a line break: trimmed
    assert secrets.get_api_key("anthropic") == STORED
    assert keyring.get_password(secrets.SERVICE, "anthropic") == STORED
    assert secrets.get_api_key("openai") is None  # one entry per provider
    secrets.set_api_key("openai", "sk-openai-1")
    secrets.set_api_key("anthropic", None)
    assert secrets.get_api_key("anthropic") is None
    assert secrets.get_api_key("openai") == "sk-openai-1"
    secrets.set_api_key("openai", "   ")  # blank deletes too
    secrets.set_api_key("openai", "")  # and deleting what is gone is fine
    assert secrets.get_api_key("openai") is None

    app = Memoryd()
    assert not app.api_key_stored("anthropic")
    app.set_api_key("anthropic", STORED, actor="tray")
    assert app.api_key_stored("anthropic")
    (event,) = [e for e in app.store.audit.events() if e.event_type == "settings"]
    assert event.details_obj == {"api_key": "anthropic", "stored": True} and event.actor == "tray"
    # The key itself is in the keyring only: no file of memoryd's holds it.
    assert not [p for p in tmp_path.rglob("*") if p.is_file() and "keyring" not in str(p) and _holds(p)]
    app.set_api_key("anthropic", None)
    assert not app.api_key_stored("anthropic")


def _holds(path: Path) -> bool:
    return STORED.encode() in path.read_bytes()


def test_choose_falls_back_to_the_keyring(secret_service: str):
    secrets.set_api_key("anthropic", STORED)
    replay = Replay(recorded("anthropic", "ok"))
    choice = choose(LLMConfig(max_retries=0), transport=replay.transport)  # the process env: no key
    assert isinstance(choice.provider, AnthropicProvider)
    assert choice.reason == "anthropic claude-haiku-4-5 (key from the OS keyring)"
    assert STORED not in choice.reason
    assert _sent_key(choice.provider, replay) == STORED

    # An explicit env is all there is unless the keyring is asked for.
    assert choose(LLMConfig(), env={}).reason == "no API key: ANTHROPIC_API_KEY is not set"
    got = choose(LLMConfig(max_retries=0), env={}, keyring_fallback=True, transport=replay.transport)
    assert got.reason == "anthropic claude-haiku-4-5 (key from the OS keyring)"


def test_the_environment_variable_wins(secret_service: str, monkeypatch: pytest.MonkeyPatch):
    secrets.set_api_key("anthropic", STORED)
    replay = Replay(recorded("anthropic", "ok"))
    choice = choose(
        LLMConfig(max_retries=0),
        env={"ANTHROPIC_API_KEY": FROM_ENV},
        keyring_fallback=True,
        transport=replay.transport,
    )
    assert choice.reason == "anthropic claude-haiku-4-5 (key from ANTHROPIC_API_KEY)"
    assert _sent_key(choice.provider, replay) == FROM_ENV

    monkeypatch.setenv("ANTHROPIC_API_KEY", FROM_ENV)  # the process environment, as in CI
    choice = choose(LLMConfig(max_retries=0), transport=replay.transport)
    assert choice.reason.endswith("(key from ANTHROPIC_API_KEY)")
    assert _sent_key(choice.provider, replay) == FROM_ENV

    blank = choose(
        LLMConfig(max_retries=0),
        env={"ANTHROPIC_API_KEY": "  "},
        keyring_fallback=True,
        transport=replay.transport,
    )
    assert blank.reason.endswith("(key from the OS keyring)")  # a blank variable is no key


def test_openai_key_from_the_keyring(secret_service: str):
    secrets.set_api_key("openai", "sk-openai-stored-42")
    replay = Replay(recorded("openai", "ok"))
    choice = choose(
        LLMConfig(provider="openai", model="gpt-4o-mini", max_retries=0),
        env={},
        keyring_fallback=True,
        transport=replay.transport,
    )
    assert isinstance(choice.provider, OpenAIProvider)
    assert choice.reason == "openai gpt-4o-mini at https://api.openai.com/v1 (key from the OS keyring)"
    assert _sent_key(choice.provider, replay) == "sk-openai-stored-42"


def test_without_a_keyring(no_keyring: None):
    assert secrets.get_api_key("anthropic") is None
    with pytest.raises(KeyUnavailable) as err:
        secrets.set_api_key("anthropic", STORED)
    msg = str(err.value)
    assert "\n" not in msg and "no OS keyring" in msg and "environment variable" in msg, msg
    assert STORED not in msg
    with pytest.raises(KeyUnavailable):
        secrets.set_api_key("anthropic", None)

    choice = choose(LLMConfig(), env={}, keyring_fallback=True)
    assert choice.provider is None
    assert choice.reason == "no API key: ANTHROPIC_API_KEY is not set and none is in the OS keyring"

    app = Memoryd()
    assert not app.api_key_stored("anthropic")
    with pytest.raises(KeyUnavailable):
        app.set_api_key("anthropic", STORED)


@pytest.mark.parametrize("key", ["sk-ant abc", "sk-ant-\nabc", "sk\tant"])
def test_a_key_with_spaces_is_refused(key: str):
    with pytest.raises(UsageError, match="no spaces or line breaks"):
        secrets.set_api_key("anthropic", key)


def test_only_providers_that_take_a_key(no_keyring: None):
    for provider in ("ollama", "rules", "Anthropic", ""):
        with pytest.raises(UsageError, match="only anthropic, openai take an API key"):
            secrets.set_api_key(provider, STORED)
        with pytest.raises(UsageError):
            secrets.get_api_key(provider)
