"""Acceptance: no secret of the corpus is ever stored. Each is put in every place a transcript
can hold it (user turn, assistant text, the input of Bash, Write and Edit calls, a tool result,
Read output with line numbers, a Codex rollout), captured through the real hook and worker,
and written through `record`, `update`, MCP `mem_record`, an edited promotion and each
importer; then every file under MEMORYD_HOME is read byte by byte (memory files, index.db and
its WAL, turns, spool, audit log, snapshots, exports) and none may hold any of them.

Secrets are batched: one session, one rollout, one import per path, so the whole module costs a
few CLI runs, not one per secret."""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import sqlite3
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.types import Implementation

from memoryd.app import Memoryd
from memoryd.mcpserver import build
from tests.core.governance import sessions
from tests.core.importers import fixtures
from tests.core.importers.support import run_import

from .corpus import Secret, secrets_corpus

SECRETS = secrets_corpus()
TS = "2026-05-18T22:30:12.000Z"


def test_corpus_is_large_enough() -> None:
    assert len(SECRETS) >= 50
    assert len({s.kind for s in SECRETS}) == len(SECRETS)


# -- scanning -------------------------------------------------------------------------------


def _decoded_strings(data: bytes) -> list[bytes]:
    """Base64 inside a JSON file (an export's `content`), decoded, so a secret cannot hide there."""
    try:
        doc = json.loads(data)
    except ValueError:
        return []
    out: list[bytes] = []

    def walk(v: Any) -> None:
        if isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, str) and len(v) >= 40:
            with contextlib.suppress(binascii.Error, ValueError):
                out.append(base64.b64decode(v, validate=True))

    walk(doc)
    return out


def leaks(home: Path, secrets: list[Secret] = SECRETS) -> list[str]:
    """Every (secret, file) where a secret's text is found, as is or lowercased (slugs and
    full-text tokens are lowercase)."""
    found = []
    files = [p for p in home.rglob("*") if p.is_file()]
    assert any(p.name == "index.db" for p in files)
    for path in files:
        data = path.read_bytes()
        blobs = [data, *(_decoded_strings(data) if path.suffix == ".json" else [])]
        lowered = [b.lower() for b in blobs]
        for s in secrets:
            for needle in s.needles:
                n = needle.encode()
                if any(n in b for b in blobs) or (len(needle) >= 12 and any(n.lower() in b for b in lowered)):
                    found.append(f"{s.kind}: {path.relative_to(home)}")
    return found


def everything_written(cli: Callable[..., Any], home: Path, project: Path) -> None:
    """Snapshots, exports and MEMORY.md rendered into MEMORYD_HOME, so they are scanned too."""
    out = home / "exports"
    out.mkdir(parents=True, exist_ok=True)
    assert cli("inject", "--format", "claude-hook", cwd=project).returncode == 0
    res = cli("export", "--out", str(out / "memories.json"))
    assert res.returncode == 0, res.stderr
    res = cli("export-md", "--out", str(out / "md"), cwd=project)
    assert res.returncode == 0, res.stderr


# -- transcripts ------------------------------------------------------------------------------


class _Claude:
    """Claude Code transcript lines: uuid/parentUuid chain, message.content blocks."""

    def __init__(self, sid: str, cwd: Path) -> None:
        self.sid, self.cwd = sid, str(cwd)
        self.lines: list[dict[str, Any]] = []
        self.parent: str | None = None

    def _add(self, kind: str, message: dict[str, Any]) -> None:
        uid = str(uuid.uuid4())
        self.lines.append(
            {
                "type": kind,
                "uuid": uid,
                "parentUuid": self.parent,
                "sessionId": self.sid,
                "cwd": self.cwd,
                "version": "2.1.200",
                "timestamp": TS,
                "message": message,
            }
        )
        self.parent = uid

    def user(self, text: str) -> None:
        self._add("user", {"role": "user", "content": text})

    def assistant(self, text: str) -> None:
        self._add("assistant", {"role": "assistant", "content": [{"type": "text", "text": text}]})

    def tool(self, name: str, args: dict[str, Any], output: str) -> None:
        tid = "toolu_" + uuid.uuid4().hex[:20]
        self._add(
            "assistant",
            {"role": "assistant", "content": [{"type": "tool_use", "id": tid, "name": name, "input": args}]},
        )
        block = {"type": "tool_result", "tool_use_id": tid, "content": output, "is_error": False}
        self._add("user", {"role": "user", "content": [block]})

    def write(self, path: Path) -> Path:
        path.write_text(
            "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in self.lines), encoding="utf-8"
        )
        return path


