"""The Claude Code plugin (plugins/memoryd/, listed by .claude-plugin/marketplace.json):
its files against the documented schema, its hooks the very table `memoryd setup
claude-code` installs (HOOKS), each hook command run the way Claude Code runs a plugin
hook, and its MCP entry answering `initialize`. docs/agents/claude-code.md, "Plugin".

The schemas below hold what the plugins, marketplace and hooks references state
(code.claude.com/docs/en/plugins-reference, /plugins/marketplace-reference, /hooks; see
ECOSYSTEM-FACTS.md section 1): required fields, types, the `./` rule for relative paths,
kebab-case names, the event names. jsonschema comes with the `mcp` dependency."""

from __future__ import annotations

import copy
import json
import os
import queue
import re
import shlex
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import memoryd
from memoryd.agents.claude_code import HOOKS, SERVER
from memoryd.testing import claude_exchange, stop_payload, write_jsonl

REPO = Path(__file__).resolve().parents[3]
MARKETPLACE = REPO / ".claude-plugin" / "marketplace.json"
WRAPPER = "${CLAUDE_PLUGIN_ROOT}/hooks/memoryd-hook"

KEBAB = "^[a-z0-9]+(-[a-z0-9]+)*$"
RELATIVE = "^\\./"  # "All paths must be relative to plugin root and start with ./"
PERSON = {
    "type": "object",
    "required": ["name"],
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "email": {"type": "string"},
        "url": {"type": "string"},
    },
}
COMPONENT_PATH = {"type": "string", "pattern": RELATIVE}
PLUGIN_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["name"],
    "properties": {
        "name": {"type": "string", "pattern": KEBAB},
        "version": {"type": "string", "pattern": "^\\d+\\.\\d+\\.\\d+([-+].+)?$"},
        "description": {"type": "string"},
        "author": PERSON,
        "homepage": {"type": "string"},
        "repository": {"type": "string"},
        "license": {"type": "string"},
        "keywords": {"type": "array", "items": {"type": "string"}},
        "commands": {"anyOf": [COMPONENT_PATH, {"type": "array", "items": COMPONENT_PATH}]},
        "agents": {"anyOf": [COMPONENT_PATH, {"type": "array", "items": COMPONENT_PATH}]},
        "skills": {"anyOf": [COMPONENT_PATH, {"type": "array", "items": COMPONENT_PATH}]},
        "hooks": {"anyOf": [COMPONENT_PATH, {"type": "object"}]},
        "mcpServers": {"anyOf": [COMPONENT_PATH, {"type": "object"}]},
    },
}
MARKETPLACE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["name", "owner", "plugins"],
    "properties": {
        "name": {"type": "string", "pattern": KEBAB},
        "owner": PERSON,
        "metadata": {
            "type": "object",
            "properties": {
                "description": {"type": "string"},
                "version": {"type": "string"},
                "pluginRoot": {"type": "string"},
            },
        },
        "plugins": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["name", "source"],
                "properties": {
                    "name": {"type": "string", "pattern": KEBAB},
                    # a path inside this repository ("./", not "."), or a source object
                    "source": {"anyOf": [{"type": "string", "pattern": RELATIVE}, {"type": "object"}]},
                    "description": {"type": "string"},
                    "version": {"type": "string"},
                    "author": PERSON,
                    "category": {"type": "string"},
                    "license": {"type": "string"},
                    "strict": {"type": "boolean"},
                },
            },
        },
    },
}
EVENTS = [  # the hooks reference's event table
    "SessionStart", "Setup", "UserPromptSubmit", "UserPromptExpansion", "PreToolUse",
    "PermissionRequest", "PermissionDenied", "PostToolUse", "PostToolUseFailure",
    "PostToolBatch", "Notification", "MessageDisplay", "SubagentStart", "SubagentStop",
    "TaskCreated", "TaskCompleted", "Stop", "StopFailure", "TeammateIdle",
    "InstructionsLoaded", "ConfigChange", "CwdChanged", "DirectoryAdded", "FileChanged",
    "WorktreeCreate", "WorktreeRemove", "PreCompact", "PostCompact", "Elicitation",
    "ElicitationResult", "SessionEnd",
]  # fmt: skip
COMMAND_HANDLER = {
    "type": "object",
    "required": ["type", "command"],
    "properties": {
        "type": {"const": "command"},
        "command": {"type": "string", "minLength": 1},
        "args": {"type": "array", "items": {"type": "string"}},
        "timeout": {"type": "number", "exclusiveMinimum": 0},
        "async": {"type": "boolean"},
        "shell": {"type": "string"},
    },
    "additionalProperties": False,  # a misspelt "timout" would be dropped without a word
}
GROUPS = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["hooks"],
        "properties": {
            "matcher": {"type": "string"},
            "hooks": {"type": "array", "minItems": 1, "items": COMMAND_HANDLER},
        },
        "additionalProperties": False,
    },
}
HOOKS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["hooks"],
    "properties": {
        "description": {"type": "string"},  # plugin hook files may say what they are for
        "hooks": {"type": "object", "propertyNames": {"enum": EVENTS}, "additionalProperties": GROUPS},
    },
    "additionalProperties": False,
}
MCP_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["mcpServers"],
    "properties": {
        "mcpServers": {
            "type": "object",
            "minProperties": 1,
            "additionalProperties": {
                "type": "object",
                "required": ["command"],  # stdio: an entry without "type" is stdio
                "properties": {
                    "type": {"const": "stdio"},
                    "command": {"type": "string", "minLength": 1},
                    "args": {"type": "array", "items": {"type": "string"}},
                    "env": {"type": "object", "additionalProperties": {"type": "string"}},
                    "cwd": {"type": "string"},
                },
                "additionalProperties": False,
            },
        }
    },
    "additionalProperties": False,
}


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _plugin_root() -> Path:
    """The plugin folder, found the way Claude Code finds it: the marketplace entry's
    relative source, resolved from the marketplace root (the folder holding .claude-plugin/)."""
    entries = [p for p in _load(MARKETPLACE)["plugins"] if p["name"] == "memoryd"]
    assert len(entries) == 1
    root = (REPO / entries[0]["source"]).resolve()
    assert root.is_relative_to(REPO) and (root / ".claude-plugin" / "plugin.json").is_file()
    return root


