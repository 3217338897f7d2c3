"""After the mark: unmark, rotate-key, the key recovery file, new records and new
captures in a marked scope."""

from __future__ import annotations

import json
from pathlib import Path

import keyring
import pytest

from memoryd.app import Memoryd
from memoryd.scope import resolve
from memoryd.sensitive import marking
from memoryd.testing import claude_exchange, stop_payload, write_jsonl

from .support import (
    CANARY,
    PASSPHRASE,
    PIN,
    enc_files,
    grant_passphrase,
    grant_tty,
    leaks,
    one_line_error,
    plain_files,
    record,
    set_pin,
)

RECOVERY = "recovery file passphrase 42"
SID = "5f0c2a9e-7b1d-4c3e-9a8f-2d6b1e0c4a71"


@pytest.fixture
def marked(cli, secret_service: str, project: Path, isolated_home: Path) -> list[str]:
    """Three memories with the canary in a scope marked with a random key (in gnome-keyring)."""
    for i in range(3):
        Memoryd().record("fact", f"Payroll {i} {CANARY}", f"Salary band {i} is {CANARY}.", scope_path=project)
    set_pin(cli)
    out = cli("mark-sensitive", str(project), stdin=PIN + "\n")
    assert out.returncode == 0, out.stderr
    return [r["slug"] for r in json.loads(cli("list", "--scope", str(project), "--json").stdout)]