def _numbered(text: str, first: int = 1) -> str:
    """What Claude Code's Read tool returns: `     3→line`."""
    return "\n".join(f"{n:>6}→{line}" for n, line in enumerate(text.split("\n"), first))


def _file_text(s: Secret) -> str:
    return f"# settings for the staging deploy\nLOG_LEVEL=info\n{s.line}\nDEBUG=false\n"


def claude_session(sid: str, project: Path, secrets: list[Secret]) -> _Claude:
    t = _Claude(sid, project)
    t.user("Set up the staging deploy: the credentials are below, wire them into the config.")
    for i, s in enumerate(secrets):
        f = project / "config" / f"staging-{i}.env"
        t.user(f"Here is what ops gave me:\n{s.line}\nPlease use it for the deploy.")
        t.assistant(f"I'll put this in the config:\n{s.line}\nand keep it out of git.")
        t.tool("Bash", {"command": s.shell(), "description": "store the credential"}, "ok")
        t.tool("Write", {"file_path": str(f), "content": _file_text(s)}, f"File created successfully at: {f}")
        t.tool(
            "Edit",
            {"file_path": str(f), "old_string": "DEBUG=false", "new_string": s.line, "replace_all": False},
            "The file has been updated.",
        )
        t.tool("Bash", {"command": f"cat {f}"}, _file_text(s))
        t.tool("Read", {"file_path": str(f)}, _numbered(_file_text(s)))
    t.assistant("Done: the staging deploy reads its credentials from config/ and nothing is in git.")
    return t


