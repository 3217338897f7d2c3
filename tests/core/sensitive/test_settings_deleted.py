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

from memoryd.app import Memoryd
from memoryd.envpaths import MARKER
from memoryd.testing import claude_exchange, stop_payload, write_jsonl

from .support import CANARY, PIN, leaks, one_line_error, record, set_pin


def _capture(cli, project: Path, tmp_path: Path, sid: str, text: str) -> None:
    lines = [{**ln, "sessionId": sid, "cwd": str(project)} for ln in claude_exchange(text, "Noted.")]
    transcript = write_jsonl(tmp_path / f"{sid}.jsonl", lines)
    out = cli(
        "capture",
        "--source=claude-code",
        stdin=stop_payload(sid, transcript, project),
        cwd=project,
        env={"MEMORYD_NO_WORKER": "1"},
    )
    assert out.returncode == 0, out.stderr


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
