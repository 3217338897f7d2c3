"""A sensitive project's folder is sealed with its key wherever memoryd keeps it: its
name can be the secret ("acme-merger"), and the data dir, its backups and the sync folder
are what someone with a copy of the disk reads. The folder's name is the canary here: after
marking, granting, reading, syncing and exporting the key, no file holds it; a process
with the key names the project by it; an older settings file that held it in the clear
is sealed by the next capture worker or grant, and `doctor` says so until then."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memoryd.app import Memoryd
from memoryd.envpaths import hash_root
from memoryd.sensitive import state
from memoryd.sync import merge

from .support import PASSPHRASE, PIN, grant_pin, leaks, one_line_error, record, set_pin

FOLDER = "AcmeMergerWombat7731"  # the project folder's name: the secret
TWICE = f"{PASSPHRASE}\n{PASSPHRASE}\n"


def _older(sealed: dict, project: Path) -> dict:
    """The same settings as a version before sealing wrote them."""
    return {k: v for k, v in sealed.items() if k != "sealed_root"} | {"version": 1, "root": str(project)}


@pytest.fixture
def secret_project(tmp_path: Path) -> Path:
    p = tmp_path / "clients" / FOLDER
    p.mkdir(parents=True)
    return p


def _use(cli, project: Path) -> None:
    record(cli, project, "Price", "The price is forty million.", "price")
    assert cli("scope", str(project)).returncode == 0  # names the project in lists


def _mark(cli, project: Path, key: str, *, used: bool = False) -> str:
    """Mark with a random key (grant PIN set first) or a passphrase; the scope hash."""
    if not used:
        _use(cli, project)
    if key == "random":
        set_pin(cli)
        out = cli("mark-sensitive", str(project), stdin=PIN + "\n")
    else:
        out = cli("mark-sensitive", "--passphrase", str(project), stdin=TWICE)
    assert out.returncode == 0, out.stderr
    assert f"marked {project} sensitive" in out.stdout  # the person is told which folder
    return hash_root(str(project))


def _grant(cli, project: Path, key: str) -> None:
    if key == "random":
        grant_pin(cli, project, "session")
    else:
        out = cli("grant", str(project), "--duration", "session", stdin=PASSPHRASE + "\n")
        assert out.returncode == 0 and "granted" in out.stdout, out.stderr


@pytest.mark.parametrize("key", ["random", "passphrase"])
def test_the_folder_name_is_in_no_file_of_the_data_dir(
    cli, isolated_home: Path, secret_project: Path, tmp_path: Path, secret_service: str, key: str
):
    _use(cli, secret_project)
    before = leaks(isolated_home, FOLDER)
    assert "index.db" in before, before  # found before marking: the scan can see it
    h = _mark(cli, secret_project, key, used=True)
    settings = json.loads((isolated_home / "scopes" / h / "sensitive.json").read_text())
    assert settings["version"] == 2 and "root" not in settings and settings["sealed_root"].startswith("enc:")
    assert leaks(isolated_home, FOLDER) == []

    # Refused without a grant: a passphrase scope's folder stays sealed, so the refusal
    # names the hash; a random key's (in the OS keyring) opens, as before.
    slug = json.loads(cli("list", "--scope", str(secret_project), "--json").stdout)[0]["slug"]
    named = str(secret_project) if key == "random" else h
    one_line_error(cli("get", slug), 3, f"memoryd grant {named} --duration once")
    _grant(cli, secret_project, key)
    assert cli("get", slug).returncode == 0
    (live,) = json.loads(cli("grants", "--json").stdout)
    assert live["root"] == str(secret_project)  # under a grant the key is at hand: named

    sync = tmp_path / "syncfolder"
    sync.mkdir()
    assert cli("sync", "--folder", str(sync)).returncode == 0
    recovery = tmp_path / "recovery.json"
    out = cli("key", "export", str(secret_project), "--out", str(recovery), stdin=TWICE)
    assert out.returncode == 0, out.stderr
    assert leaks(isolated_home, FOLDER) == [] and leaks(sync, FOLDER) == []
    assert FOLDER.lower() not in recovery.read_text().lower()
    assert json.loads(recovery.read_text())["sealed_root"].startswith("enc:")


def test_an_older_settings_file_is_sealed_by_the_worker_and_doctor_says_so(
    cli, isolated_home: Path, secret_project: Path, secret_service: str
):
    h = _mark(cli, secret_project, "random")
    path = isolated_home / "scopes" / h / "sensitive.json"
    sealed = json.loads(path.read_text())
    older = _older(sealed, secret_project)
    path.write_text(json.dumps(older))  # as every version before this one wrote it
    assert leaks(isolated_home, FOLDER) == [f"scopes/{h}/sensitive.json"]

    report = json.loads(cli("doctor", "--json").stdout)
    assert report["clear_roots"] == [h]
    assert "keep the project folder in the clear" in cli("doctor").stdout
    # Still read as it was: named by its folder, found by it.
    assert cli("grants", "--json").returncode == 0
    assert Memoryd().sensitive_scopes()[0]["root"] == str(secret_project)

    out = cli("worker", "--wait")
    assert out.returncode == 0, out.stderr
    now = json.loads(path.read_text())
    assert now["version"] == 2 and "root" not in now
    assert {k: v for k, v in now.items() if k not in ("version", "sealed_root")} == {
        k: v for k, v in older.items() if k not in ("version", "root")
    }
    assert leaks(isolated_home, FOLDER) == []
    assert json.loads(cli("doctor", "--json").stdout)["clear_roots"] == []
    assert Memoryd().sensitive_scopes()[0]["root"] == str(secret_project)  # the tray's list


def test_a_passphrase_scopes_older_file_waits_for_the_grant(cli, isolated_home: Path, secret_project: Path):
    h = _mark(cli, secret_project, "passphrase")
    path = isolated_home / "scopes" / h / "sensitive.json"
    sealed = json.loads(path.read_text())
    older = _older(sealed, secret_project)
    path.write_text(json.dumps(older))
    assert cli("worker", "--wait").returncode == 0
    assert json.loads(path.read_text()) == older  # no key here without the passphrase
    _grant(cli, secret_project, "passphrase")
    assert json.loads(path.read_text())["version"] == 2
    assert leaks(isolated_home, FOLDER) == []


def test_a_moved_folder_is_still_found_by_its_old_path(
    cli, isolated_home: Path, secret_project: Path, tmp_path: Path
):
    h = _mark(cli, secret_project, "passphrase")
    secret_project.rename(tmp_path / "elsewhere")
    assert Memoryd().marked_scope(str(secret_project)).hash == h
    assert Memoryd().marked_scope(h).hash == h
    out = cli("grant", str(secret_project), "--duration", "once", stdin=PASSPHRASE + "\n")
    assert out.returncode == 0 and f"access to {secret_project}" in out.stdout, out.stderr
    out = cli("grant", h, "--duration", "once", stdin=PASSPHRASE + "\n")
    assert out.returncode == 0 and f"access to {secret_project}" in out.stdout, out.stderr  # opened by then


def test_a_recovery_file_restores_the_sealed_folder(
    cli, isolated_home: Path, secret_project: Path, tmp_path: Path, secret_service: str, monkeypatch
):
    h = _mark(cli, secret_project, "random")
    grant_pin(cli, secret_project)
    recovery = tmp_path / "recovery.json"
    out = cli("key", "export", str(secret_project), "--out", str(recovery), stdin=TWICE)
    assert out.returncode == 0, out.stderr
    # Another data dir on this machine (the keyring entry is replaced by the same key).
    monkeypatch.setenv("MEMORYD_HOME", str(tmp_path / "restored"))
    out = cli("key", "import", str(recovery), stdin=PASSPHRASE + "\n")
    assert out.returncode == 0, out.stderr
    restored = state.load(Memoryd().layout, h)
    assert restored is not None and restored.root is None and restored.sealed_root
    assert Memoryd().store.keys.root(h) == str(secret_project)
    assert leaks(tmp_path / "restored", FOLDER) == []
    # A recovery file from before (the folder in the clear) is sealed on import too.
    older = json.loads(recovery.read_text())
    older.pop("sealed_root")
    older |= {"version": 1, "root": str(secret_project)}
    recovery.write_text(json.dumps(older))
    monkeypatch.setenv("MEMORYD_HOME", str(tmp_path / "restored2"))
    assert cli("key", "import", str(recovery), stdin=PASSPHRASE + "\n").returncode == 0
    assert Memoryd().store.keys.root(h) == str(secret_project)
    assert leaks(tmp_path / "restored2", FOLDER) == []


def test_sync_keeps_the_sealed_settings_of_two_equal_markings():
    """Two devices, one from before sealing: the merge keeps the sealed one."""
    older = {"marked_at": "2026-01-01T00:00:00Z", "key_check": "ab", "key_source": "random", "root": "/x/a"}
    newer = {k: v for k, v in older.items() if k != "root"} | {"sealed_root": "enc:AAAA"}
    for a, b in ((older, newer), (newer, older)):
        assert merge._scope({"sensitive": a}, {"sensitive": b})["sensitive"] == newer
