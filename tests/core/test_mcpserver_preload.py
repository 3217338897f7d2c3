"""`memoryd mcp` loads the search model and the memories' vectors while the client starts
up, so the agent's first mem_search is answered from memory, not after seconds of loading
(issue 20). Tried with the real server process over stdio: the log line saying search is
ready comes before any tool call, stdout stays pure JSON-RPC meanwhile, and the search it
prepared finds a memory written in the other language."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

from memoryd import embed
from memoryd.app import Memoryd


def test_the_server_is_ready_to_search_before_the_first_tool_call(project: Path, isolated_home: Path) -> None:
    writer = Memoryd()
    model = writer.embedder()
    assert model is not None
    writer.record(
        "fact", "Deploy target", "We deploy the backend to Kubernetes on Google Cloud.", scope_path=project
    )
    writer.record("fact", "Code style", "Python code is formatted with ruff.", scope_path=project)

    proc = subprocess.Popen(
        [sys.executable, "-m", "memoryd.cli.main", "mcp", "--verbose"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=project,
        env={**os.environ, "CLAUDE_PROJECT_DIR": str(project)},
    )
    lines: queue.Queue[str] = queue.Queue()
    assert proc.stderr is not None and proc.stdin is not None and proc.stdout is not None

    def read_stderr() -> None:
        assert proc.stderr is not None
        for raw in proc.stderr:
            lines.put(raw.decode(errors="replace"))

    threading.Thread(target=read_stderr, daemon=True).start()
    try:
        seen: list[str] = []
        while not any("search ready" in line for line in seen):
            try:
                seen.append(lines.get(timeout=60))
            except queue.Empty:
                raise AssertionError(f"no 'search ready' line within 60 s: {seen}") from None
        ready = next(line for line in seen if "search ready" in line)
        assert embed.tag(model) in ready, ready  # the SDK's log handler may wrap the rest of the line

        def ask(message: dict[str, object]) -> dict[str, object]:
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write(json.dumps(message).encode() + b"\n")
            proc.stdin.flush()
            return dict(json.loads(proc.stdout.readline()))  # a line that is not JSON fails here

        init = {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "preload-test", "version": "1"},
        }
        assert "result" in ask({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
        proc.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        call = {"name": "mem_search", "arguments": {"query": "我们的后端部署在哪里？", "limit": 1}}
        reply = ask({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})
        result = reply["result"]
        assert isinstance(result, dict) and not result.get("isError"), reply
        assert "Deploy target" in json.dumps(result, ensure_ascii=False)
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=15)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
