"""Capture through the real CLI in subprocesses, with the detached worker, as an agent
hook runs it."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from memoryd.testing import claude_exchange, stop_payload, write_jsonl


def _memories(cli, *extra: str) -> list[dict]:
    out = cli("list", "--all-scopes", "--json", *extra)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _session_ids(mems: list[dict]) -> list[str]:
    from memoryd.app import Memoryd

    app = Memoryd()
    return sorted(app.store.read(m["slug"])[0].meta.session_id or "" for m in mems)


def _audit(cli, event_type: str) -> list[dict]:
    out = cli("audit", "--event-type", event_type, "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_recapture_of_one_session_updates_one_memory(cli, project: Path, isolated_home: Path, tmp_path: Path):
    sid = "0b6f2c1e-5d7a-4f00-9a33-1c2d3e4f5a6b"
    lines = claude_exchange(
        "Refactor the payment retry loop in billing.py",
        "I read billing.py first.",
        tool="Read",
        tool_input={"file_path": str(project / "billing.py")},
        tool_output="def retry(): ...",
        session_id=sid,
        cwd=str(project),
    )
    transcript = write_jsonl(tmp_path / "t.jsonl", lines)
    first = cli("capture", "--source=claude-code", stdin=stop_payload(sid, transcript, project), cwd=project)
    assert first.returncode == 0, first.stderr

    lines += claude_exchange(
        "Now add exponential backoff with jitter",
        "Added backoff: 2^n seconds plus jitter.",
        tool="Bash",
        tool_input={"command": "pytest tests/test_billing.py"},
        tool_output="3 passed",
        session_id=sid,
        cwd=str(project),
    )
    write_jsonl(transcript, lines)
    second = cli(
        "capture",
        "--source=claude-code",
        stdin=stop_payload(
            sid, transcript, project, last_assistant_message="Backoff is in; all billing tests pass."
        ),
        cwd=project,
    )
    assert second.returncode == 0, second.stderr
    assert cli("worker", "--wait").returncode == 0

    mems = _memories(cli)
    assert len(mems) == 1
    got = json.loads(cli("get", mems[0]["slug"], "--json").stdout)
    assert got["type"] == "session" and got["session_id"] == sid
    assert "exponential backoff" in got["body"]  # later content
    assert "Backoff is in; all billing tests pass." in got["body"]  # Stop's last_assistant_message
    assert "pytest tests/test_billing.py" in got["body"]  # commands run
    assert "billing.py" in got["body"]  # files touched
    assert got["turns"] >= 8  # raw turns kept for level-2 search
    assert not list((isolated_home / "spool").glob("*.json"))
    assert len(_audit(cli, "capture")) == 2
    traces = json.loads(cli("traces", "jitter", "--all-scopes", "--json").stdout)
    assert traces and traces[0]["slug"] == mems[0]["slug"]


def _capture_many(cli, base: Path, worker: int, count: int) -> list[str]:
    sids = []
    for i in range(count):
        sid = f"w{worker}-s{i}-{os.urandom(4).hex()}"
        proj = base / f"p{worker}"
        proj.mkdir(exist_ok=True)
        t = write_jsonl(
            base / f"{sid}.jsonl",
            claude_exchange(f"task {i} of worker {worker}: tune the cache", "done", session_id=sid),
        )
        res = cli("capture", "--source=claude-code", stdin=stop_payload(sid, t, proj))
        assert res.returncode == 0, res.stderr
        sids.append(sid)
    return sids


def test_eight_concurrent_hooks_lose_and_duplicate_nothing(cli, tmp_path: Path, isolated_home: Path):
    with ThreadPoolExecutor(8) as pool:
        batches = list(pool.map(lambda w: _capture_many(cli, tmp_path, w, 25), range(8)))
    assert cli("worker", "--wait").returncode == 0
    sent = {sid for batch in batches for sid in batch}
    assert len(sent) == 200
    mems = _memories(cli)
    assert len(mems) == 200, "lost or duplicated captures"
    assert set(_session_ids(mems)) == sent
    slugs = [m["slug"] for m in mems]
    assert len(set(slugs)) == 200
    assert len(_audit(cli, "capture")) == 200
    assert cli("audit", "verify").returncode == 0
    assert not list((isolated_home / "spool").glob("*.json"))


def test_worker_killed_at_random_points_loses_nothing(cli, tmp_path: Path, isolated_home: Path):
    rnd = random.Random(7)
    sids = []
    for i in range(30):
        sid = f"kill-{i}"
        t = write_jsonl(
            tmp_path / f"{sid}.jsonl",
            claude_exchange(f"investigate flaky test number {i}", "fixed " * 200, session_id=sid),
        )
        res = cli(
            "capture",
            "--source=claude-code",
            stdin=stop_payload(sid, t, tmp_path),
            env={"MEMORYD_NO_WORKER": "1"},
        )
        assert res.returncode == 0
        sids.append(sid)
    # the same session captured twice more, so upserts are interrupted too
    for sid in sids[:5]:
        cli(
            "capture",
            "--source=claude-code",
            stdin=stop_payload(sid, tmp_path / f"{sid}.jsonl", tmp_path),
            env={"MEMORYD_NO_WORKER": "1"},
        )
    kills = 0
    for _ in range(12):
        proc = subprocess.Popen([sys.executable, "-m", "memoryd.capture.worker"], env=os.environ.copy())
        time.sleep(rnd.uniform(0.05, 0.9))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait()
    assert kills >= 3, "the worker finished too fast to be interrupted; make the workload bigger"
    assert cli("worker", "--wait").returncode == 0

    mems = _memories(cli)
    assert _session_ids(mems) == sorted(sids)
    for md in (isolated_home / "scopes").glob("*/*/*.md"):
        assert md.read_text(encoding="utf-8").startswith("---\n")  # every memory file whole
    assert len(_audit(cli, "capture")) == 35  # one event per payload, none doubled by a rerun
    doctor = cli("doctor", "--json")
    report = json.loads(doctor.stdout)
    assert report["files_without_rows"] == [] and report["rows_without_files"] == []
    assert report["audit"]["ok"], report["audit"]