def codex_rollout(path: Path, sid: str, project: Path, secrets: list[Secret]) -> Path:
    start = datetime(2026, 11, 5, 9, 0, tzinfo=UTC)
    rows: list[dict[str, Any]] = []

    def add(kind: str, payload: dict[str, Any]) -> None:
        ts = (start + timedelta(seconds=len(rows))).isoformat().replace("+00:00", "Z")
        rows.append({"timestamp": ts, "type": kind, "payload": payload})

    def msg(role: str, text: str) -> dict[str, Any]:
        kind = "output_text" if role == "assistant" else "input_text"
        return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}

    add(
        "session_meta", {"id": sid, "timestamp": (rows and "") or "2026-11-05T09:00:00Z", "cwd": str(project)}
    )
    add("response_item", msg("user", "Rotate the staging credentials; the new ones follow."))
    for i, s in enumerate(secrets):
        add("response_item", msg("user", f"New credential:\n{s.line}"))
        args = json.dumps({"command": ["bash", "-lc", s.shell()], "workdir": str(project)})
        add(
            "response_item", {"type": "function_call", "name": "shell", "arguments": args, "call_id": f"c{i}"}
        )
        out = {"output": f"stored:\n{s.line}", "metadata": {"exit_code": 0}}
        add("response_item", {"type": "function_call_output", "call_id": f"c{i}", "output": json.dumps(out)})
        add("response_item", msg("assistant", f"Stored it:\n{s.line}"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


# -- the paths ----------------------------------------------------------------------------------


def test_claude_code_capture_through_hook_and_worker(
    cli: Callable[..., Any], project: Path, isolated_home: Path, tmp_path: Path
) -> None:
    sid = "5d0c1e2f-3a4b-4c5d-8e6f-7a8b9c0d1e2f"
    transcript = claude_session(sid, project, SECRETS).write(tmp_path / "t.jsonl")
    last = "Summary of what I set up:\n" + "\n".join(s.line for s in SECRETS[:20])
    payload = {
        "session_id": sid,
        "transcript_path": str(transcript),
        "cwd": str(project),
        "hook_event_name": "Stop",
        "last_assistant_message": last,
    }
    res = cli(
        "capture",
        "--source=claude-code",
        stdin=json.dumps(payload),
        cwd=project,
        env={"MEMORYD_NO_WORKER": "1"},
    )
    assert res.returncode == 0, res.stderr
    res = cli("worker", "--wait")
    assert res.returncode == 0, res.stderr
    # A second payload stays in the spool (no worker): the spool is scanned too.
    payload2 = {**payload, "session_id": "spooled-" + sid, "transcript_path": None}
    res = cli(
        "capture",
        "--source=claude-code",
        stdin=json.dumps(payload2),
        cwd=project,
        env={"MEMORYD_NO_WORKER": "1"},
    )
    assert res.returncode == 0, res.stderr
    assert list((isolated_home / "spool").glob("*.json"))

    app = Memoryd()
    slug = app.store.slug_for_session("claude-code", sid)
    assert slug
    doc, path = app.store.read(slug)
    turns = app.store.files.read_turns(path)
    assert len(turns) >= 6 * len(SECRETS)  # every position was kept, redacted
    assert "[REDACTED:" in doc.body and "staging deploy" in doc.body
    everything_written(cli, isolated_home, project)
    assert leaks(isolated_home) == []
    event = json.loads(cli("audit", "--event-type", "capture", "--json").stdout)[0]
    details = json.loads(event["details"])
    assert sum(details["redactions"].values()) >= len(SECRETS)


def test_codex_rollout_capture(
    cli: Callable[..., Any], project: Path, isolated_home: Path, tmp_path: Path
) -> None:
    sid = "019a5a5a-0c8e-7d21-a6f4-5b0e93c1d7a2"
    codex_home = tmp_path / ".codex"
    codex_rollout(
        codex_home / "sessions" / "2026" / "11" / "05" / f"rollout-2026-11-05T09-00-00-{sid}.jsonl",
        sid,
        project,
        SECRETS,
    )
    notify = {
        "type": "agent-turn-complete",
        "thread-id": sid,
        "turn-id": "1",
        "cwd": str(project),
        "input-messages": [SECRETS[0].line, SECRETS[1].line],
        "last-assistant-message": "Stored:\n" + "\n".join(s.line for s in SECRETS[-10:]),
    }
    env = {"CODEX_HOME": str(codex_home), "MEMORYD_NO_WORKER": "1"}
    res = cli("capture", "--source=codex", stdin=json.dumps(notify), cwd=project, env=env)
    assert res.returncode == 0, res.stderr
    res = cli("worker", "--wait", env={"CODEX_HOME": str(codex_home)})
    assert res.returncode == 0, res.stderr
    app = Memoryd()
    slug = app.store.slug_for_session("codex", sid)
    assert slug
    _doc, path = app.store.read(slug)
    assert len(app.store.files.read_turns(path)) >= 3 * len(SECRETS)
    everything_written(cli, isolated_home, project)
    assert leaks(isolated_home) == []


def _chunks(n: int) -> list[list[Secret]]:
    return [SECRETS[i::n] for i in range(n)]


def _one_line(s: Secret) -> str:
    """The secret's line on one line, whole (a cut could leave a secret without its context)."""
    return " ".join(s.line.split())


def _titled(chunk: list[Secret], i: int) -> str:
    """The chunk's secret line for a title: the i-th, or the next that fits a title
    (200 characters, memoryd.app.MAX_TITLE_CHARS; a PEM key or a long JWT line does not)."""
    fits = [s for s in chunk[i:] + chunk[:i] if len(_one_line(s)) <= 150]
    return _one_line(fits[0])


def test_record_update_mcp_and_edited_promotion(
    cli: Callable[..., Any], project: Path, isolated_home: Path, tmp_path: Path, monkeypatch: Any
) -> None:
    # record: secrets in the title (whose words make the memory's name), body, triggers, tags
    for chunk in _chunks(4):
        args = [
            "record",
            "--type=fact",
            f"--title=Staging credential {_titled(chunk, 0)}",
            "--body=Ops handed these over:\n" + "\n".join(s.line for s in chunk) + "\n",
        ]
        args += [f"--trigger={_one_line(s)}" for s in chunk[:5]]
        args += [f"--tag={_one_line(s)}" for s in chunk[5:8]]
        res = cli(*args, cwd=project)
        assert res.returncode == 0, res.stderr
    # update: a memory recorded clean gets secrets in its title, body, triggers and tags
    res = cli(
        "record",
        "--type=decision",
        "--title=Where the staging creds live",
        "--body=In vault.",
        "--json",
        cwd=project,
    )
    assert res.returncode == 0, res.stderr
    slug = json.loads(res.stdout)["slug"]
    for chunk in _chunks(3):
        args = [
            "update",
            slug,
            "--body=Actually they are:\n" + "\n".join(s.line for s in chunk) + "\n",
            f"--title=Creds {_titled(chunk, 1)}",
        ]
        args += [f"--trigger={_one_line(s)}" for s in chunk[:5]]
        args += [f"--tag={_one_line(s)}" for s in chunk[5:8]]
        res = cli(*args)
        assert res.returncode == 0, res.stderr

    # MCP mem_record through the real server and client
    monkeypatch.chdir(project)

    async def main() -> None:
        async with Client(build(), client_info=Implementation(name="pytest", version="1.0")) as c:
            for chunk in _chunks(4):
                result = await c.call_tool(
                    "mem_record",
                    {
                        "type": "warning",
                        "title": "Do not paste " + _titled(chunk, 2),
                        "body": "These were pasted in chat:\n" + "\n".join(s.line for s in chunk),
                        "triggers": [_one_line(s) for s in chunk[:5]],
                        "tags": [_one_line(s) for s in chunk[5:8]],
                        "scope": str(project),
                    },
                )
                assert not result.is_error, result

    anyio.run(main)

    # promote-with-edit: the user edits title, body and triggers before approving
    ssl = sessions.capture(cli, project, tmp_path, "promo-1", [sessions.REMEMBER])
    pid = json.loads(cli("analyze-session", ssl, "--json").stdout)["promotion_id"]
    assert pid
    body = "Edited before approval:\n" + "\n".join(s.line for s in SECRETS)
    app = Memoryd()
    doc, _ = app.promote(
        pid,
        memory_type="decision",
        title="Creds " + _one_line(SECRETS[3]),
        body=body,
        triggers=[_one_line(s) for s in SECRETS[:10]],
    )
    assert "[REDACTED:" in doc.body
    everything_written(cli, isolated_home, project)
    assert leaks(isolated_home) == []
    events = json.loads(cli("audit", "--event-type", "promote", "--json").stdout)
    assert sum(json.loads(events[0]["details"])["redactions"].values()) >= len(SECRETS)


def test_every_importer(cli: Callable[..., Any], project: Path, isolated_home: Path, tmp_path: Path) -> None:
    # Codex rollouts
    codex = fixtures.build_codex_home(tmp_path / "codex", project=project)
    sid = "019a6b6b-1111-7222-8333-944455556666"
    codex_rollout(
        codex.root / "sessions" / "2026" / "11" / "05" / f"rollout-2026-11-05T10-00-00-{sid}.jsonl",
        sid,
        project,
        SECRETS,
    )
    run_import("codex", str(codex.root), "--scope", str(project))

    # OpenClaw: a session with secrets in every message kind, and MEMORY.md bullets
    claw = fixtures.build_openclaw_state(tmp_path / "claw", project=project)
    target = claw.files[claw.session_ids[0]]
    rows = []
    for i, s in enumerate(SECRETS):
        for role, content in (
            ("user", [{"type": "text", "text": f"use this:\n{s.line}"}]),
            (
                "assistant",
                [
                    {"type": "text", "text": "ok"},
                    {"type": "toolCall", "id": f"t{i}", "name": "exec", "arguments": {"command": s.shell()}},
                ],
            ),
            ("toolResult", [{"type": "text", "text": s.line}]),
        ):
            rows.append(
                {
                    "type": "message",
                    "id": f"s{i}{role}",
                    "parentId": None,
                    "timestamp": "2026-11-03T10:00:00Z",
                    "message": {"role": role, "content": content},
                }
            )
    with open(target, "a", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    with open(claw.workspace / "MEMORY.md", "a", encoding="utf-8") as fh:
        fh.writelines(f"- Staging credential: {s.line.replace(chr(10), ' ')}\n" for s in SECRETS)
    run_import("openclaw", str(claw.root), "--scope", str(project))

    # memory-system: facts whose content holds secrets
    ms = fixtures.build_memory_system(tmp_path / "ms")
    with open(ms.root / "layer2" / "active" / "facts.jsonl", "a", encoding="utf-8") as fh:
        for i, s in enumerate(SECRETS):
            rec = fixtures._record(
                f"f_20261104_{i + 100:03d}",
                f"credential for staging: {s.line}",
                0.9,
                0.9,
                entities=["ops"],
                source="session_x:1",
            )
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    run_import("memory-system", str(ms.root), "--scope", str(project))

    # agent-memory: memories and an episode with secrets
    am = fixtures.build_agent_memory_db(tmp_path / "am")
    with sqlite3.connect(am.root) as conn:
        for i, s in enumerate(SECRETS):
            conn.execute(
                "INSERT INTO memories VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    str(uuid.uuid4()),
                    "FACT",
                    "LONG_TERM",
                    f"staging credential {s.line}",
                    "ops",
                    "credential",
                    0.9,
                    1.0,
                    None,
                    f"2026-11-04T10:{i % 60:02d}:00",
                    f"2026-11-04T10:{i % 60:02d}:00",
                ),
            )
        conn.execute(
            "INSERT INTO episodes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                str(uuid.uuid4()),
                str(uuid.uuid4()),
                "Rotated creds: " + SECRETS[5].line,
                SECRETS[6].line,
                SECRETS[7].line,
                "[]",
                "[]",
                "2026-11-04T09:00:00",
                "2026-11-04T09:30:00",
            ),
        )
    run_import("agent-memory", str(am.root), "--scope", str(project))

    everything_written(cli, isolated_home, project)
    assert leaks(isolated_home) == []
