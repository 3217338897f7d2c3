"""Issue 21's examples through the real pipeline with no API key: the hook, the worker,
analyze-pending and the promotions queue."""

from __future__ import annotations

import json
from pathlib import Path

from tests.core.governance.sessions import capture

MIGRATIONS = (
    "Warning for the future: never run the migrations on staging during business hours, "
    "the tables lock and the whole app stalls for minutes."
)
SESSIONS: dict[str, list[tuple[str, str]]] = {
    "migrations": [(MIGRATIONS, "Understood, I will only run them after hours.")],
    "fly": [
        ("We moved the app to Fly.io from now on.", "Noted."),
        ("Decision: we stopped using Heroku and moved to Fly.", "Got it, Heroku is gone."),
    ],
    "pnpm": [("always use pnpm in this repo; npm broke the lockfile last time", "OK, pnpm only.")],
    "bugfix": [
        (
            "The invoice export crashes with a KeyError when the list is empty, please fix it. "
            "This is important: billing depends on the CSV export and it must work.",
            "Fixed: `export_invoices` in billing.py now returns an empty CSV. The error was a missing guard.",
        )
    ],
    "zh": [("记住：以后一律用 pnpm 安装依赖，不要用 npm，否则 lockfile 会乱。", "好的，以后只用 pnpm。")],
    "zh-bugfix": [("帮我修一下 InvoiceExport 的报错：空列表时会崩溃。这个很重要，必须修好。", "已修复。")],
}


def test_issue_21_proposals_without_a_key(cli, project: Path, tmp_path: Path):
    for sid, exchanges in SESSIONS.items():
        capture(cli, project, tmp_path, sid, exchanges, drain=False)  # the hook, as an agent runs it
    assert cli("worker", "--wait").returncode == 0
    assert cli("analyze-pending").returncode == 0
    promotions = json.loads(cli("promotions", "--json").stdout)
    sessions = {
        m["slug"]: m
        for m in json.loads(cli("list", "--type", "session", "--scope", str(project), "--json").stdout)
    }
    by_prompt = {}
    for p in promotions:
        session = sessions[p["source_session_slug"]]
        by_prompt[session["title"]] = p

    # The session title is the first prompt cut at a word boundary.
    (long_title,) = [s["title"] for s in sessions.values() if s["title"].startswith("Warning for the future")]
    head = long_title.removesuffix("…")
    assert len(long_title) <= 80 and long_title != head and MIGRATIONS.startswith(head)
    assert not MIGRATIONS[len(head)].isalnum(), long_title  # "…business hou…" was cut mid-word
    migrations = by_prompt[long_title]
    assert migrations["proposed_title"] == "Never run the migrations on staging during business hours"
    assert migrations["proposed_type"] == "warning"
    assert "hou" not in [t.lower() for t in migrations["proposed_triggers"]]

    fly = by_prompt["We moved the app to Fly.io from now on."]
    assert fly["proposed_body"] == (
        "- We moved the app to Fly.io from now on.\n- We stopped using Heroku and moved to Fly."
    )
    pnpm = by_prompt["always use pnpm in this repo; npm broke the lockfile last time"]
    assert pnpm["proposed_type"] == "preference"
    zh = by_prompt["记住：以后一律用 pnpm 安装依赖，不要用 npm，否则 lockfile 会乱。"]
    assert zh["proposed_type"] == "preference"
    assert zh["proposed_title"] == "以后一律用 pnpm 安装依赖，不要用 npm，否则 lockfile 会乱"

    # The bug fixes were scored and stay sessions: nothing is proposed for them.
    assert len(promotions) == 4, [p["proposed_title"] for p in promotions]
    for session in sessions.values():
        if session["title"].startswith(("The invoice export", "帮我修一下")):
            assert session["dura_mean"] is not None and session["dura_mean"] < 0.6, session
