"""The digest's weekly series (the tray's trends chart): captures, recalls and approved
promotions summed per week from a real store, weeks with nothing in them as zeros."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from memoryd import clock
from memoryd.app import Memoryd
from memoryd.governance.digest import WEEKS, Digest

from .sessions import REMEMBER, ROUTINE, capture

T0 = datetime(2026, 3, 4, 9, 0, 0, tzinfo=clock.UTC)  # a Wednesday; its week starts 2 March


def _at(days: float) -> str:
    return clock.iso(T0 + timedelta(days=days))


def three_weeks(cli, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two weeks ago: 2 captures, 1 approved promotion, 3 recalls; last week: 1 capture;
    this week: 2 recalls."""
    monkeypatch.setenv("MEMORYD_NOW", _at(-14))
    fact = Memoryd().record(
        "fact", "Zanzibar port", "The zanzibar service listens on 7788.", scope_path=project
    )
    slug = capture(cli, project, tmp_path, "w1-a", [REMEMBER])
    capture(cli, project, tmp_path, "w1-b", [ROUTINE])
    assert cli("analyze-session", slug).returncode == 0
    pending = Memoryd().promotions(status="pending")
    assert len(pending) == 1, pending
    assert cli("promote", str(pending[0]["id"])).returncode == 0
    for _ in range(3):
        Memoryd().get(fact[0].meta.slug)
    monkeypatch.setenv("MEMORYD_NOW", _at(-6))
    capture(cli, project, tmp_path, "w2-a", [("where are the logs", "In /var/log/app.")])
    monkeypatch.setenv("MEMORYD_NOW", _at(0))
    for _ in range(2):
        Memoryd().get(fact[0].meta.slug)


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
