"""Secrets never enter memory through sync or import either: a version that arrives with a
secret in it (written by an older memoryd, or a file edited by hand on another device) is
redacted before it is merged, so neither this device's memory files, its index, its
`sync/state.json` nor the file it writes into the shared folder hold the secret; the
redacted version wins on every device, and syncing again changes nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.core.sensitive.support import leaks

from .homes import Clock, make_homes, record

TOKEN = "ghp_" + "Q7mZr2VxK9pLw4NtY8bC3dF6gH1jS5aE0uRi"  # a well-formed fake GitHub token
DB_PASSWORD = "hunter2-Walrus-8812"


def _plant(doc_path: Path, slug: str) -> None:
    """Hand-edit a memories.json: the memory's text now carries two secrets (its rev left
    as it was, as a careless editor or another program would)."""
    raw = json.loads(doc_path.read_text(encoding="utf-8"))
    head = raw["memories"][slug]["heads"][0]
    head["content"] = head["content"].replace(
        "Deploy notes body.",
        f"Deploy with GITHUB_TOKEN={TOKEN} and postgres://app:{DB_PASSWORD}@db.internal/app",
    )
    assert TOKEN in head["content"]
    doc_path.write_text(json.dumps(raw), encoding="utf-8")


def _clean(home: Path) -> None:
    for secret in (TOKEN, DB_PASSWORD):
        assert leaks(home, secret) == [], secret


def test_import_of_a_file_with_secrets_stores_none(tmp_path: Path, monkeypatch, project: Path, clk: Clock):
    a, b = make_homes(tmp_path, monkeypatch, "A", "B")
    slug = record(a, project, "Deploy notes", "Deploy notes body.")
    out = tmp_path / "memories.json"
    assert a.cli("export", "--out", str(out)).returncode == 0
    _plant(out, slug)

    clk.tick()
    done = b.cli("import", str(out))
    assert done.returncode == 0, done.stderr
    _clean(b.path)
    got = b.cli("get", slug, "--json")
    assert got.returncode == 0, got.stderr
    body = json.loads(got.stdout)["body"]
    assert "[REDACTED:github_token]" in body and "postgres://app:[REDACTED" in body, body
    # What B would send on carries the redacted version, not the planted one.
    again = tmp_path / "again.json"
    assert b.cli("export", "--out", str(again)).returncode == 0
    assert TOKEN not in again.read_text(encoding="utf-8")


def test_a_device_file_with_secrets_is_redacted_everywhere(
    tmp_path: Path, monkeypatch, project: Path, folder: Path, clk: Clock
):
    a, b = make_homes(tmp_path, monkeypatch, "A", "B")
    slug = record(a, project, "Deploy notes", "Deploy notes body.")
    clk.tick()
    a.sync(folder)
    shared = folder / "memoryd-sync"
    (a_file,) = shared.glob("*.json")
    _plant(a_file, slug)  # A's device file, edited by hand in the shared folder

    clk.tick()
    b.sync(folder)
    _clean(b.path)  # files, index.db (and WAL), sync/state.json
    b_file = next(p for p in shared.glob("*.json") if p != a_file)
    assert TOKEN not in b_file.read_text(encoding="utf-8")
    assert DB_PASSWORD not in b_file.read_text(encoding="utf-8")

    # The redacted version descends from the planted one, so A takes it at its next sync:
    # the secret is gone from A's store too, and nothing changes after that.
    clk.tick()
    a.sync(folder)
    _clean(a.path)
    assert TOKEN not in a_file.read_text(encoding="utf-8")
    clk.tick()
    before = (a.files(), b.files())
    a.sync(folder)
    b.sync(folder)
    assert (a.files(), b.files()) == before


def test_an_imported_files_provenance_and_links_are_redacted(
    tmp_path: Path, monkeypatch, project: Path, clk: Clock
):
    """An outside test (2026-11-28): `source`, `promoted_from`, `session_id` and the link
    lists of a file from another device were stored as they came (and `source` is shown at
    start-up); the store's pass took only the title, body, tags, triggers and free extras."""
    a, b = make_homes(tmp_path, monkeypatch, "A", "B")
    slug = record(a, project, "Deploy notes", "Deploy notes body.")
    out = tmp_path / "memories.json"
    assert a.cli("export", "--out", str(out)).returncode == 0
    raw = json.loads(out.read_text(encoding="utf-8"))
    head = raw["memories"][slug]["heads"][0]
    assert "\nsource: " in head["content"]
    planted = (
        f"\nsource: manual GITHUB_TOKEN={TOKEN}\n"
        f"session_id: s-GITHUB_TOKEN={TOKEN}\n"
        f"relations:\n- postgres://app:{DB_PASSWORD}@db.internal/app\n"
        f"observations:\n- uses GITHUB_TOKEN={TOKEN}\n"
    )
    head["content"] = re.sub(r"\nsource: [^\n]*\n", lambda _m: planted, head["content"], count=1)
    out.write_text(json.dumps(raw), encoding="utf-8")

    clk.tick()
    done = b.cli("import", str(out))
    assert done.returncode == 0, done.stderr
    _clean(b.path)
    shown = b.cli("inject", "--scope", str(project)).stdout + b.cli("get", slug, "--json").stdout
    assert TOKEN not in shown and DB_PASSWORD not in shown
