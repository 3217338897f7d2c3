"""Fuzzed transcripts (Claude Code JSONL, Codex rollouts, OpenClaw sessions): the parser
reads whatever bytes it is given into a Parsed, warnings for what it skipped, and never
raises; what it keeps can be written to a UTF-8 file."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memoryd.capture import transcripts
from memoryd.config import CaptureConfig
from memoryd.redact import Redactor
from memoryd.testing import claude_exchange
from tests.fuzzing import deep_json, jsonl_bytes

FAST = settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
# Small limits, so that the bounds (line size, turn count, turn length) are crossed too.
CFG = CaptureConfig(max_turn_chars=300, max_turns=6, max_line_bytes=20_000)

CLAUDE = claude_exchange(
    "fix the build", "done", tool="Bash", tool_input={"command": "make", "file_path": "a.py"}
)
CODEX = [
    {
        "timestamp": "2026-05-18T22:30:12Z",
        "type": "session_meta",
        "payload": {"id": "0199a", "cwd": "/tmp/p"},
    },
    {"timestamp": "t", "type": "turn_context", "payload": {"cwd": "/tmp/p"}},
    {
        "timestamp": "t",
        "type": "response_item",
        "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
    },
    {
        "timestamp": "t",
        "type": "response_item",
        "payload": {"type": "function_call", "name": "shell", "arguments": '{"command": ["ls", "-la"]}'},
    },
    {
        "timestamp": "t",
        "type": "response_item",
        "payload": {"type": "custom_tool_call", "name": "apply_patch", "input": "*** Update File: a.py\n"},
    },
    {
        "timestamp": "t",
        "type": "response_item",
        "payload": {"type": "function_call_output", "output": '{"output": "exit code: 1", "metadata": {}}'},
    },
    {
        "timestamp": "t",
        "type": "response_item",
        "payload": {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "ok"}],
        },
    },
]
OPENCLAW = [
    {"type": "session", "id": "oc-1", "cwd": "/tmp/p", "timestamp": "2026-05-18T22:30:12Z"},
    {"type": "message", "id": "m1", "timestamp": "t", "message": {"role": "user", "content": "hi"}},
    {
        "type": "message",
        "id": "m2",
        "message": {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "ok"},
                {"type": "toolCall", "name": "read", "arguments": {"path": "x"}},
            ],
        },
    },
    {
        "type": "message",
        "id": "m3",
        "message": {"role": "toolResult", "content": [{"type": "text", "text": "r"}], "isError": True},
    },
]


def _check(parsed: transcripts.Parsed) -> None:
    """What the worker will write (turns, prompts, answers) must be writable as UTF-8."""
    assert len(parsed.turns) <= CFG.max_turns
    for turn in parsed.turns:
        assert isinstance(turn.text, str)
        turn.text.encode("utf-8")
    for text in [*parsed.prompts, *parsed.answers, *parsed.commands, *parsed.errors, *parsed.files]:
        text.encode("utf-8")
    for value in (parsed.cwd, parsed.first_ts, parsed.session_id):
        assert value is None or isinstance(value, str)


@FAST
@given(data=st.one_of(jsonl_bytes(CLAUDE), jsonl_bytes(CODEX), jsonl_bytes(OPENCLAW)))
def test_fuzzed_transcript_parses_without_raising(tmp_path_factory, data: bytes) -> None:
    path = tmp_path_factory.mktemp("t") / "t.jsonl"
    path.write_bytes(data)
    parsed = transcripts.parse(str(path), CFG, Redactor())
    _check(parsed)


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.binary(max_size=3000))
def test_random_bytes_parse_without_raising(tmp_path_factory, data: bytes) -> None:
    path = tmp_path_factory.mktemp("t") / "t.jsonl"
    path.write_bytes(data)
    _check(transcripts.parse(str(path), CFG, Redactor()))


def test_deeply_nested_json_costs_its_line_only(tmp_path: Path) -> None:
    """Found by the fuzzer: a line nested deeper than json.loads recurses raised
    RecursionError out of parse(), and the worker lost the whole session."""
    lines = [json.dumps(rec) for rec in CLAUDE]
    lines.insert(1, deep_json(5000))
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(lines) + "\n")
    parsed = transcripts.parse(str(path), CFG, Redactor())
    assert parsed.prompts == ["fix the build"] and parsed.bad_lines == 1


def test_deeply_nested_tool_text_is_kept_as_text(tmp_path: Path) -> None:
    """The same inside a JSON string the parser decodes again: Codex's call arguments and
    outputs, and a tool input given as text."""
    deep = deep_json(5000)
    recs = [
        *CODEX[:3],
        {"type": "response_item", "payload": {"type": "function_call", "name": "shell", "arguments": deep}},
        {
            "type": "response_item",
            "payload": {"type": "function_call_output", "output": '{"a":' + deep + "}"},
        },
        CODEX[-1],
    ]
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    parsed = transcripts.parse(str(path), CFG, Redactor())
    assert parsed.prompts == ["hi"] and parsed.answers == ["ok"] and parsed.tools["shell"] == 1


def test_lone_surrogate_escape_becomes_a_replacement_character(tmp_path: Path) -> None:
    """Found by the fuzzer: `"\\ud800"` is valid JSON but no character; the parser handed it
    on and the worker's write of the memory file raised UnicodeEncodeError."""
    recs = claude_exchange("fix \ud800 it", "ok \udfff", tool="Read", tool_input={"file_path": "a\udc80.py"})
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))  # ensure_ascii: escaped
    parsed = transcripts.parse(str(path), CFG, Redactor())
    _check(parsed)
    assert parsed.prompts == ["fix \ufffd it"] and "a\ufffd.py" in parsed.files
