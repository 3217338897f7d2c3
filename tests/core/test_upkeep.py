"""The facade's upkeep for the tray: pausing capture, promoting with the user's edits,
cancelling a reindex or a mark half-way (both can be run again), the monthly reports and
the sensitive scopes as the tray's windows list them."""

from __future__ import annotations

import json
import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest

from memoryd import clock
from memoryd.app import Memoryd
from memoryd.errors import Cancelled, UsageError
from memoryd.scope import resolve
from memoryd.sensitive import marking
from memoryd.testing import claude_exchange, stop_payload, write_jsonl

from .governance.sessions import REMEMBER, capture
from .sensitive.support import CANARY, PASSPHRASE, enc_files, leaks, plain_files

PAUSED = "capture is paused (resume from the tray or with `memoryd resume-capture`): nothing was kept"


def _hook(cli, project: Path, tmp_path: Path, sid: str):
    transcript = write_jsonl(
        tmp_path / f"{sid}.jsonl",
        claude_exchange("How do I run the tests?", "Run pytest -q.", session_id=sid, cwd=str(project)),
    )
    return cli(
        "capture",
        "--source=claude-code",
        "--json",
        stdin=stop_payload(sid, transcript, project),
        cwd=project,
        env={"MEMORYD_NO_WORKER": "1"},
    )


def _spooled(home: Path) -> list[str]:
    spool = home / "spool"
    return (
        sorted(p.name for p in spool.iterdir() if p.is_file() and not p.name.startswith("."))
        if spool.exists()
        else []
    )


def _events(kind: str) -> list:
    return [e for e in Memoryd().store.audit.events() if e.event_type == kind]


# -- pause capture ---------------------------------------------------------------------


def test_pause_capture_keeps_nothing_until_resumed(cli, project: Path, tmp_path: Path, isolated_home: Path):
    app = Memoryd()
    assert not app.capture_paused()
    assert app.pause_capture(True, actor="tray") is True
    assert app.pause_capture(True) is False  # already paused: nothing changes
    assert app.capture_paused() and Memoryd().capture_paused()

    out = _hook(cli, project, tmp_path, "paused-1")
    assert out.returncode == 0, out.stderr  # a hook never fails the agent
    assert json.loads(out.stdout) == {"spooled": ""}
    assert PAUSED in out.stderr and out.stderr.count("\n") == 1
    assert _spooled(isolated_home) == []

    assert app.pause_capture(False, actor="tray") is True
    assert app.pause_capture(False) is False
    assert not app.capture_paused()
    out = _hook(cli, project, tmp_path, "resumed-1")
    assert out.returncode == 0 and "paused" not in out.stderr, out.stderr
    name = json.loads(out.stdout)["spooled"]
    assert name and _spooled(isolated_home) == [name]
    assert [e.actor for e in _events("capture_paused")] == ["tray"]
    assert [e.actor for e in _events("capture_resumed")] == ["tray"]
    assert cli("audit", "verify").returncode == 0


def test_pause_and_resume_from_the_terminal(cli, project: Path, tmp_path: Path, isolated_home: Path):
    """The paused warning names `memoryd resume-capture`: it exists and undoes the pause."""
    out = cli("pause-capture", "--json")
    assert out.returncode == 0 and json.loads(out.stdout) == {"paused": True, "changed": True}, out.stderr
    assert Memoryd().capture_paused()
    assert PAUSED in _hook(cli, project, tmp_path, "term-1").stderr
    out = cli("resume-capture")
    assert out.returncode == 0 and out.stdout == "capture resumed\n", out.stderr
    assert not Memoryd().capture_paused()
    assert json.loads(_hook(cli, project, tmp_path, "term-2").stdout)["spooled"]
    assert len(_spooled(isolated_home)) == 1


# -- promote with the user's edits -----------------------------------------------------


