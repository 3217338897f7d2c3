"""Sensitive scopes at their edges, as an adversary (or an unlucky user) meets them: a
linked git worktree and a `git clean -fdx` that took the marker, a damaged turns sidecar,
a sealed file put back to an older ciphertext of its own."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from memoryd.app import Memoryd
from memoryd.scope import resolve

from .support import CANARY, PIN, enc_files, grant_tty, leaks, one_line_error, record, set_pin


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    r.mkdir()
    _git("init", "-q", "-b", "main", cwd=r)
    who = ("-c", "user.email=t@example.org", "-c", "user.name=t")
    _git(*who, "commit", "-q", "--allow-empty", "-m", "0", cwd=r)
    return r


def _codex_notify(cli, cwd: Path, sid: str) -> None:
    """Codex's `notify` payload: the last message itself rides in the payload."""
    payload = {
        "type": "agent-turn-complete",
        "thread-id": sid,
        "cwd": str(cwd),
        "last-assistant-message": f"The ledger account is {CANARY}; I filed it.",
        "input-messages": [f"file the invoices under {CANARY}"],
    }
    out = cli("capture", "--source=codex", stdin=json.dumps(payload), cwd=cwd, env={"MEMORYD_NO_WORKER": "1"})
    assert out.returncode == 0, out.stderr


def _spooled(home: Path) -> list[Path]:
    return sorted((home / "spool").glob("*.json"))


def test_worktree_and_deleted_marker_keep_plaintext_out_of_the_spool(
    cli, secret_service: str, repo: Path, tmp_path: Path, isolated_home: Path
):
    out = cli("mark-sensitive", str(repo))
    assert out.returncode == 0, out.stderr
    assert (repo / ".memoryd-sensitive").exists()

    # Precondition: a payload from an ordinary project keeps its words in the spool, so
    # the scan below would see them.
    plain = tmp_path / "plain"
    plain.mkdir()
    _codex_notify(cli, plain, "thread-plain")
    assert [p.name for p in _spooled(isolated_home) if CANARY.encode() in p.read_bytes()]
    for p in _spooled(isolated_home):
        p.unlink()

    # A linked worktree: no marker anywhere above it, same scope as the main repository.
    wt = tmp_path / "wt"
    _git("worktree", "add", "-q", str(wt), cwd=repo)
    assert not (wt / ".memoryd-sensitive").exists()
    _codex_notify(cli, wt / ".", "thread-worktree")
    # `git clean -fdx` deletes the untracked marker.
    _git("clean", "-q", "-fdx", cwd=repo)
    assert not (repo / ".memoryd-sensitive").exists()
    sub = repo / "src"
    sub.mkdir()
    _codex_notify(cli, sub, "thread-cleaned")

    spooled = _spooled(isolated_home)
    assert len(spooled) == 2
    for p in spooled:
        assert json.loads(p.read_bytes())["payload"].get("_sensitive") is True
    assert leaks(isolated_home) == [], "the spool (and so `memoryd backup`) holds the plaintext"

    # The worker puts both sessions in the sealed scope, and doctor notices the marker.
    assert resolve(wt).hash == resolve(repo).hash == resolve(sub).hash
    assert cli("worker").returncode == 0
    assert _spooled(isolated_home) == []
    rows = json.loads(cli("list", "--scope", str(repo), "--json").stdout)
    assert len(rows) == 2 and all(r["scope_sensitive"] for r in rows), rows
    assert len(enc_files(isolated_home)) == 2 and leaks(isolated_home) == []

    doctor = cli("doctor", "--json")
    report = json.loads(doctor.stdout)
    assert [m for m in report["missing_markers"] if str(repo) in m], report
    text = cli("doctor").stdout
    assert ".memoryd-sensitive marker is missing" in text, text
    assert cli("mark-sensitive", str(repo)).returncode == 0  # puts the marker back
    assert json.loads(cli("doctor", "--json").stdout)["missing_markers"] == []


def test_plain_directory_marker_deleted_capture_from_a_subfolder(
    cli, secret_service: str, project: Path, isolated_home: Path
):
    assert cli("mark-sensitive", str(project)).returncode == 0
    (project / ".memoryd-sensitive").unlink()
    deep = project / "a" / "b"
    deep.mkdir(parents=True)
    _codex_notify(cli, deep, "thread-deep")
    assert leaks(isolated_home) == []
    assert resolve(deep).hash == resolve(project).hash and resolve(deep).marked


