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
    app = Memoryd()
    app.record("preference", "Tabs over spaces", "The user indents with tabs.", scope_path=project)
    react, _ = app.record("preference", "Prefers React", "Front ends in React.", scope_path=project)
    npm, _ = app.record("decision", "Use npm", "The web app installs with npm.", scope_path=project)
    assert cli("profile", "rewrite-identity").returncode == 0  # v1, in October
    monkeypatch.setenv("MEMORYD_NOW", "2026-11-08T09:00:00Z")
    app = Memoryd()
    app.record("preference", "Short answers", "The user wants short, direct answers.", scope_path=project)
    solid, _ = app.record("preference", "Prefers Solid", "Front ends in Solid now.", scope_path=project)
    pnpm, _ = app.record("decision", "Use pnpm", "The web app installs with pnpm.", scope_path=project)
    app.record("warning", "Never force-push main", "It rewrote shared history once.", scope_path=project)
    app.link_supersede(solid.meta.slug, react.meta.slug)
    app.link_supersede(pnpm.meta.slug, npm.meta.slug)
    assert cli("profile", "rewrite-identity", "--weekly").returncode == 0  # v2, in November
    with write_session(app.store.engine) as s:
        for eid, name, first, last in (
            ("entity:library:solidjs", "SolidJS", "2026-11-09T10:00:00Z", "2026-11-09T10:00:00Z"),
            ("entity:library:jquery", "jQuery", "2026-09-01T10:00:00Z", "2026-10-15T10:00:00Z"),
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
    assert rep["period"] == "2026-11" and rep["versions"] == 1 and rep["supersedes"] == 2
    changes = rep["changes"]
    assert [m["title"] for m in changes["preferences_added"]] == ["Prefers Solid", "Short answers"]
    assert [m["title"] for m in changes["preferences_dropped"]] == ["Prefers React"]
    assert {(r["older"]["title"], r["newer"]["title"]) for r in changes["superseded"]} == {
        ("Prefers React", "Prefers Solid"),
        ("Use npm", "Use pnpm"),
    }
    assert [(m["type"], m["title"]) for m in changes["added"]] == [
        ("warning", "Never force-push main"),
        ("decision", "Use pnpm"),
    ]
    assert "SolidJS" in [e["name"] for e in changes["entities_new"]]
    # jQuery by hand; React and npm named by October's memories only, none since
    assert [e["name"] for e in changes["entities_gone"]] == ["React", "jQuery", "npm"]
    assert changes["counts"]["decisions_superseded"] == 1 and changes["counts"]["versions"] == 1
    assert changes["diff"].startswith("--- before the month\n+++ v2\n")
    assert (rep["entities_added"], rep["entities_dropped"]) == (len(changes["entities_new"]), 3)

    text_md = (isolated_home / "profile" / "change-reports" / "2026-11.md").read_text(encoding="utf-8")
    assert "## Preferences added\n- Prefers Solid\n- Short answers\n" in text_md
    assert "## Preferences dropped\n- Prefers React\n" in text_md
    assert "- Use npm -> Use pnpm (decision)" in text_md
    assert "## Warnings added\n- Never force-push main\n" in text_md
    assert "- jQuery (library)" in text_md
    assert "- v2 2026-11-08 (weekly): " in text_md
    # the raw diff still there, last, for whoever wants it
    assert text_md.index("## The profile's diff") > text_md.index("## Versions")
    assert "+- Short answers" in text_md

    worded = cli("profile", "generate-monthly-report")
    assert "Preferences dropped:\n  - Prefers React\n" in worded.stdout
    peek = json.loads(cli("profile", "changes", "--json").stdout)  # the same values, no report
    assert {k: v for k, v in peek.items()} == changes

    october = json.loads(cli("profile", "generate-monthly-report", "--month", "2026-10", "--json").stdout)
    assert october["versions"] == 1 and october["supersedes"] == 0
    assert [m["title"] for m in october["changes"]["preferences_added"]] == [
        "Prefers React",
        "Tabs over spaces",
    ]
    again = json.loads(cli("profile", "generate-monthly-report", "--json").stdout)  # replaces, not adds
    assert again == rep
    with write_session(app.store.engine) as s:
        periods = [r[0] for r in s.exec(text("SELECT period FROM profile_change_reports ORDER BY period"))]
    assert periods == ["2026-10", "2026-11"]


def test_a_bad_month_is_one_line(cli):
    out = cli("profile", "generate-monthly-report", "--month", "2026-13")
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "--month" in out.stderr