def test_promote_with_an_edited_body_and_triggers(cli, project: Path, tmp_path: Path, isolated_home: Path):
    slug = capture(cli, project, tmp_path, "promo-edit", [REMEMBER])
    pid = json.loads(cli("analyze-session", slug, "--json").stdout)["promotion_id"]
    assert pid
    app = Memoryd()
    for blank in ("", "  \n\t"):
        with pytest.raises(UsageError, match="the body must not be empty"):
            app.promote(pid, body=blank)
    assert [r["id"] for r in app.promotions(status="pending")] == [pid]  # still waiting

    body = "Use pnpm in this repo, never npm.\n\nThe lockfile is pnpm-lock.yaml."
    doc, changes = app.promote(
        pid,
        title="pnpm only",
        body=f"\n  {body}  \n\n",
        triggers=[" pnpm ", "", "lockfile", "pnpm", "  "],
        actor="tray",
    )
    assert doc.body == body + "\n"
    assert doc.meta.triggers == ["pnpm", "lockfile"]
    assert doc.meta.title == "pnpm only" and doc.meta.promoted_from == slug
    assert changes.created == (doc.meta.slug,)
    on_disk = Memoryd().store.read(doc.meta.slug)[0]
    assert on_disk.body == doc.body and on_disk.meta.triggers == ["pnpm", "lockfile"]
    assert "Remember:" not in on_disk.body  # the proposal's own text was replaced
    hits = Memoryd().search("lockfile", scopes=[resolve(project).hash])
    assert doc.meta.slug in [h.slug for h in hits]
    assert app.promotions(status="pending") == []


def test_promote_keeps_the_proposal_when_nothing_is_edited(cli, project: Path, tmp_path: Path):
    slug = capture(cli, project, tmp_path, "promo-plain", [REMEMBER])
    pid = json.loads(cli("analyze-session", slug, "--json").stdout)["promotion_id"]
    proposal = Memoryd().promotions(status="pending")[0]
    doc, _ = Memoryd().promote(pid, triggers=[])
    assert doc.body == proposal["proposed_body"].strip() + "\n"
    assert doc.meta.triggers == []  # an empty list clears them, None keeps them


# -- reindex cancelled -----------------------------------------------------------------


def _dump(db: Path) -> list[str]:
    con = sqlite3.connect(db)
    try:
        return list(con.iterdump())
    finally:
        con.close()


def test_reindex_cancelled_leaves_the_index_as_it_was(project: Path, isolated_home: Path):
    app = Memoryd()
    for i, title in enumerate(("Deploy with ansible", "Staging host is db-2", "Tabs over spaces")):
        app.record(
            "fact", title, f"Note {i}: {title.lower()} {CANARY}.", scope_path=project, triggers=[f"t{i}"]
        )
    scopes = [resolve(project).hash]

    def results() -> list[tuple[str, float]]:
        return [
            (h.slug, round(h.score, 6)) for h in Memoryd().search(CANARY, scopes=scopes, count_recall=False)
        ]

    before = results()
    assert len(before) == 3
    dump = _dump(isolated_home / "index.db")
    calls: list[tuple[int, int]] = []

    def cancel_on_second(done: int, total: int) -> None:
        calls.append((done, total))
        if len(calls) == 2:
            raise Cancelled("cancelled in the tray")

    with pytest.raises(Cancelled):
        Memoryd().reindex(progress=cancel_on_second, actor="tray")
    assert calls == [(1, 3), (2, 3)]
    assert results() == before
    assert _dump(isolated_home / "index.db") == dump
    assert _events("reindex") == []

    seen: list[tuple[int, int]] = []
    report = Memoryd().reindex(progress=lambda d, t: seen.append((d, t)))
    assert report.indexed == 3 and seen == [(1, 3), (2, 3), (3, 3)]
    assert results() == before
    assert len(_events("reindex")) == 1


# -- mark-sensitive cancelled ----------------------------------------------------------


