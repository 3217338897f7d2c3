"""On-disk fixtures in each external format the importers read, with the counts to expect.

Each builder writes under a caller's base directory (a pytest `tmp_path`) and returns a
frozen record of what an importer should make of it, so tests assert against one source of
truth instead of re-counting the fixture by hand. Output is deterministic: fixed ids (uuid5
of fixed names where an id is derived), fixed timestamps, no clock. Shapes follow the specs:
Codex and OpenClaw per ECOSYSTEM-FACTS.md sections 2.1 and 3, memory-system per seed 003,
agent-memory v2 per seed 004. Where a spec is silent (entity files, the SQLite DDL) the
shape is a plausible guess and says so.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Iterable
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

_NS = uuid.UUID("6f1c0b9e-2d4a-4c57-9e31-7a5b8c0d2e14")  # namespace for derived ids


def _id(name: str) -> uuid.UUID:
    """A stable id for `name`: same input, same id, on every run."""
    return uuid.uuid5(_NS, name)


def _iso(dt: datetime) -> str:
    """Codex/OpenClaw style UTC timestamp with milliseconds and a Z."""
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def _ms(dt: datetime) -> int:
    return int(dt.timestamp() * 1000)


def _write_jsonl(path: Path, rows: Iterable[dict[str, Any] | str]) -> Path:
    """One JSON object per line; a str row is written raw, which is how bad lines get in."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = (r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in rows)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def _write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


# --------------------------------------------------------------------------- Codex


@dataclass(frozen=True)
class CodexFixture:
    """What `build_codex_home` wrote under `$CODEX_HOME`, and what an import should yield."""

    root: Path  # the .codex dir, i.e. CODEX_HOME
    sessions: int  # good rollout files: sessions/ (incl. the one with bad lines) + archived_sessions/
    session_ids: list[str]  # session_meta.payload.id of each good file, oldest first
    files: dict[str, Path]  # session id -> its rollout file
    dates: dict[str, date]  # session id -> UTC day it started (= its sessions/YYYY/MM/DD dir), for --since
    prompts: dict[str, int]  # session id -> real user prompts; injected <environment_context> etc. excluded
    malformed_lines: int  # not-JSON or non-object lines inside good files; skipped files' lines not counted
    skipped_files: int  # rollout files holding no session: one empty, one garbage-only


@dataclass(frozen=True)
class _Exchange:
    prompt: str
    answer: str
    command: list[str] | None = None  # a shell function_call made before answering
    output: str = ""


_AGENTS_MD = (
    "<user_instructions>\n\n# AGENTS.md\n\n- Run `pytest -q` before saying a change is done.\n"
    "- Type every function; keep ruff clean.\n\n</user_instructions>"
)


def _env_context(project: Path) -> str:
    return (
        f"<environment_context>\n  <cwd>{project}</cwd>\n  <approval_policy>on-request</approval_policy>\n"
        "  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted</network_access>\n"
        "  <shell>bash</shell>\n</environment_context>"
    )


def _codex_message(role: str, text: str) -> dict[str, Any]:
    kind = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}