ROOT = _plugin_root()


def _files() -> dict[str, tuple[Any, dict[str, Any]]]:
    """Each plugin file with its schema; the component files where plugin.json says, else
    at their default places (hooks/hooks.json, .mcp.json)."""
    manifest = _load(ROOT / ".claude-plugin" / "plugin.json")
    hooks = manifest.get("hooks", "./hooks/hooks.json")
    mcp = manifest.get("mcpServers", "./.mcp.json")
    return {
        "marketplace": (_load(MARKETPLACE), MARKETPLACE_SCHEMA),
        "plugin": (manifest, PLUGIN_SCHEMA),
        "hooks": (hooks if isinstance(hooks, dict) else _load(ROOT / hooks), HOOKS_SCHEMA),
        "mcp": (mcp if isinstance(mcp, dict) else _load(ROOT / mcp), MCP_SCHEMA),
    }


@pytest.mark.parametrize("name", ["marketplace", "plugin", "hooks", "mcp"])
def test_plugin_files_match_the_documented_schema(name: str) -> None:
    doc, schema = _files()[name]
    jsonschema.validate(doc, schema)


@pytest.mark.parametrize(
    ("name", "spoil"),
    [
        ("hooks", lambda d: d["hooks"].__setitem__("OnStop", d["hooks"].pop("Stop"))),  # no such event
        ("hooks", lambda d: d["hooks"]["Stop"][0]["hooks"][0].__setitem__("timout", 10)),
        ("hooks", lambda d: d["hooks"]["SessionStart"][0]["hooks"][0].__setitem__("type", "shell")),
        ("hooks", lambda d: d.__setitem__("hooks", [])),
        ("plugin", lambda d: d.__setitem__("name", "Memory D")),
        ("plugin", lambda d: d.__setitem__("hooks", "hooks/hooks.json")),  # no ./
        ("plugin", lambda d: d.pop("name")),
        ("marketplace", lambda d: d["plugins"][0].__setitem__("source", ".")),  # "./" it must be
        ("marketplace", lambda d: d.pop("owner")),
        ("mcp", lambda d: d["mcpServers"]["memoryd"].__setitem__("args", "mcp")),
        ("mcp", lambda d: d["mcpServers"]["memoryd"].pop("command")),
    ],
)
def test_the_schema_check_rejects_a_spoilt_file(name: str, spoil: Any) -> None:
    """The checks above can fail: each file, spoilt one way, no longer validates."""
    doc, schema = _files()[name]
    doc = copy.deepcopy(doc)
    spoil(doc)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, schema)


def _as_table(hooks_file: dict[str, Any]) -> dict[str, tuple[str | None, tuple[str, ...], int | None]]:
    """The plugin's hooks in the shape of claude_code.HOOKS: event -> (matcher, the
    arguments after `memoryd`, timeout)."""
    table: dict[str, tuple[str | None, tuple[str, ...], int | None]] = {}
    for event, groups in hooks_file["hooks"].items():
        assert len(groups) == 1 and len(groups[0]["hooks"]) == 1, event
        handler = groups[0]["hooks"][0]
        argv = shlex.split(handler["command"])
        assert argv[:2] == ["sh", WRAPPER], handler["command"]
        table[event] = (groups[0].get("matcher"), tuple(argv[2:]), handler.get("timeout"))
    return table


