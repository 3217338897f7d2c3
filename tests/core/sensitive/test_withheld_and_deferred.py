"""What the person is told when sensitive material cannot be read now: `memoryd worker`
says a capture was deferred and why (not "captured 0, rejected 0"), and `memoryd search`
says how many memories it could not look into and why."""

from __future__ import annotations

import json
from pathlib import Path

from memoryd.testing import claude_exchange, stop_payload, write_jsonl

from .support import CANARY, PASSPHRASE, PIN, record

SID = "0b7e2c1d-4a5f-4e6b-8c9d-1a2b3c4d5e6f"


def test_worker_says_a_capture_was_deferred_and_why(
    cli, secret_service: str, project: Path, isolated_home: Path, tmp_path: Path
):
    record(cli, project, "Vault", f"{CANARY} vault")
    assert cli("mark-sensitive", str(project), "--passphrase", stdin=PASSPHRASE + "\n").returncode == 0
    lines = claude_exchange("Where is it?", "In the vault.", session_id=SID, cwd=str(project))
    payload = stop_payload(SID, write_jsonl(tmp_path / "t.jsonl", lines), project)
    hook = cli("capture", "--source=claude-code", stdin=payload, cwd=project, env={"MEMORYD_NO_WORKER": "1"})
    assert hook.returncode == 0, hook.stderr

    out = cli("worker", "--wait")
    assert out.returncode == 0, out.stderr
    assert "captured 0, rejected 0, deferred 1" in out.stdout, out.stdout
    assert "kept in the spool" in out.stdout and "passphrase" in out.stdout.lower(), out.stdout
    js = json.loads(cli("worker", "--wait", "--json").stdout)
    assert len(js["deferred"]) == 1 and js["deferred"][0]["why"], js
    assert len(list((isolated_home / "spool").glob("*.json"))) == 1


def test_search_says_how_many_memories_did_not_open(cli, secret_service: str, project: Path):
    """A granted sensitive scope whose key is no longer here (a keyring wiped, a data dir
    moved without `memoryd key export`): its memories cannot be decrypted; search says so
    and how many, instead of dropping them silently."""
    import keyring

    from memoryd.app import Memoryd

    for i in range(2):
        record(cli, project, f"Vault {i}", f"{CANARY} vault {i}")
    app = Memoryd()
    app.set_grant_pin(PIN)
    app.mark_sensitive(project)
    h = app.scope(project).hash
    app.grant(project, duration="session", pin=PIN)
    keyring.delete_password("memoryd", f"scope-key:{h}")

    out = cli("search", CANARY, "--scope", str(project))
    assert out.returncode == 0, out.stderr
    assert "2 memories of sensitive scope" in out.stderr and "could not be decrypted" in out.stderr, (
        out.stderr
    )
    js = cli("search", CANARY, "--scope", str(project), "--json")
    assert js.returncode == 0 and json.loads(js.stdout) == [], js.stderr
    assert "2 memories" in js.stderr
    # The MCP tool does not answer as if the list were complete either: a new server (no key
    # in memory) cannot check the grant without the key and says why, in one sentence.
    import pytest

    from memoryd.errors import KeyUnavailable
    from memoryd.mcpserver import Tools

    with pytest.raises(KeyUnavailable, match="not in the OS keyring"):
        Tools(Memoryd()).search(CANARY, str(project), None, 8)


def test_a_memory_that_does_not_decrypt_is_counted_as_withheld_by_mcp(
    cli, secret_service: str, project: Path, isolated_home: Path
):
    """A hand-damaged encrypted file in a granted scope: the MCP search result says one
    memory was not searched and why, beside what it did find."""
    from memoryd.app import Memoryd
    from memoryd.mcpserver import Tools

    for i in range(2):
        record(cli, project, f"Vault {i}", f"{CANARY} vault {i}")
    app = Memoryd()
    app.set_grant_pin(PIN)
    app.mark_sensitive(project)
    app.grant(project, duration="session", pin=PIN)
    slug = app.list(scopes=[app.scope(project).hash], limit=10)[0]["slug"]
    (path,) = [p for p in isolated_home.rglob(f"{slug}*") if p.is_file() and ".md" in p.name]
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0xFF  # one flipped byte: the authenticated decryption fails
    path.write_bytes(bytes(raw))

    found = Tools(Memoryd()).search(CANARY, str(project), None, 8)
    assert len(found["results"]) == 1, found
    assert [w["count"] for w in found["withheld"]] == [1] and found["withheld"][0]["why"], found
