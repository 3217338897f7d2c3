"""An empty search says which scope it searched, and where else the query would match,
without counting a recall there (a hint is not a read)."""

from __future__ import annotations

import json
from pathlib import Path

from memoryd.app import Memoryd


def _recalls(slug: str) -> int:
    (row,) = [r for r in Memoryd().store.list(scopes=None) if r["slug"] == slug]
    return int(row.get("recall_count") or 0)


def test_empty_search_names_the_scope_and_points_at_the_matches_elsewhere(cli, project: Path, tmp_path: Path):
    slug = (
        Memoryd()
        .record(
            "decision",
            "Use Postgres for the job queue",
            "SQLite locked up.",
            triggers=["postgres"],
            scope_path=project,
        )[0]
        .meta.slug
    )
    other = tmp_path / "elsewhere"
    other.mkdir()
    before = _recalls(slug)
    out = cli("search", "postgres", cwd=other)
    assert out.returncode == 0, out.stderr
    text = out.stdout.strip()
    assert text.startswith("no matches in scope ") and str(other) in text, text
    assert "1 in other scopes" in text and "--all-scopes" in text, text
    assert _recalls(slug) == before  # the hint counted no recall
    assert json.loads(cli("search", "postgres", "--json", cwd=other).stdout) == []  # JSON as it was


def test_empty_search_with_nothing_anywhere_says_so(cli, project: Path):
    out = cli("search", "kubernetes", cwd=project)
    assert out.returncode == 0, out.stderr
    text = out.stdout.strip()
    assert text.startswith("no matches in scope ") and str(project) in text, text
    assert "none in other scopes either" in text, text
    assert cli("search", "kubernetes", "--all-scopes").stdout.strip() == "no matches in any scope"


def test_scope_option_is_the_scope_named(cli, project: Path, tmp_path: Path):
    out = cli("search", "kubernetes", "--scope", str(project), cwd=tmp_path)
    assert str(project) in out.stdout and out.returncode == 0
