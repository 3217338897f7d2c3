"""Reusable test material: real-shaped agent transcripts and hook payloads, shared by the
core and desktop tests and the benchmarks."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any


def claude_exchange(
    prompt: str,
    answer: str,
    *,
    tool: str | None = None,
    tool_input: dict | None = None,
    tool_output: str = "ok",
    is_error: bool = False,
    session_id: str = "s",
    cwd: str = "/tmp",
    ts: str = "2026-05-18T22:30:12.000Z",
) -> list[dict[str, Any]]:
    """One user prompt, optionally a tool_use and its tool_result, then the answer: the
    line shapes Claude Code writes (uuid/parentUuid chain, message.content blocks)."""
    common = {
        "sessionId": session_id,
        "cwd": cwd,
        "version": "2.1.200",
        "gitBranch": "main",
        "isSidechain": False,
        "userType": "external",
        "timestamp": ts,
    }
    lines: list[dict[str, Any]] = []
    parent = None

    def add(kind: str, message: dict[str, Any], **extra: Any) -> None:
        nonlocal parent
        uid = str(uuid.uuid4())
        lines.append({"type": kind, "uuid": uid, "parentUuid": parent, **common, "message": message, **extra})
        parent = uid

    add("user", {"role": "user", "content": prompt})
    if tool:
        tid = "toolu_" + uuid.uuid4().hex[:20]
        add(
            "assistant",
            {
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "stop_reason": "tool_use",
                "content": [
                    {"type": "thinking", "thinking": "let me look"},
                    {"type": "tool_use", "id": tid, "name": tool, "input": tool_input or {}},
                ],
            },
        )
        add(
            "user",
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": tid, "content": tool_output, "is_error": is_error}
                ],
            },
            toolUseResult={"stdout": tool_output},
        )
    add(
        "assistant",
        {
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "stop_reason": "end_turn",
            "content": [{"type": "text", "text": answer}],
        },
    )
    return lines


def write_jsonl(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(json.dumps({"type": "summary", "summary": "old", "leafUuid": "x"}) + "\n")
        for line in lines:
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")
    return path


def stop_payload(session_id: str, transcript: Path | str, cwd: Path | str, **extra: Any) -> bytes:
    payload = {
        "session_id": session_id,
        "transcript_path": str(transcript),
        "cwd": str(cwd),
        "hook_event_name": "Stop",
        "stop_hook_active": False,
        **extra,
    }
    return json.dumps(payload).encode("utf-8")
