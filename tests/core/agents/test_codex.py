"""`memoryd setup codex`: notify and [mcp_servers.memoryd] in config.toml (every other
byte kept, byte-identical after uninstall), SessionStart and Stop hooks in hooks.json with
only documented fields, CODEX_HOME honoured, bad or foreign config left alone, the trust
note only when a hook changed; then the notify command and the hooks run exactly as Codex
runs them (stdin, stdout and exit code as openai/codex codex-rs/hooks reads them)."""

from __future__ import annotations

import difflib
import json
import os
import subprocess
import sys
import tomllib
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import memoryd
from tests.core.sensitive.support import one_line_error

Cli = Callable[..., subprocess.CompletedProcess[str]]

HAND_EDITED = """\
# Codex settings, edited by hand.
model = "gpt-5-codex"   # the default model
approval_policy = "on-request"
sandbox_mode = "workspace-write"

[features]
hooks = true

# A server I use every day.
[mcp_servers.other]
command = "npx"
args = ["-y", "@acme/mcp-server"]   # pinned
startup_timeout_sec = 20

[mcp_servers.other.env]
ACME_TOKEN_FILE = "~/.acme/token"

[profiles.x]
model = "o3"
approval_policy = "never"
# trailing comment
"""
# What `codex mcp add` leaves: tables only, no top-level key, no blank line at the end.
MCP_ADD = """\
[mcp_servers.context7]
command = "npx"
args = ["-y", "@upstash/context7-mcp"]
"""
NO_BLANK_LINES = """\
model = "o3"
[mcp_servers.other]
command = "x"
[profiles.y]
model = "gpt-5"
"""
CONFIGS = {"hand-edited": HAND_EDITED, "written-by-codex-mcp-add": MCP_ADD, "no-blank-lines": NO_BLANK_LINES}
DOCUMENTED_GROUP = {"matcher", "hooks"}
DOCUMENTED_HANDLER = {"type", "command", "timeout"}


@pytest.fixture
def codex_dir() -> Path:
    path = Path(os.environ["HOME"]) / ".codex"
    path.mkdir()
    return path


def _ours_only(before: str, after: str) -> list[str]:
    """The lines setup added; fails if it removed or changed any line of the user's."""
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    added = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        assert op in ("equal", "insert"), (op, a[i1:i2], b[j1:j2])
        if op == "insert":
            added += b[j1:j2]
    return added


def _without_ours(data: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in data.items() if k != "notify"}
    servers = {k: v for k, v in out.get("mcp_servers", {}).items() if k != "memoryd"}
    if servers:
        out["mcp_servers"] = servers
    else:
        out.pop("mcp_servers", None)
    return out


@pytest.mark.parametrize("name", list(CONFIGS))
def test_setup_keeps_every_other_byte_and_uninstall_restores_it(
    cli, codex_dir: Path, isolated_home: Path, name: str
) -> None:
    original = CONFIGS[name]
    config = codex_dir / "config.toml"
    config.write_text(original, encoding="utf-8")
    out = cli("setup", "codex")
    assert out.returncode == 0, out.stderr

    after = config.read_text(encoding="utf-8")
    added = [ln.strip() for ln in _ours_only(original, after) if ln.strip()]
    assert added and all(
        ln.startswith(("notify = ", "[mcp_servers.memoryd", "command = ", "args = ", "env = "))
        for ln in added
    ), added
    data = tomllib.loads(after)
    hookrun = Path(memoryd.__file__).resolve().parent / "hookrun.py"
    assert data["notify"] == [sys.executable, "-S", str(hookrun), "capture", "--source=codex"]
    server = data["mcp_servers"]["memoryd"]
    assert Path(server["command"]).name == "memoryd" and server["args"] == ["mcp"]
    assert server["env"] == {"MEMORYD_HOME": str(isolated_home)}, "Codex passes MCP servers a whitelist only"
    assert _without_ours(data) == tomllib.loads(original), "the user's settings must mean what they meant"

    out = cli("setup", "codex", "--uninstall")
    assert out.returncode == 0, out.stderr
    assert config.read_text(encoding="utf-8") == original


