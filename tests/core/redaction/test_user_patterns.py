"""The user's own secret shapes (`[capture] extra_secret_patterns` in config.toml) are
redacted on every path that writes memory content, not only by the capture worker: an
outside test (2026-11-28) found `record`, `update`, the hook's spool and `import` kept them,
since only the worker's transcript parser and two importers read the setting. Each path
is tried with its own secret, then every file under MEMORYD_HOME is read byte by byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memoryd import redact
from memoryd.app import Memoryd

from ..sensitive.support import leaks

PATTERN = "ACME-[0-9a-f]{16}"


@pytest.fixture
def configured(isolated_home: Path, tmp_path: Path) -> Path:
    config = Path(str(tmp_path / "config.toml"))
    config.write_text(f'[capture]\nextra_secret_patterns = ["{PATTERN}"]\n', encoding="utf-8")
    return config


def _secret(n: int) -> str:
    return f"ACME-{n:016x}"


def test_every_writer_takes_the_users_own_patterns(
    cli, configured: Path, project: Path, isolated_home: Path, tmp_path: Path
):
    # Precondition: without the setting, the shape is no secret (so its absence below is
    # the setting's doing).
    assert redact.Redactor(())(f"key {_secret(0)}") == f"key {_secret(0)}"

    out = cli("record", "--type", "fact", "--title", f"Vendor key {_secret(1)}", "--scope", str(project),
              "--json", stdin=f"The vendor key is {_secret(2)}.")  # fmt: skip
    assert out.returncode == 0, out.stderr
    slug = json.loads(out.stdout)["slug"]
    out = cli("record", "--type", "fact", "--title", "Argv body", "--body", f"argv {_secret(3)}",
              "--scope", str(project))  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert cli("update", slug, "--body", f"Rotated to {_secret(4)}.", "--trigger", _secret(5)).returncode == 0

    payload = {"session_id": "s-user-patterns", "cwd": str(project), "transcript_path": "",
               "last_assistant_message": f"Deployed with {_secret(6)}."}  # fmt: skip
    out = cli("capture", "--source=claude-code", stdin=json.dumps(payload), env={"MEMORYD_NO_WORKER": "1"})
    assert out.returncode == 0, out.stderr
    spooled = list((isolated_home / "spool").glob("*.json"))
    assert spooled and all(_secret(6).encode() not in p.read_bytes() for p in spooled)
    assert cli("worker", "--wait").returncode == 0

    exported = tmp_path / "other.json"
    assert cli("export", "--out", str(exported)).returncode == 0
    # another device's file carrying one of the shapes (as a device from before would)
    text = exported.read_text().replace("[REDACTED:custom_0]", _secret(7), 1)
    assert _secret(7) in text
    exported.write_text(text)
    cli("import", str(exported))

    for n in range(1, 8):
        assert leaks(isolated_home, _secret(n)) == [], n
    shown = cli("search", "vendor", "--scope", str(project)).stdout
    shown += cli("inject", "--scope", str(project)).stdout
    assert "ACME-" not in shown and "[REDACTED:custom_0]" in Memoryd().get(slug).doc.body


def test_a_broken_config_never_loses_a_capture(cli, configured: Path, project: Path, isolated_home: Path):
    """The hook exits 0 and spools (built-in rules applied) when config.toml is broken;
    `record` refuses with the one-line error rather than write without the user's rules."""
    configured.write_text('[capture]\nextra_secret_patterns = ["bad(unclosed"]\n', encoding="utf-8")
    payload = {"session_id": "s-broken", "cwd": str(project), "last_assistant_message": "hello"}
    out = cli("capture", "--source=claude-code", stdin=json.dumps(payload), env={"MEMORYD_NO_WORKER": "1"})
    assert out.returncode == 0 and "secret patterns were not applied" in out.stderr, out.stderr
    assert list((isolated_home / "spool").glob("*.json"))
    out = cli("record", "--type", "fact", "--title", "t", "--body", "b", "--scope", str(project))
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "extra_secret_patterns[0]" in out.stderr
