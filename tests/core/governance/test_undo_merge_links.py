"""Undo of a merge gives back what the merge changed beyond the files (a defect carried
over several stops): the promotions of a dropped session (the index drops them with the
memory) and the supersede links that pointed at a dropped memory (moved to the kept one,
or released). Through the real CLI; a link or a proposal's number changed since the merge
makes the undo refuse in one line unless --force."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memoryd.app import Memoryd

from ..sensitive.support import one_line_error
from .sessions import REMEMBER, capture

MAY, NOV, DEC = "2026-05-01T09:00:00Z", "2026-11-01T09:00:00Z", "2026-12-01T09:00:00Z"
REACT = ("Prefer React for the frontend framework", "I prefer React for frontend framework work.")
SOLID = ("Frontend: Solid now", "We switched from React to Solid for the frontend framework.")
SOLID_AGAIN = ("Solid for the frontend framework, confirmed", "Solid stays for the UI layer.")
QUERY = "frontend framework"


def _json(out) -> Any:
    assert out.returncode == 0, (out.returncode, out.stdout, out.stderr)
    return json.loads(out.stdout)


def _record(cli, project: Path, monkeypatch, when: str, title: str, body: str) -> str:
    monkeypatch.setenv("MEMORYD_NOW", when)
    args = ("--type", "preference", "--title", title, "--body", body, "--scope", str(project))
    return str(_json(cli("record", *args, "--json"))["slug"])


def _graph(cli, project: Path, *slugs: str) -> dict[str, Any]:
    """What people see of the supersedes: each memory's chain links and successor, and
    what search ranks as replaced."""
    links = {
        s: sorted((x["newer_memory_id"], x["older_memory_id"], x["reason"]) for x in h["links"])
        for s in slugs
        for h in [_json(cli("history", s, "--json"))]
    }
    hits = _json(cli("search", QUERY, "--scope", str(project), "--json"))
    return {
        "links": links,
        "search": sorted((h["slug"], h["superseded_by"]) for h in hits),
    }


def _promotions(cli) -> list[tuple[int, str, str, str | None, str]]:
    rows = _json(cli("promotions", "--json"))
    return [
        (r["id"], r["source_session_slug"], r["status"], r["decided_at"], r["proposed_body"]) for r in rows
    ]


def _analysed(cli, project: Path, tmp_path: Path, sid: str) -> tuple[str, int]:
    slug = capture(cli, project, tmp_path, sid, [REMEMBER])
    pid = _json(cli("analyze-session", slug, "--json"))["promotion_id"]
    assert pid
    return str(slug), int(pid)


def _undo_events(cli) -> list[dict]:
    return json.loads(cli("audit", "--event-type", "undo", "--json").stdout)


def test_undo_merge_gives_the_dropped_sessions_promotions_back(cli, project: Path, tmp_path: Path):
    keep, _ = _analysed(cli, project, tmp_path, "undo-promo-keep")
    drop, pid = _analysed(cli, project, tmp_path, "undo-promo-drop")
    app = Memoryd()
    app.reject(pid)
    reject = app.last_action
    before = _promotions(cli)
    assert (pid, drop, "rejected") == before[-1][:3]

    assert cli("merge", "--keep", keep, "--drop", drop).returncode == 0
    assert pid not in [p[0] for p in _promotions(cli)]  # the index dropped it with the session
    out = cli("undo", "--json")
    assert out.returncode == 0, out.stderr
    assert _promotions(cli) == before
    assert json.loads(out.stdout)["restored_promotions"] == [pid]
    # The rejection is a decision again: it can be undone as before the merge.
    out = cli("undo", str(reject))
    assert out.returncode == 0, out.stderr
    assert f"promotion #{pid} is pending again" in out.stdout
    assert cli("audit", "verify").returncode == 0


def test_undo_merge_refuses_when_the_trash_lost_the_promotions_unless_forced(
    cli, project: Path, tmp_path: Path, isolated_home: Path
):
    keep, _ = _analysed(cli, project, tmp_path, "undo-promo-keep-2")
    drop, pid = _analysed(cli, project, tmp_path, "undo-promo-drop-2")
    assert cli("merge", "--keep", keep, "--drop", drop).returncode == 0
    (kept,) = (isolated_home / "trash").glob("*/promotions.json")
    kept.write_text("[]\n", encoding="utf-8")  # a damaged trash: the proposal is not in it
    state = _promotions(cli)

    one_line_error(cli("undo"), 2, f"promotion #{pid}", "--force")
    assert _promotions(cli) == state and _undo_events(cli) == []
    assert cli("get", drop).returncode == 1

    out = cli("undo", "--force", "--json")
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert (res["restored"], res["restored_promotions"], res["not_restored_promotions"]) == (
        [drop],
        [],
        [pid],
    )
    assert _promotions(cli) == state and cli("get", drop).returncode == 0


def test_undo_merge_gives_a_moved_supersede_back(cli, project: Path, monkeypatch):
    react = _record(cli, project, monkeypatch, MAY, *REACT)
    solid = _record(cli, project, monkeypatch, NOV, *SOLID)
    keep = _record(cli, project, monkeypatch, DEC, *SOLID_AGAIN)
    before = _graph(cli, project, react, solid, keep)
    assert (react, solid) in before["search"]

    assert cli("merge", "--keep", keep, "--drop", solid).returncode == 0
    assert (react, keep) in _graph(cli, project, react, keep)["search"]  # the link moved to keep
    out = cli("undo", "--json")
    assert out.returncode == 0, out.stderr
    assert _graph(cli, project, react, solid, keep) == before
    assert json.loads(out.stdout)["relinked"] == [react]
    assert _json(cli("list", "--all-scopes", "--json"))  # the index reads
    assert cli("audit", "verify").returncode == 0


def test_merging_a_memory_into_the_one_it_superseded_is_recorded_and_undone(cli, project: Path, monkeypatch):
    """The kept memory was the one the dropped memory replaced: it is current after the
    merge (it cannot replace itself), the merge succeeds and is recorded, and the undo
    makes it replaced again."""
    react = _record(cli, project, monkeypatch, MAY, *REACT)
    solid = _record(cli, project, monkeypatch, NOV, *SOLID)
    before = _graph(cli, project, react, solid)
    out = cli("merge", "--keep", react, "--drop", solid)
    assert out.returncode == 0, out.stderr
    assert (react, None) in _graph(cli, project, react)["search"]
    assert _json(cli("undo", "--list", "--json"))[0]["kind"] == "merge"
    assert cli("undo").returncode == 0
    assert _graph(cli, project, react, solid) == before


def test_undo_merge_refuses_when_a_moved_link_changed_unless_forced(cli, project: Path, monkeypatch):
    react = _record(cli, project, monkeypatch, MAY, *REACT)
    solid = _record(cli, project, monkeypatch, NOV, *SOLID)
    keep = _record(cli, project, monkeypatch, DEC, *SOLID_AGAIN)
    assert cli("merge", "--keep", keep, "--drop", solid).returncode == 0
    action = _json(cli("undo", "--list", "--json"))[0]["id"]
    assert cli("supersede", "undo", keep, react).returncode == 0  # a person took the move back
    state = _graph(cli, project, react, keep)

    one_line_error(cli("undo", str(action)), 2, react, "--force")
    assert _graph(cli, project, react, keep) == state and _undo_events(cli) == []
    assert cli("get", solid).returncode == 1

    out = cli("undo", str(action), "--force", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["relinked"] == []
    assert cli("get", solid).returncode == 0
    after = _graph(cli, project, react, solid, keep)
    assert (react, None) in after["search"]  # the person's decision stands


def test_the_undo_line_says_what_came_back_beyond_the_files(cli, project: Path, tmp_path: Path, monkeypatch):
    """Without --json, the one line a person reads names the proposals and the links the
    undo gave back, not only the files."""
    keep, _ = _analysed(cli, project, tmp_path, "undo-line-keep")
    drop, pid = _analysed(cli, project, tmp_path, "undo-line-drop")
    assert cli("merge", "--keep", keep, "--drop", drop).returncode == 0
    out = cli("undo")
    assert out.returncode == 0, out.stderr
    assert f"restored {drop}; promotion #{pid} back" in out.stdout, out.stdout

    react = _record(cli, project, monkeypatch, MAY, *REACT)
    solid = _record(cli, project, monkeypatch, NOV, *SOLID)
    kept = _record(cli, project, monkeypatch, DEC, *SOLID_AGAIN)
    assert cli("merge", "--keep", kept, "--drop", solid).returncode == 0
    out = cli("undo")
    assert out.returncode == 0, out.stderr
    assert f"{react} superseded by the restored memory again" in out.stdout, out.stdout
    assert len(out.stdout.splitlines()) == 1