def _codex_rows(
    sid: str, start: datetime, project: Path, exchanges: list[_Exchange], *, agents_md: bool = True
) -> list[dict[str, Any]]:
    """The lines Codex writes for one session: meta, injected context, then per turn a
    turn_context, the prompt, an optional shell call and its output, the answer, UI events."""
    rows: list[dict[str, Any]] = []

    def add(kind: str, payload: dict[str, Any]) -> None:
        ts = start + timedelta(seconds=4 * len(rows), milliseconds=137 * len(rows) % 1000)
        rows.append({"timestamp": _iso(ts), "type": kind, "payload": payload})

    add(
        "session_meta",
        {
            "id": sid,
            "timestamp": _iso(start),
            "cwd": str(project),
            "originator": "codex_cli_rs",
            "cli_version": "0.128.0",
            "instructions": None,
            "source": "cli",
            "git": {
                "commit_hash": (_id(sid + "/head").hex * 2)[:40],
                "branch": "main",
                "repository_url": "git@github.com:example/notes-app.git",
            },
        },
    )
    if agents_md:
        add("response_item", _codex_message("user", _AGENTS_MD))
    add("response_item", _codex_message("user", _env_context(project)))
    for n, ex in enumerate(exchanges):
        add(
            "turn_context",
            {
                "cwd": str(project),
                "approval_policy": "on-request",
                "sandbox_policy": {"mode": "workspace-write", "network_access": False},
                "model": "gpt-5-codex",
                "effort": "medium",
                "summary": "auto",
            },
        )
        add("event_msg", {"type": "task_started", "model_context_window": 272000})
        add("response_item", _codex_message("user", ex.prompt))
        add("event_msg", {"type": "user_message", "message": ex.prompt, "images": []})
        if ex.command:
            call_id = "call_" + _id(f"{sid}/{n}").hex[:24]
            add("response_item", {"type": "reasoning", "summary": [], "encrypted_content": "gAAAAABpZ0=="})
            args = json.dumps({"command": ex.command, "workdir": str(project), "timeout_ms": 120000})
            add(
                "response_item",
                {"type": "function_call", "name": "shell", "arguments": args, "call_id": call_id},
            )
            result = {"output": ex.output, "metadata": {"exit_code": 0, "duration_seconds": 0.8}}
            add(
                "response_item",
                {"type": "function_call_output", "call_id": call_id, "output": json.dumps(result)},
            )
        add("response_item", _codex_message("assistant", ex.answer))
        add("event_msg", {"type": "agent_message", "message": ex.answer})
        add("event_msg", {"type": "token_count", "info": {"total_token_usage": {"total_tokens": 9000 + n}}})
        add("event_msg", {"type": "task_complete", "last_agent_message": ex.answer})
    return rows


# fmt: off
_CODEX_SESSIONS: list[tuple[str, datetime, list[_Exchange]]] = [
    ("019a3553-0c8e-7d21-a6f4-5b0e93c1d7a2", datetime(2026, 10, 30, 16, 22, 45, tzinfo=UTC), [  # archived
        _Exchange("Rename the config key retention_days to keep_days, but keep reading the old key with a "
                  "deprecation warning.",
                  "Renamed it in config.py; the loader still accepts retention_days and warns once.",
                  ["bash", "-lc", "rg -n retention_days"],
                  "src/notes/config.py:41:    retention_days: int = 30"),
        _Exchange("Mention the rename in CHANGELOG.md.", "Added an entry under Unreleased > Changed."),
    ]),
    ("019a3e2f-4a61-7c55-8b0d-91e7c3f2a6b4", datetime(2026, 11, 1, 9, 14, 3, tzinfo=UTC), [
        _Exchange("Add a --since flag to the export command so I can export only notes changed after a date.",
                  "Added --since (YYYY-MM-DD) to `notes export`; it filters on updated_at.",
                  ["bash", "-lc", "rg -n 'def export' src"],
                  "src/notes/cli.py:88:def export(out: Path, fmt: str) -> None:"),
        _Exchange("Also write a test for the --since parsing, including an invalid date.",
                  "Added tests/test_export.py with a valid date, an invalid one (exit 2) and no flag."),
    ]),
    ("019a4351-d8a0-7e12-9f3c-0b6a2d4e8c17", datetime(2026, 11, 2, 10, 2, 41, tzinfo=UTC), [
        _Exchange("CI fails on Windows because test_paths.py hard-codes '/' separators. Can you fix it?",
                  "The test compared str paths; it now compares Path objects, which passes on both.",
                  ["bash", "-lc", "pytest -q tests/test_paths.py"], "....\n4 passed in 0.21s"),
        _Exchange("Use pathlib instead of os.path in src/notes/paths.py while you're there.",
                  "Done: paths.py no longer imports os.path; behaviour is unchanged."),
        _Exchange("Run ruff and fix whatever it flags.", "ruff flagged two unused imports; both removed."),
    ]),
    ("019a444e-21f7-7a08-b5e9-6c3d1f0a9e53", datetime(2026, 11, 2, 14, 37, 19, tzinfo=UTC), [  # torn lines
        _Exchange("Bump the minimum Python to 3.11 in pyproject.toml and drop the tomli fallback.",
                  "requires-python is now >=3.11 and config.py uses tomllib directly.",
                  ["bash", "-lc", "rg -n tomli"], "src/notes/config.py:3:    import tomli as tomllib"),
        _Exchange("Update the CI matrix to match.", "CI now tests 3.11, 3.12 and 3.13."),
    ]),
    ("019a4873-6e2b-7d4f-a1c8-3f5b7e9d0c26", datetime(2026, 11, 3, 8, 55, 12, tzinfo=UTC), [
        _Exchange("Search is slow for Chinese text. Profile search_notes() on the sample database.",
                  "Most time goes to a LIKE '%…%' fallback; the FTS5 table uses the unicode61 tokenizer, "
                  "which treats a whole Chinese sentence as one token.",
                  ["bash", "-lc", "python -m cProfile -s cumtime scripts/bench_search.py | head -n 15"],
                  "ncalls  tottime  cumtime filename:lineno(function)\n"
                  "1  0.002  1.912 search.py:40(search_notes)"),
        _Exchange("Switch the FTS table to the trigram tokenizer and add a migration.",
                  "Added migration 007_fts_trigram.sql, which rebuilds the index; a query now takes 12 ms."),
    ]),
]
# fmt: on


