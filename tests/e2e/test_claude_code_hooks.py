"""The acceptance test for Claude Code: `memoryd setup claude-code` into a temporary HOME,
then the exact hook commands it wrote, run the way Claude Code runs them (`sh -c` in the
project, the hook's JSON on stdin). A Stop captures a session; the next SessionStart
hands it back as context; PreCompact and SessionEnd return at once and capture too."""

from __future__ import annotations

import json
import os
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any

from memoryd.testing import claude_exchange, write_jsonl
from tests.conftest import run_cli

# Claude Code caps hook output strings at 10,000 characters (ECOSYSTEM-FACTS 1.3), and
# SessionEnd hooks share a 1.5 s budget.
HOOK_OUTPUT_CAP = 10_000
SESSION_END_BUDGET = 1.5

FIRST_PROMPT = "Add exponential backoff with jitter to the billing client's retry loop"


def _commands(home: Path) -> dict[str, str]:
    """The command strings setup wrote, by event (ours are each in a group of their own)."""
    settings = json.loads((home / ".claude" / "settings.json").read_text(encoding="utf-8"))
    out = {}
    for event, groups in settings["hooks"].items():
        for group in groups:
            for handler in group["hooks"]:
                if "memoryd" in handler["command"]:
                    assert event not in out, f"two memoryd handlers for {event}"
                    out[event] = handler["command"]
    return out


def _hook(
    command: str, payload: dict[str, Any], project: Path
) -> tuple[subprocess.CompletedProcess[bytes], float]:
    """Run one hook as Claude Code does; returns the process and its wall time."""
    start = time.monotonic()
    proc = subprocess.run(
        ["sh", "-c", command],
        input=json.dumps(payload).encode("utf-8"),
        cwd=project,
        env=os.environ,
        capture_output=True,
        timeout=60,
        check=False,
    )
    return proc, time.monotonic() - start


def _transcript(home: Path, project: Path, sid: str, exchanges: list[dict[str, Any]]) -> Path:
    """Where Claude Code keeps it: ~/.claude/projects/<cwd with / as ->/<session id>.jsonl."""
    folder = home / ".claude" / "projects" / str(project).replace("/", "-")
    lines: list[dict[str, Any]] = []
    for ex in exchanges:
        lines += claude_exchange(session_id=sid, cwd=str(project), **ex)
    return write_jsonl(folder / f"{sid}.jsonl", lines)


def _sessions(project: Path) -> list[dict[str, Any]]:
    out = run_cli("list", "--json", "--type", "session", "--scope", str(project))
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _recent_sessions(context: str) -> list[str]:
    lines, inside = [], False
    for line in context.splitlines():
        if line.startswith("## "):
            inside = line == "## Recent sessions"
        elif inside and line.strip():
            lines.append(line)
    return lines


