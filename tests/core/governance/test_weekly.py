"""The digest's weekly series (the tray's trends chart): captures, recalls and approved
promotions summed per week from a real store, weeks with nothing in them as zeros."""

from __future__ import annotations

from pathlib import Path

import pytest

from memoryd.governance.digest import WEEKS, Digest

from .sessions import three_weeks


def test_weeks_hold_what_happened_in_each(
    cli, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    three_weeks(cli, project, tmp_path, monkeypatch)
    out = cli("digest", "--json")
    assert out.returncode == 0, out.stderr
    weeks = Digest.model_validate_json(out.stdout).trends.weeks
    assert len(weeks) == WEEKS
    assert weeks[-1].week == "2026-03-02" and weeks[0].week == "2026-01-12"
    got = {
        w.week: (w.captures, w.recalls, w.promotions)
        for w in weeks
        if (w.captures, w.recalls, w.promotions) != (0, 0, 0)
    }
    assert got == {"2026-02-16": (2, 3, 1), "2026-02-23": (1, 0, 0), "2026-03-02": (0, 2, 0)}


def test_an_empty_store_has_weeks_of_zeros(cli):
    weeks = Digest.model_validate_json(cli("digest", "--json").stdout).trends.weeks
    assert len(weeks) == WEEKS and all(w.captures == w.recalls == w.promotions == 0 for w in weeks)
