"""memoryd backup / restore (memoryd.backup) through the real CLI: a home with records, a
captured and promoted session, a sensitive scope, a grant and a capture still in the spool
comes back the same in an empty home; an occupied home is refused, or moved aside intact
with --force; damaged or hostile archives change nothing; a backup taken while another
process keeps writing restores to a doctor-clean home."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
import time
from pathlib import Path
from typing import Any

import pytest

from memoryd import backup
from memoryd.app import Memoryd
from memoryd.errors import KeyUnavailable, UsageError
from memoryd.paths import Layout
from memoryd.scope import resolve
from memoryd.testing import claude_exchange, stop_payload, write_jsonl

from .governance.sessions import REMEMBER

NOW = "2026-11-23T10:00:00Z"
CANARY = "ZebuQuokka4417"
PIN = "plum-493817"  # the grant PIN the person chose
FAIL_KEYRING = "keyring.backends.fail.Keyring"


@pytest.fixture(autouse=True)
def pinned(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORYD_NOW", NOW)
    monkeypatch.setenv("MEMORYD_NO_WORKER", "1")


# -- helpers ----------------------------------------------------------------------------
def _spool(tmp_path: Path, project: Path, sid: str, exchanges: list[tuple[str, str]]) -> str:
    """What the Claude Code Stop hook spools: a real transcript, the real hook code."""
    from memoryd.capture.hook import capture

    lines: list[dict[str, Any]] = []
    for prompt, answer in exchanges:
        lines += claude_exchange(prompt, answer, session_id=sid, cwd=str(project))
    transcript = write_jsonl(tmp_path / "transcripts" / f"{sid}.jsonl", lines)
    name, warnings = capture("claude-code", stop_payload(sid, transcript, project), spawn=False)
    assert name and not warnings, warnings
    return name


def _records(project: Path, other: Path) -> None:
    app = Memoryd()
    app.record(
        "decision",
        "Use Postgres for the job queue",
        "SQLite locked up under 8 writers.",
        triggers=["数据库", "queue"],
        scope_path=project,
    )
    app.record("preference", "Tabs over spaces in Makefiles", "Make needs tabs.", scope_path=project)
    app.record("fact", "Staging runs on hetzner", "The staging box is a hetzner VM.", scope_path=other)


def _tree(root: Path) -> dict[str, str]:
    """Every file under `root` with its sha256: to show a home was left exactly as it was."""
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _one_line_error(out: subprocess.CompletedProcess[str], code: int, *words: str) -> None:
    assert out.returncode == code, (out.returncode, out.stdout, out.stderr)
    assert out.stdout == "", out.stdout
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr
    for w in words:
        assert w in out.stderr, (w, out.stderr)


def _members(archive: Path) -> list[str]:
    with tarfile.open(archive, "r:gz") as tar:
        return tar.getnames()


def _rewrite(src: Path, dst: Path, edit: Any) -> None:
    """Copy an archive member by member through `edit(list of (TarInfo, bytes))`."""
    with tarfile.open(src, "r:gz") as tar:
        items = [(m, tar.extractfile(m).read()) for m in tar.getmembers()]  # type: ignore[union-attr]
    edit(items)
    with tarfile.open(dst, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for info, data in items:
            info.size = len(data) if info.isreg() else 0
            tar.addfile(info, io.BytesIO(data) if info.isreg() else None)


def _manifest(items: list[tuple[tarfile.TarInfo, bytes]]) -> dict[str, Any]:
    return json.loads(items[0][1])


def _set_manifest(items: list[tuple[tarfile.TarInfo, bytes]], manifest: dict[str, Any]) -> None:
    items[0] = (items[0][0], json.dumps(manifest).encode())


def _cli_home(cli, home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return cli(*args, env={"MEMORYD_HOME": str(home), **env})


def _view(rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    keys = ("slug", "type", "title", "scope_hash", "decay_state")
    return sorted(tuple(r.get(k) for k in keys) for r in rows)


# -- the round trip -------------------------------------------------------------------
def test_round_trip_into_an_empty_home(cli, secret_service: str, tmp_path: Path, isolated_home: Path):
    a, b, s = tmp_path / "app", tmp_path / "ops", tmp_path / "payroll"
    for d in (a, b, s):
        d.mkdir()
    _records(a, b)
    app = Memoryd()
    _spool(tmp_path, a, "sess-1", [REMEMBER])
    assert app.drain_spool(wait=True).captured
    assert any(x.promotion == "queued" for x in app.analyze_pending())
    pid = app.promotions(status="pending")[0]["id"]
    promoted, _ = app.promote(pid, memory_type="preference")
    app.record("fact", f"Payroll band {CANARY}", f"The salary band is {CANARY}.", scope_path=s)
    app.set_grant_pin(PIN)  # the person chose it before marking
    app.mark_sensitive(s)
    app.grant(s, duration="session", pin=PIN)
    h = resolve(s).hash
    assert (isolated_home / "grants" / f"{h}.json").exists()

    before_list = cli("list", "--all-scopes", "--json")
    before_search = cli("search", "postgres", "queue", "--mode", "keyword", "--all-scopes", "--json")
    assert before_list.returncode == 0 and before_search.returncode == 0, before_list.stderr
    pending = _spool(tmp_path, b, "sess-2", [("Set up the nightly rsync to the NAS", "Done, cron at 2am.")])

    out_file = tmp_path / "backups" / "memoryd.tar.gz"
    out_file.parent.mkdir()
    made = cli("backup", "--out", str(out_file))
    assert made.returncode == 0, made.stderr
    assert str(out_file) in made.stdout and "KiB" in made.stdout
    assert "6 memories in 3 scopes" in made.stdout, made.stdout
    assert "keys are not in" in made.stdout and "memoryd key import" in made.stdout
    assert oct(out_file.stat().st_mode & 0o777) == "0o600"

    names = _members(out_file)
    assert names[0] == "manifest.json"
    assert "home/index.db" in names and f"home/spool/{pending}" in names
    assert f"home/scopes/{h}/sensitive.json" in names
    assert any(n.endswith(".md.enc") for n in names) and any(n.endswith(".turns.jsonl") for n in names)
    assert "home/audit/audit.jsonl" in names
    assert not [n for n in names if n.startswith(("home/grants/", "home/logs/", "home/run/"))], names
    assert not [n for n in names if n.endswith((".lock", ".part", "-wal", "-shm"))], names
    with tarfile.open(out_file, "r:gz") as tar:
        manifest = json.loads(tar.extractfile("manifest.json").read())  # type: ignore[union-attr]
        archived_log = tar.extractfile("home/audit/audit.jsonl").read().decode()  # type: ignore[union-attr]
    assert manifest["format"] == "memoryd-backup" and manifest["version"] == 1
    assert set(manifest["files"]) == {n.removeprefix("home/") for n in names[1:]}
    last = json.loads(archived_log.splitlines()[-1])
    assert manifest["audit_head"] == {"seq": last["seq"], "hash": last["this_hash"]}
    # the backup event comes after the snapshot: in the home's log, not in the archive's
    home_log = (isolated_home / "audit" / "audit.jsonl").read_text().splitlines()
    assert [json.loads(x)["event_type"] for x in home_log].count("backup") == 1
    assert json.loads(home_log[-1])["event_type"] == "backup" and len(home_log) == last["seq"] + 1

    fresh = tmp_path / "restored"
    done = _cli_home(cli, fresh, "restore", str(out_file))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "doctor: no problems" in done.stdout and "before-restore" not in done.stdout
    assert (fresh / "spool" / pending).exists()
    assert not (fresh / "grants").exists() or not list((fresh / "grants").iterdir())
    for p in [fresh, *fresh.rglob("*")]:
        assert (p.stat().st_mode & 0o777) == (0o700 if p.is_dir() else 0o600), p

    after_search = _cli_home(
        cli, fresh, "search", "postgres", "queue", "--mode", "keyword", "--all-scopes", "--json"
    )
    after_list = _cli_home(cli, fresh, "list", "--all-scopes", "--json")  # takes in the spooled capture
    assert after_search.returncode == 0 and after_list.returncode == 0, after_list.stderr
    hits = [r["slug"] for r in json.loads(before_search.stdout)]
    assert hits and [r["slug"] for r in json.loads(after_search.stdout)] == hits
    before, after = _view(json.loads(before_list.stdout)), _view(json.loads(after_list.stdout))
    new = [r for r in after if r not in before]
    assert len(before) == 6 and sorted(before + new) == after
    assert len(new) == 1 and new[0][1] == "session", new  # the capture that waited in the spool
    assert promoted.meta.slug in after_list.stdout
    doctor = _cli_home(cli, fresh, "doctor")
    assert doctor.returncode == 0 and "intact" in doctor.stdout, doctor.stdout
    assert Memoryd(Layout(fresh)).audit_verify().ok  # what `memoryd audit verify` checks
    restored_log = (fresh / "audit" / "audit.jsonl").read_text().splitlines()
    assert restored_log[: len(archived_log.splitlines())] == archived_log.splitlines()
    assert "restore" in [json.loads(x)["event_type"] for x in restored_log]

    # the sensitive scope reads with this machine's key once a grant is given here
    fresh_app = Memoryd(Layout(fresh))
    # The grant PIN is kept per data dir: this one, at another path, has none yet, and its
    # random-key scope exists already, so the person sets it with the tray's yes.
    assert not fresh_app.grant_pin_status()["set"]
    fresh_app.set_grant_pin(PIN, in_tray=True)
    # The scope belongs to the data dir that marked it (memoryd.sensitive.keys): another data
    # dir on this machine takes its key with the recovery file, as another machine does.
    with pytest.raises(KeyUnavailable, match=r"belongs to the memoryd data dir at .*is a copy of it"):
        fresh_app.grant(s, duration="once", pin=PIN)
    recovery = tmp_path / "recovery.json"
    app.key_export(s, recovery, passphrase="a recovery passphrase")
    assert fresh_app.key_import(recovery, passphrase="a recovery passphrase") == h
    fresh_app.grant(s, duration="once", pin=PIN)
    slug = next(r["slug"] for r in fresh_app.list(scopes=[h]))
    assert CANARY in fresh_app.get(slug).doc.body

    # on a machine whose keyring lacks the key: restored, and told how to bring the key back
    elsewhere = tmp_path / "elsewhere"
    far = _cli_home(cli, elsewhere, "restore", str(out_file), PYTHON_KEYRING_BACKEND=FAIL_KEYRING)
    assert far.returncode == 0, far.stdout + far.stderr
    assert f"sensitive scope {h}" in far.stdout and "memoryd key import" in far.stdout


# -- an occupied home -------------------------------------------------------------------
@pytest.fixture
def archive(tmp_path: Path, isolated_home: Path) -> Path:
    """A backup (taken in-process) of a small home."""
    a, b = tmp_path / "app", tmp_path / "ops"
    a.mkdir()
    b.mkdir()
    _records(a, b)
    out = tmp_path / "small.tar.gz"
    rep = backup.backup(Layout(isolated_home), out)
    assert rep.memories == 3 and rep.scopes == 2
    return out


@pytest.fixture
def occupied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Another home holding a memory of its own."""
    home = tmp_path / "occupied"
    proj = tmp_path / "elsewhere-proj"
    proj.mkdir()
    app = Memoryd(Layout(home))
    app.record("warning", "Never restart the cache at noon", "Peak traffic.", scope_path=proj)
    return home


