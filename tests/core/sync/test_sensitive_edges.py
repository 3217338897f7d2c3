"""Sync at the edges of a sensitive scope: marking scrubs this device's sync files at
once, and a crafted device file cannot plant a sealed file in an ordinary scope."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

from memoryd.scope import resolve

from ..sensitive.support import CANARY, leaks, record


def test_mark_scrubs_state_json_and_the_device_file_at_once(
    cli, secret_service: str, project: Path, folder: Path, isolated_home: Path
):
    # The title stays out of the canary: the old readable slug (made of the title's words)
    # stays behind as the key of the tombstone that deletes the plaintext copy on the other
    # devices (docs/security.md). Body and triggers carry it.
    old = record(cli, project, "Ledger account", f"The account is {CANARY}.", CANARY)
    out = cli("sync", "--folder", str(folder))
    assert out.returncode == 0, out.stderr
    # Precondition: the words are in both sync files, so their absence later means something.
    assert "sync/state.json" in leaks(isolated_home)
    assert leaks(folder) != []

    out = cli("mark-sensitive", str(project))
    assert out.returncode == 0, out.stderr
    assert leaks(isolated_home) == [], "state.json or conflicts.json keep the plaintext"
    assert leaks(folder) == [], "this device's file in the sync folder keeps the plaintext"
    mine = next((folder / "memoryd-sync").glob("*.json"))
    doc = json.loads(mine.read_text())
    heads = [h for e in doc["memories"].values() for h in e["heads"]]
    assert any(h["encrypted"] for h in heads) and any(h["deleted"] for h in heads), heads
    assert [h["deleted"] for h in doc["memories"][old]["heads"]] == [True]
    assert resolve(project).hash in doc["scopes"]

    # The next sync goes on from there: nothing comes back, nothing breaks.
    out = cli("sync", "--folder", str(folder))
    assert out.returncode == 0 and "skipped" not in out.stdout, out.stdout + out.stderr
    assert leaks(isolated_home) == [] and leaks(folder) == []
    assert cli("doctor").returncode == 0


def _crafted(folder: Path, scope_hash: str) -> Path:
    shared = folder / "memoryd-sync"
    shared.mkdir(exist_ok=True)
    junk = base64.urlsafe_b64encode(b"MDENC\x01" + os.urandom(80)).decode()
    doc = {
        "format": "memoryd-memories",
        "version": 1,
        "device": {"id": "evil0000evil0000", "name": "evil"},
        "exported_at": "2026-01-01T00:00:00Z",
        "scopes": {},
        "links": [],
        "memories": {
            "planted-note": {
                "heads": [
                    {
                        "rev": "a" * 32,
                        "history": [],
                        "updated_at": "2026-01-01T00:00:00Z",
                        "scope_hash": scope_hash,
                        "type": "fact",
                        "deleted": False,
                        "encrypted": True,
                        "content": junk,
                        "turns": None,
                    }
                ]
            }
        },
    }
    path = shared / "evil0000evil0000.json"
    path.write_text(json.dumps(doc))
    return path


def test_crafted_sealed_version_for_an_ordinary_scope_is_refused(
    cli, project: Path, folder: Path, isolated_home: Path
):
    slug = record(cli, project, "Use pnpm", "Always pnpm, never npm.", "pnpm")
    _crafted(folder, resolve(project).hash)

    out = cli("sync", "--folder", str(folder))
    assert out.returncode == 0, out.stderr
    assert "skipped planted-note" in out.stdout and "not sensitive" in out.stdout, out.stdout
    assert list(isolated_home.rglob("*.md.enc")) == []
    for command in ("doctor", "reindex"):
        done = cli(command)
        assert done.returncode == 0, (command, done.stdout, done.stderr)
    assert cli("get", slug).returncode == 0
    again = cli("sync", "--folder", str(folder))  # refused every time, never written
    assert again.returncode == 0 and list(isolated_home.rglob("*.md.enc")) == []


def test_a_stray_sealed_file_is_reported_and_nothing_else_stops(cli, project: Path, isolated_home: Path):
    slug = record(cli, project, "Use pnpm", "Always pnpm, never npm.", "pnpm")
    h = resolve(project).hash
    stray = isolated_home / "scopes" / h / "facts" / "m-0123456789ab.md.enc"
    stray.write_bytes(b"MDENC\x01" + os.urandom(80))

    doctor = cli("doctor", "--json")
    assert doctor.returncode == 1 and "Traceback" not in doctor.stderr, doctor.stderr
    report = json.loads(doctor.stdout)
    assert len(report["corrupt_files"]) == 1 and stray.name in report["corrupt_files"][0], report
    assert "not sensitive" in report["corrupt_files"][0]
    assert report["audit"]["ok"] and report["rows_without_files"] == []

    out = cli("reindex")
    assert out.returncode == 0, out.stderr
    assert "indexed 1 of 2 files" in out.stdout and stray.name in out.stderr, out.stdout + out.stderr
    hits = json.loads(cli("search", "pnpm", "--scope", str(project), "--json").stdout)
    assert [h["slug"] for h in hits] == [slug]
    assert stray.exists()  # reported, never deleted by memoryd
