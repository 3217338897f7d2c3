"""Undo of the review's decisions (issue 22): reject, approve, merge and "not duplicates",
through the facade and the real CLI; each audited, the chain still verifying; refusals
are one line and change nothing."""

from __future__ import annotations

import hashlib
import json
from datetime import timedelta
from pathlib import Path

from memoryd import clock
from memoryd.app import Memoryd

from ..sensitive.support import one_line_error, record
from .sessions import REMEMBER, capture


def _files(home: Path) -> dict[str, str]:
    """Every memory file and turns sidecar (scopes/<hash>/<folder>/), by path, with its
    bytes' digest (not the snapshot, which is rendered from the index)."""
    return {
        p.relative_to(home).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(home.glob("scopes/*/*/*"))
        if p.is_file() and not p.name.startswith(".")
    }


def _undo_events(cli) -> list[dict]:
    return json.loads(cli("audit", "--event-type", "undo", "--json").stdout)


def _verified(cli) -> None:
    out = cli("audit", "verify", "--json")
    assert out.returncode == 0 and json.loads(out.stdout)["ok"], out.stdout + out.stderr


def _proposal(cli, project: Path, tmp_path: Path, sid: str) -> int:
    slug = capture(cli, project, tmp_path, sid, [REMEMBER])
    pid = json.loads(cli("analyze-session", slug, "--json").stdout)["promotion_id"]
    assert pid
    return int(pid)


def _status(pid: int) -> str:
    return Memoryd().promotions()[[p["id"] for p in Memoryd().promotions()].index(pid)]["status"]


def test_undo_reject_through_the_cli_and_again_through_the_facade(cli, project: Path, tmp_path: Path):
    pid = _proposal(cli, project, tmp_path, "undo-reject-1")
    one_line_error(cli("undo"), 2, "nothing to undo")
    assert cli("reject", str(pid)).returncode == 0
    listed = json.loads(cli("undo", "--list", "--json").stdout)
    assert [(a["kind"], a["target"]) for a in listed] == [("reject", str(pid))]

    out = cli("undo")
    assert out.returncode == 0, out.stderr
    assert f"promotion #{pid} is pending again" in out.stdout
    assert _status(pid) == "pending"
    (event,) = _undo_events(cli)
    assert event["target_id"] == str(pid) and json.loads(event["details"])["undid"] == "reject"
    one_line_error(cli("undo", str(listed[0]["id"])), 2, "already undone")
    one_line_error(cli("undo"), 2, "nothing to undo")
    one_line_error(cli("undo", "999"), 2, "no review action #999")

    # Rejected again: a new reject event (the first one's dedupe key does not swallow it),
    # and the facade undoes it as the CLI did.
    app = Memoryd()
    app.reject(pid, actor="tray")
    assert len(json.loads(cli("audit", "--event-type", "reject", "--json").stdout)) == 2
    done, changes = app.undo(app.last_action, actor="tray")
    assert done.reopened == pid and changes.removed == ()
    assert _status(pid) == "pending"
    assert len(_undo_events(cli)) == 2
    _verified(cli)


def test_undo_reject_refused_once_decided_again(cli, project: Path, tmp_path: Path):
    pid = _proposal(cli, project, tmp_path, "undo-reject-2")
    app = Memoryd()
    app.reject(pid)
    first = app.last_action
    app.undo(first)
    app.reject(pid)
    app.undo()  # the latest: the second reject
    assert cli("promote", str(pid)).returncode == 0
    one_line_error(cli("undo", str(first)), 2, "already undone")
    # the approval is the one to undo now; the rejects are done with
    listed = json.loads(cli("undo", "--list", "--json").stdout)
    assert [a["kind"] for a in listed] == ["approve"]