def build_codex_home(base: Path, *, project: Path) -> CodexFixture:
    """A CODEX_HOME with four good dated sessions (one with two bad lines), one archived
    session, and an empty and a garbage-only rollout that an importer must skip."""
    root = base / ".codex"
    files: dict[str, Path] = {}
    dates: dict[str, date] = {}
    prompts: dict[str, int] = {}
    for i, (sid, start, exchanges) in enumerate(_CODEX_SESSIONS):
        name = f"rollout-{start:%Y-%m-%dT%H-%M-%S}-{sid}.jsonl"
        folder = root / "archived_sessions" if i == 0 else root / "sessions" / f"{start:%Y/%m/%d}"
        # The last session ran in a repo without AGENTS.md, so it has no <user_instructions>.
        agents_md = i != len(_CODEX_SESSIONS) - 1
        rows: list[dict[str, Any] | str] = list(
            _codex_rows(sid, start, project, exchanges, agents_md=agents_md)
        )
        if sid.startswith("019a444e"):
            # A line cut off mid-write, and valid JSON that is not an object.
            rows.insert(5, '{"timestamp":"2026-11-02T14:37:41.000Z","type":"response_item","payload":{"ty')
            rows.insert(9, '["response_item", {"type": "message", "role": "user"}]')
        files[sid] = _write_jsonl(folder / name, rows)
        dates[sid] = start.date()
        prompts[sid] = len(exchanges)
    day3 = root / "sessions" / "2026" / "11" / "03"
    (day3 / "rollout-2026-11-03T22-41-07-019a4b6a-9c14-7b3e-8d27-e4f6a0b1c395.jsonl").write_bytes(b"")
    _write_jsonl(
        day3 / "rollout-2026-11-03T23-05-51-019a4b81-3f59-7e6d-92a4-7c0e5d8b1f68.jsonl",
        [
            "Segmentation fault (core dumped)",
            '{"timestamp":"2026-11-03T23:05:51.',
            "<<<<<<< HEAD",
            "[1, 2, 3]",
            {"note": "not a rollout record"},
        ],
    )
    return CodexFixture(
        root=root,
        sessions=len(files),
        session_ids=list(files),
        files=files,
        dates=dates,
        prompts=prompts,
        malformed_lines=2,
        skipped_files=2,
    )


# --------------------------------------------------------------------------- OpenClaw


@dataclass(frozen=True)
class OpenClawFixture:
    """What `build_openclaw_state` wrote under the OpenClaw state dir."""

    root: Path  # the .openclaw state dir (OPENCLAW_STATE_DIR)
    workspace: Path  # root/workspace, holding MEMORY.md and memory/
    transcripts: int  # good session files, incl. the one with a malformed line
    session_ids: list[str]  # header id of each good session, oldest first
    files: dict[str, Path]  # session id -> its agents/main/sessions/<id>.jsonl
    prompts: dict[str, int]  # session id -> user prompts in it
    malformed_lines: int  # lines in session files that are not JSON
    memory_bullets: int  # "- " bullets in MEMORY.md (title, intro and headings are not bullets)
    daily_logs: int  # workspace/memory/YYYY-MM-DD.md files
    daily_bullets: int  # "- " bullets across the daily logs


