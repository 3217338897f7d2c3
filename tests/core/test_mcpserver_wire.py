"""`memoryd mcp` on the wire: the real server as a subprocess, fed raw newline-delimited
JSON-RPC lines, including the malformed ones no SDK client ever sends. Every line that
is not a well-formed message gets the JSON-RPC 2.0 error reply (parse error, invalid
request, invalid params) and the server goes on serving; stdout carries nothing but
protocol."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import memoryd

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602
INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw-test", "version": "1"},
    },
}


class Wire:
    """A running `memoryd mcp`: raw lines in, parsed replies out (each stdout line must be
    a JSON object: anything else there would corrupt a real client's stream)."""

    def __init__(self, cwd: Path, *args: str, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "memoryd.cli.main", "mcp", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env={**os.environ, "CLAUDE_PROJECT_DIR": str(cwd), **(env or {})},
        )
        self.replies: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.stderr_lines: queue.Queue[str] = queue.Queue()  # as they come (log lines)
        self.stderr = b""
        threading.Thread(target=self._read_stdout, daemon=True).start()
        self._stderr_reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._stderr_reader.start()

    def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            try:
                parsed = json.loads(raw)
            except ValueError:
                parsed = None
            self.replies.put(parsed if isinstance(parsed, dict) else {"not protocol": raw})
        self.replies.put(None)

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            self.stderr += raw
            self.stderr_lines.put(raw.decode(errors="replace"))

    def send(self, line: bytes | str | dict[str, Any]) -> None:
        data = json.dumps(line).encode() if isinstance(line, dict) else line
        data = data.encode() if isinstance(data, str) else data
        assert self.proc.stdin is not None
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def reply(self, timeout: float = 10) -> dict[str, Any]:
        try:
            got = self.replies.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no reply within {timeout} s") from None
        assert got is not None, f"the server closed stdout: {self.stderr.decode(errors='replace')}"
        assert "not protocol" not in got, f"stdout carried something else than JSON-RPC: {got}"
        return got

    def ask(self, line: bytes | str | dict[str, Any], timeout: float = 10) -> dict[str, Any]:
        self.send(line)
        return self.reply(timeout)

    def initialize(self) -> dict[str, Any]:
        result = self.ask(INIT, timeout=30)["result"]
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return result

    def still_serving(self, rid: int = 999) -> None:
        assert self.ask({"jsonrpc": "2.0", "id": rid, "method": "ping"}) == {
            "jsonrpc": "2.0",
            "id": rid,
            "result": {},
        }

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=15)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self._stderr_reader.join(timeout=5)


@pytest.fixture
def wire(project: Path) -> Iterator[Wire]:
    w = Wire(project)
    try:
        yield w
    finally:
        w.close()


def error_of(reply: dict[str, Any], code: int, rid: Any = None) -> str:
    """The reply is the JSON-RPC error `code` for request `rid` (null when unknowable)."""
    assert reply.get("jsonrpc") == "2.0" and "result" not in reply, reply
    assert reply.get("id", "absent") == rid, reply
    assert reply["error"]["code"] == code, reply
    message = reply["error"]["message"]
    assert isinstance(message, str) and message and "\n" not in message, reply
    return message


# -- 1. lines that are not JSON-RPC requests -------------------------------------------
def test_a_line_that_is_not_json_is_a_parse_error_and_the_server_keeps_serving(wire: Wire) -> None:
    """Not JSON, truncated JSON and invalid UTF-8: each -32700 with id null (JSON-RPC 2.0
    section 5.1), and the next request is answered."""
    wire.initialize()
    for line in (
        b"not json",
        b'{"jsonrpc":"2.0","id":1,"method":',
        b'{"jsonrpc":"2.0","id":2,"method":"\xff\xfe"}',
    ):
        assert error_of(wire.ask(line), PARSE_ERROR).startswith("Parse error"), line
    wire.still_serving()


def test_json_that_is_not_a_request_object_is_an_invalid_request(wire: Wire) -> None:
    """An empty array, a batch, a number, a string, an object that is neither request nor
    notification, a request with a bool or null id or the wrong jsonrpc version: -32600,
    with the request's id when it has a usable one."""
    wire.initialize()
    cases: list[tuple[str, Any]] = [
        ("[]", None),
        ('[{"jsonrpc":"2.0","id":3,"method":"ping"}]', None),
        ("42", None),
        ('"ping"', None),
        ("null", None),
        ('{"foo":1}', None),
        ('{"jsonrpc":"2.0","id":true,"method":"ping"}', None),
        ('{"jsonrpc":"2.0","id":null,"method":"ping"}', None),
        ('{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', None),
        ('{"jsonrpc":"1.0","id":4,"method":"ping"}', 4),
        ('{"jsonrpc":"2.0","id":5,"method":7}', 5),
        ('{"jsonrpc":"2.0","id":"six"}', "six"),
    ]
    for line, rid in cases:
        assert error_of(wire.ask(line), INVALID_REQUEST, rid).startswith("Invalid Request"), line
    wire.still_serving()