def test_restore_refuses_an_occupied_home_and_force_moves_it_aside(
    cli, archive: Path, occupied: Path, tmp_path: Path
):
    before = _tree(occupied)
    refused = _cli_home(cli, occupied, "restore", str(archive))
    _one_line_error(refused, 2, "already holds memories", "--force")
    assert _tree(occupied) == before

    forced = _cli_home(cli, occupied, "restore", str(archive), "--force")
    assert forced.returncode == 0, forced.stdout + forced.stderr
    aside = [p for p in tmp_path.iterdir() if p.name.startswith("occupied.before-restore-")]
    assert len(aside) == 1 and str(aside[0]) in forced.stdout
    assert _tree(aside[0]) == before  # moved, not touched
    titles = [r["title"] for r in Memoryd(Layout(occupied)).list(scopes=None)]
    assert "Use Postgres for the job queue" in titles and "Never restart the cache at noon" not in titles
    assert not [p for p in tmp_path.iterdir() if ".restore-" in p.name]  # no staging left


# -- damaged and hostile archives ---------------------------------------------------------
def _flip(data: bytes) -> bytes:
    i = len(data) // 2
    return data[:i] + bytes([data[i] ^ 0xFF]) + data[i + 1 :]


def _dotdot(items: list[tuple[tarfile.TarInfo, bytes]]) -> None:
    info = tarfile.TarInfo("home/../../escaped.md")
    items.append((info, b"x"))