_OC_MODEL = {"api": "anthropic-messages", "provider": "anthropic", "model": "claude-opus-4-5"}

# Per session: (id, start, messages). A message is (role, text, tool call or None); for
# toolResult the text is the tool's output.
_OpenClawMsg = tuple[str, str, dict[str, Any] | None]
# fmt: off
_OPENCLAW_SESSIONS: list[tuple[str, datetime, list[_OpenClawMsg]]] = [
    ("3f6c2a9e-8b1d-4e57-a0c4-9d2e7f5b1a36", datetime(2026, 11, 1, 20, 11, 5, tzinfo=UTC), [
        ("user", "Can you check why the nightly backup didn't run last night?", None),
        ("assistant", "Let me look at the service log.", {"name": "exec", "arguments": {
            "command": "journalctl -u backup.service --since yesterday | tail -n 20"}}),
        ("toolResult", "Nov 01 03:00:02 nas backup.sh[4121]: rsync: connection unexpectedly closed", None),
        ("assistant", "It started at 03:00 but rsync lost the connection to the NAS.", None),
        ("user", "Retry it now and tell me when it finishes.", None),
        ("assistant", "Starting it.", {"name": "exec", "arguments": {
            "command": "systemctl start backup.service && systemctl is-active backup.service"}}),
        ("toolResult", "active", None),
        ("assistant", "Done: the backup finished in 4m12s.", None),
    ]),
    ("b7e41d08-5c2f-4a93-8e6b-1f0d9c3a7e25", datetime(2026, 11, 2, 8, 3, 40, tzinfo=UTC), [
        ("user", "Add 'dentist, Thursday 3pm' to my calendar and remind me the day before.", None),
        ("assistant", "Adding it.", {"name": "calendar_add", "arguments": {
            "title": "Dentist", "start": "2026-11-05T15:00", "remind": "P1D"}}),
        ("toolResult", '{"ok": true, "eventId": "evt_2291"}', None),
        ("assistant", "Booked for Thursday 15:00, with a reminder on Wednesday.", None),
        ("user", "谢谢，以后回答简短一点就好。", None),
        ("assistant", "好的。", None),
    ]),
    ("5a9d3e71-0f2b-4c86-b4e1-7d8c2a6f9e03", datetime(2026, 11, 2, 12, 38, 2, tzinfo=UTC), [  # torn line
        ("user", "What did I note in today's memory log?", None),
        ("assistant", "Reading it.", {"name": "memory_get", "arguments": {"path": "memory/2026-11-02.md"}}),
        ("toolResult", "- 08:05 Dentist booked for Thursday 15:00; reminder set for Wednesday.", None),
        ("assistant", "One note: the dentist on Thursday at 15:00, reminder on Wednesday.", None),
    ]),
]
# fmt: on


def _openclaw_rows(
    sid: str, start: datetime, project: Path, msgs: list[_OpenClawMsg]
) -> list[dict[str, Any]]:
    """A v3 session file: the header, model/thinking entries, then a parentId chain of messages."""
    rows: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": sid, "timestamp": _iso(start), "cwd": str(project)}
    ]
    parent: str | None = None
    call_id = ""
    tool = ""

    def add(entry: dict[str, Any]) -> None:
        nonlocal parent
        eid = _id(f"{sid}/{len(rows)}").hex[:8]
        ts = start + timedelta(seconds=3 * len(rows))
        rows.append({**entry, "id": eid, "parentId": parent, "timestamp": _iso(ts)})
        parent = eid

    add({"type": "model_change", "provider": "anthropic", "modelId": "claude-opus-4-5"})
    add({"type": "thinking_level_change", "thinkingLevel": "low"})
    for n, (role, text, call) in enumerate(msgs):
        ms = _ms(start + timedelta(seconds=3 * (len(rows) + 1)))
        content: list[dict[str, Any]] = [{"type": "text", "text": text}]
        msg: dict[str, Any] = {"role": role, "content": content, "timestamp": ms}
        if role == "assistant":
            if call:
                call_id, tool = "toolu_" + _id(f"{sid}/call{n}").hex[:20], call["name"]
                content.append({"type": "toolCall", "id": call_id, **call})
            usage = {
                "input": 1200 + n,
                "output": 80,
                "cacheRead": 0,
                "cacheWrite": 0,
                "totalTokens": 1280 + n,
            }
            msg.update(_OC_MODEL, usage=usage, stopReason="toolUse" if call else "stop")
        elif role == "toolResult":
            msg.update(toolCallId=call_id, toolName=tool, isError=False)
        add({"type": "message", "message": msg})
    return rows