def _hits(cli, project: Path) -> tuple[list[dict], str]:
    out = cli("search", CANARY, "--scope", str(project), "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout), out.stderr


def test_unmark_needs_a_grant_and_brings_plaintext_back(
    cli, marked: list[str], project: Path, isolated_home: Path
):
    h = resolve(project).hash
    one_line_error(cli("unmark-sensitive", str(project)), 3, "memoryd grant")
    assert len(enc_files(isolated_home)) == 3
    grant_tty(project)
    out = cli("unmark-sensitive", str(project))
    assert out.returncode == 0 and "3 memories decrypted" in out.stdout, out.stderr

    assert enc_files(isolated_home) == [] and len(plain_files(isolated_home)) == 3
    assert all(CANARY in p.read_text() for p in plain_files(isolated_home))
    assert not (project / ".memoryd-sensitive").exists()
    assert not (isolated_home / "scopes" / h / "sensitive.json").exists()
    assert keyring.get_password("memoryd", f"scope-key:{h}") is None
    assert json.loads(cli("grants", "--json").stdout) == []

    hits, err = _hits(cli, project)
    assert len(hits) == 3 and "not searched" not in err
    assert all(CANARY in h["title"] for h in hits)
    shown = cli("get", hits[0]["slug"])
    assert shown.returncode == 0 and CANARY in shown.stdout
    assert cli("audit", "verify").returncode == 0


def test_rotate_key_reencrypts_everything(cli, marked: list[str], project: Path, isolated_home: Path):
    h = resolve(project).hash
    old_key = keyring.get_password("memoryd", f"scope-key:{h}")
    before = {p: p.read_bytes() for p in enc_files(isolated_home)}
    one_line_error(cli("rotate-key", str(project)), 3, "memoryd grant")
    grant_tty(project, "session")
    out = cli("rotate-key", str(project))
    assert out.returncode == 0 and "3 memories re-encrypted" in out.stdout, out.stderr

    new_key = keyring.get_password("memoryd", f"scope-key:{h}")
    assert new_key and new_key != old_key
    assert keyring.get_password("memoryd", f"scope-key:{h}:next") is None
    after = {p: p.read_bytes() for p in enc_files(isolated_home)}
    assert set(after) == set(before)  # same opaque names
    for p in before:
        assert after[p] != before[p] and after[p][6:18] != before[p][6:18]  # new ciphertext, new nonce
    for slug in marked:
        shown = cli("get", slug)
        assert shown.returncode == 0 and CANARY in shown.stdout, shown.stderr
    assert len(_hits(cli, project)[0]) == 3
    # The old key no longer opens the files.
    keyring.set_password("memoryd", f"scope-key:{h}", old_key)
    one_line_error(cli("get", marked[0]), 1, "key check")
    assert leaks(isolated_home) == []


def test_rotate_a_passphrase_scope(cli, secret_service: str, project: Path, isolated_home: Path):
    record(cli, project, f"Passport {CANARY}", f"Number {CANARY}.")
    assert cli("mark-sensitive", str(project), "--passphrase", stdin=PASSPHRASE + "\n").returncode == 0
    slug = json.loads(cli("list", "--scope", str(project), "--json").stdout)[0]["slug"]
    (path,) = enc_files(isolated_home)
    old = path.read_bytes()
    grant_passphrase(cli, project, "session")
    new_pass = "a brand new passphrase"
    out = cli("rotate-key", str(project), stdin=new_pass + "\n")
    assert out.returncode == 0, out.stderr
    assert path.read_bytes() != old
    # Rotating a passphrase scope ends its grants: the new passphrase opens it, the old does not.
    assert cli("get", slug).returncode == 3
    one_line_error(cli("grant", str(project), "--duration", "once", stdin=PASSPHRASE + "\n"), 1, "wrong")
    assert cli("grant", str(project), "--duration", "once", stdin=new_pass + "\n").returncode == 0
    shown = cli("get", slug)
    assert shown.returncode == 0 and CANARY in shown.stdout, shown.stderr


def test_key_export_import_restores_reads(
    cli, marked: list[str], project: Path, isolated_home: Path, tmp_path: Path
):
    h = resolve(project).hash
    out_file = tmp_path / "payroll.memoryd-key"
    one_line_error(cli("key", "export", str(project), "--out", str(out_file), stdin=RECOVERY + "\n"), 3)
    grant_tty(project, "session")
    out = cli("key", "export", str(project), "--out", str(out_file), stdin=RECOVERY + "\n")
    assert out.returncode == 0, out.stderr
    saved = json.loads(out_file.read_text())
    key = keyring.get_password("memoryd", f"scope-key:{h}")
    assert saved["format"] == "memoryd-key-recovery" and key not in out_file.read_text()
    one_line_error(cli("key", "export", str(project), "--out", str(out_file), stdin=RECOVERY + "\n"), 2)

    keyring.delete_password("memoryd", f"scope-key:{h}")
    one_line_error(cli("get", marked[0]), 1, "not in the OS keyring", "key import")

    one_line_error(cli("key", "import", str(out_file), stdin="not the recovery passphrase\n"), 1, "wrong")
    assert keyring.get_password("memoryd", f"scope-key:{h}") is None
    junk = tmp_path / "junk.json"
    junk.write_text("{}")
    one_line_error(cli("key", "import", str(junk), stdin=RECOVERY + "\n"), 2, "not a memoryd key recovery")

    out = cli("key", "import", str(out_file), stdin=RECOVERY + "\n")
    assert out.returncode == 0 and h in out.stdout, out.stderr
    assert keyring.get_password("memoryd", f"scope-key:{h}") == key
    for slug in marked:
        shown = cli("get", slug)
        assert shown.returncode == 0 and CANARY in shown.stdout, shown.stderr
    assert cli("doctor").returncode == 0


def test_doctor_warns_when_a_scope_key_is_missing(cli, marked: list[str], project: Path):
    h = resolve(project).hash
    keyring.delete_password("memoryd", f"scope-key:{h}")
    out = cli("doctor")
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert "audit chain" in out.stdout, (out.stdout, out.stderr)  # a full report, not one error line
    assert h in out.stdout and "key import" in out.stdout, (out.stdout, out.stderr)
    assert json.loads(cli("doctor", "--json").stdout)["missing_keys"] == [h]


def test_doctor_on_a_passphrase_scope_without_a_grant(cli, no_keyring: None, project: Path):
    record(cli, project, "Locked note", f"{CANARY}")
    assert cli("mark-sensitive", str(project), "--passphrase", stdin=PASSPHRASE + "\n").returncode == 0
    out = cli("doctor")
    assert out.returncode == 0, (out.stdout, out.stderr)
    assert f"sensitive scope {resolve(project).hash}: not checked" in out.stdout


def test_new_record_in_a_marked_scope_is_encrypted_from_the_start(
    cli, marked: list[str], project: Path, isolated_home: Path
):
    out = cli(
        "record", "--type", "decision", "--title", f"Raise {CANARY}", "--trigger", CANARY,
        "--scope", str(project), "--json", stdin=f"Decided to raise {CANARY} in June.",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    slug = json.loads(out.stdout)["slug"]
    assert marking.OPAQUE.match(slug) and CANARY.lower() not in slug.lower()
    assert (isolated_home / "scopes" / resolve(project).hash / "decisions" / f"{slug}.md.enc").is_file()
    assert plain_files(isolated_home) == []
    assert leaks(isolated_home) == []
    assert CANARY not in out.stdout
    grant_tty(project)
    shown = cli("get", slug)
    assert shown.returncode == 0 and f"Decided to raise {CANARY}" in shown.stdout
    assert slug in {h["slug"] for h in _hits(cli, project)[0]}
    assert leaks(isolated_home) == []


def test_capture_in_a_marked_scope_keeps_the_transcript_out_of_the_spool(
    cli, marked: list[str], project: Path, isolated_home: Path, tmp_path: Path
):
    sub = project / "src"
    sub.mkdir()
    lines = claude_exchange(
        f"Our payroll export lives in {CANARY}, remember that.",
        f"Noted: payroll exports go to {CANARY}.",
        tool="Bash",
        tool_input={"command": f"ls {CANARY}"},
        tool_output=f"{CANARY}-2026.csv",
        session_id=SID,
        cwd=str(sub),
    )
    transcript = write_jsonl(tmp_path / f"{SID}.jsonl", lines)
    payload = stop_payload(SID, transcript, sub, last_assistant_message=f"Noted: {CANARY}.")
    out = cli("capture", "--source=claude-code", stdin=payload, cwd=sub, env={"MEMORYD_NO_WORKER": "1"})
    assert out.returncode == 0, out.stderr
    spooled = list((isolated_home / "spool").glob("*.json"))
    assert len(spooled) == 1
    assert CANARY.lower() not in spooled[0].read_text().lower()
    assert leaks(isolated_home) == []

    report = Memoryd().drain_spool(wait=True)
    assert report.captured, report
    assert list((isolated_home / "spool").glob("*.json")) == []
    assert plain_files(isolated_home) == [] and leaks(isolated_home) == []
    (session,) = isolated_home.glob("scopes/*/sessions/*.md.enc")
    hidden = cli("traces", CANARY, "--scope", str(project), "--json")
    assert hidden.returncode == 0 and CANARY not in hidden.stdout, hidden.stdout  # no grant: withheld
    grant_tty(project)
    shown = cli("get", session.name[: -len(".md.enc")], "--json")
    assert shown.returncode == 0 and CANARY in shown.stdout, shown.stderr
    assert json.loads(shown.stdout)["turns"] >= 2
    # Level 2 under the grant: the raw turns are decrypted and searched in memory.
    turns = cli("traces", CANARY, "--scope", str(project), "--json")
    assert turns.returncode == 0, turns.stderr
    assert any(CANARY in t["text"] for t in json.loads(turns.stdout)), turns.stdout
    assert leaks(isolated_home) == []


def _capture(cli, project: Path, tmp_path: Path, sid: str) -> None:
    lines = claude_exchange(
        f"Where is {CANARY}?", f"{CANARY} is in the vault.", session_id=sid, cwd=str(project)
    )
    transcript = write_jsonl(tmp_path / f"{sid}.jsonl", lines)
    payload = stop_payload(sid, transcript, project)
    out = cli("capture", "--source=claude-code", stdin=payload, cwd=project, env={"MEMORYD_NO_WORKER": "1"})
    assert out.returncode == 0, out.stderr


def test_a_new_session_in_a_marked_scope_gets_an_opaque_name(
    cli, marked: list[str], project: Path, isolated_home: Path, tmp_path: Path
):
    _capture(cli, project, tmp_path, "payroll-q3-review")
    assert Memoryd().drain_spool(wait=True).captured
    (session,) = isolated_home.glob("scopes/*/sessions/*.md.enc")
    assert marking.OPAQUE.match(session.name[: -len(".md.enc")]), session.name


def test_a_capture_waits_in_the_spool_for_a_passphrase_scopes_key(
    cli, secret_service: str, project: Path, isolated_home: Path, tmp_path: Path
):
    record(cli, project, "Vault", f"{CANARY} vault")
    assert cli("mark-sensitive", str(project), "--passphrase", stdin=PASSPHRASE + "\n").returncode == 0
    _capture(cli, project, tmp_path, SID)
    (spooled,) = (isolated_home / "spool").glob("*.json")
    assert CANARY.lower() not in spooled.read_text().lower()

    report = Memoryd().drain_spool(wait=True)
    assert report.captured == [] and report.rejected == [] and report.deferred == [spooled.name]
    assert spooled.exists() and not list(isolated_home.glob("scopes/*/sessions/*"))
    assert json.loads(cli("stats", "--json").stdout)["spool_pending"] == 1

    grant_passphrase(cli, project, "once")  # the grant drains what waited for its key
    assert list((isolated_home / "spool").glob("*.json")) == []
    assert not list((isolated_home / "spool").glob("rejected/*"))
    (session,) = isolated_home.glob("scopes/*/sessions/*.md.enc")
    shown = cli("get", session.name[: -len(".md.enc")])
    assert shown.returncode == 0 and f"{CANARY} is in the vault" in shown.stdout, shown.stderr
    assert leaks(isolated_home) == [] and plain_files(isolated_home) == []
