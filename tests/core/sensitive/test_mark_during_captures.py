"""`mark-sensitive` while an agent keeps capturing: 200 real hook processes (each may
start a real detached worker) around one real `mark-sensitive`. Afterwards no plaintext
is left anywhere under the data dir, each session is one sealed memory (never sealed
twice under two names), and `reindex` and `doctor` are clean."""

from __future__ import annotations

import fcntl
import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from memoryd import paths
from memoryd.app import Memoryd
from memoryd.scope import resolve
from memoryd.testing import claude_exchange, stop_payload, write_jsonl

from .support import CANARY, enc_files, leaks, plain_files

CAPTURES = 200
SESSIONS = 100  # each captured twice: a creation and an update, the update maybe after marking
PARALLEL = 6
NOTES = 10


def _payloads(project: Path, tmp_path: Path) -> list[tuple[str, bytes]]:
    out = []
    for i in range(CAPTURES):
        sid = f"race-{i % SESSIONS:03d}"
        if i % SESSIONS % 4 == 3:  # Codex notify: the words ride in the payload itself
            payload = {
                "type": "agent-turn-complete",
                "thread-id": sid,
                "cwd": str(project),
                "last-assistant-message": f"Filed under {CANARY} (turn {i}).",
                "input-messages": [f"file it under {CANARY}"],
            }
            out.append(("codex", json.dumps(payload).encode()))
            continue
        turns = [(f"invoices of {CANARY}? ({j})", f"Under {CANARY}/{j}.") for j in range(i // 50 + 1)]
        lines = [x for p, a in turns for x in claude_exchange(p, a, session_id=sid, cwd=str(project))]
        transcript = write_jsonl(tmp_path / "transcripts" / f"{sid}-{i}.jsonl", lines)
        out.append(("claude-code", stop_payload(sid, transcript, project)))
    return out


def _hook(project: Path, source: str, payload: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "memoryd.cli.main", "capture", f"--source={source}"],
        input=payload,
        cwd=project,
        capture_output=True,
        timeout=120,
        check=False,
    )


def _settled(cli, home: Path) -> None:
    """Drain what is left and wait for the detached workers (and their analysis) to end."""
    layout = paths.layout()
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        out = cli("worker")
        assert out.returncode == 0, out.stderr
        if not list((home / "spool").glob("*.json")):
            break
        time.sleep(0.5)
    for lock in (layout.worker_lock, layout.analysis_lock):
        with open(lock, "a") as fh:  # blocks while a detached worker or analyser holds it
            fcntl.flock(fh, fcntl.LOCK_EX)


def test_200_captures_while_marking(
    cli, secret_service: str, project: Path, tmp_path: Path, isolated_home: Path
):
    app = Memoryd()
    for n in range(NOTES):  # something to encrypt, so the mark takes a while
        app.record("fact", f"Note {n}", f"Invoices of {CANARY} number {n}.", scope_path=project)
    state = isolated_home / "scopes" / resolve(project).hash / "sensitive.json"
    payloads = _payloads(project, tmp_path)
    ended: list[float] = []
    with ThreadPoolExecutor(PARALLEL) as pool:

        def one(src: str, data: bytes) -> subprocess.CompletedProcess[bytes]:
            done = _hook(project, src, data)
            ended.append(time.monotonic())
            return done

        # The first capture of every session, then the mark; its own drain takes what is
        # spooled until the spool is empty, so the updates are held back until the sealing
        # proper begins: then they race it (and the workers they start race it too).
        futures = [pool.submit(one, src, data) for src, data in payloads[:SESSIONS]]
        while len(ended) < CAPTURES // 4:
            time.sleep(0.02)
        mark = subprocess.Popen(
            [sys.executable, "-m", "memoryd.cli.main", "mark-sensitive", str(project)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        sealing = None  # when the mark proper began (its state file appeared)
        while mark.poll() is None:
            if sealing is None and state.exists():
                sealing = time.monotonic()
                futures += [pool.submit(one, src, data) for src, data in payloads[SESSIONS:]]
            time.sleep(0.01)
        marked = time.monotonic()
        _, stderr = mark.communicate()
        hooks = [f.result() for f in futures]
    assert mark.returncode == 0, stderr
    assert "internal error" not in stderr, stderr
    assert all(h.returncode == 0 for h in hooks), [h.stderr for h in hooks if h.returncode]
    assert sealing is not None
    assert any(sealing <= t <= marked for t in ended), "no capture ran while the scope was being sealed"

    _settled(cli, isolated_home)
    assert leaks(isolated_home) == [], "plaintext left in the sensitive scope"
    assert plain_files(isolated_home) == []
    assert not list(isolated_home.glob("scopes/*/*/*.turns.jsonl"))
    rejected = isolated_home / "spool" / "rejected"
    assert not rejected.exists() or not list(rejected.iterdir()), list(rejected.iterdir())

    rows = json.loads(cli("list", "--scope", str(project), "--json").stdout)
    sessions = [r for r in rows if r["type"] == "session"]
    assert len(sessions) == SESSIONS, len(sessions)  # one memory each: none sealed twice
    assert len(enc_files(isolated_home)) == SESSIONS + NOTES

    out = cli("reindex")
    assert out.returncode == 0 and "UNIQUE" not in out.stderr and "skipped" not in out.stderr, out.stderr
    assert f"indexed {SESSIONS + NOTES} of {SESSIONS + NOTES} files" in out.stdout, out.stdout
    doctor = cli("doctor")
    assert doctor.returncode == 0, doctor.stdout
    assert leaks(isolated_home) == []