def _session_start(command: str, project: Path, home: Path, source: str) -> str:
    sid = str(uuid.uuid4())
    payload = {
        "session_id": sid,
        "transcript_path": str(home / ".claude" / "projects" / "x" / f"{sid}.jsonl"),
        "cwd": str(project),
        "hook_event_name": "SessionStart",
        "source": source,
        "model": "claude-sonnet-4-5",
    }
    proc, _ = _hook(command, payload, project)
    assert proc.returncode == 0, proc.stderr.decode()
    stdout = proc.stdout.decode("utf-8")
    assert len(stdout) < HOOK_OUTPUT_CAP
    data = json.loads(stdout)
    assert data["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    context = data["hookSpecificOutput"]["additionalContext"]
    assert isinstance(context, str) and len(context) < HOOK_OUTPUT_CAP
    return context


def test_stop_then_session_start_hands_the_session_back(project: Path) -> None:
    home = Path(os.environ["HOME"])
    setup = run_cli("setup", "claude-code")
    assert setup.returncode == 0, setup.stderr
    commands = _commands(home)
    assert set(commands) == {"SessionStart", "Stop", "PreCompact", "SessionEnd"}

    # The first session: a real-shaped transcript, then Stop as Claude Code sends it.
    sid = str(uuid.uuid4())
    transcript = _transcript(
        home,
        project,
        sid,
        [
            {
                "prompt": FIRST_PROMPT,
                "answer": "I read billing/client.py first.",
                "tool": "Read",
                "tool_input": {"file_path": str(project / "billing" / "client.py")},
                "tool_output": "def retry(call):\n    for _ in range(3): ...",
            },
            {
                "prompt": "Run the billing tests",
                "answer": "Backoff is in: 2^n seconds plus jitter; 12 tests pass.",
                "tool": "Bash",
                "tool_input": {"command": "pytest tests/billing -q"},
                "tool_output": "12 passed in 0.41s",
            },
        ],
    )
    stop = {
        "session_id": sid,
        "transcript_path": str(transcript),
        "cwd": str(project),
        "permission_mode": "default",
        "hook_event_name": "Stop",
        "stop_hook_active": False,
        "last_assistant_message": "Backoff is in: 2^n seconds plus jitter; 12 tests pass.",
    }
    proc, _ = _hook(commands["Stop"], stop, project)
    assert proc.returncode == 0, proc.stderr.decode()
    assert run_cli("worker", "--wait").returncode == 0

    (captured,) = _sessions(project)
    assert captured["source"] == "claude-code"
    got = json.loads(run_cli("get", captured["slug"], "--json").stdout)
    assert got["session_id"] == sid and got["title"] == FIRST_PROMPT
    assert "pytest tests/billing -q" in got["body"]

    # The next session starts: the hook's context holds the captured one.
    context = _session_start(commands["SessionStart"], project, home, "startup")
    recent = _recent_sessions(context)
    assert any(FIRST_PROMPT in line and ", claude-code, " in line for line in recent), context


def test_precompact_and_session_end_return_at_once_and_capture(project: Path) -> None:
    home = Path(os.environ["HOME"])
    assert run_cli("setup", "claude-code").returncode == 0
    commands = _commands(home)
    sid = str(uuid.uuid4())
    prompt = "Rename the orders table's cust_id column to customer_id"
    transcript = _transcript(
        home,
        project,
        sid,
        [
            {
                "prompt": prompt,
                "answer": "Wrote migration 0042_rename_cust_id.sql.",
                "tool": "Write",
                "tool_input": {"file_path": str(project / "db" / "0042_rename_cust_id.sql")},
            }
        ],
    )
    common = {"session_id": sid, "transcript_path": str(transcript), "cwd": str(project)}
    pre, pre_time = _hook(
        commands["PreCompact"],
        {**common, "hook_event_name": "PreCompact", "trigger": "manual", "custom_instructions": ""},
        project,
    )
    assert pre.returncode == 0, pre.stderr.decode()
    end, end_time = _hook(
        commands["SessionEnd"],
        {**common, "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"},
        project,
    )
    assert end.returncode == 0, end.stderr.decode()
    assert end_time < SESSION_END_BUDGET, f"SessionEnd took {end_time:.2f} s"
    assert pre_time < SESSION_END_BUDGET, f"PreCompact took {pre_time:.2f} s"
    assert b"Traceback" not in pre.stderr + end.stderr

    assert run_cli("worker", "--wait").returncode == 0
    (captured,) = _sessions(project)  # both events feed one memory: the session's
    got = json.loads(run_cli("get", captured["slug"], "--json").stdout)
    assert got["session_id"] == sid and got["title"] == prompt
    assert "0042_rename_cust_id.sql" in got["body"]
    events = json.loads(run_cli("audit", "--event-type", "capture", "--json").stdout)
    assert len(events) == 2

    context = _session_start(commands["SessionStart"], project, home, "resume")
    assert any(prompt in line for line in _recent_sessions(context)), context
