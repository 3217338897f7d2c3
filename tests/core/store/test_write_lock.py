"""Two writers of one memory file: the later save must not be lost to an earlier read.

Found by CI: a capture's update to a session (the Stop payload's last message) vanished
when the analysis that had read the session earlier saved its scores afterwards. These
tests make real `memoryd` processes interleave exactly so (MEMORYD_PAUSE_AT holds one at
the race window), then check that the newer capture survives.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from memoryd.store.writelock import WriteLock
from memoryd.testing import claude_exchange, stop_payload, write_jsonl

SID = "5e1f0c2a-7d3b-4e11-8a55-2b3c4d5e6f70"
NEWER = "Backoff is in; all billing tests pass."


def _start(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "memoryd.cli.main", *args],
        cwd=cwd,
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _wait_for(path: Path, proc: subprocess.Popen[bytes], limit: float = 60) -> None:
    deadline = time.monotonic() + limit
    while not path.exists():
        if proc.poll() is not None:
            out, err = proc.communicate()
            raise AssertionError(f"exited {proc.returncode} before {path.name}: {out!r} {err!r}")
        assert time.monotonic() < deadline, f"{path.name} never reached"
        time.sleep(0.02)


def _first_capture(cli, project: Path, tmp_path: Path) -> tuple[Path, list[dict], str]:
    lines = claude_exchange(
        "Refactor the payment retry loop in billing.py",
        "I read billing.py first.",
        session_id=SID,
        cwd=str(project),
    )
    transcript = write_jsonl(tmp_path / "t.jsonl", lines)
    quiet = {"MEMORYD_NO_WORKER": "1"}
    assert (
        cli(
            "capture",
            "--source=claude-code",
            stdin=stop_payload(SID, transcript, project),
            cwd=project,
            env=quiet,
        ).returncode
        == 0
    )
    assert cli("worker", "--wait").returncode == 0
    slugs = [m["slug"] for m in json.loads(cli("list", "--all-scopes", "--json").stdout)]
    assert len(slugs) == 1
    return transcript, lines, slugs[0]


def _second_capture(cli, project: Path, transcript: Path, lines: list[dict]) -> None:
    lines = lines + claude_exchange(
        "Now add exponential backoff with jitter",
        "Added backoff: 2^n seconds plus jitter.",
        session_id=SID,
        cwd=str(project),
    )
    write_jsonl(transcript, lines)
    payload = stop_payload(SID, transcript, project, last_assistant_message=NEWER)
    r = cli("capture", "--source=claude-code", stdin=payload, cwd=project, env={"MEMORYD_NO_WORKER": "1"})
    assert r.returncode == 0, r.stderr


def _body(cli, slug: str) -> str:
    return json.loads(cli("get", slug, "--json").stdout)["body"]


def test_an_analysis_that_read_the_session_before_a_capture_does_not_write_it_back(
    cli, project: Path, isolated_home: Path, tmp_path: Path
):
    transcript, lines, slug = _first_capture(cli, project, tmp_path)
    pause = {"MEMORYD_PAUSE_AT": "analyze:scored", "MEMORYD_PAUSE_DIR": str(tmp_path)}
    analysis = _start(["analyze-session", slug, "--force", "--json"], project, pause)
    _wait_for(tmp_path / "analyze:scored.reached", analysis)  # scored the first version

    _second_capture(cli, project, transcript, lines)
    worker = cli("worker", "--wait", timeout=60)  # not blocked: the analysis holds no lock now
    assert worker.returncode == 0, worker.stderr
    assert NEWER in _body(cli, slug)

    (tmp_path / "analyze:scored.go").touch()
    out, err = analysis.communicate(timeout=60)
    assert analysis.returncode == 1, err  # deferred: nothing was scored, as after an LLM failure
    result = json.loads(out)
    assert result["status"] == "deferred" and "changed while it was being analysed" in result["note"]
    assert NEWER in _body(cli, slug)  # the capture survived the analysis's save
    again = json.loads(cli("analyze-session", slug, "--json").stdout)
    assert again["status"] == "scored"  # and the next run scores the session as it is now
    assert NEWER in _body(cli, slug)
    assert cli("audit", "verify").returncode == 0


def test_a_search_counting_a_recall_does_not_write_back_a_session_captured_meanwhile(
    cli, project: Path, isolated_home: Path, tmp_path: Path
):
    transcript, lines, slug = _first_capture(cli, project, tmp_path)
    pause = {"MEMORYD_PAUSE_AT": "recall:read", "MEMORYD_PAUSE_DIR": str(tmp_path)}
    search = _start(["search", "billing", "--all-scopes", "--json"], project, pause)
    _wait_for(tmp_path / "recall:read.reached", search)  # read the first version to count the hit

    _second_capture(cli, project, transcript, lines)
    worker = _start(["worker", "--wait"], project, {})
    time.sleep(1.0)
    assert worker.poll() is None, "the capture saved while the search held the file it read"

    (tmp_path / "recall:read.go").touch()
    _, err = search.communicate(timeout=60)
    assert search.returncode == 0, err
    _, err = worker.communicate(timeout=60)
    assert worker.returncode == 0, err
    got = json.loads(cli("get", slug, "--json").stdout)
    assert NEWER in got["body"]
    assert got["recall_count"] >= 1  # and the search's count is kept too
    assert cli("audit", "verify").returncode == 0


def test_the_write_lock_is_reentrant_in_a_thread_and_exclusive_between_threads(tmp_path: Path):
    lock = WriteLock(tmp_path / "write.lock")
    inside = threading.Event()
    release = threading.Event()
    order: list[str] = []

    def holder() -> None:
        with lock.held(), lock.held():  # a save() inside a caller's own locked section
            order.append("holder in")
            inside.set()
            release.wait(10)
            order.append("holder out")

    def other() -> None:
        with lock.held():
            order.append("other in")

    a = threading.Thread(target=holder)
    a.start()
    assert inside.wait(10)
    b = threading.Thread(target=other)
    b.start()
    time.sleep(0.3)
    assert order == ["holder in"]  # the second thread waits
    release.set()
    a.join(10)
    b.join(10)
    assert order == ["holder in", "holder out", "other in"]


def test_an_attempt_never_waits_and_holds_only_a_free_lock(tmp_path: Path) -> None:
    """For work a later process can as well do (re-indexing after an upgrade at open): a
    start-up must not wait for another writer (the MCP host gives a server seconds)."""
    lock = WriteLock(tmp_path / "write.lock")
    with lock.held(), lock.attempt() as got:
        assert got  # this thread holds it already: reentrant
    busy = threading.Event()
    done = threading.Event()

    def holder() -> None:
        with lock.held():
            busy.set()
            done.wait(10)

    t = threading.Thread(target=holder)
    t.start()
    assert busy.wait(10)
    started = time.monotonic()
    with lock.attempt() as got:
        assert not got
    assert time.monotonic() - started < 1.0
    done.set()
    t.join(10)
    with lock.attempt() as got:
        assert got
    other = WriteLock(tmp_path / "write.lock")  # another process's, as flock sees it
    with lock.attempt() as got, other.attempt() as theirs:
        assert got and not theirs
    with other.attempt() as theirs:
        assert theirs  # released on the way out