_MEMORY_MD = """\
# MEMORY.md

Curated long-term memory. Loaded in the main session only.

## Preferences
- 用户喜欢简洁的回答
- Prefers metric units and 24-hour times
- Uses pnpm, not npm, for JavaScript projects

## Rules
- Never push to main without running tests
- 周末不要发送工作提醒

## Facts
- The NAS backup runs nightly at 03:00 via backup.service
- 用户的猫叫小米，每天早上七点喂食
"""

_DAILY_LOGS = {
    "2026-11-01": [
        "09:12 Started the importer work; Codex first.",
        "14:30 Nightly backup failed: rsync lost the NAS connection at 03:00.",
        "20:15 Retried the backup by hand; it finished in 4m12s.",
    ],
    "2026-11-02": [
        "08:05 Dentist booked for Thursday 15:00; reminder set for Wednesday.",
        "12:40 用户说以后回答简短一点。",
    ],
}


def build_openclaw_state(base: Path, *, project: Path) -> OpenClawFixture:
    """An OpenClaw state dir: three main-agent sessions (one with a torn line) and their
    sessions.json index, plus a workspace with MEMORY.md and two daily logs."""
    root = base / ".openclaw"
    sessions_dir = root / "agents" / "main" / "sessions"
    files: dict[str, Path] = {}
    prompts: dict[str, int] = {}
    index: dict[str, Any] = {}
    keys = ["agent:main:cron:backup-check", "agent:main:telegram:direct:4471", "agent:main:main"]
    for key, (sid, start, msgs) in zip(keys, _OPENCLAW_SESSIONS, strict=True):
        rows: list[dict[str, Any] | str] = list(_openclaw_rows(sid, start, project, msgs))
        if sid.startswith("5a9d3e71"):
            rows.insert(5, '{"type":"message","id":"9f3e","parentId":"2c1a","message":{"role":"assis')
        files[sid] = _write_jsonl(sessions_dir / f"{sid}.jsonl", rows)
        prompts[sid] = sum(1 for role, _, _ in msgs if role == "user")
        index[key] = {
            "sessionId": sid,
            "updatedAt": _ms(start + timedelta(minutes=5)),
            "sessionFile": str(files[sid]),
            "chatType": "direct",
            "inputTokens": 5400,
            "outputTokens": 410,
            "totalTokens": 5810,
            "compactionCount": 0,
        }
    _write_json(sessions_dir / "sessions.json", index)
    workspace = root / "workspace"
    workspace.mkdir(parents=True, exist_ok=True)
    (workspace / "MEMORY.md").write_text(_MEMORY_MD, encoding="utf-8")
    for day, notes in _DAILY_LOGS.items():
        body = f"# {day}\n\n" + "".join(f"- {note}\n" for note in notes)
        (workspace / "memory").mkdir(exist_ok=True)
        (workspace / "memory" / f"{day}.md").write_text(body, encoding="utf-8")
    return OpenClawFixture(
        root=root,
        workspace=workspace,
        transcripts=len(files),
        session_ids=list(files),
        files=files,
        prompts=prompts,
        malformed_lines=1,
        memory_bullets=sum(1 for line in _MEMORY_MD.splitlines() if line.startswith("- ")),
        daily_logs=len(_DAILY_LOGS),
        daily_bullets=sum(len(notes) for notes in _DAILY_LOGS.values()),
    )


# --------------------------------------------------------------------------- memory-system (seed 003)


@dataclass(frozen=True)
class MemorySystemFixture:
    """What `build_memory_system` wrote: a memory-system `workspace/memory` tree."""

    root: Path  # workspace/memory
    active_records: int  # usable records in layer2/active/*.jsonl: 5 facts, 2 beliefs, 1 summary
    archived_records: int  # usable records in layer2/archive/*.jsonl (2 facts)
    entities: int  # entity files listed in layer2/entities/_index.json
    malformed_lines: int  # not JSON (active facts), no "content" (active beliefs), "" content (archive facts)