@pytest.fixture
def sealed(cli, secret_service: str, project: Path, tmp_path: Path, isolated_home: Path) -> dict:
    from ..governance.sessions import capture

    fact = record(cli, project, f"Ledger {CANARY}", f"First version about {CANARY}.", "ledger")
    session = capture(
        cli, project, tmp_path, "turns-session", [(f"where is {CANARY}?", "In the ledger folder.")]
    )
    set_pin(cli)  # the person's grant PIN, typed at the terminal below
    assert cli("mark-sensitive", str(project), stdin=PIN + "\n").returncode == 0
    grant_tty(project, "session")
    rows = json.loads(cli("list", "--scope", str(project), "--json").stdout)
    by_type = {r["type"]: r for r in rows}
    return {
        "fact": by_type["fact"]["slug"],
        "session": by_type["session"]["slug"],
        "paths": {r["slug"]: isolated_home / r["body_path"] for r in rows},
        "old": (fact, session),
    }


def test_flipped_byte_in_a_sealed_turns_sidecar_is_named(cli, sealed: dict, isolated_home: Path):
    md = sealed["paths"][sealed["session"]]
    turns = md.with_name(md.name[: -len(".md.enc")] + ".turns.jsonl.enc")
    assert turns.exists()
    data = bytearray(turns.read_bytes())
    data[len(data) // 2] ^= 0x01
    turns.write_bytes(bytes(data))

    one_line_error(cli("get", sealed["session"]), 1, "does not decrypt", turns.name)
    doctor = cli("doctor", "--json")
    assert doctor.returncode == 1, doctor.stdout
    damaged = json.loads(doctor.stdout)["corrupt_files"]
    assert len(damaged) == 1 and turns.name in damaged[0], damaged
    assert md.name + ":" not in damaged[0]  # the intact memory file is not blamed
    assert cli("get", sealed["fact"]).returncode == 0


def test_rollback_to_an_older_ciphertext_is_caught(cli, sealed: dict, isolated_home: Path):
    slug = sealed["fact"]
    path = sealed["paths"][slug]
    older = path.read_bytes()
    time.sleep(1.1)  # timestamps are to the second
    out = cli("update", slug, "--body", f"Second version about {CANARY}: the account moved.")
    assert out.returncode == 0, out.stderr
    assert path.read_bytes() != older
    path.write_bytes(older)  # an older ciphertext of the same memory: it still opens

    one_line_error(cli("get", slug), 1, "rolled back", path.name)
    doctor = cli("doctor", "--json")
    assert doctor.returncode == 1
    damaged = json.loads(doctor.stdout)["corrupt_files"]
    assert len(damaged) == 1 and "rolled back" in damaged[0] and path.name in damaged[0], damaged
    assert path.read_bytes() == older  # memoryd never rewrites the evidence
    assert Memoryd().store.row(slug)["scope_sensitive"] == 1


def test_a_repository_made_inside_a_sensitive_folder_whose_marker_is_gone(
    cli, secret_service: str, project: Path, isolated_home: Path
):
    """An outside test (2026-11-28): with the marker deleted, a `git init` inside the
    sensitive folder made a scope of its own that was not marked, so `record` and the
    worker wrote its memories in the clear. As with the marker there, it is marked and
    has no key: writes are refused, captures stay in the spool, nothing is in the clear."""
    assert cli("mark-sensitive", str(project)).returncode == 0
    (project / ".memoryd-sensitive").unlink()
    nested = project / "sub"
    nested.mkdir()
    _git("init", "-q", "-b", "main", cwd=nested)
    scope = resolve(nested)
    assert scope.kind == "git" and scope.marked and scope.hash != resolve(project).hash
    out = cli("record", "--type", "fact", "--title", "Nested", "--scope", str(nested), stdin=f"{CANARY} body")
    one_line_error(out, 2, "is marked sensitive but has no key")
    _codex_notify(cli, nested, "thread-nested")
    assert cli("worker").returncode == 0
    assert leaks(isolated_home) == [], "the nested repository's memories were written in the clear"


def test_a_capture_whose_folder_is_gone_by_the_drain_stays_sealed(
    cli, secret_service: str, project: Path, isolated_home: Path
):
    """A review (2026-11-28): the hook spooled a session from a subfolder of a sensitive
    project as sensitive, the subfolder was removed before the worker ran, and the worker
    resolved the vanished folder to a scope of its own and wrote the session in the clear.
    A vanished folder now resolves to the sensitive folder it was in."""
    assert cli("mark-sensitive", str(project)).returncode == 0
    sub = project / "sub"
    sub.mkdir()
    _codex_notify(cli, sub, "thread-gone")
    sub.rmdir()
    assert resolve(sub, must_exist=False).hash == resolve(project).hash
    assert cli("worker", "--wait").returncode == 0
    assert leaks(isolated_home) == [], "the session was written in the clear"
    assert len(enc_files(isolated_home)) == 1
