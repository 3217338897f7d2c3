"""Deleting a sensitive project's settings file and its marker does not unmark it. An
agent with a shell can remove `scopes/<hash>/sensitive.json` and `.memoryd-sensitive`;
before, the project's next sessions (and anything recorded there) were written in the
clear, indexed, and readable without a grant. The OS keyring still anchors the scope
(unmark removes that), so captures wait in the spool, `record` is refused in one line,
`doctor` reports it, and once the file is back everything is written sealed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memoryd.app import Memoryd
from memoryd.envpaths import MARKER
from tests.core.governance.sessions import capture

from .support import CANARY, PIN, leaks, one_line_error, record, set_pin


def _capture(cli, project: Path, tmp_path: Path, sid: str, text: str) -> None:
    """A session through the capture hook, left in the spool (each test drains it)."""
    capture(cli, project, tmp_path, sid, [(text, "Noted.")], drain=False)


def test_a_deleted_settings_file_writes_nothing_in_the_clear(
    cli, secret_service: str, project: Path, tmp_path: Path, isolated_home: Path
) -> None:
    record(cli, project, "Payroll", "The band is set yearly.")
    set_pin(cli)
    assert cli("mark-sensitive", str(project), stdin=PIN + "\n").returncode == 0
    h = Memoryd().scope(project).hash
    settings = isolated_home / "scopes" / h / "sensitive.json"
    backup = tmp_path / "sensitive.json.bak"
    shutil.copy2(settings, backup)

    # the agent's move: both files gone
    settings.unlink()
    (project / MARKER).unlink()

    sid = "de1e7ed0-aaaa-4bbb-8ccc-0123456789ab"
    _capture(cli, project, tmp_path, sid, f"Remember: the payroll band code is {CANARY}.")
    report = Memoryd().drain_spool(wait=True)
    assert report.captured == [] and len(report.deferred) == 1, report
    assert "settings file" in next(iter(report.why_deferred.values()))
    one_line_error(
        cli("record", "--type", "fact", "--title", "Band", "--scope", str(project), stdin=f"Band {CANARY}"),
        1,
        "never unmarked",
    )
    assert [p for p in leaks(isolated_home) if not p.startswith("spool/")] == []

    doctor = cli("doctor")
    assert doctor.returncode == 1 and "its settings file is gone" in doctor.stdout, doctor.stdout
    assert json.loads(cli("doctor", "--json").stdout)["settings_lost"] == [h]

    # the person restores the file: the waiting session is captured, sealed
    shutil.copy2(backup, settings)
    report = Memoryd().drain_spool(wait=True)
    assert len(report.captured) == 1 and report.deferred == [], report
    assert leaks(isolated_home) == []
    assert cli("doctor").returncode == 0


def test_an_unmarked_scope_is_written_in_the_clear_again(
    cli, secret_service: str, project: Path, tmp_path: Path, isolated_home: Path
) -> None:
    """Unmarking removes the anchor: nothing is held back afterwards."""
    set_pin(cli)
    assert cli("mark-sensitive", str(project), stdin=PIN + "\n").returncode == 0
    assert cli("grant", str(project), "--duration", "once", stdin=PIN + "\n").returncode == 0
    assert cli("unmark-sensitive", str(project)).returncode == 0
    slug = record(cli, project, "Band", "Plain again.")
    assert cli("get", slug).returncode == 0
    _capture(cli, project, tmp_path, "c1ea0000-aaaa-4bbb-8ccc-0123456789ab", "A plain session.")
    report = Memoryd().drain_spool(wait=True)
    assert len(report.captured) == 1 and report.deferred == [], report
    assert json.loads(cli("doctor", "--json").stdout)["settings_lost"] == []


def _marked_then_deleted(cli, project: Path, isolated_home: Path) -> str:
    set_pin(cli)
    record(cli, project, "Payroll", "The band is set yearly.")
    assert cli("mark-sensitive", str(project), stdin=PIN + "\n").returncode == 0
    h = Memoryd().scope(project).hash
    (isolated_home / "scopes" / h / "sensitive.json").unlink()
    (project / MARKER).unlink()
    return h


def test_neither_a_failing_keyring_nor_a_link_lets_it_through(
    cli, secret_service: str, project: Path, tmp_path: Path, isolated_home: Path
) -> None:
    """A review (2026-11-28): PYTHON_KEYRING_BACKEND set to the fail backend for the worker
    made the anchor unreadable, so "never marked"; `scope link` to a hash of the agent's
    own moved the project off the hash the check looked at. Both wrote the session in the
    clear. The index's sealed rows are the evidence that needs no keyring."""
    h = _marked_then_deleted(cli, project, isolated_home)
    no_keyring = {"PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    _capture(cli, project, tmp_path, "fa11ed00-aaaa-4bbb-8ccc-0123456789ab", f"The code is {CANARY}.")
    out = cli("worker", "--wait", env=no_keyring)
    assert out.returncode == 0, out.stderr
    bad = cli(
        "record", "--type", "fact", "--title", "Band", "--scope", str(project), stdin=CANARY, env=no_keyring
    )
    one_line_error(bad, 1, "never unmarked")

    one_line_error(cli("scope", "link", "000000000000", h), 2, "cannot be linked")
    links = isolated_home / "scope-links.json"  # written by hand instead
    links.write_text(json.dumps({"canonical": {h: "000000000000"}}), encoding="utf-8")
    one_line_error(
        cli("record", "--type", "fact", "--title", "Band", "--scope", str(project), stdin=CANARY),
        1,
        "never unmarked",
    )
    report = Memoryd().drain_spool(wait=True)
    assert report.captured == [] and len(report.deferred) == 1, report
    assert [p for p in leaks(isolated_home) if not p.startswith("spool/")] == []


def test_a_long_lived_process_sees_the_settings_go(
    cli, secret_service: str, project: Path, isolated_home: Path
) -> None:
    """A review (2026-11-28): the MCP server wrote to the project before it was marked
    (remembering "never marked"), and after the marking and the deletion kept writing in
    the clear; and a process holding the key rendered the scope into a plain snapshot."""
    from memoryd import snapshot
    from memoryd.errors import KeyUnavailable

    server = Memoryd()
    server.record("fact", "Before", "Written before the marking.", scope_path=project)
    set_pin(cli)
    assert cli("mark-sensitive", str(project), stdin=PIN + "\n").returncode == 0
    h = Memoryd().scope(project).hash
    holder = Memoryd()  # a process that wrote to the marked scope: it holds the key
    holder.record("decision", "Price", f"The acquisition price is {CANARY}.", scope_path=project)
    (isolated_home / "scopes" / h / "sensitive.json").unlink()
    (project / MARKER).unlink()

    assert snapshot.refresh(holder.store, h) is None
    assert not (isolated_home / "scopes" / h / "snapshot.md").exists()
    server.store.keys.refresh()  # what the server does between requests
    with pytest.raises(KeyUnavailable, match="never unmarked"):
        server.record("fact", "Band", f"The code is {CANARY}.", scope_path=project)
    assert leaks(isolated_home) == []


def test_an_old_unmarking_does_not_outlive_a_new_marking(
    cli, secret_service: str, project: Path, tmp_path: Path, isolated_home: Path
) -> None:
    """Key export, unmark, key import of the same key: the first unmarking's proof holds
    under that key, and once let the scope be written in the clear after a deletion."""
    set_pin(cli)
    record(cli, project, "Payroll", "The band is set yearly.")
    assert cli("mark-sensitive", str(project), stdin=PIN + "\n").returncode == 0
    h = Memoryd().scope(project).hash
    assert cli("grant", str(project), "--duration", "session", stdin=PIN + "\n").returncode == 0
    key_file = tmp_path / "payroll.memoryd-key"
    assert (
        cli("key", "export", str(project), "--out", str(key_file), stdin="recovery words here\n").returncode
        == 0
    )
    assert cli("unmark-sensitive", str(project)).returncode == 0
    assert (isolated_home / "scopes" / h / "unmarked.json").exists()
    assert cli("key", "import", str(key_file), stdin="recovery words here\n").returncode == 0
    assert not (isolated_home / "scopes" / h / "unmarked.json").exists()
    (isolated_home / "scopes" / h / "sensitive.json").unlink()
    one_line_error(
        cli("record", "--type", "fact", "--title", "Band", "--scope", str(project), stdin=CANARY),
        1,
        "never unmarked",
    )
