"""Undo in a sensitive scope (issue 22): a merge's dropped memories lie in the trash as
ciphertext (no canary in the trash, index.db or its WAL), and undoing needs a grant as
the merge did; with one, the sealed files come back byte for byte."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from .support import CANARY, PIN, enc_files, grant_pin, leaks, one_line_error, record, set_pin


def _digests(home: Path) -> dict[str, str]:
    return {
        p.relative_to(home).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in enc_files(home)
    }


def test_merge_undo_in_a_sensitive_scope(cli, secret_service: str, project: Path, isolated_home: Path):
    set_pin(cli)
    out = cli("mark-sensitive", str(project), stdin=PIN + "\n")
    assert out.returncode == 0, out.stderr
    body = f"The vault is named {CANARY} and opens on Fridays."
    keep = record(cli, project, f"Vault {CANARY}", body, "vault")
    drop = record(cli, project, "Vault name", body, CANARY)
    before = _digests(isolated_home)
    assert len(before) == 2

    one_line_error(cli("merge", "--keep", keep, "--drop", drop), 3, "sensitive")
    grant_pin(cli, project, "session")
    out = cli("merge", "--keep", keep, "--drop", drop)
    assert out.returncode == 0, out.stderr
    trashed = list((isolated_home / "trash").rglob("*.md*"))
    assert trashed and all(p.name.endswith(".md.enc") for p in trashed), trashed
    assert leaks(isolated_home) == []  # the trash, index.db and index.db-wal included
    assert (isolated_home / "index.db-wal").exists() or (isolated_home / "index.db").exists()

    assert cli("revoke", str(project)).returncode == 0
    one_line_error(cli("undo"), 3, "sensitive")
    assert list((isolated_home / "trash").rglob("*.md.enc")) and cli("undo", "--list").returncode == 0
    assert json.loads(cli("audit", "--event-type", "undo", "--json").stdout) == []

    grant_pin(cli, project, "session")
    out = cli("undo")
    assert out.returncode == 0, out.stderr
    assert _digests(isolated_home) == before
    assert cli("get", drop).returncode == 0
    assert leaks(isolated_home) == []
    assert cli("audit", "verify").returncode == 0
    assert cli("doctor").returncode == 0


def test_marking_leaves_no_readable_slug_in_undo_history(
    cli, secret_service: str, project: Path, tmp_path: Path, isolated_home: Path
):
    """Slugs carry title words: review_actions, not_duplicates and the audit log's dedupe
    strings must take the opaque names when the scope is marked, and a "not duplicates"
    decision still points at its (renamed) memories."""
    import sqlite3

    other = tmp_path / "other"
    other.mkdir()
    body = "Deploys go through the blue pipeline on Tuesdays."
    keep = record(cli, project, f"{CANARY} deploy day", body)
    drop = record(cli, project, f"{CANARY} deploy weekday", body)
    c = record(cli, project, f"{CANARY} lint rules", "Lint with ruff.")
    d = record(cli, project, f"{CANARY} format rules", "Format with ruff format.")
    e = record(cli, other, "Formatting elsewhere", "Format with black.")
    assert cli("merge", "--keep", keep, "--drop", drop).returncode == 0
    assert cli("not-duplicates", c, d).returncode == 0
    assert cli("not-duplicates", c, e).returncode == 0
    assert leaks(isolated_home)  # the canary is there before marking

    set_pin(cli)
    out = cli("mark-sensitive", str(project), stdin=PIN + "\n")
    assert out.returncode == 0, out.stderr
    assert leaks(isolated_home) == []  # index.db, its WAL, audit, trash
    assert cli("audit", "verify").returncode == 0

    con = sqlite3.connect(isolated_home / "index.db")
    slugs = {r[0] for r in con.execute("SELECT slug FROM memories")}
    keys = [r[0].split(" ") for r in con.execute("SELECT group_key FROM not_duplicates")]
    con.close()
    assert len(keys) == 2 and all(set(k) <= slugs for k in keys), (keys, slugs)
    assert any(e in k for k in keys)
    listed = json.loads(cli("undo", "--list", "--json").stdout)
    assert [a["kind"] for a in listed][:2] == ["not_duplicates", "not_duplicates"]
    out = cli("undo", str(listed[0]["id"]))  # "not duplicates" reads nothing: no grant needed
    assert out.returncode == 0, out.stderr
    assert leaks(isolated_home) == []


def test_marking_empties_the_scope_s_trash_even_with_a_broken_manifest(
    cli, secret_service: str, project: Path, isolated_home: Path
):
    body = f"The vault is named {CANARY}."
    keep = record(cli, project, "Vault", body)
    drop = record(cli, project, "Vault name", body)
    assert cli("merge", "--keep", keep, "--drop", drop).returncode == 0
    (entry,) = (isolated_home / "trash").iterdir()
    (entry / "manifest.json").write_text("")
    set_pin(cli)
    out = cli("mark-sensitive", str(project), stdin=PIN + "\n")
    assert out.returncode == 0, out.stderr
    assert leaks(isolated_home) == []
    assert not entry.exists()


def test_undo_merge_refuses_a_flipped_byte_in_the_sealed_copy(
    cli, secret_service: str, project: Path, isolated_home: Path
):
    set_pin(cli)
    assert cli("mark-sensitive", str(project), stdin=PIN + "\n").returncode == 0
    body = "The vault opens on Fridays."
    keep = record(cli, project, "Vault", body, "vault")
    drop = record(cli, project, "Vault day", body, "friday")
    grant_pin(cli, project, "session")
    assert cli("merge", "--keep", keep, "--drop", drop).returncode == 0
    (copy,) = (isolated_home / "trash").rglob("before/**/*.md.enc")
    data = bytearray(copy.read_bytes())
    data[len(data) // 2] ^= 0x01
    copy.write_bytes(bytes(data))
    state = _digests(isolated_home)
    one_line_error(cli("undo"), 2, "does not open")
    assert _digests(isolated_home) == state and cli("get", drop).returncode == 1
    assert json.loads(cli("audit", "--event-type", "undo", "--json").stdout) == []
    assert cli("audit", "verify").returncode == 0