def test_plugin_hooks_are_the_ones_setup_installs() -> None:
    """One table for both routes: a change to claude_code.HOOKS fails here until the
    plugin's hooks file follows it."""
    assert _as_table(_files()["hooks"][0]) == HOOKS
    spoilt = copy.deepcopy(_files()["hooks"][0])
    spoilt["hooks"]["SessionEnd"][0]["hooks"][0]["timeout"] = 10
    assert _as_table(spoilt) != HOOKS


def test_plugin_mcp_server_is_memoryd_mcp_and_versions_agree() -> None:
    assert _files()["mcp"][0]["mcpServers"] == {SERVER: {"command": "memoryd", "args": ["mcp"]}}
    assert _files()["plugin"][0]["version"] == memoryd.__version__
    assert _files()["plugin"][0]["name"] == "memoryd"


# Running the plugin as Claude Code does: a `memoryd` command on PATH (here a script that
# runs this checkout's memoryd), ${CLAUDE_PLUGIN_ROOT} and ${CLAUDE_PLUGIN_DATA} replaced in
# the command and also set in the environment, the command through `sh -c`, the hook's
# JSON payload on stdin, the session's directory as cwd.


@pytest.fixture
def bin_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "bin"
    folder.mkdir()
    script = folder / "memoryd"
    script.write_text(
        f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m memoryd.cli.main "$@"\n', encoding="utf-8"
    )
    script.chmod(0o755)
    return folder


def _plugin_env(tmp_path: Path, path: str) -> dict[str, str]:
    data = tmp_path / "plugin-data"
    data.mkdir(exist_ok=True)
    return {
        **os.environ,
        "PATH": path,
        "CLAUDE_PLUGIN_ROOT": str(ROOT),
        "CLAUDE_PLUGIN_DATA": str(data),
        "CLAUDE_PROJECT_DIR": str(tmp_path / "proj"),
    }


def _expand(text: str, env: dict[str, str]) -> str:
    return re.sub(r"\$\{(CLAUDE_PLUGIN_ROOT|CLAUDE_PLUGIN_DATA)\}", lambda m: env[m.group(1)], text)


def _hook(event: str) -> dict[str, Any]:
    return _files()["hooks"][0]["hooks"][event][0]["hooks"][0]


def _run_hook(
    event: str, payload: bytes, env: dict[str, str], cwd: Path
) -> subprocess.CompletedProcess[bytes]:
    command = _expand(_hook(event)["command"], env)
    return subprocess.run(
        ["sh", "-c", command], input=payload, capture_output=True, cwd=cwd, env=env, timeout=60, check=False
    )


def _system_path(bin_dir: Path) -> str:
    return os.pathsep.join([str(bin_dir), "/usr/bin", "/bin"])


def _bare_path(tmp_path: Path) -> str:
    """A PATH with `sh` and nothing else: no memoryd, whatever this machine has installed."""
    folder = tmp_path / "bare"
    if not folder.is_dir():
        folder.mkdir()
        sh = shutil.which("sh")
        assert sh is not None
        (folder / "sh").symlink_to(sh)
    return str(folder)


def test_session_start_hook_prints_claude_hook_json(
    cli, bin_dir: Path, project: Path, tmp_path: Path
) -> None:
    rec = cli(
        "record",
        "--type",
        "decision",
        "--title",
        "Use Postgres",
        "--body",
        "SQLite locks.",
        "--scope",
        str(project),
    )
    assert rec.returncode == 0, rec.stderr
    env = _plugin_env(tmp_path, _system_path(bin_dir))
    payload = json.dumps(
        {"session_id": "s1", "transcript_path": str(tmp_path / "none.jsonl"), "cwd": str(project),
         "hook_event_name": "SessionStart", "source": "startup"}
    ).encode()  # fmt: skip
    proc = _run_hook("SessionStart", payload, env, project)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.decode("utf-8"), strict=True)["hookSpecificOutput"]
    assert out["hookEventName"] == "SessionStart"
    assert "Use Postgres" in out["additionalContext"]


