"""Bad input to capture: a clear one-line error or a logged skip, nothing else damaged."""

from __future__ import annotations

import json
from pathlib import Path

from memoryd.testing import claude_exchange, stop_payload, write_jsonl

# Malformed payloads and an unknown --source: tests/core/capture/test_hook_mode.py (hook
# mode exits 0 with one line; exit 2 would block a Claude Code Stop hook).


def test_missing_transcript_still_yields_a_memory_and_a_warning(cli, project: Path):
    payload = stop_payload(
        "gone-1", project / "nope.jsonl", project, last_assistant_message="Merged the PR after review."
    )
    res = cli("capture", "--source=claude-code", stdin=payload)
    assert res.returncode == 0
    assert "transcript not found" in res.stderr
    assert cli("worker", "--wait").returncode == 0
    mems = json.loads(cli("list", "--all-scopes", "--json").stdout)
    assert len(mems) == 1
    body = json.loads(cli("get", mems[0]["slug"], "--json").stdout)["body"]
    assert "Merged the PR after review." in body


def test_damaged_transcript_lines_and_junk_spool_files_are_skipped(
    cli, project: Path, tmp_path: Path, isolated_home: Path
):
    t = write_jsonl(
        tmp_path / "t.jsonl", claude_exchange("Keep this prompt", "and this answer", session_id="d1")
    )
    with open(t, "a", encoding="utf-8") as fh:
        fh.write("{broken json\n\x00\x01 binary garbage\n")
    spool = isolated_home / "spool"
    spool.mkdir(parents=True)
    (spool / "00000000000000000001-1-junk.json").write_bytes(b"\x00 not a record")
    (spool / "00000000000000000002-1-junk.json").write_text(json.dumps({"payload": {}, "source": "x"}))
    assert cli("capture", "--source=claude-code", stdin=stop_payload("d1", t, project)).returncode == 0
    assert cli("worker", "--wait").returncode == 0
    mems = json.loads(cli("list", "--all-scopes", "--json").stdout)
    assert [m["title"] for m in mems] == ["Keep this prompt"]
    rejected = sorted(p.name for p in (spool / "rejected").glob("*.json"))
    assert len(rejected) == 2
    assert all((spool / "rejected" / n).with_suffix(".reason.txt").exists() for n in rejected)
    assert not list(spool.glob("*.json"))
    log = (isolated_home / "logs" / "worker.log").read_text()
    assert "rejected" in log and "not JSON" in log


def test_codex_notify_payload_as_last_argument(cli, project: Path):
    payload = json.dumps(
        {
            "type": "agent-turn-complete",
            "thread-id": "th-1",
            "turn-id": "1",
            "cwd": str(project),
            "input-messages": ["rename the config loader"],
            "last-assistant-message": "Renamed load_cfg to load_config.",
        }
    )
    res = cli("capture", "--source=codex", payload)
    assert res.returncode == 0, res.stderr
    assert cli("worker", "--wait").returncode == 0
    mems = json.loads(cli("list", "--all-scopes", "--json").stdout)
    assert mems[0]["title"] == "rename the config loader" and mems[0]["source"] == "codex"


def test_a_payload_that_meets_a_bug_is_set_aside_and_the_queue_goes_on(
    cli, project: Path, isolated_home: Path
):
    """An error no code path expects (here one injected where the worker starts on a
    payload) used to escape the drain and leave that payload first in the spool, so every
    later drain stopped on it and no later session was captured."""
    for sid, said in (("bug-1", "First answer."), ("ok-2", "Second answer.")):
        payload = stop_payload(sid, project / f"{sid}.jsonl", project, last_assistant_message=said)
        spooled = cli("capture", "--source=claude-code", stdin=payload, env={"MEMORYD_NO_WORKER": "1"})
        assert spooled.returncode == 0
    res = cli("worker", "--wait", env={"MEMORYD_FAIL_AT": "capture:process@1"})
    assert res.returncode == 0, res.stderr
    assert "captured 1, rejected 1" in res.stdout, res.stdout
    mems = json.loads(cli("list", "--all-scopes", "--json").stdout)
    assert [json.loads(cli("get", m["slug"], "--json").stdout)["session_id"] for m in mems] == ["ok-2"]
    spool = isolated_home / "spool"
    (reason,) = (spool / "rejected").glob("*.reason.txt")
    assert "internal error: InjectedFault" in reason.read_text()
    assert not list(spool.glob("*.json"))
    assert "Traceback" in (isolated_home / "logs" / "worker.log").read_text()
