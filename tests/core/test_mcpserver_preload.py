"""`memoryd mcp` loads the search model and the memories' vectors while the client starts
up, so the agent's first mem_search is answered from memory, not after seconds of loading
(issue 20). Tried with the real server process over stdio: the log line saying search is
ready comes before any tool call, stdout stays pure JSON-RPC meanwhile, and the search it
prepared finds a memory written in the other language. And as an adversary would: another
process holding index.db's write lock while the server starts, a data folder that is a
file, a model plug-in that prints on stdout while it loads."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
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


INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}


class Client:
    """`memoryd mcp` over stdio; every stdout line must be a JSON-RPC object."""

    def __init__(self, cwd: Path, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "memoryd.cli.main", "mcp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env={**os.environ, "CLAUDE_PROJECT_DIR": str(cwd), **(env or {})},
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.lines.put(raw)

    def ask(self, message: dict[str, object], timeout: float) -> dict[str, object]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()
        try:
            raw = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no reply within {timeout} s") from None
        return dict(json.loads(raw))  # anything but JSON-RPC on stdout fails here

    def search(self, query: str, timeout: float = 60) -> dict[str, object]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        call = {"name": "mem_search", "arguments": {"query": query, "limit": 3}}
        reply = self.ask({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}, timeout)
        return dict(reply["result"])  # type: ignore[arg-type]

    def close(self) -> str:
        assert self.proc.stdin is not None and self.proc.stderr is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        return self.proc.stderr.read().decode(errors="replace")


def test_initialize_is_answered_while_another_process_holds_the_index_locked(
    project: Path, isolated_home: Path
) -> None:
    """A `mark-sensitive`, a reindex or the tray may hold index.db's write lock for a while
    (its busy timeout is 60 s): the server still answers `initialize` at once (Codex gives a
    server 10 s), and the search waits for the lock rather than fail."""
    import sqlite3

    Memoryd().record("fact", "Deploy target", "We deploy to Kubernetes.", scope_path=project)
    holder = sqlite3.connect(isolated_home / "index.db", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    client = Client(project)
    try:
        t0 = time.monotonic()
        assert "result" in client.ask(INIT, timeout=8)
        assert time.monotonic() - t0 < 8
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    try:
        assert "Deploy target" in json.dumps(client.search("Kubernetes"), ensure_ascii=False)
    finally:
        client.close()


def test_a_data_folder_that_is_a_file_is_a_one_line_tool_error_not_a_dead_server(
    project: Path, tmp_path: Path, isolated_home: Path
) -> None:
    home = tmp_path / "not-a-folder"
    home.write_text("x", encoding="utf-8")
    client = Client(project, env={"MEMORYD_HOME": str(home)})
    try:
        assert "result" in client.ask(INIT, timeout=30)
        result = client.search("anything")
        assert result.get("isError") is True, result
    finally:
        err = client.close()
    assert client.proc.returncode == 0, err
    assert "internal error" not in err


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
    client = Client(project, env=env)
    try:
        assert "result" in client.ask(INIT, timeout=30)
        time.sleep(1.0)  # the preload has met the plug-in by now
        assert "Deploy target" in json.dumps(client.search("Kubernetes"), ensure_ascii=False)
    finally:
        err = client.close()
    assert "chatty_model: loading weights" in err  # it printed: on stderr, where fd 1 points