def _record(rid: str, content: str, importance: float, score: float, **extra: Any) -> dict[str, Any]:
    """A layer-2 record as in the seed; `created` follows the date in the id."""
    created = f"{rid[2:6]}-{rid[6:8]}-{rid[8:10]}T10:30:00Z"
    return {
        "id": rid,
        "content": content,
        "importance": importance,
        "score": score,
        **extra,
        "created": created,
    }


# fmt: off
_FACTS = [
    _record("f_20261101_001", "用户对花生过敏", 1.0, 0.95, entities=["用户"], source="session_3f6c2a9e:15"),
    _record("f_20261101_002", "User prefers tabs over spaces", 0.8, 0.81, entities=["用户"],
            source="session_3f6c2a9e:22"),
    _record("f_20261101_003", "用户叫张三", 1.0, 0.93, entities=["用户"], source="session_3f6c2a9e:3"),
    _record("f_20261102_001", "memoryd targets Python 3.11 and uses SQLite FTS5 for search", 0.5, 0.62,
            entities=["memoryd"], source="session_b7e41d08:8"),
    _record("f_20261102_002", "今天下午三点开会", 0.2, 0.31, entities=["用户"], source="session_b7e41d08:30"),
]
_BELIEFS = [
    _record("b_20261101_001", "用户可能是后端工程师", 0.5, 0.72, confidence=0.6,
            basis="经常讨论 SQLite、Python 打包和 CI", entities=["用户"]),
    _record("b_20261102_001", "User probably works late; most sessions start after 20:00", 0.2, 0.44,
            confidence=0.5, basis="Sessions on 2026-11-01 and 2026-11-02 began after 20:00",
            entities=["用户"]),
]
_SUMMARIES = [
    _record("s_20261102_001", "张三在开发 memoryd（Python 3.11 + SQLite），偏好 tabs，对花生过敏", 0.9, 0.88,
            source_facts=["f_20261101_001", "f_20261101_002", "f_20261101_003", "f_20261102_001"],
            entities=["用户", "memoryd"]),
]
_ARCHIVED = [
    _record("f_20260915_004", "User was trying out the Zed editor", 0.2, 0.03, entities=["用户"],
            source="session_0a1b2c3d:4"),
    _record("f_20260920_002", "上周五去了西湖", 0.5, 0.04, entities=["用户"], source="session_0a1b2c3d:9"),
]
_ENTITIES = {
    "e_user": {"name": "用户", "type": "person", "aliases": ["张三", "Zhang San"],
               "attributes": {"allergy": "花生", "indentation": "tabs"}},
    "e_memoryd": {"name": "memoryd", "type": "project", "aliases": [],
                  "attributes": {"language": "Python 3.11", "storage": "SQLite"}},
}
# fmt: on
_SNAPSHOT = """\
# 工作记忆快照
> 生成时间: 2026-11-03T03:00:00Z | 记忆数: 10 | 活跃: 8 | 归档: 2

## 用户
- 名字: 张三 (用户)
- 核心项目: memoryd

## 核心记忆 (Top 5)
1. [0.95] 用户对花生过敏
2. [0.93] 用户叫张三
3. [0.88] 张三在开发 memoryd（Python 3.11 + SQLite），偏好 tabs，对花生过敏
4. [0.81] User prefers tabs over spaces
5. [0.72] 用户可能是后端工程师

## 索引
[完整记忆库: 10 条 | 实体: 2 个 | 主题: 2 类]
使用 memory_search 检索详细信息
"""
# fmt: off
_CONFIG = {
    "version": "1.0",
    "decay_rates": {"fact": 0.008, "belief": 0.07, "summary": 0.025},
    "thresholds": {"archive": 0.05, "summary_trigger": 3},
    "token_budget": {"layer1_total": 2000, "layer1_top1": 0.4, "layer1_top2": 0.25, "layer1_top3": 0.15,
                     "layer1_rest": 0.2},
    "consolidation": {"schedule": "0 3 * * *", "fallback_hours": 48, "model": "default"},
    "importance_rules": {"identity_health_safety": 1.0, "preference_relation_status": 0.8,
                         "general_fact": 0.5, "temporary": 0.2},
}
# fmt: on