def test_undo_approve_trashes_the_memory_and_reopens_the_proposal(
    cli, project: Path, tmp_path: Path, isolated_home: Path
):
    pid = _proposal(cli, project, tmp_path, "undo-approve-1")
    out = cli("promote", str(pid), "--title", "Use pnpm, never npm", "--json")
    assert out.returncode == 0, out.stderr
    slug = json.loads(out.stdout)["slug"]
    assert cli("get", slug).returncode == 0  # a recall rewrites the file: not a change

    out = cli("undo", "--json")
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert res["removed"] == [slug] and res["reopened_promotion"] == pid
    assert _status(pid) == "pending"
    one_line_error(cli("get", slug), 1, slug)
    assert slug not in cli("list", "--all-scopes", "--json").stdout
    assert slug not in cli("search", "pnpm", "--scope", str(project), "--json").stdout
    assert not list((isolated_home / "scopes").rglob(f"{slug}*"))
    assert list((isolated_home / "trash").rglob(f"{slug}.md"))
    (event,) = _undo_events(cli)
    assert json.loads(event["details"])["slug"] == slug
    _verified(cli)
    assert cli("doctor").returncode == 0

    # Approved again: the same memory, a second promote event.
    assert cli("promote", str(pid), "--title", "Use pnpm, never npm").returncode == 0
    assert len(json.loads(cli("audit", "--event-type", "promote", "--json").stdout)) == 2


def test_undo_approve_refused_when_the_memory_changed_unless_forced(cli, project: Path, tmp_path: Path):
    pid = _proposal(cli, project, tmp_path, "undo-approve-2")
    slug = json.loads(cli("promote", str(pid), "--json").stdout)["slug"]
    edited = cli("update", slug, "--body", "pnpm only, since 2026; never npm or yarn.")
    assert edited.returncode == 0, edited.stderr
    one_line_error(cli("undo"), 2, f"{slug} was changed since", "--force")
    assert cli("get", slug).returncode == 0 and _status(pid) == "approved"
    assert _undo_events(cli) == []

    out = cli("undo", "--force")
    assert out.returncode == 0, out.stderr
    assert _status(pid) == "pending" and cli("get", slug).returncode == 1
    assert json.loads(_undo_events(cli)[0]["details"])["forced"] is True
    _verified(cli)


def test_undo_merge_restores_files_byte_for_byte(cli, project: Path, isolated_home: Path):
    body = "Staging database is db-2; prod is db-1."
    keep = record(cli, project, "Staging DB host", body, "staging")
    drop1 = record(cli, project, "DB hosts", body, "database")
    drop2 = record(cli, project, "Where staging lives", body, "db-2")
    for _ in range(2):
        assert cli("get", drop1).returncode == 0
    before = _files(isolated_home)
    rows = {r["slug"]: r for r in json.loads(cli("list", "--all-scopes", "--json").stdout)}

    out = cli("merge", "--keep", keep, "--drop", drop1, drop2)
    assert out.returncode == 0, out.stderr
    # Gone from every read, kept only in the trash.
    for gone in (drop1, drop2):
        one_line_error(cli("get", gone), 1, gone)
        assert gone not in cli("list", "--all-scopes", "--json").stdout
    hits = json.loads(cli("search", "db-2", "--scope", str(project), "--json").stdout)
    assert [h["slug"] for h in hits] == [keep]
    kept = Memoryd().store.read(keep)[0].meta
    assert kept.triggers == ["staging", "database", "db-2"] and kept.recall_count == 3  # 2 + the search

    listed = json.loads(cli("undo", "--list", "--json").stdout)
    assert listed[0]["kind"] == "merge" and listed[0]["dropped"] == [drop1, drop2]
    out = cli("undo", str(listed[0]["id"]))
    assert out.returncode == 0, out.stderr
    assert _files(isolated_home) == before  # dropped ones back, the kept one as it was
    assert not list((isolated_home / "trash").rglob("*.md"))
    after = {r["slug"]: r for r in json.loads(cli("list", "--all-scopes", "--json").stdout)}
    for slug in (keep, drop1, drop2):
        assert {k: after[slug][k] for k in ("title", "type", "recall_count", "body_path")} == {
            k: rows[slug][k] for k in ("title", "type", "recall_count", "body_path")
        }
    store = Memoryd().store
    assert store.triggers(keep) == ["staging"] and store.triggers(drop2) == ["db-2"]
    hits = json.loads(cli("search", "db-2", "--scope", str(project), "--json").stdout)
    assert drop2 in {h["slug"] for h in hits}
    with store.engine.connect() as c:
        refs = {r[0] for r in c.exec_driver_sql("SELECT DISTINCT slug FROM vector_refs").fetchall()}
    assert {drop1, drop2} <= refs
    (event,) = _undo_events(cli)
    assert json.loads(event["details"])["restored"] == [drop1, drop2]
    _verified(cli)
    assert cli("doctor").returncode == 0

    # Merged again after the undo: new merge events, and the undo works again.
    before = _files(isolated_home)  # the search above counted recalls in the files
    assert cli("merge", "--keep", keep, "--drop", drop1).returncode == 0
    merges = json.loads(cli("audit", "--event-type", "merge", "--json").stdout)
    assert [m["target_id"] for m in merges] == [drop1, drop2, drop1]
    assert cli("undo").returncode == 0
    assert _files(isolated_home) == before


