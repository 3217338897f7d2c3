"""The data directory is the user's alone: folders 0700, files 0600 (SECURITY.md)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from memoryd.testing import claude_exchange, stop_payload, write_jsonl


def test_everything_created_is_private(cli, project: Path, tmp_path: Path, isolated_home: Path):
    t = write_jsonl(tmp_path / "t.jsonl", claude_exchange("hello", "hi", session_id="perm"))
    assert cli("capture", "--source=claude-code", stdin=stop_payload("perm", t, project)).returncode == 0
    assert cli("worker", "--wait").returncode == 0
    assert (
        cli("record", "--type", "fact", "--title", "t", "--body", "b", "--scope", str(project)).returncode
        == 0
    )
    assert cli("search", "hello", "--all-scopes").returncode == 0
    seen = 0
    for path in [isolated_home, *isolated_home.rglob("*")]:
        mode = stat.S_IMODE(path.stat().st_mode)
        want = 0o700 if path.is_dir() else 0o600
        assert mode == want, f"{path.relative_to(isolated_home)} is {oct(mode)}"
        seen += 1
    assert seen > 15


@pytest.mark.parametrize("xdg", [None, "", "  ", "/tmp/xdg-data"])
def test_default_data_dir_is_platformdirs_without_importing_it(monkeypatch, xdg):
    """The hooks find the default data dir with the standard library only (under `python -S`
    platformdirs is not importable); it must be the very dir platformdirs names."""
    import platformdirs

    from memoryd import envpaths

    monkeypatch.delenv("MEMORYD_HOME", raising=False)
    if xdg is None:
        monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_DATA_HOME", xdg)
    assert envpaths.data_home() == platformdirs.user_data_dir("memoryd", appauthor=False)