def test_mark_cancelled_after_a_batch_finishes_on_rerun(
    project: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(marking, "BATCH", 2)  # a tuning constant: five memories make three batches
    app = Memoryd()
    for i in range(5):
        app.record(
            "fact", f"Payroll line {i} {CANARY}", f"Line {i}: {CANARY} paid {i * 7} EUR.", scope_path=project
        )
    assert len(plain_files(isolated_home)) == 5
    calls: list[tuple[int, int]] = []

    def cancel_after_first_batch(done: int, total: int) -> None:
        calls.append((done, total))
        if len(calls) == 2:
            raise Cancelled("cancelled in the tray")

    with pytest.raises(Cancelled):
        Memoryd().mark_sensitive(project, passphrase=PASSPHRASE, progress=cancel_after_first_batch)
    assert calls == [(0, 5), (2, 5)]
    assert len(enc_files(isolated_home)) == 2 and len(plain_files(isolated_home)) == 3
    (row,) = Memoryd().sensitive_scopes()  # marked already: nothing shows without a grant,
    assert row["root"] is None  # its folder neither (sealed with the passphrase)
    assert all(CANARY not in r["title"] for r in Memoryd().list(scopes=[row["scope_hash"]]))

    again: list[tuple[int, int]] = []
    report = Memoryd().mark_sensitive(
        project, passphrase=PASSPHRASE, progress=lambda d, t: again.append((d, t))
    )
    assert report.resumed
    assert again == [(0, 3), (2, 3)]
    assert plain_files(isolated_home) == [] and len(enc_files(isolated_home)) == 5
    assert not list(isolated_home.rglob("*.md")) and not list(isolated_home.rglob("*.turns.jsonl"))
    assert leaks(isolated_home) == []

    reader = Memoryd()
    reader.grant(project, duration="once", passphrase=PASSPHRASE)
    bodies = sorted(reader.get(r["slug"]).doc.body for r in reader.list(scopes=[row["scope_hash"]]))
    assert bodies == sorted(f"Line {i}: {CANARY} paid {i * 7} EUR.\n" for i in range(5))


# -- the tray's lists ------------------------------------------------------------------


def test_monthly_reports_lists_what_was_generated(project: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MEMORYD_NOW", "2026-10-20T09:00:00Z")
    app = Memoryd()
    assert app.monthly_reports() == []
    app.record("preference", "Tabs over spaces", "The user indents with tabs.", scope_path=project)
    app.rewrite_identity(trigger="manual")
    october = app.monthly_report("2026-10")
    monkeypatch.setenv("MEMORYD_NOW", "2026-11-30T20:00:00Z")
    november = Memoryd().monthly_report()
    listing = Memoryd().monthly_reports()
    assert [r["period"] for r in listing] == ["2026-11", "2026-10"]  # newest first
    oct_row = listing[1]
    assert oct_row["versions_count"] == october.versions == 1 and november.versions == 0
    assert oct_row["supersedes_count"] == 0 and oct_row["generated_at"] == "2026-10-20T09:00:00Z"
    assert "1 version(s) this month" in oct_row["content_md"]
    assert "did not change this month" in listing[0]["content_md"]


def test_sensitive_scopes_lists_marked_scopes_with_their_grants(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("MEMORYD_NOW", "2026-06-01T09:00:00Z")
    app = Memoryd()
    assert app.sensitive_scopes() == []
    other = tmp_path / "plain"
    other.mkdir()
    app.record("fact", "Plain note", "Nothing secret.", scope_path=other)
    app.record("fact", "Secret note", f"{CANARY}.", scope_path=project)
    app.mark_sensitive(project, passphrase=PASSPHRASE)
    (row,) = Memoryd().sensitive_scopes()
    h = resolve(project).hash
    assert row == {
        "scope_hash": h,
        "root": None,  # sealed with the passphrase, which a fresh process does not have
        "key_source": "passphrase",
        "marked_at": "2026-06-01T09:00:00Z",
        "grants": [],
        "llm": None,  # scored here by the rules until the person allows an LLM (allow-llm)
    }
    assert app.sensitive_scopes()[0]["root"] == str(project)  # the process that has the key
    # Grants live by the real clock, not MEMORYD_NOW: it is moved in this process. With no
    # keyring to cache the key, only this process (which has the passphrase) can tell them genuine.
    t0 = clock.parse_ts("2026-06-01T09:00:00Z")
    monkeypatch.setattr(clock, "wall", lambda: t0)
    app.grant(project, duration="once", passphrase=PASSPHRASE)
    app.grant(project, duration="task", task="tax return", passphrase=PASSPHRASE)
    grants = app.sensitive_scopes()[0]["grants"]
    assert [(g["duration"], g["task"], g["expires_at"]) for g in grants] == [
        ("once", None, "2026-06-01T09:01:30Z"),
        ("task", "tax return", None),
    ]
    assert Memoryd().sensitive_scopes()[0]["grants"] == []  # another process cannot check them
    monkeypatch.setattr(clock, "wall", lambda: t0 + timedelta(minutes=5))  # the once grant ended
    assert [g["duration"] for g in app.sensitive_scopes()[0]["grants"]] == ["task"]