def test_undo_merge_refused_when_the_kept_memory_changed_or_a_slug_returned(
    cli, project: Path, isolated_home: Path
):
    body = "The build cache lives in /var/cache/ci."
    keep = record(cli, project, "CI cache", body)
    drop = record(cli, project, "Cache dir", body)
    app = Memoryd()
    app.merge(keep, [drop])
    action = app.last_action
    assert cli("update", keep, "--title", "CI cache folder").returncode == 0
    after_edit = _files(isolated_home)
    one_line_error(cli("undo", str(action)), 2, f"{keep} was changed since the merge", "--force")
    assert _files(isolated_home) == after_edit and cli("get", drop).returncode == 1
    assert _undo_events(cli) == []
    assert cli("undo", str(action), "--force").returncode == 0
    assert cli("get", drop).returncode == 0
    assert Memoryd().store.read(keep)[0].meta.title == "CI cache"
    one_line_error(cli("undo", str(action)), 2, "already undone")


def test_a_retitle_in_the_second_of_the_merge_still_refuses_the_undo(
    cli, project: Path, isolated_home: Path, monkeypatch
):
    """The clock stands still, as it does when the edit lands in the merge's second:
    updated_at (whole seconds) and the body's fingerprint cannot tell the edit apart."""
    monkeypatch.setenv("MEMORYD_NOW", "2026-11-27T16:00:00Z")
    body = "Nightly builds keep their cache in /srv/ci-cache."
    keep = record(cli, project, "Nightly cache", body)
    drop = record(cli, project, "Cache of the nightlies", body)
    assert cli("merge", "--keep", keep, "--drop", drop).returncode == 0
    action = json.loads(cli("undo", "--list", "--json").stdout)[0]["id"]
    assert cli("update", keep, "--title", "Nightly build cache").returncode == 0
    one_line_error(cli("undo", str(action)), 2, f"{keep} was changed since the merge", "--force")


