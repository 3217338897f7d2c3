"""Shared steps for the importer tests: run an import and list memories through the real CLI,
and read a listed memory's file the way a person would."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from memoryd.frontmatter import Document, parse
from tests.conftest import run_cli

Proc = subprocess.CompletedProcess[str]


def run_import(kind: str, *args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """`memoryd import KIND ARGS --json`, which must succeed; its report as a dict."""
    out = run_cli("import", kind, *args, "--json", env=env)
    assert out.returncode == 0, (out.returncode, out.stdout, out.stderr)
    report: dict[str, Any] = json.loads(out.stdout)
    assert report["skipped"] == len(report["skipped_items"])
    return report


def listed(scope: Path, *extra: str) -> list[dict[str, Any]]:
    """`memoryd list --json --scope SCOPE` rows."""
    out = run_cli("list", "--json", "--scope", str(scope), *extra)
    assert out.returncode == 0, out.stderr
    rows: list[dict[str, Any]] = json.loads(out.stdout)
    return rows


def by_key(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Rows by their origin key (`source:key`); asserts no key is listed twice."""
    keys = [r["session_key"] for r in rows]
    assert len(keys) == len(set(keys)), f"duplicate memories: {sorted(keys)}"
    return {k: r for k, r in zip(keys, rows, strict=True)}


def read_doc(home: Path, row: dict[str, Any]) -> Document:
    """The memory file behind a listed row (no recall is counted, unlike `memoryd get`)."""
    return parse((home / row["body_path"]).read_text(encoding="utf-8"))


def one_line_error(out: Proc, code: int, *words: str) -> None:
    """Failed with CODE, printing one line on stderr, nothing on stdout, no traceback."""
    assert out.returncode == code, (out.returncode, out.stdout, out.stderr)
    assert out.stdout == "", out.stdout
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr
    for w in words:
        assert w in out.stderr, (w, out.stderr)
