"""mark-sensitive against a real Secret Service (gnome-keyring on a private bus) and on a
machine with no keyring at all."""

from __future__ import annotations

import json
from pathlib import Path

import keyring

from memoryd.scope import resolve

from .support import (
    CANARY,
    PASSPHRASE,
    PIN,
    enc_files,
    grant_passphrase,
    grant_tty,
    leaks,
    one_line_error,
    record,
    set_pin,
)


def test_random_key_lives_in_gnome_keyring_and_the_flow_works(
    cli, secret_service: str, project: Path, isolated_home: Path
):
    slugs = [record(cli, project, f"Ledger {i} {CANARY}", f"Body {i} names {CANARY}.") for i in range(3)]
    h = resolve(project).hash
    assert keyring.get_password("memoryd", f"scope-key:{h}") is None

    set_pin(cli)
    out = cli("mark-sensitive", str(project), stdin=PIN + "\n")
    assert out.returncode == 0, out.stderr
    assert "3 memories encrypted" in out.stdout and "key export" in out.stdout
    stored = keyring.get_password("memoryd", f"scope-key:{h}")
    assert stored and len(stored) >= 43  # base64 of 32 random bytes
    settings = json.loads((isolated_home / "scopes" / h / "sensitive.json").read_text())
    assert settings["key_source"] == "random" and stored not in json.dumps(settings)
    assert (project / ".memoryd-sensitive").is_file()
    assert len(enc_files(isolated_home)) == 3 and leaks(isolated_home) == []

    listed = json.loads(cli("list", "--scope", str(project), "--json").stdout)
    assert len(listed) == 3 and not {r["slug"] for r in listed} & set(slugs)
    one_line_error(cli("get", listed[0]["slug"]), 3, "grant")

    grant_tty(project)
    hits = json.loads(cli("search", CANARY, "--scope", str(project), "--json").stdout)
    assert len(hits) == 3
    shown = cli("get", hits[0]["slug"])
    assert shown.returncode == 0 and CANARY in shown.stdout, shown.stderr


def test_no_keyring_refuses_random_key_in_one_line(cli, no_keyring: None, project: Path, isolated_home: Path):
    slug = record(cli, project, f"Tax id {CANARY}", "plain words")
    before = sorted(p.relative_to(isolated_home) for p in isolated_home.rglob("*") if p.is_file())
    out = cli("mark-sensitive", str(project))
    one_line_error(out, 1, "keyring", "keyring.backends.fail.Keyring", "--passphrase")
    assert enc_files(isolated_home) == []
    assert cli("get", slug).returncode == 0
    assert not (project / ".memoryd-sensitive").exists()
    h = resolve(project).hash
    assert not (isolated_home / "scopes" / h / "sensitive.json").exists()
    after = sorted(p.relative_to(isolated_home) for p in isolated_home.rglob("*") if p.is_file())
    # The drain before marking may leave its log and lock; nothing else is new.
    new = [p for p in after if p not in before and p.parts[0] != "logs" and p.suffix != ".lock"]
    assert new == []


def test_no_keyring_passphrase_on_stdin_works(cli, no_keyring: None, project: Path, isolated_home: Path):
    record(cli, project, f"Tax id {CANARY}", f"Number {CANARY} for the return.", CANARY)
    out = cli("mark-sensitive", str(project), "--passphrase", stdin=PASSPHRASE + "\n")
    assert out.returncode == 0, out.stderr
    assert "passphrase key" in out.stdout
    assert len(enc_files(isolated_home)) == 1 and leaks(isolated_home) == []

    (row,) = json.loads(cli("list", "--scope", str(project), "--json").stdout)
    one_line_error(cli("get", row["slug"]), 3, "grant")
    one_line_error(
        cli("grant", str(project), "--duration", "once", stdin="not the passphrase\n"), 1, "wrong passphrase"
    )
    granted = grant_passphrase(cli, project)
    assert "no OS keyring" in granted.stderr  # the derived key cannot be cached between processes
    # Without a keyring to cache the key, a later process has no key: one clear line, not a crash.
    out = cli("get", row["slug"])
    assert out.returncode != 0 and "Traceback" not in out.stderr and out.stderr.count("\n") == 1


def test_a_secret_service_gone_from_its_bus_is_no_keyring_not_an_internal_error(
    cli, session_bus: str, project: Path, isolated_home: Path, monkeypatch
):
    """keyring chosen as the Secret Service (PYTHON_KEYRING_BACKEND) on a bus where no
    daemon answers, as when gnome-keyring died: keyring raises RuntimeError, not a
    KeyringError, and the CLI reported an internal error. Tried: `grant-pin set` and
    `mark-sensitive` on that bus."""
    record(cli, project, f"Tax id {CANARY}", "plain words")
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", session_bus)
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.SecretService.Keyring")
    for args, stdin in ((("grant-pin", "set"), PIN + "\n"), (("mark-sensitive", str(project)), PIN + "\n")):
        out = cli(*args, stdin=stdin)
        assert "internal error" not in out.stderr, out.stderr
        one_line_error(out, out.returncode or 1, "keyring", "Secret Service", "--passphrase")
    assert enc_files(isolated_home) == []
    assert not (project / ".memoryd-sensitive").exists()


def test_a_keyring_backend_that_is_not_there_is_no_keyring_not_an_internal_error(
    cli, project: Path, isolated_home: Path, monkeypatch
):
    """A typo in PYTHON_KEYRING_BACKEND (or keyringrc.cfg): keyring raises ImportError."""
    record(cli, project, f"Tax id {CANARY}", "plain words")
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "nonexistent.Backend")
    out = cli("grant-pin", "set", stdin=PIN + "\n")
    assert "internal error" not in out.stderr, out.stderr
    one_line_error(out, out.returncode or 1, "keyring", "--passphrase")
