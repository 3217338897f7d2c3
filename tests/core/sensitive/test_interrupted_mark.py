"""A mark killed half-way (SIGKILL: no cleanup of any kind) finishes when run again:
1,000 memories, none lost, none left in plaintext, every one decrypts."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from memoryd import crypto, slugs
from memoryd.app import Memoryd
from memoryd.frontmatter import Document
from memoryd.models import Frontmatter, MemoryType, default_ttl
from memoryd.scope import resolve
from memoryd.sensitive import marking, state

from .support import CANARY, PASSPHRASE, enc_files, grant_passphrase, leaks, plain_files


def _population(scope_hash: str, n: int) -> list[tuple[Document, None]]:
    now = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
    out = []
    for i in range(n):
        title = f"Ledger line {i} {CANARY}"
        meta = Frontmatter(
            title=title,
            slug=slugs.for_title(title, now) + f"-{i}",
            type=MemoryType.fact,
            scope_hash=scope_hash,
            source="manual",
            created_at=now,
            updated_at=now,
            triggers=[CANARY, f"line-{i}"],
            ttl_days=default_ttl(MemoryType.fact),
        )
        out.append((Document(meta=meta, body=f"Entry {i}: {CANARY} paid {i * 7} EUR.\n"), None))
    return out


def _killed_midway(project: Path, home: Path, n: int) -> set[str]:
    """Real files for n memories, then `mark-sensitive --passphrase` SIGKILLed once some
    are encrypted and some are still plaintext. Returns the bodies written."""
    docs = _population(resolve(project).hash, n)
    store = Memoryd().store
    assert store.save_many(docs, actor="test") == n
    store.engine.dispose()
    assert len(plain_files(home)) == n

    proc = subprocess.Popen(
        [sys.executable, "-m", "memoryd.cli.main", "mark-sensitive", "--passphrase", str(project)],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stderr is not None
    proc.stdin.write(PASSPHRASE.encode() + b"\n")
    proc.stdin.close()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if len(enc_files(home)) >= 10 and len(plain_files(home)) >= 10:
            proc.send_signal(signal.SIGKILL)
            break
        time.sleep(0.005)
    rc = proc.wait()
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert rc == -signal.SIGKILL, f"the mark was not caught mid-way (exit {rc}): {err}"
    enc, plain = len(enc_files(home)), len(plain_files(home))
    assert enc > 0 and plain > 0 and enc + plain >= n, (enc, plain)
    return {d.body for d, _ in docs}


def test_mark_killed_midway_finishes_on_rerun(cli, secret_service: str, project: Path, isolated_home: Path):
    n = 1000
    bodies = _killed_midway(project, isolated_home, n)
    h = resolve(project).hash

    # Run again: the passphrase is asked for (not chosen again), and the mark finishes.
    out = cli("mark-sensitive", str(project), stdin=PASSPHRASE + "\n")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("finished marking"), out.stdout
    assert plain_files(isolated_home) == []
    assert not list(isolated_home.rglob("*.md")) and not list(isolated_home.rglob("*.turns.jsonl"))
    assert len(enc_files(isolated_home)) == n
    assert leaks(isolated_home) == []

    grant_passphrase(cli, project, "session")
    rows = json.loads(cli("list", "--scope", str(project), "--json").stdout)
    assert len(rows) == n and all(marking.OPAQUE.match(r["slug"]) for r in rows)
    assert {isolated_home / r["body_path"] for r in rows} == set(enc_files(isolated_home))
    for r in rows[:: n // 4]:
        shown = cli("get", r["slug"])
        assert shown.returncode == 0 and CANARY in shown.stdout, shown.stderr

    app = Memoryd()
    settings = state.load(app.layout, h)
    assert settings is not None and settings.kdf is not None
    app.store.keys.remember(h, crypto.derive(PASSPHRASE, settings.kdf))
    got = set()
    for r in rows:
        doc, _ = app.store.read(r["slug"])
        assert doc.meta.slug == r["slug"] and CANARY in doc.meta.title and doc.meta.triggers[0] == CANARY
        got.add(doc.body)
    assert got == bodies  # none lost, none duplicated

    assert cli("audit", "verify").returncode == 0
    doctor = cli("doctor", "--json")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    # The killed write may leave its temp file (swept after 10 minutes): ciphertext only.
    for rel in json.loads(doctor.stdout)["temp_leftovers"]:
        data = (isolated_home / rel).read_bytes()
        assert data == b"" or data.startswith(crypto.MAGIC), rel


def test_half_marked_scope_shows_nothing_without_a_grant(
    cli, secret_service: str, project: Path, isolated_home: Path
):
    _killed_midway(project, isolated_home, 300)
    rows = json.loads(cli("list", "--scope", str(project), "--json").stdout)
    plain = [r for r in rows if r["body_path"].endswith(".md")]
    assert plain, "some memories are still plaintext"
    assert cli("get", plain[0]["slug"]).returncode == 3  # the gate already covers them
    assert all(CANARY not in r["title"] for r in rows), [r["title"] for r in rows[:3]]
    out = cli("search", CANARY, "--scope", str(project), "--json")
    assert CANARY not in out.stdout + out.stderr, out.stdout[:300]
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == [] and "not searched" in out.stderr
