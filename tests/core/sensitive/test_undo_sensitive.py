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
