"""The shipped prompt files: each renders fully, has a schema, and DURA stays within budget."""

from __future__ import annotations

import re

import pytest

from memoryd.llm import PROMPT_SCHEMAS, PromptError, render
from memoryd.llm.prompts import names, placeholders
from memoryd.llm.tokens import estimate, trim

EXPECTED = {"dura", "extract_entities", "judge_supersedes", "rewrite_identity", "profile_change_report"}
# The version each prompt is at (an older file stays for the record of what produced what).
VERSIONS = {"extract_entities": 2, "judge_supersedes": 2}
LEFTOVER = re.compile(r"\$(?:[A-Za-z_]|\{)")


def test_all_prompts_ship() -> None:
    assert set(names()) == EXPECTED
    assert set(PROMPT_SCHEMAS) == EXPECTED


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_renders_without_leftover_placeholders(name: str) -> None:
    # Values containing $ and braces must come through verbatim, not be substituted again.
    variables = {var: f"<{var} value with $body and {{json}}>" for var in placeholders(name)}
    prompt = render(name, **variables)

    assert (prompt.name, prompt.version) == (name, VERSIONS.get(name, 1))
    assert 100 <= prompt.max_output_tokens <= 1500
    assert prompt.system and prompt.user
    for var, value in variables.items():
        assert value in prompt.system + prompt.user, var
    for text in (prompt.system, prompt.user):
        stripped = text
        for value in variables.values():
            stripped = stripped.replace(value, "")
        assert not LEFTOVER.search(stripped), stripped


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_prompt_asks_for_every_field_of_its_schema(name: str) -> None:
    prompt = render(name, **{var: "x" for var in placeholders(name)})
    for field in PROMPT_SCHEMAS[name].model_fields:
        assert f'"{field}"' in prompt.system, f"{name} does not ask for {field}"


def test_missing_variable_is_a_clear_error() -> None:
    with pytest.raises(PromptError, match=r"prompt 'dura': missing \$body"):
        render("dura", existing="")
    with pytest.raises(PromptError, match="unknown variable"):
        render("dura", body="b", existing="", bdy="typo")
    with pytest.raises(PromptError, match="no prompt named 'nope'"):
        render("nope")


def test_dura_fits_the_token_budget() -> None:
    """Seed budget: <= 1,500 tokens per DURA call with a ~900-token session and the answer."""
    session = "\n".join(
        f"user: step {i}: Markdown files stay the source of truth, SQLite only indexes them.\n"
        f"assistant: done, updated store/{i}.py and the tests; 记忆文件优先，索引可重建。"
        for i in range(60)
    )
    body = trim(session, 900)
    assert 850 <= estimate(body) <= 900
    existing = "\n".join(
        f"memoryd-decision-{i}: A past decision about the store, number {i}" for i in range(3)
    )
    prompt = render("dura", body=body, existing=existing)

    sent = estimate(prompt.system) + estimate(prompt.user)
    assert sent <= 1200
    assert sent + prompt.max_output_tokens <= 1500