def test_an_unknown_method_is_method_not_found(wire: Wire) -> None:
    wire.initialize()
    error_of(wire.ask({"jsonrpc": "2.0", "id": 7, "method": "memories/steal"}), METHOD_NOT_FOUND, 7)
    wire.still_serving()


def test_a_malformed_notification_gets_no_reply(wire: Wire) -> None:
    """A notification is never answered (JSON-RPC 2.0 section 4.1), even a malformed one:
    the next reply is the ping's."""
    wire.initialize()
    wire.send('{"jsonrpc":"2.0","method":"notifications/cancelled","params":"x"}')
    wire.still_serving()


# -- 2. a request whose params are not an object ---------------------------------------
def test_tools_call_with_string_params_is_invalid_params_with_its_id(wire: Wire) -> None:
    """`params` must be an object: a string or an array is -32602 for that request id, where
    the server used to stay silent and leave the client waiting."""
    wire.initialize()
    for rid, params in ((11, '"x"'), (12, "[1, 2]"), (13, "5")):
        line = f'{{"jsonrpc":"2.0","id":{rid},"method":"tools/call","params":{params}}}'
        assert error_of(wire.ask(line), INVALID_PARAMS, rid).startswith("Invalid params"), line
    # arguments that are not an object: the request does not fit tools/call either
    bad_args = {
        "jsonrpc": "2.0",
        "id": 14,
        "method": "tools/call",
        "params": {"name": "mem_get", "arguments": "x"},
    }
    error_of(wire.ask(bad_args), INVALID_PARAMS, 14)
    wire.still_serving()


# -- 3. who the server is -------------------------------------------------------------
def test_server_info_carries_memoryds_version(wire: Wire) -> None:
    info = wire.initialize()["serverInfo"]
    assert info == {"name": "memoryd", "version": memoryd.__version__}, info
    assert memoryd.__version__


# -- 4. tools/call errors on the wire ---------------------------------------------------
def test_an_unknown_tool_is_a_protocol_error_a_bad_argument_a_tool_error(wire: Wire) -> None:
    """MCP 2025-11-25, tools, "Error Handling": an unknown tool is a JSON-RPC error
    (-32602); an argument that fails validation is a tool execution error (isError true),
    which the model reads and corrects."""
    wire.initialize()
    call = {
        "jsonrpc": "2.0",
        "id": 21,
        "method": "tools/call",
        "params": {"name": "mem_steal", "arguments": {}},
    }
    assert "mem_steal" in error_of(wire.ask(call), INVALID_PARAMS, 21)

    call = {
        "jsonrpc": "2.0",
        "id": 22,
        "method": "tools/call",
        "params": {"name": "mem_search", "arguments": {"query": "x", "limit": "abc"}},
    }
    reply = wire.ask(call, timeout=30)
    assert reply["id"] == 22 and reply["result"]["isError"] is True, reply
    text = reply["result"]["content"][0]["text"]
    assert "limit" in text and "pydantic" not in text and "http" not in text, text
    wire.still_serving()


# -- 5. hostile sizes -------------------------------------------------------------------
def test_a_huge_line_is_refused_in_bounded_memory_and_the_server_keeps_serving(wire: Wire) -> None:
    """A 50 MB line: -32600 naming the size limit, and the next request is answered."""
    wire.initialize()
    huge = b'{"jsonrpc":"2.0","id":31,"method":"ping","params":{"pad":"' + b"a" * (50 * 1024 * 1024) + b'"}}'
    message = error_of(wire.ask(huge, timeout=60), INVALID_REQUEST)
    assert "MiB" in message, message
    wire.still_serving()


def test_deeply_nested_json_is_refused_without_a_crash(wire: Wire) -> None:
    """100 000 nested arrays in params: an error reply, no RecursionError, still serving."""
    wire.initialize()
    nested = (
        b'{"jsonrpc":"2.0","id":41,"method":"ping","params":{"x":' + b"[" * 100_000 + b"]" * 100_000 + b"}}"
    )
    reply = wire.ask(nested, timeout=30)
    assert "error" in reply and reply["error"]["code"] in (PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS), (
        reply
    )
    wire.still_serving()
    wire.close()
    assert wire.proc.returncode == 0 and b"Traceback" not in wire.stderr, wire.stderr
