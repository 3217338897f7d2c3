"""Encrypted memory files changed behind memoryd's back: a flipped byte, two files'
contents swapped, a file renamed. Each is caught on read with one clear line; nothing
else is damaged and memoryd never rewrites or deletes the damaged file."""

from __future__ import annotations

import json
from pathlib import Path

from memoryd.app import Memoryd

from .support import CANARY, PIN, enc_files, grant_tty, leaks, one_line_error, set_pin


def _snapshot(home: Path) -> dict[str, bytes]:
    return {str(p.relative_to(home)): p.read_bytes() for p in enc_files(home)}


def test_flip_swap_rename_are_each_caught_on_read(
    cli, secret_service: str, project: Path, isolated_home: Path
):
    for i in range(5):
        Memoryd().record("fact", f"Note {i} {CANARY}", f"Body number {i} about {CANARY}.", scope_path=project)
    set_pin(cli)
    assert cli("mark-sensitive", str(project), stdin=PIN + "\n").returncode == 0
    grant_tty(project, "session")
    rows = sorted(json.loads(cli("list", "--scope", str(project), "--json").stdout), key=lambda r: r["slug"])
    path = {r["slug"]: isolated_home / r["body_path"] for r in rows}
    flipped, swap1, swap2, renamed, intact = (r["slug"] for r in rows)

    # One byte flipped in the ciphertext (past the header: the GCM tag must catch it).
    data = bytearray(path[flipped].read_bytes())
    data[len(data) // 2] ^= 0x01
    path[flipped].write_bytes(bytes(data))
    # Two memories' contents swapped: each is a valid ciphertext, bound to the other slug.
    a, b = path[swap1].read_bytes(), path[swap2].read_bytes()
    path[swap1].write_bytes(b)
    path[swap2].write_bytes(a)
    # One renamed to another opaque name of the same shape.
    moved = path[renamed].with_name(renamed[:11] + "0123456789ab.md.enc")
    path[renamed].rename(moved)
    before = _snapshot(isolated_home)
    before.pop(str(path[intact].relative_to(isolated_home)))  # a read counts a recall: rewritten

    for slug in (flipped, swap1, swap2):
        one_line_error(cli("get", slug), 1, "does not decrypt", path[slug].name)
    one_line_error(cli("get", renamed), 1, "missing")
    one_line_error(cli("get", moved.name[: -len(".md.enc")]), 1)
    shown = cli("get", intact)
    assert shown.returncode == 0 and "Body number" in shown.stdout, shown.stderr

    # Search under the grant skips what does not open and still finds the rest.
    out = cli("search", CANARY, "--scope", str(project), "--json")
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    assert [h["slug"] for h in json.loads(out.stdout)] == [intact]

    doctor = cli("doctor", "--json")
    assert doctor.returncode == 1, doctor.stderr
    report = json.loads(doctor.stdout)
    damaged = " ".join(report["corrupt_files"])
    for slug in (flipped, swap1, swap2):
        assert path[slug].name in damaged, damaged
    assert moved.name in damaged or any(moved.name in f for f in report["files_without_rows"]), report
    assert any(renamed in r for r in report["rows_without_files"]), report

    # Reindex neither adopts the renamed file under its new name nor touches any file.
    out = cli("reindex")
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    assert cli("get", intact).returncode == 0
    assert moved.name[: -len(".md.enc")] not in cli("list", "--scope", str(project)).stdout
    after = _snapshot(isolated_home)
    assert {k: after.get(k) for k in before} == before

    # Undoing the damage makes every memory read again: nothing else was lost.
    path[swap1].write_bytes(a)
    path[swap2].write_bytes(b)
    moved.rename(path[renamed])
    assert cli("reindex").returncode == 0
    for slug in (swap1, swap2, renamed, intact):
        shown = cli("get", slug)
        assert shown.returncode == 0 and CANARY in shown.stdout, (slug, shown.stderr)


def test_an_index_row_pointed_at_an_open_scope_reads_nothing(
    cli, secret_service: str, project: Path, tmp_path: Path, isolated_home: Path
):
    """An outside test (2026-11-28): with index.db edited so a sensitive memory's row named
    an ordinary scope, `memoryd get` skipped the gate (which checked the row's scope) and
    printed the plaintext, since the file was opened by its path with the keyring's key;
    no event was audited. A row whose scope is not its file's is now refused."""
    import sqlite3

    from memoryd.scope import resolve

    Memoryd().record("fact", f"Salary {CANARY}", f"The band is {CANARY}.", scope_path=project)
    other = tmp_path / "open-project"
    other.mkdir()
    Memoryd().record("fact", "Lunch", "Soup on Fridays.", scope_path=other)
    set_pin(cli)
    assert cli("mark-sensitive", str(project), stdin=PIN + "\n").returncode == 0
    (row,) = json.loads(cli("list", "--scope", str(project), "--json").stdout)
    one_line_error(cli("get", row["slug"]), 3, "no live grant")  # the gate, before the edit
    with sqlite3.connect(isolated_home / "index.db") as con:
        con.execute(
            "UPDATE memories SET scope_hash = ?, scope_sensitive = 0 WHERE slug = ?",
            (resolve(other).hash, row["slug"]),
        )
    out = cli("get", row["slug"])
    one_line_error(out, 1, "names scope", "not read")
    assert CANARY not in out.stdout + out.stderr
    out = cli("get", row["slug"], "--json")
    assert out.returncode != 0 and CANARY not in out.stdout + out.stderr
    # Readers that open a listed row's file by its path (the review after the fix above):
    # the Markdown export of the open scope and the identity profile.
    exported = tmp_path / "exported"
    out = cli("export-md", "--scope", str(other), "--out", str(exported))
    assert out.returncode == 0, out.stderr
    assert CANARY not in "".join(p.read_text() for p in exported.rglob("*") if p.is_file())
    out = cli("profile", "rewrite-identity")
    assert out.returncode == 0, out.stderr
    assert CANARY not in out.stdout + out.stderr and leaks(isolated_home) == []
