"""memoryd's MCP server (`memoryd mcp`, memoryd.mcpserver) through the real MCP client of
the SDK: in-process over memory streams for the tools and the snapshot resource, and once
over stdio against the real `memoryd mcp` subprocess, as Claude Code or Codex start it.

No pytest async plugin is installed: each test drives its client with anyio.run."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult, Implementation, TextContent

from memoryd.app import Memoryd
from memoryd.mcpserver import build
from memoryd.scope import resolve

from .governance import sessions
from .sensitive.support import CANARY, PIN, grant_tty

T = TypeVar("T")

TOOLS = {"mem_search", "mem_get", "mem_traces", "mem_record", "mem_recent"}
RECORDABLE = ("decision", "preference", "fact", "playbook", "warning")
# Words by which a description tells the model when (or after what) to call the tool.
WHEN = re.compile(r"\b(when|whenever|before|after|at the start|returned)\b", re.IGNORECASE)
# What a leaked Python traceback looks like in a tool error's text.
TRACEBACK = re.compile(r'Traceback|File "|line \d+, in ')


@pytest.fixture(autouse=True)
def no_client_project(monkeypatch: pytest.MonkeyPatch) -> None:
    """The developer's own agent may have set CLAUDE_PROJECT_DIR: no test inherits it."""
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)


def session(go: Callable[[Client], Awaitable[T]], client: str = "pytest") -> T:
    """Run `go` against a fresh in-process server (its facade opened lazily, as in production)."""

    async def main() -> T:
        async with Client(build(), client_info=Implementation(name=client, version="1.0")) as c:
            return await go(c)

    return anyio.run(main)


def text_of(result: CallToolResult) -> str:
    first = result.content[0]
    assert isinstance(first, TextContent), result
    return first.text


