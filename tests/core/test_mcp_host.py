"""memoryd's MCP server as hosts use it beyond tools: its real version, prompts, resources
and the resource template, over stdio and over Streamable HTTP (loopback, bearer token),
each against the real `memoryd mcp` subprocess and the official `mcp` client; the SDK
quiet unless --verbose; a sensitive memory no more readable through a resource or a
prompt than through a tool."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import time
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import Implementation, TextContent, TextResourceContents

from memoryd.app import Memoryd
from memoryd.mcpserver import build
from memoryd.scope import resolve

from .sensitive.support import CANARY, PIN, grant_tty

ROOT = Path(__file__).resolve().parents[2]
PROMPTS = {"recall", "decision", "weekly-review"}
TEMPLATE = "memoryd://memory/{slug}"
RESOURCES = {"memoryd://snapshot", "memoryd://digest"}
WORD = "Quillmotte"
BODY = f"Jobs go through {WORD} queues, not cron: retries and back-off come for free."
TRACEBACK = "Traceback"


@pytest.fixture(autouse=True)
def no_client_project(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)


def pyproject_version() -> str:
    return str(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"])


def prompt_text(result: Any) -> str:
    (message,) = result.messages
    assert message.role == "user"
    assert isinstance(message.content, TextContent), message
    return message.content.text


def resource_text(result: Any) -> str:
    (content,) = result.contents
    assert isinstance(content, TextResourceContents), content
    return content.text


async def exercise(c: Client, slug: str) -> dict[str, Any]:
    """What a host does with prompts and resources: list them, fill a prompt, read the
    template for one memory and the two fixed resources."""
    prompts = {p.name: p for p in (await c.list_prompts()).prompts}
    templates = [t.uri_template for t in (await c.list_resource_templates()).resource_templates]
    resources = {str(r.uri) for r in (await c.list_resources()).resources}
    return {
        "server": c.server_info,
        "prompts": prompts,
        "templates": templates,
        "resources": resources,
        "recall": prompt_text(await c.get_prompt("recall", {"topic": WORD.lower()})),
        "decision": prompt_text(await c.get_prompt("decision", {"topic": WORD.lower()})),
        "review": prompt_text(await c.get_prompt("weekly-review", {})),
        "memory": resource_text(await c.read_resource(f"memoryd://memory/{slug}")),
        "digest": resource_text(await c.read_resource("memoryd://digest")),
        "snapshot": resource_text(await c.read_resource("memoryd://snapshot")),
    }


def check_exercise(got: dict[str, Any], slug: str) -> None:
    assert got["server"].name == "memoryd" and got["server"].version == pyproject_version()
    assert set(got["prompts"]) == PROMPTS
    assert [a.name for a in got["prompts"]["recall"].arguments] == ["topic", "scope"]
    assert [a.required for a in got["prompts"]["recall"].arguments] == [True, False]
    assert all(p.description for p in got["prompts"].values())
    assert got["templates"] == [TEMPLATE]
    assert got["resources"] == RESOURCES
    for key in ("recall", "decision"):  # the memory itself, quoted, with its slug
        assert json.dumps(BODY) in got[key] and slug in got[key], got[key]
        assert "not a request made now" in got[key]
    assert got["decision"].startswith(f"What did we decide about {WORD.lower()}?")
    assert slug in got["review"] and "Use Quillmotte for jobs" in got["review"], got["review"]
    assert json.dumps(BODY) in got["memory"] and got["memory"].startswith("# Use Quillmotte for jobs")
    assert got["digest"].startswith("memoryd digest,"), got["digest"]
    assert "Use Quillmotte for jobs" in got["snapshot"]


def record_decision(project: Path) -> str:
    doc, _ = Memoryd().record("decision", "Use Quillmotte for jobs", BODY, scope_path=project)
    return doc.meta.slug


# -- 1. serverInfo ------------------------------------------------------------------
def test_server_info_is_the_installed_distributions_version(monkeypatch: pytest.MonkeyPatch) -> None:
    """serverInfo.version is what importlib.metadata says was installed, not a constant
    in the source; a checkout that was never installed reads pyproject.toml."""
    from importlib import metadata

    from memoryd import version

    async def info() -> Any:
        async with Client(build(), client_info=Implementation(name="pytest", version="1")) as c:
            return c.server_info

    real = metadata.version
    monkeypatch.setattr(metadata, "version", lambda name: "7.7.7" if name == "memoryd" else real(name))
    assert anyio.run(info).version == "7.7.7"

    def missing(name: str) -> str:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", missing)
    assert version.current() == pyproject_version()


# -- 2. the tool descriptions a model reads --------------------------------------------
def test_every_tool_says_what_it_returns_and_every_argument_is_described() -> None:
    async def tools() -> Any:
        async with Client(build()) as c:
            return (await c.list_tools()).tools

    for t in anyio.run(tools):
        assert "Returns" in (t.description or ""), (t.name, t.description)
        assert "Call it" in (t.description or ""), (t.name, t.description)
        for name, prop in t.input_schema["properties"].items():
            assert len(prop.get("description", "")) >= 10, (t.name, name, prop)


# -- 3. over stdio, against the real subprocess ----------------------------------------
def test_prompts_and_resources_over_stdio(project: Path) -> None:
    slug = record_decision(project)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memoryd.cli.main", "mcp"],
        env={**os.environ, "CLAUDE_PROJECT_DIR": str(project)},
        cwd=str(project),
    )

    async def go() -> dict[str, Any]:
        with anyio.fail_after(60):
            async with Client(params) as c:
                return await exercise(c, slug)

    check_exercise(anyio.run(go), slug)


def test_a_missing_memory_or_a_bad_slug_is_a_one_line_protocol_error(project: Path) -> None:
    async def go() -> list[str]:
        out = []
        async with Client(build()) as c:
            for uri in ("memoryd://memory/no-such-memory", "memoryd://memory/..%2Fscopes"):
                with pytest.raises(MCPError) as err:
                    await c.read_resource(uri)
                out.append(str(err.value))
            with pytest.raises(MCPError) as err:
                await c.get_prompt("recall", {"topic": "  "})
            out.append(str(err.value))
        return out

    for msg in anyio.run(go):
        assert "\n" not in msg and TRACEBACK not in msg, msg
    assert "no memory with slug 'no-such-memory'" in anyio.run(go)[0]


# -- 4. quiet by default ---------------------------------------------------------------
def test_the_sdks_info_logs_show_only_with_verbose(project: Path) -> None:
    """A malformed line is answered and logged at INFO: stderr stays empty by default and
    shows the line with --verbose."""

    def stderr_of(*flags: str) -> str:
        out = subprocess.run(
            [sys.executable, "-m", "memoryd.cli.main", "mcp", *flags],
            input=b"not json\n",
            capture_output=True,
            cwd=project,
            timeout=60,
            check=False,
        )
        assert out.returncode == 0, out.stderr
        assert b"-32700" in out.stdout, out.stdout
        return out.stderr.decode()

    assert stderr_of() == ""
    assert "answered a malformed line" in stderr_of("--verbose")


# -- 5. Streamable HTTP --------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def http_server(cli: Callable[..., Any], project: Path) -> Iterator[tuple[str, str]]:
    """A real `memoryd mcp --http 127.0.0.1:<port>` with a fresh token; (url, token)."""
    made = cli("mcp", "--new-token")
    assert made.returncode == 0, made.stderr
    token = made.stdout.strip()
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "memoryd.cli.main", "mcp", "--http", f"127.0.0.1:{port}"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=project,
        env={**os.environ, "CLAUDE_PROJECT_DIR": str(project)},
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, proc.communicate(timeout=10)
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the HTTP server did not listen within 60 s"
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/mcp", token
    finally:
        proc.terminate()
        try:
            _, err = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate(timeout=10)
        assert TRACEBACK.encode() not in err, err.decode()


def test_http_refuses_a_request_without_the_token_or_with_another(http_server: tuple[str, str]) -> None:
    url, token = http_server
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "x", "version": "1"},
        },
    }
    accept = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    for headers in (
        {},
        {"Authorization": "Bearer " + token[:-1] + ("A" if token[-1] != "A" else "B")},
        {"Authorization": "Bearer"},
        {"Authorization": token},
        {"Authorization": "Basic " + token},
    ):
        r = httpx.post(url, json=init, headers={**accept, **headers}, timeout=10)
        assert r.status_code == 401, (headers, r.status_code, r.text)
        assert r.headers["www-authenticate"].startswith("Bearer"), r.headers
        assert "serverInfo" not in r.text
    ok = httpx.post(url, json=init, headers={**accept, "Authorization": f"Bearer {token}"}, timeout=10)
    assert ok.status_code == 200, (ok.status_code, ok.text)


def test_prompts_and_resources_over_streamable_http(http_server: tuple[str, str], project: Path) -> None:
    slug = record_decision(project)
    url, token = http_server

    async def go() -> dict[str, Any]:
        with anyio.fail_after(60):
            auth = {"Authorization": f"Bearer {token}"}
            async with (
                create_mcp_http_client(headers=auth) as http,
                Client(streamable_http_client(url, http_client=http)) as c,
            ):
                return await exercise(c, slug)

    check_exercise(anyio.run(go), slug)


@pytest.mark.parametrize(
    "address",
    [
        "0.0.0.0:8765",
        "192.168.1.20:8765",
        "example.com:8765",
        "[::]:8765",
        "127.0.0.1:http",
        "8765",
        # loopback, but the SDK's DNS-rebinding check covers only 127.0.0.1, ::1 and
        # localhost: a page's Host/Origin reached 127.0.0.2 with a 200 (red team)
        "127.0.0.2:8765",
        "[::ffff:127.0.0.1]:8765",
    ],
)
def test_http_refuses_a_non_loopback_or_malformed_address(cli: Callable[..., Any], address: str) -> None:
    assert cli("mcp", "--new-token").returncode == 0
    out = cli("mcp", "--http", address, timeout=60)
    assert out.returncode == 2, (out.returncode, out.stderr)
    assert out.stdout == "" and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert TRACEBACK not in out.stderr


def test_http_without_a_token_file_says_how_to_make_one(cli: Callable[..., Any]) -> None:
    out = cli("mcp", "--http", f"127.0.0.1:{free_port()}", timeout=60)
    assert out.returncode == 2 and "memoryd mcp --new-token" in out.stderr, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_new_token_is_printed_once_and_kept_for_the_user_alone(
    cli: Callable[..., Any], isolated_home: Path
) -> None:
    first = cli("mcp", "--new-token")
    second = cli("mcp", "--new-token")
    assert first.returncode == second.returncode == 0, (first.stderr, second.stderr)
    path = isolated_home / "mcp-token"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text().strip() == second.stdout.strip() != first.stdout.strip()
    assert len(second.stdout.strip()) >= 32 and second.stdout.count("\n") == 1
    path.chmod(0o644)  # a token others can read is refused, not served
    out = cli("mcp", "--http", f"127.0.0.1:{free_port()}", timeout=60)
    assert out.returncode == 2 and "chmod 600" in out.stderr, out.stderr


# -- 6. the sensitive-scope gate -------------------------------------------------------
def test_a_sensitive_memory_is_not_readable_through_a_resource_or_prompt_without_a_grant(
    cli: Callable[..., Any], secret_service: str, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """memoryd://memory/{slug}, the digest and the recall prompt of a sensitive project:
    refused (audited as actor mcp), never the canary; after a real grant the resource reads."""
    Memoryd().record("fact", "Grant note", f"{CANARY} lives here.", scope_path=project)
    assert cli("mark-sensitive", str(project), stdin=PIN + "\n").returncode == 0
    slug = json.loads(cli("list", "--scope", str(project), "--json").stdout)[0]["slug"]
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))

    async def denied() -> list[str]:
        out = []
        async with Client(build()) as c:
            for read in (
                lambda: c.read_resource(f"memoryd://memory/{slug}"),
                lambda: c.read_resource("memoryd://digest"),
                lambda: c.get_prompt("recall", {"topic": CANARY}),
                lambda: c.get_prompt("weekly-review", {}),
            ):
                with pytest.raises(MCPError) as err:
                    await read()
                out.append(str(err.value))
            out.append(resource_text(await c.read_resource("memoryd://snapshot")))
        return out

    *refusals, snapshot = anyio.run(denied)
    for msg in refusals:
        assert "memoryd grant" in msg and CANARY not in msg, msg
    assert CANARY not in snapshot
    denials = json.loads(cli("audit", "--event-type", "access_denied", "--json").stdout)
    assert {e["actor"] for e in denials} == {"mcp"}
    assert any(e["target_id"] == slug for e in denials), denials

    grant_tty(project, "session")

    async def granted() -> str:
        async with Client(build()) as c:
            return resource_text(await c.read_resource(f"memoryd://memory/{slug}"))

    assert CANARY in anyio.run(granted)
    assert resolve(project).hash in anyio.run(granted)