def build_memory_system(base: Path) -> MemorySystemFixture:
    """A memory-system tree as `memory.py init` plus a few consolidations leave it, with one
    bad line of each kind an importer must skip. Entity file shape is not in the seed."""
    root = base / "workspace" / "memory"
    _write_json(root / "config.json", _CONFIG)
    (root / "layer1").mkdir(parents=True, exist_ok=True)
    (root / "layer1" / "snapshot.md").write_text(_SNAPSHOT, encoding="utf-8")
    active, archive = root / "layer2" / "active", root / "layer2" / "archive"
    torn = '{"id": "f_20261102_003", "content": "用户住在杭'
    _write_jsonl(active / "facts.jsonl", [*_FACTS[:3], torn, *_FACTS[3:]])
    no_content = _record("b_20261102_002", "", 0.3, 0.4, confidence=0.4, basis="一次提到", entities=["用户"])
    del no_content["content"]
    _write_jsonl(active / "beliefs.jsonl", [*_BELIEFS, no_content])
    _write_jsonl(active / "summaries.jsonl", _SUMMARIES)
    empty = _record("f_20260921_001", "", 0.2, 0.02, entities=["用户"], source="session_0a1b2c3d:12")
    _write_jsonl(archive / "facts.jsonl", [_ARCHIVED[0], empty, _ARCHIVED[1]])
    _write_jsonl(archive / "beliefs.jsonl", [])
    _write_jsonl(archive / "summaries.jsonl", [])
    entities_dir = root / "layer2" / "entities"
    index: dict[str, Any] = {"version": "1.0", "updated": "2026-11-03T03:00:00Z", "entities": {}}
    for eid, ent in _ENTITIES.items():
        related = [r["id"] for r in [*_FACTS, *_BELIEFS, *_SUMMARIES] if ent["name"] in r["entities"]]
        _write_json(
            entities_dir / f"{eid}.json",
            {
                "id": eid,
                **ent,
                "memories": related,
                "created": "2026-11-01T10:30:00Z",
                "updated": "2026-11-03T03:00:00Z",
            },
        )
        index["entities"][eid] = {
            "name": ent["name"],
            "type": ent["type"],
            "file": f"{eid}.json",
            "memory_count": len(related),
        }
    _write_json(entities_dir / "_index.json", index)
    return MemorySystemFixture(
        root=root,
        active_records=len(_FACTS) + len(_BELIEFS) + len(_SUMMARIES),
        archived_records=len(_ARCHIVED),
        entities=len(_ENTITIES),
        malformed_lines=3,
    )


# --------------------------------------------------------------------------- agent-memory v2 (seed 004)


@dataclass(frozen=True)
class AgentMemoryFixture:
    """What `build_agent_memory_db` wrote: an agent-memory v2 `memory.db`."""

    root: Path  # data/memory/memory.db
    memories_ok: int  # memories rows to import: content present and not expired
    expired: int  # rows whose expires_at is in the past (2020): skip
    bad_rows: int  # rows with content NULL: skip
    episodes: int  # episodes rows


# The seed gives columns, not DDL: this is a plausible schema. content is nullable so the
# bad row can exist; timestamps are naive ISO-8601 TEXT, as datetime.isoformat() writes them.
_DDL = """
CREATE TABLE memories (
    id TEXT PRIMARY KEY,
    type TEXT NOT NULL CHECK (type IN ('FACT', 'PREFERENCE', 'SKILL', 'ERROR', 'RULE')),
    priority TEXT NOT NULL DEFAULT 'LONG_TERM'
        CHECK (priority IN ('TRANSIENT', 'SHORT_TERM', 'LONG_TERM', 'PERMANENT')),
    content TEXT,
    subject TEXT,
    predicate TEXT,
    importance_score REAL NOT NULL DEFAULT 0.5,
    confidence REAL NOT NULL DEFAULT 1.0,
    expires_at TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX idx_memories_type ON memories(type);
CREATE INDEX idx_memories_expires ON memories(expires_at);
CREATE TABLE episodes (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    summary TEXT NOT NULL,
    goal TEXT,
    outcome TEXT,
    entities TEXT NOT NULL DEFAULT '[]',
    tools_used TEXT NOT NULL DEFAULT '[]',
    started_at TEXT NOT NULL,
    ended_at TEXT
);
"""

