"""The rules' DURA reasoning line reads back as the values it was written from (issue 22:
the tray words them in the user's language), and an LLM's prose is not taken for one."""

from __future__ import annotations

from memoryd.llm import rules
from memoryd.review import read_rule_reasoning


def test_a_rules_line_reads_back_as_values() -> None:
    body = "In this repo always use pnpm, never npm. This is important, remember it. pnpm pnpm pnpm"
    line = rules.score("x", body, reason="the LLM failed 3 times, last: timeout (30 s)").reasoning
    why = read_rule_reasoning(line)
    assert why is not None, line
    assert (why.kind, why.intrinsic, why.type, why.importance) == ("preference", 0.8, "preference", 1.0)
    assert why.cue and not why.cue_is_label and why.cue in body
    assert why.signals == [("remember", 0.5), ("important", 0.3)]
    assert why.repeated == ["pnpm"]
    assert (why.reason, why.reason_text) == ("llm_failed", "the LLM failed 3 times, last: timeout (30 s)")


def test_a_session_with_nothing_to_keep() -> None:
    why = read_rule_reasoning(rules.score("x", "Fixed the typo in foo.py.").reasoning)
    assert why is not None and why.kind == "nothing" and why.type == "" and why.reason == ""


def test_an_llms_reasoning_is_its_own() -> None:
    assert read_rule_reasoning("Stated as a standing rule; likely to matter again.") is None
    assert read_rule_reasoning("") is None and read_rule_reasoning(None) is None
