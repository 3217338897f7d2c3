"""The monthly change report: versions of the month, the diff across it, supersedes and
entities of the month (rows written straight into their tables, as the knowledge graph
will), a file and a row per month, regenerating replaces both."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import text

from memoryd.app import Memoryd
from memoryd.db.engine import write_session


def test_monthly_report_covers_the_months_changes(cli, project: Path, monkeypatch, isolated_home: Path):
    monkeypatch.setenv("MEMORYD_NOW", "2026-10-20T09:00:00Z")
    Memoryd().record("preference", "Tabs over spaces", "The user indents with tabs.", scope_path=project)
    assert cli("profile", "rewrite-identity").returncode == 0  # v1, in October
    monkeypatch.setenv("MEMORYD_NOW", "2026-11-08T09:00:00Z")
    Memoryd().record(
        "preference", "Short answers", "The user wants short, direct answers.", scope_path=project
    )
    assert cli("profile", "rewrite-identity", "--weekly").returncode == 0  # v2, in November
    app = Memoryd()
    with write_session(app.store.engine) as s:
        s.exec(
            text(
                "INSERT INTO supersedes_chain (newer_memory_id, older_memory_id, confidence, decided_at, "
                "decided_by) VALUES ('pref-solid', 'pref-react', 0.9, '2026-11-09T10:00:00Z', 'auto')"
            )
        )
        for eid, name, first, last in (
            ("entity:library:solid", "Solid", "2026-11-09T10:00:00Z", "2026-11-09T10:00:00Z"),
            ("entity:library:react", "React", "2026-09-01T10:00:00Z", "2026-10-15T10:00:00Z"),
        ):
            s.exec(
                text(
                    "INSERT INTO entities (id, name, type, first_seen_at, last_seen_at) "
                    "VALUES (:id, :name, 'library', :first, :last)"
                ),
                params={"id": eid, "name": name, "first": first, "last": last},
            )

    monkeypatch.setenv("MEMORYD_NOW", "2026-11-30T20:00:00Z")
    out = cli("profile", "generate-monthly-report", "--json")
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout)
    assert rep["period"] == "2026-11" and rep["versions"] == 1 and rep["supersedes"] == 1
    assert (rep["entities_added"], rep["entities_dropped"]) == (1, 1)
    text_md = (isolated_home / "profile" / "change-reports" / "2026-11.md").read_text(encoding="utf-8")
    assert "- v2 2026-11-08 (weekly_cron)" in text_md
    assert "+- Short answers" in text_md  # the diff from v1 (before the month) to v2
    assert "pref-react -> pref-solid (auto, confidence 0.90)" in text_md
    assert "New: Solid (library)" in text_md and "No longer mentioned: React (library)" in text_md

    october = json.loads(cli("profile", "generate-monthly-report", "--month", "2026-10", "--json").stdout)
    assert october["versions"] == 1 and october["supersedes"] == 0
    again = json.loads(cli("profile", "generate-monthly-report", "--json").stdout)  # replaces, not adds
    assert again == rep
    with write_session(app.store.engine) as s:
        periods = [r[0] for r in s.exec(text("SELECT period FROM profile_change_reports ORDER BY period"))]
    assert periods == ["2026-10", "2026-11"]


def test_a_bad_month_is_one_line(cli):
    out = cli("profile", "generate-monthly-report", "--month", "2026-13")
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "--month" in out.stderr
