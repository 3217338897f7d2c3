"""`memoryd mcp` loads the search model and the memories' vectors while the client starts up,
so the agent's first mem_search is answered from memory, not after seconds of loading
(issue 20). Tried with the real server process over stdio: the log line saying search is
ready comes before any tool call, stdout stays pure JSON-RPC meanwhile, and the search it
prepared finds a memory written in the other language. And as an adversary would: another
process holding index.db's write lock while the server starts, a data folder that is a
file, a model plug-in that prints on stdout while it loads."""

from __future__ import annotations

import json
import os
import queue
import sqlite3
import time
from pathlib import Path
from typing import Any

from memoryd import embed
from memoryd.app import Memoryd

from .test_mcpserver_wire import INIT, Wire


def search(wire: Wire, query: str, timeout: float = 60) -> dict[str, Any]:
    call = {"name": "mem_search", "arguments": {"query": query, "limit": 3}}
    reply = wire.ask({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}, timeout)
    result = reply["result"]
    assert isinstance(result, dict), reply
    return result


def test_the_server_is_ready_to_search_before_the_first_tool_call(project: Path, isolated_home: Path) -> None:
    writer = Memoryd()
    model = writer.embedder()
    assert model is not None  # warm, so record embeds inline
    writer.record(
        "fact", "Deploy target", "We deploy the backend to Kubernetes on Google Cloud.", scope_path=project
    )
    writer.record("fact", "Code style", "Python code is formatted with ruff.", scope_path=project)
    wire = Wire(project, "--verbose")
    try:
        seen: list[str] = []
        while not any("search ready" in line for line in seen):
            try:
                seen.append(wire.stderr_lines.get(timeout=60))
            except queue.Empty:
                raise AssertionError(f"no 'search ready' line within 60 s: {seen}") from None
        ready = next(line for line in seen if "search ready" in line)
        assert embed.tag(model) in ready, ready  # the SDK's log handler may wrap the rest of the line
        wire.initialize()
        result = search(wire, "我们的后端部署在哪里？")
        assert not result.get("isError") and "Deploy target" in json.dumps(result, ensure_ascii=False), result
    finally:
        wire.close()


def test_initialize_is_answered_while_another_process_holds_the_index_locked(
    project: Path, isolated_home: Path
) -> None:
    """A `mark-sensitive`, a reindex or the tray may hold index.db's write lock for a while
    (its busy timeout is 60 s): the server still answers `initialize` at once (Codex gives a
    server 10 s), and the search waits for the lock rather than fail."""
    Memoryd().record("fact", "Deploy target", "We deploy to Kubernetes.", scope_path=project)
    holder = sqlite3.connect(isolated_home / "index.db", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    wire = Wire(project)
    try:
        try:
            t0 = time.monotonic()
            assert "result" in wire.ask(INIT, timeout=8)
            assert time.monotonic() - t0 < 8
            wire.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        assert "Deploy target" in json.dumps(search(wire, "Kubernetes"), ensure_ascii=False)
    finally:
        wire.close()


def test_a_data_folder_that_is_a_file_is_a_one_line_tool_error_not_a_dead_server(
    project: Path, tmp_path: Path, isolated_home: Path
) -> None:
    home = tmp_path / "not-a-folder"
    home.write_text("x", encoding="utf-8")
    wire = Wire(project, env={"MEMORYD_HOME": str(home)})
    try:
        wire.initialize()
        result = search(wire, "anything")
        assert result.get("isError") is True, result
    finally:
        wire.close()
    assert wire.proc.returncode == 0, wire.stderr
    assert b"internal error" not in wire.stderr


def test_a_model_plugin_printing_while_it_loads_never_reaches_the_protocol_stream(
    project: Path, tmp_path: Path, isolated_home: Path
) -> None:
    plugin = tmp_path / "plugins"
    plugin.mkdir()
    (plugin / "chatty_model.py").write_text(
        "import sys\n"
        "print('chatty_model: importing')\n"
        "def make():\n"
        "    print('chatty_model: loading weights')\n"
        "    sys.stdout.flush()\n"
        "    raise RuntimeError('weights missing')\n",
        encoding="utf-8",
    )
    (tmp_path / "config.toml").write_text(
        '[search]\nembedding_model = "chatty_model:make"\n', encoding="utf-8"
    )
    Memoryd().record("fact", "Deploy target", "We deploy to Kubernetes.", scope_path=project)
    env = {"PYTHONPATH": os.pathsep.join([str(plugin), os.environ.get("PYTHONPATH", "")])}
    wire = Wire(project, env=env)
    try:
        wire.initialize()  # Wire fails on any stdout line that is not JSON-RPC
        time.sleep(1.0)  # the preload has met the plug-in by now
        assert "Deploy target" in json.dumps(search(wire, "Kubernetes"), ensure_ascii=False)
    finally:
        wire.close()
    assert b"chatty_model: loading weights" in wire.stderr  # it printed: on stderr, where fd 1 points