def _symlink(items: list[tuple[tarfile.TarInfo, bytes]]) -> None:
    manifest = _manifest(items)
    manifest["files"]["scopes/link.md"] = {"sha256": hashlib.sha256(b"").hexdigest(), "size": 0}
    _set_manifest(items, manifest)
    info = tarfile.TarInfo("home/scopes/link.md")
    info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
    items.append((info, b""))


def _wrong_hash(items: list[tuple[tarfile.TarInfo, bytes]]) -> None:
    manifest = _manifest(items)
    manifest["files"]["audit/audit.jsonl"]["sha256"] = "0" * 64
    _set_manifest(items, manifest)


def _future(items: list[tuple[tarfile.TarInfo, bytes]]) -> None:
    manifest = _manifest(items)
    manifest["version"] = 99
    _set_manifest(items, manifest)


def _make(archive: Path, tmp_path: Path, name: str, data: bytes | None, edit: Any) -> Path:
    bad = tmp_path / f"{name}.tar.gz"
    if data is not None:
        bad.write_bytes(data)
    else:
        _rewrite(archive, bad, edit)
    return bad


def _untouched(home: Path, before: dict[str, str], tmp_path: Path) -> None:
    assert _tree(home) == before
    assert [p.name for p in tmp_path.iterdir() if "restore-" in p.name] == []  # no staging, nothing aside


