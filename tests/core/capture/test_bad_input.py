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
