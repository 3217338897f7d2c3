"""Every hook command exactly as `memoryd setup claude-code` and `memoryd setup codex`
write it, run the way the host runs it (a shell string with the payload on stdin; Codex's
notify argv with the payload as its last argument), fed empty, junk, binary and deeply
nested input: exit 0 (an exit 2 would steer the agent), exactly one line on stderr,
nothing spooled, nothing damaged (doctor and `audit verify` clean, the memories as they
were). docs/agents/*.md, "Exit codes and output"."""

from __future__ import annotations

import json
import os
import random
import subprocess
import tomllib
from pathlib import Path

import pytest

from memoryd.agents.common import is_ours

RANDOM = random.Random(19).randbytes(4096)
INPUTS = {
    "empty": b"",
    "junk": b'{"session_id": "x", oops',
    "binary": RANDOM + b"\xff\xfe\xc3\x28\xed\xa0\x80",  # random bytes, then invalid UTF-8
    "deep": b"[" * 100_000,
}


def _setup(cli, project: Path) -> dict[str, object]:
    """Setup for both agents in this test's HOME; returns what it wrote, by host event."""
    home = Path(os.environ["HOME"])
    (home / ".codex").mkdir()
    for agent in ("claude-code", "codex"):
        res = cli("setup", agent)
        assert res.returncode == 0, res.stderr
    commands: dict[str, object] = {}
    for host, path in (
        ("claude", home / ".claude" / "settings.json"),
        ("codex", home / ".codex" / "hooks.json"),
    ):
        settings = json.loads(path.read_text(encoding="utf-8"))
        for event, groups in settings["hooks"].items():
            for group in groups:
                for handler in group["hooks"]:
                    if is_ours(handler.get("command")):
                        commands[f"{host}:{event}"] = handler["command"]
    commands["codex:notify"] = tomllib.loads((home / ".codex" / "config.toml").read_text(encoding="utf-8"))[
        "notify"
    ]
    assert set(commands) == {
        "claude:SessionStart",
        "claude:Stop",
        "claude:PreCompact",
        "claude:SessionEnd",
        "codex:SessionStart",
        "codex:Stop",
        "codex:notify",
    }
    return commands


def _state(cli) -> list[dict[str, object]]:
    out = cli("list", "--all-scopes", "--json")
    assert out.returncode == 0, out.stderr
    # What a memory says and where it is; not its recall bookkeeping, which `get` moves.
    mems = [
        {k: v for k, v in m.items() if k not in ("last_recalled_at", "recall_count")}
        for m in json.loads(out.stdout)
    ]
    for m in mems:
        got = cli("get", str(m["slug"]), "--json")
        assert got.returncode == 0, got.stderr
        m["body"] = json.loads(got.stdout)["body"]
    return mems


def _run(command: object, data: bytes, project: Path) -> subprocess.CompletedProcess[bytes]:
    if isinstance(command, str):  # Claude Code and Codex hooks: `sh -c`, the payload on stdin
        return subprocess.run(
            command, shell=True, input=data, capture_output=True, cwd=project, timeout=60, check=False
        )
    assert isinstance(command, list)  # Codex notify: argv + the payload as the last argument
    arg = os.fsdecode(data.replace(b"\0", b""))  # an argument cannot hold NUL
    return subprocess.run(
        [*command, arg], stdin=subprocess.DEVNULL, capture_output=True, cwd=project, timeout=60, check=False
    )


@pytest.mark.parametrize("kind", list(INPUTS))
def test_every_setup_hook_command_survives_hostile_input(
    cli, isolated_home: Path, project: Path, kind: str
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
    commands = _setup(cli, project)
    before = _state(cli)
    for event, command in commands.items():
        proc = _run(command, INPUTS[kind], project)
        err = proc.stderr.decode("utf-8", "replace")
        where = f"{event} with {kind} input: rc={proc.returncode} stderr={err!r}"
        assert proc.returncode == 0, where
        assert err.count("\n") == 1 and err.startswith("memoryd: "), where
        assert "Traceback" not in err, where
        if event.endswith("SessionStart") and kind == "empty":
            # No payload is not an error at SessionStart (the hook runs in the session's
            # directory): the context for it, strict JSON, and a warning line.
            ctx = json.loads(proc.stdout.decode("utf-8"), strict=True)["hookSpecificOutput"]
            assert ctx["hookEventName"] == "SessionStart" and "Use Postgres" in ctx["additionalContext"]
        else:
            assert proc.stdout == b"", where
        spool = isolated_home / "spool"
        assert not [p for p in spool.rglob("*") if p.is_file() and not p.name.startswith(".")], where
    assert _state(cli) == before
    doctor = cli("doctor")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    verify = cli("audit", "verify")
    assert verify.returncode == 0, verify.stdout + verify.stderr
    log = (isolated_home / "logs" / "hooks.log").read_text(encoding="utf-8")
    assert log.count("\n") == len(commands)
