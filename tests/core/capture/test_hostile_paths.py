"""A transcript_path (or an import path) naming something other than a regular file: a
FIFO, /dev/zero, a directory, a socket, a symlink loop. Each is a logged skip; the worker
never hangs in open() or spins on an endless read, and the payload still becomes a memory
with what it carries. Every run has a timeout, so unfixed code fails here, not hangs."""

from __future__ import annotations

import json
import os
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from memoryd.testing import stop_payload
from tests.conftest import run_cli

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and /dev/zero are POSIX")

TIMEOUT = 90  # generous for a loaded CI machine; unfixed code never returns at all


def _fifo(tmp: Path) -> Path:
    path = tmp / "t.jsonl"
    os.mkfifo(path)
    return path


def _dir(tmp: Path) -> Path:
    path = tmp / "folder.jsonl"
    path.mkdir()
    return path


def _loop(tmp: Path) -> Path:
    (tmp / "a.jsonl").symlink_to(tmp / "b.jsonl")
    (tmp / "b.jsonl").symlink_to(tmp / "a.jsonl")
    return tmp / "a.jsonl"


@pytest.fixture
def sock(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "s.jsonl"
    if len(str(path)) > 100:  # AF_UNIX path limit
        pytest.skip("temp path too long for a socket")
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    s.listen(1)
    yield path
    s.close()


@pytest.mark.parametrize(
    ("kind", "make", "why"),
    [
        ("fifo", _fifo, "a FIFO, not a regular file"),
        ("zero", lambda _t: Path("/dev/zero"), "a character device, not a regular file"),
        ("dir", _dir, "a directory, not a regular file"),
        ("loop", _loop, "transcript unreadable"),
    ],
)
def test_worker_skips_a_transcript_that_is_not_a_regular_file(
    kind: str, make, why: str, tmp_path: Path, project: Path, isolated_home: Path
):
    path = make(tmp_path)
    _capture_and_drain(f"hostile-{kind}", path, project, isolated_home, why)


def test_worker_skips_a_socket_as_transcript(sock: Path, project: Path, isolated_home: Path):
    _capture_and_drain("hostile-sock", sock, project, isolated_home, "transcript unreadable")


def _capture_and_drain(sid: str, path: Path, project: Path, home: Path, why: str) -> None:
    payload = stop_payload(sid, path, project, last_assistant_message="Shipped the hostile-path fix.")
    hook = run_cli(
        "capture", "--source=claude-code", stdin=payload, env={"MEMORYD_NO_WORKER": "1"}, timeout=TIMEOUT
    )
    assert hook.returncode == 0, hook.stderr
    worker = run_cli("worker", "--wait", timeout=TIMEOUT)
    assert worker.returncode == 0, worker.stderr
    assert "captured 1" in worker.stdout, worker.stdout
    mems = json.loads(run_cli("list", "--all-scopes", "--json", timeout=TIMEOUT).stdout)
    assert len(mems) == 1
    body = json.loads(run_cli("get", mems[0]["slug"], "--json", timeout=TIMEOUT).stdout)["body"]
    assert "Shipped the hostile-path fix." in body
    log = (home / "logs" / "worker.log").read_text()
    assert why in log and str(path) in log, log
    # The lock was let go: a later session is not stuck behind this one.
    assert run_cli("worker", "--wait", timeout=TIMEOUT).returncode == 0


def test_hook_says_what_a_fifo_transcript_is(tmp_path: Path, project: Path, isolated_home: Path):
    """An existing FIFO is not "not found"; the hook never opens it either."""
    fifo = _fifo(tmp_path)
    payload = stop_payload("hostile-hook", fifo, project, last_assistant_message="x")
    hook = run_cli(
        "capture", "--source=claude-code", stdin=payload, env={"MEMORYD_NO_WORKER": "1"}, timeout=TIMEOUT
    )
    assert hook.returncode == 0
    assert "not found" not in hook.stderr and "not a regular file" in hook.stderr, hook.stderr


def test_import_of_a_fifo_named_json_is_one_line(tmp_path: Path):
    fifo = tmp_path / "memories.json"
    os.mkfifo(fifo)
    out = run_cli("import", str(fifo), timeout=TIMEOUT)
    assert out.returncode == 2, (out.returncode, out.stderr)
    assert "not a regular file" in out.stderr and out.stderr.count("\n") == 1, out.stderr
    assert "Traceback" not in out.stderr


def test_import_of_a_memories_json_that_is_dev_zero_is_one_line(tmp_path: Path):
    link = tmp_path / "zero.json"
    link.symlink_to("/dev/zero")
    out = run_cli("import", str(link), timeout=TIMEOUT)
    assert out.returncode == 2 and "character device" in out.stderr, out.stderr
    assert out.stderr.count("\n") == 1


def test_openclaw_import_skips_fifos_among_its_files(tmp_path: Path, isolated_home: Path):
    """A workspace whose daily log, MEMORY.md and a session transcript are FIFOs: each is
    skipped with its reason; the regular daily log is imported."""
    state = tmp_path / "claw"
    ws = state / "workspace"
    (ws / "memory").mkdir(parents=True)
    (ws / "memory" / "2026-01-02.md").write_text("A real daily log.\n")
    os.mkfifo(ws / "memory" / "2026-01-03.md")
    os.mkfifo(ws / "MEMORY.md")
    sessions = state / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    os.mkfifo(sessions / "s1.jsonl")
    out = run_cli("import", "openclaw", str(state), "--json", timeout=TIMEOUT)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["imported"] == 1, report
    assert any("2026-01-03.md" in s and "not a regular file" in s for s in report["skipped_items"]), report


def test_memory_system_import_skips_a_fifo_entity(tmp_path: Path, isolated_home: Path):
    root = tmp_path / "ms"
    (root / "layer2" / "entities").mkdir(parents=True)
    (root / "layer2" / "active").mkdir(parents=True)
    (root / "layer2" / "active" / "facts.jsonl").write_text(json.dumps({"content": "Uses uv"}) + "\n")
    os.mkfifo(root / "layer2" / "entities" / "alice.json")
    out = run_cli("import", "memory-system", str(root), "--json", timeout=TIMEOUT)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["imported"] == 1 and report["malformed"] == 1, report