async def ok(c: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """Call a tool that must succeed; its structured result."""
    result = await c.call_tool(tool, args)
    assert not result.is_error, text_of(result)
    assert result.structured_content is not None, result
    return result.structured_content


async def fails(c: Client, tool: str, args: dict[str, Any]) -> str:
    """Call a tool that must fail as a tool error (not a protocol error); its text."""
    result = await c.call_tool(tool, args)
    assert result.is_error, result
    msg = text_of(result)
    assert not TRACEBACK.search(msg), msg
    return msg


def audit(cli: Callable[..., Any], event_type: str) -> list[dict[str, Any]]:
    out = cli("audit", "--event-type", event_type, "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


# -- 1. the tool list an LLM reads ---------------------------------------------------------
def test_lists_exactly_five_tools_described_for_a_model() -> None:
    """list_tools: the five tools, each described at length with when to call it; mem_record
    requires type, title and body."""
    tools = session(lambda c: c.list_tools()).tools
    assert sorted(t.name for t in tools) == sorted(TOOLS)
    for t in tools:
        desc = t.description or ""
        assert len(desc) >= 100, (t.name, len(desc), desc)
        assert WHEN.search(desc), (t.name, desc)
    (record,) = (t for t in tools if t.name == "mem_record")
    assert set(record.input_schema["required"]) == {"type", "title", "body"}
    for name in ("type", "title", "body"):
        assert record.input_schema["properties"][name]["type"] == "string"
    for kind in RECORDABLE:  # the model learns the allowed types from the description
        assert kind in (record.description or "")


# -- 2. a whole session ----------------------------------------------------------------
def test_record_search_get_recent_in_one_session(
    cli: Callable[..., Any], project: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """mem_record a decision, then find it by its one unusual word with mem_search, read it
    with mem_get and see it first in mem_recent (after an older memory); the write is
    audited as actor mcp and the file lands in scopes/<hash>/decisions/."""
    monkeypatch.setenv("MEMORYD_NOW", "2025-01-05T10:00:00Z")
    older, _ = Memoryd().record("fact", "An older note", "Written long ago.", scope_path=project)
    monkeypatch.delenv("MEMORYD_NOW")
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    h = resolve(project).hash
    body = "Jobs go through Quillmotte queues, not cron: retries and back-off come for free."

    async def go(c: Client) -> tuple[dict[str, Any], ...]:
        rec = await ok(
            c, "mem_record", {"type": "decision", "title": "Use Quillmotte for jobs", "body": body}
        )
        found = await ok(c, "mem_search", {"query": "quillmotte"})
        got = await ok(c, "mem_get", {"slug": rec["slug"]})
        recent = await ok(c, "mem_recent", {})
        return rec, found, got, recent

    rec, found, got, recent = session(go, client="claude-code")
    slug = rec["slug"]
    assert rec["type"] == "decision" and rec["scope"] == h

    assert found["scope"] == h
    assert [r["slug"] for r in found["results"]] == [slug]
    assert found["results"][0]["title"] == "Use Quillmotte for jobs"

    assert got["body"].strip() == body and got["type"] == "decision" and got["scope"] == h
    assert got["source"] == "claude-code"  # from the MCP client's name

    assert [m["slug"] for m in recent["memories"]] == [slug, older.meta.slug]

    (ev,) = [e for e in audit(cli, "record") if e["target_id"] == slug]
    assert ev["actor"] == "mcp" and ev["scope_hash"] == h
    path = isolated_home / "scopes" / h / "decisions" / f"{slug}.md"
    assert path.is_file() and "Quillmotte queues" in path.read_text()


# -- 3. level 2: raw turns -------------------------------------------------------------
def test_traces_finds_a_raw_turn_of_a_captured_session(
    cli: Callable[..., Any], project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Claude Code session captured through the real hook and worker: mem_traces, with no
    scope argument and no CLAUDE_PROJECT_DIR (the server's working directory decides),
    returns the user's own words from it."""
    slug = sessions.capture(cli, project, tmp_path, "mcp-traces-1", [sessions.REMEMBER, sessions.ROUTINE])
    monkeypatch.chdir(project)

    res = session(lambda c: ok(c, "mem_traces", {"query": "pnpm lockfile"}))
    assert res["scope"] == resolve(project).hash
    assert res["turns"], res
    user = [t for t in res["turns"] if t["slug"] == slug and t["role"] == "user"]
    assert user and "always use pnpm, never npm" in user[0]["text"], res


# -- 3b. hybrid search by default ---------------------------------------------------------
def test_mem_search_is_hybrid_a_chinese_question_finds_an_english_memory(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no mode given, mem_search fuses keywords and meaning: a question in Chinese that
    shares no word with an English memory finds it; mode keyword does not."""
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    body = "We deploy the backend to Kubernetes on Google Cloud; staging and production are separate."
    ask = "我们的后端服务部署在哪里？"

    async def go(c: Client) -> tuple[dict[str, Any], ...]:
        rec = await ok(c, "mem_record", {"type": "fact", "title": "Deploy target", "body": body})
        await ok(c, "mem_record", {"type": "fact", "title": "Code style", "body": "Format with ruff."})
        return (
            rec,
            await ok(c, "mem_search", {"query": ask}),
            await ok(c, "mem_search", {"query": ask, "mode": "keyword"}),
        )

    rec, hybrid, keyword = session(go)
    assert [r["slug"] for r in hybrid["results"]][:1] == [rec["slug"]], hybrid
    assert rec["slug"] not in [r["slug"] for r in keyword["results"]]


def test_mem_traces_is_hybrid_a_chinese_question_finds_an_english_turn(
    cli: Callable[..., Any], project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A captured English session: mem_traces with no mode finds the user's turn from a
    Chinese question with no word in common; mode keyword finds nothing."""
    said = "The staging database was restored from last night's backup after the migration failed."
    exchanges = [(said, "Restored; the schema is back to version 41 and the app is up."), sessions.ROUTINE]
    slug = sessions.capture(cli, project, tmp_path, "mcp-hybrid-1", exchanges)
    monkeypatch.chdir(project)
    ask = "迁移失败以后数据库是怎么恢复的？"  # how was the database recovered after the failed migration?

    async def go(c: Client) -> tuple[dict[str, Any], dict[str, Any]]:
        return await ok(c, "mem_traces", {"query": ask}), await ok(
            c, "mem_traces", {"query": ask, "mode": "keyword"}
        )

    hybrid, keyword = session(go)
    assert keyword["turns"] == []
    assert hybrid["turns"], hybrid
    first = hybrid["turns"][0]
    assert (first["slug"], first["role"], first["text"]) == (slug, "user", said), hybrid


# -- 4. scopes -------------------------------------------------------------------------
def test_scope_argument_reaches_another_project_by_path_or_hash(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the client in project A, a memory recorded into project B (scope = B's path) is
    not found by a search without scope, and is found with B's path and with B's hash."""
    other = tmp_path / "projB"
    other.mkdir()
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    b_hash = resolve(other).hash
    assert b_hash != resolve(project).hash

    async def go(c: Client) -> tuple[dict[str, Any], ...]:
        rec = await ok(
            c,
            "mem_record",
            {
                "type": "fact",
                "title": "B uses Vorpalisk",
                "body": "Vorpalisk renders B.",
                "scope": str(other),
            },
        )
        here = await ok(c, "mem_search", {"query": "vorpalisk"})
        by_path = await ok(c, "mem_search", {"query": "vorpalisk", "scope": str(other)})
        by_hash = await ok(c, "mem_search", {"query": "vorpalisk", "scope": b_hash})
        return rec, here, by_path, by_hash

    rec, here, by_path, by_hash = session(go)
    assert rec["scope"] == b_hash
    assert here["scope"] == resolve(project).hash and here["results"] == []
    for res in (by_path, by_hash):
        assert res["scope"] == b_hash
        assert [r["slug"] for r in res["results"]] == [rec["slug"]]


# -- 5. sensitive scopes ---------------------------------------------------------------
def test_sensitive_scope_is_a_tool_error_until_granted(
    cli: Callable[..., Any], secret_service: str, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sensitive scope (real Secret Service keyring) without a grant: mem_search, mem_get,
    mem_traces and mem_recent are tool errors that say `memoryd grant`, each audited as an
    access_denied by actor mcp; after a real grant on a terminal mem_search finds the memory."""
    Memoryd().record("fact", "Grant note", f"{CANARY} lives here.", scope_path=project)
    assert cli("mark-sensitive", str(project), stdin=PIN + "\n").returncode == 0
    slug = json.loads(cli("list", "--scope", str(project), "--json").stdout)[0]["slug"]
    h = resolve(project).hash
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    denied_before = len(audit(cli, "access_denied"))

    async def denied(c: Client) -> list[str]:
        return [
            await fails(c, "mem_search", {"query": CANARY}),
            await fails(c, "mem_get", {"slug": slug}),
            await fails(c, "mem_traces", {"query": CANARY}),
            await fails(c, "mem_recent", {}),
        ]

    for msg in session(denied):
        assert "memoryd grant" in msg and str(project) in msg, msg
        assert CANARY not in msg, msg
    new = audit(cli, "access_denied")[denied_before:]
    assert {json.loads(e["details"])["what"] for e in new} == {"search", "get", "traces", "recent"}
    assert all(e["actor"] == "mcp" and e["scope_hash"] == h for e in new), new
    assert [e["target_id"] for e in new if json.loads(e["details"])["what"] == "get"] == [slug]

    grant_tty(project, "session")
    found = session(lambda c: ok(c, "mem_search", {"query": CANARY}))
    assert [r["slug"] for r in found["results"]] == [slug]
    assert any(e["actor"] == "mcp" for e in audit(cli, "sensitive_read"))


# -- 6. bad input ----------------------------------------------------------------------
def test_bad_input_is_a_readable_tool_error(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An unknown type, an empty title, a slug that climbs out of its folder, limit 0 and a
    hash where mem_record needs a path: each a one-line tool error, nothing written."""
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))

    async def go(c: Client) -> tuple[list[str], dict[str, Any]]:
        msgs = [
            await fails(c, "mem_record", {"type": "banana", "title": "t", "body": "b"}),
            await fails(c, "mem_record", {"type": "fact", "title": "  ", "body": "b"}),
            await fails(c, "mem_get", {"slug": "../../etc/passwd"}),
            await fails(c, "mem_search", {"query": "anything", "limit": 0}),
            await fails(
                c, "mem_record", {"type": "fact", "title": "t", "body": "b", "scope": "0123456789ab"}
            ),
        ]
        return msgs, await ok(c, "mem_recent", {})

    (banana, empty, climb, limit, by_hash), recent = session(go)
    assert "banana" in banana and all(kind in banana for kind in RECORDABLE), banana
    assert "title" in empty and "empty" in empty, empty
    assert "slug" in climb and "passwd" in climb, climb
    assert "limit" in limit, limit
    assert "path" in by_hash, by_hash
    for msg in (banana, empty, climb, limit, by_hash):
        assert "\n" not in msg.strip(), msg
    assert recent["memories"] == []


def test_unknown_type_names_only_the_types_mem_record_takes(project: Path) -> None:
    """The error for a bad type lists what mem_record accepts: `session` is not one of them
    (sessions come from capture), so offering it sends the model into a second error."""

    async def go(c: Client) -> tuple[str, str]:
        bad = await fails(
            c, "mem_record", {"type": "banana", "title": "t", "body": "b", "scope": str(project)}
        )
        session_ = await fails(
            c, "mem_record", {"type": "session", "title": "t", "body": "b", "scope": str(project)}
        )
        return bad, session_

    bad, session_ = session(go)
    assert "capture" in session_, session_
    assert "session" not in bad, bad


# -- 7. the snapshot resource ----------------------------------------------------------
def test_snapshot_resource_shows_a_recorded_decision_under_constraints(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After mem_record of a decision, memoryd://snapshot (the client's project) carries its
    title in the "## Constraints" section."""
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    title = "Ship the Brindlewick parser first"

    async def go(c: Client) -> str:
        await ok(c, "mem_record", {"type": "decision", "title": title, "body": "It unblocks the rest."})
        res = await c.read_resource("memoryd://snapshot")
        (content,) = res.contents
        assert content.mime_type == "text/markdown"
        return getattr(content, "text", "")

    text = session(go)
    assert "## Constraints" in text, text
    section = text.split("## Constraints", 1)[1].split("\n## ", 1)[0]
    assert title in section, text


# -- 8. the real stdio server ----------------------------------------------------------
def test_stdio_round_trip_starts_well_within_codex_timeout(project: Path) -> None:
    """`memoryd mcp` as a subprocess over stdio: from spawn to a tools list in under 8 s
    (Codex allows 10), then mem_record and mem_search through the pipe."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memoryd.cli.main", "mcp"],
        env={**os.environ, "CLAUDE_PROJECT_DIR": str(project)},
        cwd=str(project),
    )

    async def go() -> tuple[float, set[str], dict[str, Any], dict[str, Any]]:
        t0 = time.monotonic()
        async with Client(params) as c:
            names = {t.name for t in (await c.list_tools()).tools}
            startup = time.monotonic() - t0
            rec = await ok(
                c, "mem_record", {"type": "warning", "title": "Never run Glimmerpox", "body": "It wipes."}
            )
            found = await ok(c, "mem_search", {"query": "glimmerpox"})
        return startup, names, rec, found

    startup, names, rec, found = anyio.run(go)
    assert names == TOOLS
    assert startup < 8.0, f"start-up to list_tools took {startup:.2f} s"
    assert rec["scope"] == resolve(project).hash
    assert [r["slug"] for r in found["results"]] == [rec["slug"]]


# -- 9. a light start-up ---------------------------------------------------------------
def test_build_loads_no_heavy_module() -> None:
    """Importing memoryd.mcpserver and building the server loads no database layer, Qt or
    LLM SDK: those wait for the first tool call."""
    code = "import sys, memoryd.mcpserver; memoryd.mcpserver.build(); print('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert out.returncode == 0, out.stderr
    roots = {name.split(".")[0] for name in out.stdout.split()}
    assert "mcp" in roots
    heavy = roots & {"sqlalchemy", "sqlmodel", "PySide6", "anthropic"}
    assert not heavy, sorted(heavy)


def test_the_client_name_is_who_a_grant_prompt_says_asks(monkeypatch: pytest.MonkeyPatch) -> None:
    """A grant request from a tool call names the MCP client (claude-code, codex...), so the
    tray's prompt says which agent wants the sensitive project; the tools' schemas do not
    show the context parameter that carries it."""
    from memoryd.sensitive import broker

    monkeypatch.setattr(broker, "agent_hint", None)

    async def go(c: Client) -> list[Any]:
        await c.call_tool("mem_recent", {})
        return (await c.list_tools()).tools

    tools = session(go, client="claude-code")
    assert broker.agent_hint == "claude-code"
    assert all("ctx" not in t.input_schema.get("properties", {}) for t in tools)


# -- 10. errors in the tools' own words -------------------------------------------------
# What must never reach the model in a tool error: CLI flags, pydantic's dump and its
# links, the SDK's "Error executing tool" prefix, the arguments model's class name.
NOT_FOR_THE_MODEL = re.compile(
    r"--[a-z]|https?://|pydantic|validation error|Error executing tool|Arguments\b|\[type=", re.IGNORECASE
)


def clean(msg: str) -> str:
    """A tool error as the model should read it: one line, one sentence, nothing above."""
    assert "\n" not in msg.strip() and not NOT_FOR_THE_MODEL.search(msg), msg
    assert msg.rstrip().endswith("."), msg
    return msg


BAD_ARGUMENTS: list[tuple[str, dict[str, Any], tuple[str, ...]]] = [
    ("mem_search", {"query": "x", "limit": "abc"}, ("limit", "whole number", '"abc"')),
    ("mem_search", {"query": "x", "limit": -1}, ("limit must be at least 1", "-1")),
    ("mem_traces", {"query": "x", "limit": 0}, ("limit must be at least 1",)),
    ("mem_recent", {"limit": 2.5}, ("limit", "whole number", "2.5")),
    ("mem_search", {}, ("query is required",)),
    ("mem_search", {"query": ["a", "b"]}, ("query must be a string",)),
    ("mem_get", {}, ("slug is required",)),
    ("mem_get", {"slug": 5}, ("slug must be a string", "5")),
    ("mem_record", {"type": "fact", "title": "t"}, ("body is required",)),
    ("mem_record", {"type": "fact", "title": 5, "body": None}, ("title must be a string", "body must be")),
    (
        "mem_record",
        {"type": "fact", "title": "t", "body": "b", "tags": "x"},
        ("tags must be a list of strings",),
    ),
    ("mem_record", {"type": "fact", "title": "t", "body": "b", "triggers": [1]}, ("triggers",)),
    ("mem_record", {"type": "fact", "title": "t", "body": "   "}, ("body must not be empty",)),
    ("mem_search", {"query": "x", "lmit": 3}, ("'lmit'", "query, scope, type, limit, mode")),
    (
        "mem_search",
        {"query": "x", "mode": "fuzzy"},
        ("mode must be one of hybrid, keyword, dense", '"fuzzy"'),
    ),
    ("mem_traces", {"query": "x", "mode": 3}, ("mode must be one of hybrid, keyword, dense",)),
]


@pytest.mark.parametrize(
    ("tool", "args", "says"), BAD_ARGUMENTS, ids=[f"{t}-{a}" for t, a, _ in BAD_ARGUMENTS]
)
def test_a_bad_argument_is_one_sentence_naming_the_argument(
    tool: str, args: dict[str, Any], says: tuple[str, ...], project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Wrong types, missing and unknown arguments, a limit below 1, an empty body: a tool
    error (isError, which the model reads and corrects: MCP tools, "Error Handling") in
    one sentence that names the argument, where the server used to answer with pydantic's
    dump and its links, the CLI's `--limit`, or silently ignore the unknown argument."""
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    msg = clean(session(lambda c: fails(c, tool, args)))
    for words in says:
        assert words in msg, (words, msg)


def test_memoryds_own_refusals_pass_through_as_one_sentence(project: Path) -> None:
    """A refusal raised in the core (an unsafe slug, a missing memory, a type mem_record
    does not take) reaches the model as that one sentence, without the SDK's prefix."""

    async def go(c: Client) -> list[str]:
        return [
            await fails(c, "mem_get", {"slug": "../../etc/passwd"}),
            await fails(c, "mem_get", {"slug": "no-such-memory"}),
            await fails(
                c, "mem_record", {"type": "session", "title": "t", "body": "b", "scope": str(project)}
            ),
        ]

    climb, missing, session_ = (clean(m) for m in session(go))
    assert "slug" in climb and "passwd" in climb, climb
    assert "no-such-memory" in missing, missing
    assert "capture" in session_, session_


def test_a_cli_worded_core_error_is_reworded_for_the_tool() -> None:
    """The facade's messages are written for the CLI: a flag that is one of the tool's
    arguments becomes the argument's name, other flags stay, and the text is one line."""
    from memoryd.mcpserver import one_sentence

    args = {"query", "limit", "scope"}
    assert one_sentence("mem_search", "--limit must be at least 1", args) == "limit must be at least 1."
    assert one_sentence("mem_search", "Error executing tool mem_search: bad\n  scope", args) == "bad scope."
    assert one_sentence("mem_search", "use --since here.", args) == "use --since here."
