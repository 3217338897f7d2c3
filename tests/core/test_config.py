"""config.toml: seed 000's [llm] layout, defaults, and one clear line for each mistake."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memoryd import config
from memoryd.errors import UsageError


def _load(tmp_path: Path, text: str) -> config.Config:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return config.load(path)


def test_missing_file_means_defaults(tmp_path: Path):
    cfg = config.load(tmp_path / "absent.toml")
    assert cfg.llm.provider == "anthropic" and cfg.llm.model == "claude-haiku-4-5"
    assert cfg.llm.daily_token_budget == 200_000
    assert cfg.llm.provider_config().api_key_env == "ANTHROPIC_API_KEY"
    assert cfg.governance.promote_threshold == 0.6
    assert (cfg.decay.dim_after_days, cfg.decay.soft_forget_after_days, cfg.decay.forget_after_days) == (
        90,
        30,
        90,
    )
    assert not cfg.email.configured


def test_seed_000_layout(tmp_path: Path):
    cfg = _load(
        tmp_path,
        """
[llm]
provider = "openai"
model    = "gpt-4o-mini"

[llm.anthropic]
api_key_env = "ANTHROPIC_API_KEY"

[llm.openai]
api_key_env = "MY_OPENAI_KEY"
base_url    = "http://127.0.0.1:8080/v1"

[llm.ollama]
base_url = "http://127.0.0.1:11434"

[llm.prices]
"gpt-4o-mini" = [0.1, 0.2]

[email]
host = "smtp.example.org"
to = ["me@example.org"]
""",
    )
    assert cfg.llm.provider == "openai" and cfg.llm.model_for() == "gpt-4o-mini"
    assert cfg.llm.provider_config().api_key_env == "MY_OPENAI_KEY"
    assert cfg.llm.provider_config().base_url == "http://127.0.0.1:8080/v1"
    assert cfg.llm.prices == {"gpt-4o-mini": (0.1, 0.2)}
    assert cfg.email.configured and cfg.email.to == ("me@example.org",) and cfg.email.port == 587


def test_per_provider_model(tmp_path: Path):
    cfg = _load(tmp_path, '[llm]\nprovider = "ollama"\n[llm.ollama]\nmodel = "qwen2.5:7b"\n')
    assert cfg.llm.model_for() == "qwen2.5:7b"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('[llm]\nprovider = "gemini"\n', "provider must be one of"),
        ('[llm]\nprovider = "openai"\n', "needs a model"),
        ("[llm]\ndaily_token_budget = -5\n", "non-negative number"),
        ('[llm]\ndaily_token_budget = "lots"\n', "non-negative number"),
        ("[llm]\nallow_sensitive = 1\n", "true or false"),
        ("[llm]\ntemperature = 0\n", "unknown key(s) in [llm]: temperature"),
        ('[llm.openai]\nkey = "x"\n', "unknown key(s) in [llm.openai]: key"),
        ('[llm.prices]\n"m" = 3\n', "[input, output]"),
        ("[decay]\ndim_after = 3\n", "unknown key(s) in [decay]"),
        ('[email]\nsecurity = "tls"\n', "starttls, ssl or none"),
        ("governance = 3\n", "[governance] must be a table"),
    ],
)
def test_mistakes_are_one_clear_line(tmp_path: Path, text: str, words: str):
    with pytest.raises(UsageError) as exc:
        _load(tmp_path, text)
    assert words in str(exc.value) and "\n" not in str(exc.value)


def test_an_invalid_extra_secret_pattern_is_a_config_error_naming_it(cli, tmp_path: Path, project: Path):
    """Through the real CLI with a hand-edited config: the worker (the first to redact with
    the pattern) and any other command say which pattern is wrong, in one line, exit 2."""
    (tmp_path / "config.toml").write_text(
        '[capture]\nextra_secret_patterns = ["tok_[0-9]+", "bad(unclosed"]\n'
    )
    payload = json.dumps({"session_id": "p1", "cwd": str(project), "last_assistant_message": "hi"})
    assert (
        cli("capture", "--source=claude-code", stdin=payload, env={"MEMORYD_NO_WORKER": "1"}).returncode == 0
    )
    for args in (("worker",), ("list",)):
        out = cli(*args)
        assert out.returncode == 2, (args, out.returncode, out.stderr)
        assert "extra_secret_patterns[1]" in out.stderr and "bad(unclosed" in out.stderr, out.stderr
        assert "internal error" not in out.stderr and out.stderr.count("\n") == 1, out.stderr