# Not-yet-expired rows expire in 2099, not created_at + 30d, so the counts hold whatever
# day the tests run on.
_LATER = "2099-12-31T00:00:00"
# fmt: off
_MEMORIES: list[tuple[str, str, str | None, str, str, float, float, str | None, str]] = [
    # type, priority, content, subject, predicate, importance, confidence, expires_at, created_at
    ("FACT", "LONG_TERM", "用户的代码目录在 D:\\code", "用户", "code_dir", 0.6, 0.9, _LATER,
     "2026-11-01T09:20:11"),
    ("PREFERENCE", "PERMANENT", "用户喜欢用 Python", "用户", "prefers_language", 0.8, 1.0, None,
     "2026-11-01T09:31:40"),
    ("SKILL", "PERMANENT", "Running pytest with -x finds the first failure faster", "pytest", "works_well",
     0.7, 0.85, None, "2026-11-01T15:02:09"),
    ("ERROR", "SHORT_TERM", "Deleting files directly lost data; move them to the trash instead", "rm",
     "caused", 0.75, 0.9, _LATER, "2026-11-02T11:45:53"),
    ("RULE", "PERMANENT", "禁止虚报执行结果", "assistant", "must_not", 0.9, 1.0, None, "2026-11-02T12:00:00"),
    ("RULE", "TRANSIENT", "Only touch README.md in this task", "task", "scope", 0.4, 1.0,
     "2020-06-02T09:00:00", "2020-06-01T09:00:00"),  # expired
    ("FACT", "LONG_TERM", None, "用户", "home_city", 0.5, 0.8, _LATER, "2026-11-02T18:10:27"),  # bad
]
_EPISODES: list[tuple[str, str, str, list[str], list[str], str, str]] = [
    # summary, goal, outcome, entities, tools_used, started_at, ended_at
    ("Set up the memoryd repository layout and CI", "Create the project skeleton", "success",
     ["memoryd", "GitHub Actions"], ["shell", "write_file"], "2026-11-01T09:10:00", "2026-11-01T10:02:41"),
    ("排查 Windows 上路径分隔符导致的测试失败", "修复 CI", "success", ["CI", "Windows"],
     ["shell", "read_file", "edit_file"], "2026-11-02T10:02:00", "2026-11-02T10:40:12"),
    ("Tried to speed up Chinese full-text search; the trigram migration is still pending", "Faster search",
     "partial", ["SQLite", "FTS5"], ["shell"], "2026-11-03T08:55:00", "2026-11-03T09:48:30"),
]
# fmt: on


def build_agent_memory_db(base: Path) -> AgentMemoryFixture:
    """An agent-memory v2 store with one memory of each type, one expired, one with no
    content, and three episodes: what an importer must keep, skip as expired, or reject."""
    db = base / "data" / "memory" / "memory.db"
    db.parent.mkdir(parents=True, exist_ok=True)
    db.unlink(missing_ok=True)
    with closing(sqlite3.connect(db)) as conn:
        conn.executescript(_DDL)
        conn.executemany(
            "INSERT INTO memories VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(str(_id(f"memory/{i}")), *row, row[-1]) for i, row in enumerate(_MEMORIES)],
        )
        for i, (summary, goal, outcome, ents, tools, started, ended) in enumerate(_EPISODES):
            ids = (str(_id(f"episode/{i}")), str(_id(f"session/{i}")))
            lists = (json.dumps(ents, ensure_ascii=False), json.dumps(tools))
            row = (*ids, summary, goal, outcome, *lists, started, ended)
            conn.execute("INSERT INTO episodes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", row)
        conn.commit()
    expired = sum(1 for row in _MEMORIES if row[7] is not None and row[7] < "2026-01-01")
    bad = sum(1 for row in _MEMORIES if row[2] is None)
    return AgentMemoryFixture(
        root=db,
        memories_ok=len(_MEMORIES) - expired - bad,
        expired=expired,
        bad_rows=bad,
        episodes=len(_EPISODES),
    )