def test_stop_hook_captures_the_session(cli, bin_dir: Path, project: Path, tmp_path: Path) -> None:
    sid = "5e0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b"
    lines = claude_exchange(
        "Switch the job queue to Postgres SKIP LOCKED",
        "Done: the queue now uses SELECT ... FOR UPDATE SKIP LOCKED.",
        tool="Bash",
        tool_input={"command": "pytest tests/test_queue.py"},
        tool_output="4 passed",
        session_id=sid,
        cwd=str(project),
    )
    transcript = write_jsonl(tmp_path / "t.jsonl", lines)
    env = _plugin_env(tmp_path, _system_path(bin_dir))
    proc = _run_hook("Stop", stop_payload(sid, transcript, project), env, project)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == b""
    assert cli("worker", "--wait").returncode == 0
    mems = json.loads(cli("list", "--all-scopes", "--json").stdout)
    assert len(mems) == 1
    got = json.loads(cli("get", mems[0]["slug"], "--json").stdout)
    assert got["type"] == "session" and got["session_id"] == sid
    assert "SKIP LOCKED" in got["body"]


@pytest.mark.parametrize("event", list(HOOKS))
@pytest.mark.parametrize("data", [b"", b'{"session_id": "x", oops'], ids=["empty", "junk"])
def test_every_plugin_hook_exits_0_on_bad_input(
    cli, bin_dir: Path, project: Path, tmp_path: Path, isolated_home: Path, event: str, data: bytes
) -> None:
    env = _plugin_env(tmp_path, _system_path(bin_dir))
    proc = _run_hook(event, data, env, project)
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 0, err
    assert err.count("\n") == 1 and err.startswith("memoryd: "), err
    spool = isolated_home / "spool"
    assert not [p for p in spool.rglob("*") if p.is_file() and not p.name.startswith(".")]


@pytest.mark.parametrize("event", list(HOOKS))
def test_without_memoryd_a_hook_fails_without_blocking(project: Path, tmp_path: Path, event: str) -> None:
    """No memoryd on PATH (nor in ~/.local/bin): exit 1, a non-blocking error Claude Code
    shows as "hook error" with this line, never 2, which would block Stop and PreCompact
    and hand stderr to the model."""
    env = _plugin_env(tmp_path, _bare_path(tmp_path))
    proc = _run_hook(event, stop_payload("s", tmp_path / "t.jsonl", project), env, project)
    err = proc.stderr.decode()
    assert proc.returncode == 1, (proc.returncode, err)
    assert err.count("\n") == 1 and "memoryd plugin: no memoryd command" in err
    assert proc.stdout == b""


def test_memoryd_exiting_2_does_not_block(project: Path, tmp_path: Path) -> None:
    """An older memoryd that lacks an option exits 2 from its argument parser; the
    plugin's hook turns that into 1. Here a `memoryd` that only exits 2."""
    folder = tmp_path / "oldbin"
    folder.mkdir()
    (folder / "memoryd").write_text("#!/bin/sh\necho 'usage: memoryd ...' >&2\nexit 2\n", encoding="utf-8")
    (folder / "memoryd").chmod(0o755)
    env = _plugin_env(tmp_path, os.pathsep.join([str(folder), _bare_path(tmp_path)]))
    for event in HOOKS:
        proc = _run_hook(event, b"{}", env, project)
        assert proc.returncode == 1, (event, proc.stderr)


def test_memoryd_in_local_bin_is_found_off_path(project: Path, tmp_path: Path, bin_dir: Path) -> None:
    """pipx and uv put their commands in ~/.local/bin, which an app started from a menu
    often lacks on PATH."""
    local = Path(os.environ["HOME"]) / ".local" / "bin"
    local.mkdir(parents=True)
    (local / "memoryd").symlink_to(bin_dir / "memoryd")
    env = _plugin_env(tmp_path, _bare_path(tmp_path))
    proc = _run_hook("SessionStart", b"", env, project)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["hookSpecificOutput"]["hookEventName"] == "SessionStart"


def test_plugin_mcp_entry_answers_initialize(bin_dir: Path, project: Path, tmp_path: Path) -> None:
    """The MCP entry started as Claude Code starts a stdio server (command + args, the
    variables expanded), then an `initialize` over stdin/stdout."""
    env = _plugin_env(tmp_path, _system_path(bin_dir))
    entry = _files()["mcp"][0]["mcpServers"][SERVER]
    argv = [_expand(entry["command"], env), *(_expand(a, env) for a in entry.get("args", []))]
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=project, env=env
    )
    lines: queue.Queue[bytes] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(raw) for raw in proc.stdout or []], daemon=True).start()
    try:
        assert proc.stdin is not None
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "plugin-test", "version": "1"},
            },
        }
        proc.stdin.write(json.dumps(init).encode() + b"\n")
        proc.stdin.flush()
        try:
            reply = json.loads(lines.get(timeout=30))
        except queue.Empty:
            raise AssertionError("no reply to initialize within 30 s") from None
        assert reply["id"] == 1 and "result" in reply, reply
        assert reply["result"]["serverInfo"]["name"]
        assert "tools" in reply["result"]["capabilities"]
    finally:
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
