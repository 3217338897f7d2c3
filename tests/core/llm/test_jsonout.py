"""What the shared JSON extraction forgives, and what it refuses."""

from __future__ import annotations

import pytest

from memoryd.llm.base import LLMBadOutput, Usage
from memoryd.llm.jsonout import extract_object, parse, scrub
from memoryd.llm.schemas import SupersedesJudgement


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1}',
        '```json\n{"a": 1}\n```',
        '```\n{"a": 1}\n```',
        'Here is the JSON you asked for:\n{"a": 1}\nLet me know if you need more.',
        'Sure. ```json\n{"a": 1}\n``` Done.',
    ],
)
def test_tolerated_wrappings(text: str) -> None:
    assert extract_object(text) == {"a": 1}


def test_braces_inside_strings_and_nesting() -> None:
    assert extract_object('note {not json} then {"b": {"c": "}{"}}') == {"b": {"c": "}{"}}


@pytest.mark.parametrize("text", ["", "no json here", "[1, 2]", '{"a": 1', "null"])
def test_refused(text: str) -> None:
    assert extract_object(text) is None


def test_parse_validates_and_keeps_usage() -> None:
    usage = Usage(10, 5)
    ok = parse(
        '{"supersedes": true, "old_slug": "x", "reasoning": "r"}',
        SupersedesJudgement,
        usage=usage,
        attempts=1,
        who="t",
    )
    assert ok.supersedes is True and ok.old_slug == "x"
    with pytest.raises(LLMBadOutput) as caught:
        parse('{"old_slug": "x"}', SupersedesJudgement, usage=usage, attempts=2, who="t")
    assert caught.value.usage == usage and caught.value.attempts == 2
    assert (
        str(caught.value) == "t: the answer does not match SupersedesJudgement (supersedes: Field required)"
    )


def test_scrub() -> None:
    assert scrub("bad key sk-abc123 here\nsecond line", "sk-abc123") == "bad key *** here second line"


def test_a_lone_surrogate_in_an_answer_is_replaced_not_a_bad_answer() -> None:
    """A model that escapes half a character ('\\ud800') gave valid JSON: rejecting it
    would spend a retry on text the rules provider accepts (U+FFFD), and a UTF-8 file
    could not hold it."""
    got = parse(
        '{"supersedes": false, "old_slug": "a\\ud800b", "reasoning": "r\\udfff"}',
        SupersedesJudgement,
        usage=Usage(1, 1),
        attempts=1,
        who="t",
    )
    assert got.old_slug == "a\ufffdb"
    got.model_dump_json().encode("utf-8")
