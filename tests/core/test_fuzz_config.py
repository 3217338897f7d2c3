"""Fuzzed config.toml: from_text gives a Config or one UsageError naming the file and the
key, never another exception (the CLI would print "internal error")."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memoryd import config
from memoryd.errors import UsageError

FAST = settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
PATH = Path("config.toml")

TEMPLATE: dict[str, dict[str, str]] = {
    "capture": {"max_turn_chars": "8000", "max_turns": "5000", "max_line_bytes": "4194304"},
    "search": {"default_limit": "10"},
    "llm": {
        "provider": '"anthropic"',
        "model": '"claude-haiku-4-5"',
        "timeout_seconds": "30.0",
        "max_retries": "2",
    },
    "llm.prices": {'"claude-haiku-4-5"': "[1.0, 5.0]"},
    "llm.openai": {"base_url": '"https://api.openai.com/v1"', "model": '"gpt-5-mini"'},
    "knowledge": {"supersede_review": "0.7", "supersede_auto": "0.9"},
    "email": {"security": '"starttls"', "to": '["a@b.c"]'},
    "decay": {},
    "digest": {},
}
# TOML values of every kind, in the places where another is expected.
LITERALS = (
    "inf",
    "-inf",
    "nan",
    "1e308",
    "99999999999999999999",
    "-1",
    "0",
    "true",
    '""',
    '"x"',
    "[]",
    "[1, 2]",
    '["a", 1]',
    "[[1]]",
    "{}",
    "{a = 1}",
    '{"x" = [1, 2]}',
    "1979-05-27T07:32:00Z",
    "1979-05-27",
    "07:32:00",
    '"""multi\nline"""',
    "'('",
    '["("]',
    '"\\u0000"',
)


@st.composite
def configs(draw: st.DrawFn) -> str:
    lines = []
    for table, keys in TEMPLATE.items():
        if draw(st.integers(0, 5)) == 0:
            continue
        lines.append(f"[{table}]")
        for key, value in keys.items():
            if draw(st.integers(0, 2)) == 0:
                value = draw(st.sampled_from(LITERALS))
            lines.append(f"{key} = {value}")
        if draw(st.integers(0, 4)) == 0:
            extra = draw(st.sampled_from(["prices", "anthropic", "model", "to", "x"]))
            lines.append(f"{extra} = {draw(st.sampled_from(LITERALS))}")
    if draw(st.booleans()):
        lines.insert(0, f"{draw(st.sampled_from(list(TEMPLATE)))} = {draw(st.sampled_from(LITERALS))}")
    return "\n".join(lines) + "\n"


@FAST
@given(text=st.one_of(configs(), st.text(max_size=80)))
# Found by the fuzzer: inf and nan in a number key, and [llm] prices that is not a table.
@example(text="[capture]\nmax_turns = inf\n")
@example(text="[capture]\nmax_turns = nan\n")
@example(text='[llm]\nprices = "x"\n')
@example(text="[capture]\nextra_secret_patterns = [1]\n")
def test_fuzzed_config_loads_or_is_refused(text: str) -> None:
    try:
        cfg = config.from_text(text, PATH)
    except UsageError as exc:
        assert str(exc).startswith("config.toml: ") and "\n" not in str(exc)
        return
    assert cfg.capture.max_turns >= 0
    assert all(isinstance(p, str) for p in cfg.capture.extra_secret_patterns)
    json.dumps(cfg.raw, default=str)
