"""Transcript parsers on real-shaped lines of each agent, and bounds on huge files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from memoryd.capture import transcripts
from memoryd.config import CaptureConfig
from memoryd.redact import Redactor
from memoryd.testing import claude_exchange, write_jsonl


def test_claude_code_blocks(tmp_path: Path):
    lines = claude_exchange(
        "Fix the login bug",
        "The session cookie lacked SameSite.",
        tool="Edit",
        tool_input={"file_path": "/app/auth.py", "old_string": "a", "new_string": "b"},
        tool_output="permission denied",
        is_error=True,
        cwd="/app",
    )
    lines.insert(
        0, {"type": "user", "isMeta": True, "message": {"role": "user", "content": "<command-name>"}}
    )
    p = transcripts.parse(str(write_jsonl(tmp_path / "c.jsonl", lines)), CaptureConfig(), Redactor())
    assert p.prompts == ["Fix the login bug"] and p.answers == ["The session cookie lacked SameSite."]
    assert list(p.files) == ["/app/auth.py"] and p.tools["Edit"] == 1
    assert p.errors == ["permission denied"] and p.cwd == "/app"
    assert [t.role for t in p.turns] == ["user", "tool", "tool", "assistant"]
    assert p.turns[0].ext_id == lines[1]["uuid"]


def test_codex_rollout(tmp_path: Path):
    rows = [
        {
            "timestamp": "t",
            "type": "session_meta",
            "payload": {"id": "th", "cwd": "/repo", "originator": "codex_cli"},
        },
        {
            "timestamp": "t",
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "<environment_context>cwd</environment_context>"}],
            },
        },
        {
            "timestamp": "t",
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "Add a --dry-run flag"}],
            },
        },
        {
            "timestamp": "t",
            "type": "response_item",
            "payload": {
                "type": "function_call",
                "name": "shell",
                "call_id": "c1",
                "arguments": json.dumps({"command": ["bash", "-lc", "cargo test"]}),
            },
        },
        {
            "timestamp": "t",
            "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": "c1", "output": "error: exit code: 101"},
        },
        {
            "timestamp": "t",
            "type": "response_item",
            "payload": {
                "type": "custom_tool_call",
                "name": "apply_patch",
                "input": "*** Begin Patch\n*** Update File: src/main.rs\n@@\n*** End Patch",
            },
        },
        {"timestamp": "t", "type": "event_msg", "payload": {"type": "token_count"}},
        {
            "timestamp": "t",
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Added --dry-run."}],
            },
        },
    ]
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    p = transcripts.parse(str(path), CaptureConfig(), Redactor())
    assert p.prompts == ["Add a --dry-run flag"] and p.answers == ["Added --dry-run."]
    assert p.commands == ["bash -lc cargo test"] and "src/main.rs" in p.files
    assert p.errors and p.cwd == "/repo"


def test_openclaw_session(tmp_path: Path):
    rows = [
        {"type": "session", "version": 3, "id": "s", "timestamp": "t", "cwd": "/ws"},
        {
            "type": "message",
            "id": "1",
            "parentId": None,
            "message": {"role": "user", "content": [{"type": "text", "text": "Summarise my inbox"}]},
        },
        {
            "type": "message",
            "id": "2",
            "parentId": "1",
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Three unread threads."},
                    {"type": "toolCall", "name": "read", "arguments": {"path": "inbox.md"}},
                ],
            },
        },
        {
            "type": "message",
            "id": "3",
            "message": {"role": "toolResult", "content": [{"type": "text", "text": "x"}]},
        },
    ]
    path = tmp_path / "oc.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    p = transcripts.parse(str(path), CaptureConfig(), Redactor())
    assert p.prompts == ["Summarise my inbox"] and p.cwd == "/ws" and "inbox.md" in p.files


def test_fifty_megabyte_transcript_stays_bounded(tmp_path: Path):
    """A 50 MB transcript with a 12 MB single line: parsed in a child process whose peak
    memory is measured, oversized line skipped with a warning, latest turns kept."""
    path = tmp_path / "big.jsonl"
    filler = "lorem ipsum dolor sit amet " * 200
    with open(path, "w") as fh:
        huge = claude_exchange("first prompt", "x")[0]
        huge["message"]["content"] = "y" * (12 * 1024 * 1024)
        fh.write(json.dumps(huge) + "\n")
        i = 0
        while fh.tell() < 50 * 1024 * 1024:
            for line in claude_exchange(f"prompt {i} {filler}", f"answer {i} {filler}"):
                fh.write(json.dumps(line) + "\n")
            i += 1
    code = (
        "import resource, sys\n"
        "from memoryd.capture import transcripts\n"
        "from memoryd.config import CaptureConfig\n"
        "from memoryd.redact import Redactor\n"
        f"p = transcripts.parse({str(path)!r}, CaptureConfig(), Redactor())\n"
        "print(len(p.turns), p.turns[-1].text[:12], '|'.join(p.warnings), sep='\\t')\n"
        # VmHWM: this process's own peak. ru_maxrss also counts the parent's size carried
        # over the fork before exec, so a big pytest worker would be measured instead.
        "hwm = [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:')]\n"
        "print(hwm[0] if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
    )
    res = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300
    )
    first, rss_kb = res.stdout.splitlines()
    count, tail, warnings = first.split("\t")
    assert int(count) == CaptureConfig().max_turns
    assert tail.startswith("answer ")
    assert "1 oversized transcript line(s) skipped" in warnings
    assert int(rss_kb) < 400 * 1024, f"peak memory {int(rss_kb) // 1024} MB"


def test_transcript_over_the_size_limit_keeps_its_first_line_and_latest_turns(tmp_path: Path):
    """capture.max_transcript_bytes bounds what is read of one file: the session_meta line
    (Codex states the session id and folder there) and the latest turns survive."""
    meta = {"timestamp": "t0", "type": "session_meta", "payload": {"id": "th-big", "cwd": "/repo"}}

    def said(i: int) -> dict:
        content = [{"type": "input_text", "text": f"prompt {i} " + "x" * 200}]
        return {
            "timestamp": f"t{i}",
            "type": "response_item",
            "payload": {"type": "message", "role": "user", "content": content},
        }

    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in [meta, *(said(i) for i in range(2000))]))
    cfg = CaptureConfig(max_transcript_bytes=50_000)
    p = transcripts.parse(str(path), cfg, Redactor())
    assert p.session_id == "th-big" and p.cwd == "/repo"
    assert p.prompts[-1].startswith("prompt 1999 ")
    assert 120 < len(p.prompts) < 160, len(p.prompts)  # about 50 KB of 350-byte lines
    assert p.bad_lines == 0  # the line the seek cut into was dropped, not counted as damaged
    assert any("over the 48.8 KB limit" in w for w in p.warnings), p.warnings