def test_dotted_mcp_server_keys_keep_the_top_level_settings(cli: Cli, codex_dir: Path) -> None:
    """Valid TOML with the servers as dotted keys: our table must not capture the user's
    top-level keys that follow (nor notify), and uninstall must not take them away."""
    original = 'mcp_servers.other.command = "x"\nmodel = "o3"\n'
    config = codex_dir / "config.toml"
    config.write_text(original, encoding="utf-8")
    assert cli("setup", "codex").returncode == 0
    data = tomllib.loads(config.read_text(encoding="utf-8"))
    assert data.get("model") == "o3" and "notify" in data, data
    assert cli("setup", "codex", "--uninstall").returncode == 0
    assert tomllib.loads(config.read_text(encoding="utf-8")) == tomllib.loads(original)


def test_setup_twice_is_setup_once(cli: Cli, codex_dir: Path) -> None:
    config = codex_dir / "config.toml"
    config.write_text(HAND_EDITED, encoding="utf-8")
    assert cli("setup", "codex").returncode == 0
    once = {p.name: p.read_bytes() for p in codex_dir.iterdir()}
    again = cli("setup", "codex", "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["changed"] == []
    assert {p.name: p.read_bytes() for p in codex_dir.iterdir()} == once


def test_a_foreign_notify_program_needs_force(cli: Cli, codex_dir: Path) -> None:
    """Codex runs one notify program: someone else's is not replaced without --force."""
    original = HAND_EDITED.replace(
        'sandbox_mode = "workspace-write"\n',
        'sandbox_mode = "workspace-write"\nnotify = ["notify-send", "Codex"]\n',
    )
    config = codex_dir / "config.toml"
    config.write_text(original, encoding="utf-8")
    one_line_error(cli("setup", "codex"), 2, "notify", "--force")
    assert config.read_text(encoding="utf-8") == original
    assert sorted(p.name for p in codex_dir.iterdir()) == ["config.toml"]

    out = cli("setup", "codex", "--force")
    assert out.returncode == 0, out.stderr
    data = tomllib.loads(config.read_text(encoding="utf-8"))
    assert data["notify"][-2:] == ["capture", "--source=codex"]
    assert data["model"] == "gpt-5-codex" and data["profiles"] == {
        "x": {"model": "o3", "approval_policy": "never"}
    }


def test_hooks_json_holds_only_documented_fields(cli: Cli, codex_dir: Path) -> None:
    """Codex rejects unknown hook fields: each group is {matcher, hooks}, each handler
    {type, command, timeout}; the user's own hooks stay as they were."""
    theirs = {
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard"}]}]}
    }
    (codex_dir / "hooks.json").write_text(json.dumps(theirs), encoding="utf-8")
    assert cli("setup", "codex").returncode == 0
    data = json.loads((codex_dir / "hooks.json").read_text(encoding="utf-8"))
    assert set(data) == {"hooks"}
    assert set(data["hooks"]) == {"PreToolUse", "SessionStart", "Stop"}
    assert data["hooks"]["PreToolUse"] == theirs["hooks"]["PreToolUse"]
    for event, tail in (
        ("SessionStart", " inject --format claude-hook"),
        ("Stop", " capture --source=codex"),
    ):
        (group,) = data["hooks"][event]
        assert set(group) <= DOCUMENTED_GROUP and "hooks" in group
        assert "matcher" not in group  # every SessionStart source; Stop takes no matcher
        (handler,) = group["hooks"]
        assert set(handler) == DOCUMENTED_HANDLER
        assert handler["type"] == "command" and handler["command"].endswith(tail), handler
        assert isinstance(handler["timeout"], int)
    assert cli("setup", "codex", "--uninstall").returncode == 0
    assert json.loads((codex_dir / "hooks.json").read_text(encoding="utf-8")) == theirs


def test_codex_home_is_honoured(cli: Cli, tmp_path: Path) -> None:
    elsewhere = tmp_path / "codex-home"
    out = cli("setup", "codex", env={"CODEX_HOME": str(elsewhere)})
    assert out.returncode == 0, out.stderr
    assert "notify" in tomllib.loads((elsewhere / "config.toml").read_text(encoding="utf-8"))
    assert (elsewhere / "hooks.json").is_file()
    assert not (Path(os.environ["HOME"]) / ".codex").exists()
    assert cli("setup", "codex", "--uninstall", env={"CODEX_HOME": str(elsewhere)}).returncode == 0
    assert not (elsewhere / "config.toml").exists() and not (elsewhere / "hooks.json").exists()


@pytest.mark.parametrize("junk", ['model = "o3\n', "[profiles.x\nmodel = 1\n", "a = 1\na = 2\n"])
def test_invalid_toml_is_left_alone(cli: Cli, codex_dir: Path, junk: str) -> None:
    config = codex_dir / "config.toml"
    config.write_text(junk, encoding="utf-8")
    one_line_error(cli("setup", "codex"), 2, str(config))
    assert config.read_text(encoding="utf-8") == junk
    assert sorted(p.name for p in codex_dir.iterdir()) == ["config.toml"]


# -- running what setup wrote, as Codex runs it ---------------------------------------------
def _notify(config: Path, payload: dict[str, Any], project: Path) -> int:
    """Codex's legacy notify: the configured argv plus the payload JSON as the last
    argument, fire-and-forget with stdin, stdout and stderr on /dev/null."""
    argv = tomllib.loads(config.read_text(encoding="utf-8"))["notify"]
    return subprocess.run(
        [*argv, json.dumps(payload)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=project,
        env=os.environ,
        timeout=60,
        check=False,
    ).returncode


def _turn(thread: str, project: Path, prompt: str, answer: str) -> dict[str, Any]:
    return {
        "type": "agent-turn-complete",
        "thread-id": thread,
        "turn-id": str(uuid.uuid4()),
        "cwd": str(project),
        "client": "codex-tui",
        "input-messages": [prompt],
        "last-assistant-message": answer,
    }


def _codex_sessions(cli: Cli, project: Path) -> list[dict[str, Any]]:
    out = cli("list", "--json", "--scope", str(project))
    assert out.returncode == 0, out.stderr
    return [m for m in json.loads(out.stdout) if m["type"] == "session" and m["source"] == "codex"]


def test_notify_as_codex_runs_it_captures_a_session(cli: Cli, codex_dir: Path, project: Path) -> None:
    """The turn is captured as a codex session, and Codex's SessionStart hook (the
    hooks.json command, JSON on stdin) hands it back as context."""
    assert cli("setup", "codex").returncode == 0
    thread = str(uuid.uuid4())
    prompt = "Port the invoice PDF renderer from wkhtmltopdf to WeasyPrint"
    rc = _notify(
        codex_dir / "config.toml", _turn(thread, project, prompt, "Ported; 9 snapshot tests pass."), project
    )
    assert rc == 0
    assert cli("worker", "--wait").returncode == 0

    (session,) = _codex_sessions(cli, project)
    got = json.loads(cli("get", session["slug"], "--json").stdout)
    assert got["session_id"] == thread and got["title"] == prompt
    assert "Ported; 9 snapshot tests pass." in got["body"]

    hooks = json.loads((codex_dir / "hooks.json").read_text(encoding="utf-8"))
    command = hooks["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    start = {
        "session_id": str(uuid.uuid4()),
        "transcript_path": None,
        "cwd": str(project),
        "hook_event_name": "SessionStart",
        "model": "gpt-5-codex",
        "source": "startup",
    }
    proc = subprocess.run(
        ["sh", "-c", command],
        input=json.dumps(start).encode(),
        capture_output=True,
        cwd=project,
        env=os.environ,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "SessionStart"
    (line,) = [x for x in out["additionalContext"].splitlines() if prompt in x]
    assert line.startswith("- session, captured from a session") and ", codex, " in line, line


def test_notify_capture_reads_the_threads_rollout(cli: Cli, codex_dir: Path, project: Path) -> None:
    """setup's docs say the worker finds the session's rollout file by its thread id: what
    the turn did (commands, files) must come from $CODEX_HOME/sessions, since the notify
    payload carries only the prompt and the last answer."""
    assert cli("setup", "codex").returncode == 0
    thread = str(uuid.uuid4())
    prompt = "Make the billing crate's tests pass"
    _rollout(codex_dir, thread, project, prompt, "cargo test -p billing")
    assert _notify(codex_dir / "config.toml", _turn(thread, project, prompt, "All green."), project) == 0
    assert cli("worker", "--wait").returncode == 0
    (session,) = _codex_sessions(cli, project)
    got = json.loads(cli("get", session["slug"], "--json").stdout)
    assert "cargo test -p billing" in got["body"], got["body"]


# -- the hooks route: Stop beside notify, SessionStart's output, the trust note -----------------
# What Codex accepts from a SessionStart hook's JSON (codex-rs/hooks/schema/generated/
# session-start.command.output.schema.json: additionalProperties false at both levels).
SESSION_START_TOP = {"continue", "hookSpecificOutput", "stopReason", "suppressOutput", "systemMessage"}
SESSION_START_SPECIFIC = {"additionalContext", "env", "hookEventName"}


def _hook_command(codex_dir: Path, event: str) -> str:
    hooks = json.loads((codex_dir / "hooks.json").read_text(encoding="utf-8"))
    (group,) = [g for g in hooks["hooks"][event] if "memoryd" in json.dumps(g)]
    return group["hooks"][0]["command"]


def _run_hook(command: str, stdin: bytes, project: Path) -> subprocess.CompletedProcess[bytes]:
    """A command hook as Codex runs it: through the shell, the input JSON on stdin, in the
    session's cwd; Codex reads the exit code and stdout."""
    return subprocess.run(
        ["sh", "-c", command],
        input=stdin,
        capture_output=True,
        cwd=project,
        env=os.environ,
        timeout=60,
        check=False,
    )


def _stop_payload(thread: str, project: Path, transcript: Path | None, answer: str) -> dict[str, Any]:
    """Every field stop.command.input.schema.json requires, as Codex sends them."""
    return {
        "session_id": thread,
        "turn_id": str(uuid.uuid4()),
        "transcript_path": str(transcript) if transcript else None,
        "cwd": str(project),
        "hook_event_name": "Stop",
        "model": "gpt-5-codex",
        "permission_mode": "default",
        "stop_hook_active": False,
        "last_assistant_message": answer,
    }


def _assert_codex_takes_stop_output(proc: subprocess.CompletedProcess[bytes]) -> None:
    """codex-rs/hooks/src/events/stop.rs: exit 0 with empty stdout is a completed run; any
    other stdout must be Stop JSON, and exit 2 would make Codex carry on with stderr as a
    new prompt."""
    assert proc.returncode == 0, proc.stderr.decode()
    out = proc.stdout.strip()
    if out:
        data = json.loads(out)
        assert isinstance(data, dict) and data.get("decision") != "block" and data.get("continue", True)


def _rollout(codex_dir: Path, thread: str, project: Path, prompt: str, command: str) -> Path:
    day = codex_dir / "sessions" / "2026" / "11" / "23"
    day.mkdir(parents=True, exist_ok=True)
    ts = "2026-11-23T09:00:00.000Z"
    records = [
        {
            "timestamp": ts,
            "type": "session_meta",
            "payload": {"id": thread, "timestamp": ts, "cwd": str(project)},
        },
        {
            "timestamp": ts,
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": prompt}],
            },
        },
        {
            "timestamp": ts,
            "type": "response_item",
            "payload": {
                "type": "function_call",
                "name": "shell",
                "arguments": json.dumps({"command": ["bash", "-lc", command]}),
                "call_id": "call_1",
            },
        },
        {
            "timestamp": ts,
            "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": "call_1", "output": "ok"},
        },
    ]
    path = day / f"rollout-2026-11-23T09-00-00-{thread}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_stop_hook_and_notify_capture_one_session(cli: Cli, codex_dir: Path, project: Path) -> None:
    """Current Codex runs the Stop hook and the legacy notify after the same turn: the hook's
    payload (session_id, transcript_path = the rollout) is taken, Codex is given nothing to
    act on, and the two captures make one session memory, read from the rollout."""
    assert cli("setup", "codex").returncode == 0
    thread = str(uuid.uuid4())
    prompt = "Move the nightly export to the new S3 bucket"
    rollout = _rollout(codex_dir, thread, project, prompt, "aws s3 sync ./out s3://exports-v2")
    stop = _run_hook(
        _hook_command(codex_dir, "Stop"),
        json.dumps(_stop_payload(thread, project, rollout, "Moved; the first sync ran.")).encode(),
        project,
    )
    _assert_codex_takes_stop_output(stop)
    assert (
        _notify(
            codex_dir / "config.toml", _turn(thread, project, prompt, "Moved; the first sync ran."), project
        )
        == 0
    )
    assert cli("worker", "--wait").returncode == 0

    (session,) = _codex_sessions(cli, project)
    got = json.loads(cli("get", session["slug"], "--json").stdout)
    assert got["session_id"] == thread and got["title"] == prompt
    assert "aws s3 sync ./out s3://exports-v2" in got["body"], got["body"]

    # A later turn of the same session, by either route, updates that memory.
    stop = _run_hook(
        _hook_command(codex_dir, "Stop"),
        json.dumps(_stop_payload(thread, project, None, "Also removed the old bucket policy.")).encode(),
        project,
    )
    _assert_codex_takes_stop_output(stop)
    assert cli("worker", "--wait").returncode == 0
    assert [s["slug"] for s in _codex_sessions(cli, project)] == [session["slug"]]


@pytest.mark.parametrize("stdin", [b"", b"not json", b"[1, 2]", b'{"hook_event_name": "Stop"}', b"\xff\xfe"])
def test_stop_hook_with_bad_input_gives_codex_nothing_to_act_on(
    cli: Cli, codex_dir: Path, project: Path, stdin: bytes
) -> None:
    assert cli("setup", "codex").returncode == 0
    proc = _run_hook(_hook_command(codex_dir, "Stop"), stdin, project)
    _assert_codex_takes_stop_output(proc)
    assert proc.stdout == b""
    assert len(proc.stderr.decode().strip().splitlines()) == 1, proc.stderr


def test_session_start_output_is_what_codex_validates(cli: Cli, codex_dir: Path, project: Path) -> None:
    """Codex rejects SessionStart JSON with an unknown key ("invalid session start JSON
    output"): only the schema's keys, hookEventName exactly "SessionStart"."""
    assert cli("setup", "codex").returncode == 0
    assert (
        cli(
            "record",
            "--type",
            "decision",
            "--title",
            "Exports go to S3",
            "--body",
            "Bucket exports-v2.",
            cwd=project,
        ).returncode
        == 0
    )
    for source in ("startup", "resume", "clear", "compact"):
        start = {
            "session_id": str(uuid.uuid4()),
            "transcript_path": None,
            "cwd": str(project),
            "hook_event_name": "SessionStart",
            "model": "gpt-5-codex",
            "permission_mode": "default",
            "source": source,
        }
        proc = _run_hook(_hook_command(codex_dir, "SessionStart"), json.dumps(start).encode(), project)
        assert proc.returncode == 0, proc.stderr.decode()
        data = json.loads(proc.stdout)
        assert set(data) <= SESSION_START_TOP, data
        specific = data["hookSpecificOutput"]
        assert set(specific) <= SESSION_START_SPECIFIC and specific["hookEventName"] == "SessionStart"
        assert "Exports go to S3" in specific["additionalContext"]


def _notes(out: subprocess.CompletedProcess[str]) -> list[str]:
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["notes"]


def test_trust_note_only_when_a_hook_changed(cli: Cli, codex_dir: Path) -> None:
    """Codex runs a new or changed hook only once the user trusts it in /hooks: setup says
    so when it wrote one, not on a dry run, a rerun that changed nothing, or an uninstall."""
    assert not any("/hooks" in n for n in _notes(cli("setup", "codex", "--dry-run", "--json")))
    (trust,) = [n for n in _notes(cli("setup", "codex", "--json")) if "/hooks" in n]
    assert "trust" in trust and "notify" in trust, trust
    assert not any("/hooks" in n for n in _notes(cli("setup", "codex", "--json")))
    assert not any("/hooks" in n for n in _notes(cli("setup", "codex", "--uninstall", "--json")))


@pytest.mark.parametrize("flag", ["hooks", "codex_hooks"])
def test_hooks_turned_off_in_config_is_said(cli: Cli, codex_dir: Path, flag: str) -> None:
    """`[features] hooks = false` (or the older codex_hooks) keeps hooks.json from running:
    capture still works through notify, start-up context does not, and setup says so."""
    config = codex_dir / "config.toml"
    original = HAND_EDITED.replace("hooks = true", f"{flag} = false")
    config.write_text(original, encoding="utf-8")
    for run in (("setup", "codex", "--json"), ("setup", "codex", "--json")):  # the rerun too
        out = cli(*run)
        assert out.returncode == 0, out.stderr
        warnings = json.loads(out.stdout)["warnings"]
        assert any(f"{flag} = false" in n and "notify" in n for n in warnings), warnings
    assert cli("setup", "codex", "--uninstall").returncode == 0
    assert config.read_text(encoding="utf-8") == original
