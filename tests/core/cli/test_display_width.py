"""Terminal tables line up with Chinese and mixed text: a column starts at the same display
column (East Asian Wide and Fullwidth characters take two, combining marks none) on every
line, whatever the text before it."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from memoryd.app import Memoryd
from memoryd.textwidth import fit, pad, width

from ..governance.sessions import capture


def _cols(text: str) -> int:
    """Display width, computed independently of the code under test."""
    total = 0
    for ch in text:
        if unicodedata.combining(ch):
            continue
        total += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return total


def _starts(line: str, cell: str) -> int:
    """The display column at which `cell` starts in `line`."""
    return _cols(line[: line.index(cell)])


@pytest.mark.parametrize(
    ("text", "cols"),
    [("", 0), ("abc", 3), ("数据库", 6), ("Postgres 数据库", 15), ("ＡＢ", 4), ("e\u0301", 1), ("한국", 4)],
)
def test_width_counts_display_columns(text: str, cols: int):
    assert width(text) == cols


def test_pad_fills_to_display_width():
    assert pad("数据", 6) == "数据  " and pad("ab", 6) == "ab    " and pad("数据库迁移", 4) == "数据库迁移"


def test_fit_cuts_by_width_never_inside_a_wide_character():
    assert fit("数据库迁移方案", 7) == "数据库…"  # 6 columns and the ellipsis; never half of 迁
    assert width(fit("数据库迁移方案", 7)) <= 7
    assert fit("ab数据库", 5) == "ab数…"
    assert fit("short", 10) == "short" and fit("数据库", 6) == "数据库"
    assert fit("e\u0301e\u0301e\u0301", 2) == "e\u0301…"  # a combining mark stays with its base


def test_promotions_table_aligns_with_chinese_titles(cli, project: Path, tmp_path: Path):
    exchanges = [
        (
            "记住：这个仓库一律用 pnpm，不要用 npm，这对锁文件很重要。",
            "好的，只用 pnpm，我已经把脚本改成 pnpm。",
        ),
        ("Remember: in this repo always use pnpm, never npm. This is important.", "Understood: pnpm only."),
    ]
    for i, exchange in enumerate(exchanges):
        slug = capture(cli, project, tmp_path, f"wide-{i}", [exchange])
        assert cli("analyze-session", slug).returncode == 0
    titles = [r.get("proposed_title", "") for r in Memoryd().promotions(status=None)]
    assert len(titles) == 2 and any(width(t) > len(t) for t in titles), titles
    lines = cli("promotions").stdout.splitlines()
    header, rows = lines[0], lines[1:]
    assert len(rows) == 2
    starts = {_starts(header, "FROM")}
    for row in rows:
        starts.add(_starts(row, row.split()[-1]))  # FROM: the session's slug, last on the line
    assert len(starts) == 1, lines


def test_digest_trigger_counts_line_up(cli, project: Path):
    app = Memoryd()
    for trigger in ("数据库", "postgres", "数据库迁移"):
        app.record("fact", f"About {trigger}", f"Notes on {trigger}.", triggers=[trigger], scope_path=project)
    for query in ("数据库", "postgres", "数据库迁移"):
        assert cli("search", query, "--scope", str(project)).returncode == 0
    out = cli("digest")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    block = lines[lines.index("Top triggers:") + 1 : lines.index("Top entities (rising):")]
    hits = [line for line in block if line.endswith(" hits")]
    assert len(hits) >= 3 and any("数据库" in h for h in hits), block
    assert len({_starts(h, h.rsplit(" ", 2)[1] + " hits") for h in hits}) == 1, block