def test_trash_is_emptied_after_its_retention(cli, project: Path, isolated_home: Path, monkeypatch):
    body = "Deploys go out on Tuesdays."
    keep = record(cli, project, "Deploy day", body)
    drop = record(cli, project, "When we deploy", body)
    assert cli("merge", "--keep", keep, "--drop", drop).returncode == 0
    trash = isolated_home / "trash"
    assert list(trash.rglob(f"{drop}.md"))

    at = clock.parse_ts(json.loads(cli("undo", "--list", "--json").stdout)[0]["at"])
    monkeypatch.setenv("MEMORYD_NOW", clock.iso(at + timedelta(days=29)))
    out = cli("decay-sweep", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["trash_emptied"] == 0 and list(trash.rglob(f"{drop}.md"))

    monkeypatch.setenv("MEMORYD_NOW", clock.iso(at + timedelta(days=31)))
    out = cli("decay-sweep", "--dry-run", "--json")  # says what would go, removes nothing
    assert json.loads(out.stdout)["trash_emptied"] == 1 and list(trash.rglob(f"{drop}.md"))
    assert json.loads(cli("audit", "--event-type", "trash_emptied", "--json").stdout) == []
    out = cli("decay-sweep", "--json")
    assert json.loads(out.stdout)["trash_emptied"] == 1
    assert not list(trash.rglob("*.md"))
    (event,) = json.loads(cli("audit", "--event-type", "trash_emptied", "--json").stdout)
    assert json.loads(event["details"])["entries"] == 1
    one_line_error(cli("undo"), 2, "trash it needs was emptied")
    assert cli("get", keep).returncode == 0


def test_not_duplicates_hides_the_group_until_undone(cli, project: Path):
    body = "Lint with ruff, format with ruff format."
    a = record(cli, project, "Linting", body)
    b = record(cli, project, "Formatting", body)

    def groups() -> list[set[str]]:
        d = json.loads(cli("digest", "--json").stdout)
        return [{m["slug"] for m in g["memories"]} for g in d["duplicates"]]

    assert groups() == [{a, b}]
    one_line_error(cli("not-duplicates", a), 2, "at least two")
    one_line_error(cli("not-duplicates", a, "no-such-slug"), 1, "no-such-slug")
    out = cli("not-duplicates", a, b, "--json")
    assert out.returncode == 0, out.stderr
    action = json.loads(out.stdout)["action"]
    assert groups() == []
    one_line_error(cli("not-duplicates", b, a), 2, "already marked")
    (event,) = json.loads(cli("audit", "--event-type", "not_duplicates", "--json").stdout)
    assert json.loads(event["details"])["slugs"] == sorted([a, b])

    # A third copy makes a new group: proposed again.
    c = record(cli, project, "Ruff", body)
    assert groups() == [{a, b, c}]
    assert cli("forget", c).returncode == 0
    assert groups() == []

    assert cli("undo", str(action)).returncode == 0
    assert groups() == [{a, b}]
    assert json.loads(_undo_events(cli)[0]["details"])["undid"] == "not_duplicates"
    _verified(cli)


def test_large_groups_are_refused_and_events_stay_small(cli, project: Path, isolated_home: Path):
    """Thousands of slugs once made one 273 KB audit line that stopped every later write.
    An absurd group is refused in one line; an allowed one logs a bounded event."""
    from memoryd.governance import duplicates

    too_many = [
        f"fact-some-long-slug-about-the-payments-pipeline-{i:04d}" for i in range(duplicates.MAX_GROUP + 1)
    ]
    one_line_error(cli("not-duplicates", *too_many), 2, "at most")
    one_line_error(cli("merge", "--keep", "keeper", "--drop", *too_many), 2, "at most")

    app = Memoryd()
    title = "Longish title about configuring the build pipeline for the payments service cluster"
    made = [
        app.record("fact", f"{title} {i}", f"body {i} w{i}x", scope_path=project)[0].meta.slug
        for i in range(40)
    ]
    out = cli("not-duplicates", *made)
    assert out.returncode == 0, out.stderr
    line = (isolated_home / "audit" / "audit.jsonl").read_bytes().splitlines()[-1]
    event = json.loads(line)
    assert event["event_type"] == "not_duplicates"
    details = json.loads(event["details"])
    # not the first in order: the event names that one again as its target
    probe = sorted(made)[5]
    assert event["target_id"] == sorted(made)[0]
    assert details["count"] == 40 and probe not in details["dedupe"]
    assert line.count(probe.encode()) == 1
    assert (
        cli("record", "--type", "fact", "--title", "after", "--scope", str(project), stdin="x").returncode
        == 0
    )
    _verified(cli)


def test_merge_and_undo_after_an_index_rebuild_are_audited(cli, project: Path, isolated_home: Path):
    """Review action ids live in the index: after `rm index.db*; reindex` they restart at
    1. A dedupe key built from them made a new merge and its undo look like retries of
    the old ones, and neither was logged."""
    body = "Use pnpm, never npm, in this repository."
    a = record(cli, project, "Package manager", body)
    b = record(cli, project, "Which package manager", body)

    def count(kind: str) -> int:
        return len(json.loads(cli("audit", "--event-type", kind, "--json").stdout))

    assert cli("merge", "--keep", a, "--drop", b).returncode == 0
    assert cli("undo").returncode == 0
    assert (count("merge"), count("undo")) == (1, 1)
    for p in isolated_home.glob("index.db*"):
        p.unlink()
    assert cli("reindex").returncode == 0, "reindex"
    assert cli("merge", "--keep", a, "--drop", b).returncode == 0
    assert cli("undo").returncode == 0
    assert (count("merge"), count("undo")) == (2, 2)
    _verified(cli)


def test_a_decision_on_a_new_proposal_after_an_index_rebuild_is_audited(
    cli, project: Path, tmp_path: Path, isolated_home: Path
):
    """Promotions live in the index: after `rm index.db*; reindex` a new proposal gets an
    id an old one had. Its rejection is a new decision, not a retry of the old one."""
    first = _proposal(cli, project, tmp_path, "rebuild-1")
    assert cli("reject", str(first)).returncode == 0
    for p in isolated_home.glob("index.db*"):
        p.unlink()
    assert cli("reindex").returncode == 0, "reindex"
    second = _proposal(cli, project, tmp_path, "rebuild-2")
    assert second == first, "the id is reused after a rebuild (what this test is about)"
    assert cli("reject", str(second)).returncode == 0
    assert len(json.loads(cli("audit", "--event-type", "reject", "--json").stdout)) == 2
    _verified(cli)


def _merged(cli, project: Path, isolated_home: Path) -> tuple[str, str, Path]:
    body = "Release notes go in CHANGELOG.md under Unreleased."
    keep = record(cli, project, "Changelog", body)
    drop = record(cli, project, "Release notes", body)
    assert cli("merge", "--keep", keep, "--drop", drop).returncode == 0
    (entry,) = (isolated_home / "trash").iterdir()
    return keep, drop, entry


def _everything(home: Path) -> dict[str, str]:
    return {
        p.relative_to(home).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted([*home.glob("scopes/*/*/*"), *home.rglob("trash/**/*")])
        if p.is_file() and not p.name.startswith(".")
    }


def test_undo_merge_refuses_a_damaged_copy_and_changes_nothing(cli, project: Path, isolated_home: Path):
    """A garbage `before/` copy once overwrote the kept memory, moved the dropped file back
    without rows and logged the undo before failing."""
    keep, drop, entry = _merged(cli, project, isolated_home)
    (copy,) = (entry / "before").rglob("*.md")
    copy.write_bytes(b"\x00garbage, not a memory\n")
    state = _everything(isolated_home)
    one_line_error(cli("undo"), 2, "does not open")
    assert _everything(isolated_home) == state and _undo_events(cli) == []
    assert cli("get", keep).returncode == 0 and cli("get", drop).returncode == 1

    copy.unlink()
    state = _everything(isolated_home)
    one_line_error(cli("undo"), 2, "lacks")
    assert _everything(isolated_home) == state and _undo_events(cli) == []


def test_undo_merge_with_a_dropped_file_missing_needs_force(cli, project: Path, isolated_home: Path):
    keep, drop, entry = _merged(cli, project, isolated_home)
    (dropped,) = (entry / "files").rglob("*.md")
    dropped.unlink()
    state = _everything(isolated_home)
    one_line_error(cli("undo"), 2, drop, "--force")
    assert _everything(isolated_home) == state and _undo_events(cli) == []
    out = cli("undo", "--force")
    assert out.returncode == 0, out.stderr
    assert f"not restored: {drop}" in out.stdout
    (event,) = _undo_events(cli)
    assert json.loads(event["details"])["missing"] == [drop]
    assert cli("get", keep).returncode == 0 and cli("get", drop).returncode == 1
    _verified(cli)


def test_undo_approve_refused_even_forced_while_a_later_merge_kept_the_memory(
    cli, project: Path, tmp_path: Path, isolated_home: Path
):
    """Trashing a memory that absorbed a merge made the merge impossible to undo and left
    the dropped memory only in the trash: undo that merge first."""
    pid = _proposal(cli, project, tmp_path, "undo-approve-3")
    slug = json.loads(cli("promote", str(pid), "--json").stdout)["slug"]
    other = record(cli, project, "Package manager note", "pnpm, not npm.")
    assert cli("merge", "--keep", slug, "--drop", other).returncode == 0
    approve, merge = sorted(json.loads(cli("undo", "--list", "--json").stdout), key=lambda a: a["id"])
    state = _files(isolated_home)
    for extra in ((), ("--force",)):
        one_line_error(cli("undo", str(approve["id"]), *extra), 2, f"memoryd undo {merge['id']}")
    assert _files(isolated_home) == state and _undo_events(cli) == []
    assert _status(pid) == "approved"
    assert cli("undo", str(merge["id"])).returncode == 0
    out = cli("undo", str(approve["id"]))
    assert out.returncode == 0, out.stderr
    assert _status(pid) == "pending" and cli("get", other).returncode == 0
    _verified(cli)


def test_undo_keeps_to_the_home_whatever_the_index_says(
    cli, project: Path, tmp_path: Path, isolated_home: Path
):
    """Paths and trash entry names come from the index: a hand-edited one made undo write
    outside the data directory. Refused in one line; nothing moves."""
    import sqlite3

    keep, drop, entry = _merged(cli, project, isolated_home)
    (dropped,) = (entry / "files").rglob("*.md")
    evil = f"../../elsewhere/{dropped.name}"  # opens as the dropped memory would
    planted = entry / "files" / evil
    planted.parent.mkdir(parents=True)
    planted.write_bytes(dropped.read_bytes())
    con = sqlite3.connect(isolated_home / "index.db")
    detail = json.loads(con.execute("SELECT detail FROM review_actions WHERE kind = 'merge'").fetchone()[0])
    detail["dropped"][0]["body_path"] = evil
    con.execute("UPDATE review_actions SET detail = ? WHERE kind = 'merge'", (json.dumps(detail),))
    con.commit()
    state = _everything(isolated_home)
    one_line_error(cli("undo"), 2, "outside the data directory")
    assert not (isolated_home / evil).exists() and _everything(isolated_home) == state
    assert _undo_events(cli) == []

    detail["dropped"][0]["body_path"] = dropped.relative_to(entry / "files").as_posix()
    detail["trash"] = "../" + entry.name
    con.execute("UPDATE review_actions SET detail = ? WHERE kind = 'merge'", (json.dumps(detail),))
    con.commit()
    con.close()
    one_line_error(cli("undo"), 2)
    assert _everything(isolated_home) == state and _undo_events(cli) == []
    assert cli("get", keep).returncode == 0 and cli("get", drop).returncode == 1


def test_a_file_named_trash_is_aone_line_error(cli, project: Path, isolated_home: Path):
    body = "Ship on green CI only."
    keep = record(cli, project, "Shipping", body)
    drop = record(cli, project, "Ship rule", body)
    (isolated_home / "trash").write_text("not a folder")
    state = _files(isolated_home)
    one_line_error(cli("merge", "--keep", keep, "--drop", drop), 2, "trash")
    assert _files(isolated_home) == state and cli("get", drop).returncode == 0