def test_bad_archives_change_nothing(cli, archive: Path, occupied: Path, tmp_path: Path):
    good = archive.read_bytes()
    cases: dict[str, tuple[bytes | None, Any, str]] = {
        "flipped": (_flip(good), None, "cannot be restored"),
        "truncated": (good[: len(good) * 2 // 3], None, "cannot be restored"),
        "dotdot": (None, _dotdot, "not a safe relative path"),
        "symlink": (None, _symlink, "is a link"),
        "wrong-hash": (None, _wrong_hash, "does not match the manifest"),
    }
    before = _tree(occupied)
    for name, (data, edit, words) in cases.items():
        bad = _make(archive, tmp_path, name, data, edit)
        out = _cli_home(cli, occupied, "restore", str(bad), "--force")
        _one_line_error(out, 1, str(bad), words)
        _untouched(occupied, before, tmp_path)
    assert not (tmp_path / "escaped.md").exists()

    # the same checks in-process, for the cases that need no second look at the CLI's manners
    more: dict[str, tuple[bytes | None, Any, str]] = {
        "future": (None, _future, "version 99"),
        "not-gzip": (b"just some text\n" * 40, None, "not a gzip-compressed tar"),
        "empty": (b"", None, "not a gzip-compressed tar|does not start with manifest.json"),
    }
    for name, (data, edit, words) in more.items():
        bad = _make(archive, tmp_path, name, data, edit)
        with pytest.raises(backup.BadArchive, match=words):
            backup.restore(Layout(occupied), bad, force=True)
        _untouched(occupied, before, tmp_path)


def test_gzip_trailer_damage_is_caught_by_the_manifest(archive: Path, tmp_path: Path):
    """A member altered inside a well-formed gzip stream still fails its sha256."""
    raw = gzip.decompress(archive.read_bytes())
    at = raw.index(b"Use Postgres")
    tampered = raw[:at] + b"Use Mongodb!" + raw[at + 12 :]
    bad = tmp_path / "tampered.tar.gz"
    bad.write_bytes(gzip.compress(tampered))
    with pytest.raises(backup.BadArchive, match="does not match the manifest"):
        backup.restore(Layout(tmp_path / "target"), bad)
    assert not (tmp_path / "target").exists()


# -- backups taken while another process writes ----------------------------------------------
WRITER = """
import sys, time
from pathlib import Path
from memoryd.app import Memoryd
from memoryd.errors import UsageError
project, stop = Path(sys.argv[1]), Path(sys.argv[2])
app = Memoryd()
i = 0
while not stop.exists():
    app.record("fact", f"Busy writer note {i}", f"Written during a backup, number {i}.", scope_path=project)
    i += 1
print(i)
"""


def _busy(home: Path) -> list[Path]:
    return list(home.glob("scopes/*/facts/*busy-writer-note*.md"))


def test_backup_while_another_process_writes(cli, tmp_path: Path, isolated_home: Path):
    a, b = tmp_path / "app", tmp_path / "ops"
    a.mkdir()
    b.mkdir()
    _records(a, b)
    stop = tmp_path / "stop"
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(a), str(stop)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )
    try:
        deadline = time.monotonic() + 60
        while len(_busy(isolated_home)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        started = len(_busy(isolated_home))
        first = tmp_path / "busy-1.tar.gz"
        made = cli("backup", "--out", str(first))
        assert made.returncode == 0, made.stderr
        archives = [first]
        for n in range(4):  # more samples, in-process: a write caught half-way is a matter of timing
            archives.append(tmp_path / f"busy-{n + 2}.tar.gz")
            backup.backup(Layout(isolated_home), archives[-1])
    finally:
        stop.touch()
        out, err = writer.communicate(timeout=60)
    assert writer.returncode == 0, err
    written = int(out.strip())
    assert written > started >= 2, (written, started)  # it kept writing through the backups
    for n, archive in enumerate(archives):
        home = tmp_path / f"busy-restored-{n}"
        rep = backup.restore(Layout(home), archive)
        assert rep.ok and rep.doctor.ok, rep.as_dict()
        assert rep.doctor.audit is not None and rep.doctor.audit.ok
        assert 3 + started <= rep.memories <= 3 + written


# -- where the archive goes ---------------------------------------------------------------
def test_backup_refuses_an_existing_file_and_a_missing_folder(cli, archive: Path, tmp_path: Path):
    before = archive.read_bytes()
    _one_line_error(cli("backup", "--out", str(archive)), 2, "exists", "--force")
    assert archive.read_bytes() == before
    _one_line_error(cli("backup", "--out", str(tmp_path / "no" / "such" / "x.tar.gz")), 2, "does not exist")

    home = Layout(Path(os.environ["MEMORYD_HOME"]))
    rep = backup.backup(home, archive, force=True)
    assert archive.read_bytes() != before and rep.path == str(archive)
    with pytest.raises(UsageError, match="outside the data directory"):
        backup.backup(home, home.home / "inside.tar.gz")
    with pytest.raises(UsageError, match="is a directory"):
        backup.backup(home, tmp_path)
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.startswith((".tmp-", ".memoryd-backup-"))]
    assert leftovers == []
