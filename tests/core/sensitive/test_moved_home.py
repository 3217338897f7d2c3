"""A data dir moved or copied elsewhere: its keyring entries (which scopes are its own, the
grant PIN, the audit anchor) are named by the place it was first opened at, so at the new
place its random-key scopes are refused. That stays (a copy an agent made must not take
them), but the refusal and `doctor` now say what happened and what to do, instead of
blaming "another memoryd data dir" the person never made."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .support import PIN, one_line_error, record, set_pin


@pytest.mark.parametrize("how", ["moved", "copied"])
def test_a_moved_or_copied_data_dir_says_where_its_keys_are(
    cli, secret_service: str, project: Path, isolated_home: Path, tmp_path: Path, how: str
):
    record(cli, project, "Payroll", "The band is four.")
    set_pin(cli)
    assert cli("mark-sensitive", str(project), stdin=PIN + "\n").returncode == 0
    first = str(isolated_home.resolve())
    there = tmp_path / "elsewhere"
    (shutil.move if how == "moved" else shutil.copytree)(str(isolated_home), str(there))
    env = {"MEMORYD_HOME": str(there)}

    said = "was moved from there" if how == "moved" else "is a copy of it"
    out = cli("grant", str(project), "--duration", "once", stdin=PIN + "\n", env=env)
    one_line_error(out, 1, f"belongs to the memoryd data dir at {first}", said, "key import")
    doctor = cli("doctor", env=env)
    assert f"at {first}; the OS keyring names its grant PIN" in doctor.stdout, doctor.stdout
    if how == "copied":  # the original still works, and says nothing of a move
        assert "the OS keyring names" not in cli("doctor").stdout
        assert cli("grant", str(project), "--duration", "once", stdin=PIN + "\n").returncode == 0

    # The note is only words: pointing it at this data dir's own place grants nothing.
    (there / "location").write_text(str(there.resolve()) + "\n")
    out = cli("grant", str(project), "--duration", "once", stdin=PIN + "\n", env=env)
    one_line_error(out, 1, "belongs to another memoryd data dir")
