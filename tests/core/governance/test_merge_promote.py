"""promote / reject / merge through the real CLI: files, rows, queue and audit agree."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memoryd.app import Memoryd

from .sessions import REMEMBER, capture


def _record(cli, project: Path, title: str, *triggers: str, tag: str = "t", body: str | None = None) -> str:
    args = ["record", "--type", "fact", "--title", title, "--scope", str(project), "--tag", tag, "--json"]
    for t in triggers:
        args += ["--trigger", t]
    out = cli(*args, stdin=body or f"{title}. Same words for everyone.")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["slug"]


def _one_line_error(out, code: int, *words: str) -> None:
    assert out.returncode == code, (out.returncode, out.stderr)
    assert out.stdout == "" and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    for w in words:
        assert w in out.stderr


def test_merge_absorbs_and_audits_each_dropped(cli, project: Path, isolated_home: Path):
    body = "Staging database is db-2; prod is db-1."
    keep = _record(cli, project, "Staging DB host", "staging", tag="infra", body=body)
    drop1 = _record(cli, project, "DB hosts", "database", "hosts", tag="ops", body=body)
    drop2 = _record(cli, project, "Where staging lives", "db-2", body=body)
    for slug, n in ((drop1, 2), (drop2, 3)):
        for _ in range(n):
            assert cli("get", slug).returncode == 0
    digest = json.loads(cli("digest", "--json").stdout)
    (group,) = digest["duplicates"]
    assert {m["slug"] for m in group["memories"]} == {keep, drop1, drop2}

    out = cli("merge", "--keep", keep, "--drop", drop1, drop2, "--json")
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert res["dropped"] == [drop1, drop2] and res["recalls_added"] == 5
    kept = Memoryd().store.read(keep)[0].meta
    assert kept.triggers == ["staging", "database", "hosts", "db-2"]
    assert kept.tags == ["infra", "ops", "t"]
    assert kept.recall_count == 5
    for gone in (drop1, drop2):
        assert cli("get", gone).returncode == 1
        assert not list((isolated_home / "scopes").rglob(f"{gone}*"))
        assert list((isolated_home / "trash").rglob(f"{gone}.md"))  # kept for `memoryd undo`
    assert json.loads(cli("digest", "--json").stdout)["duplicates"] == []
    hits = json.loads(cli("search", "db-2", "--scope", str(project), "--json").stdout)
    assert [h["slug"] for h in hits] == [keep]

    merges = json.loads(cli("audit", "--event-type", "merge", "--json").stdout)
    assert [(m["target_id"], json.loads(m["details"])["into"]) for m in merges] == [
        (drop1, keep),
        (drop2, keep),
    ]
    verify = cli("audit", "verify", "--json")
    assert verify.returncode == 0 and json.loads(verify.stdout)["ok"]
    assert cli("doctor").returncode == 0


def test_merge_refuses_bad_requests_and_changes_nothing(
    cli, project: Path, tmp_path: Path, isolated_home: Path
):
    a = _record(cli, project, "Alpha note")
    b = _record(cli, project, "Beta note")
    other = tmp_path / "other"
    other.mkdir()
    c = _record(cli, other, "Gamma note")
    before = sorted(p.read_bytes() for p in isolated_home.rglob("*.md"))

    _one_line_error(cli("merge", "--keep", a, "--drop", c), 2, "another scope", "--force")
    _one_line_error(cli("merge", "--keep", a, "--drop", a), 2, "both kept and dropped")
    _one_line_error(cli("merge", "--keep", a, "--drop", b, "no-such-slug"), 1, "no-such-slug")
    _one_line_error(cli("merge", "--keep", a, "--drop", "../escape"), 2, "slug")
    assert sorted(p.read_bytes() for p in isolated_home.rglob("*.md")) == before
    assert json.loads(cli("audit", "--event-type", "merge", "--json").stdout) == []

    assert cli("merge", "--keep", a, "--drop", c, "--force").returncode == 0
    assert cli("get", c).returncode == 1


def test_promote_options_and_errors(cli, project: Path, tmp_path: Path, isolated_home: Path):
    slug = capture(cli, project, tmp_path, "promo-1", [REMEMBER])
    a = json.loads(cli("analyze-session", slug, "--json").stdout)
    pid = a["promotion_id"]
    assert pid

    _one_line_error(cli("promote", "abc"), 2, "number")
    _one_line_error(cli("promote", "999"), 1, "no promotion with id 999")
    _one_line_error(cli("promote", str(pid), "--type", "session"), 2, "invalid choice")

    out = cli("promote", str(pid), "--type", "decision", "--title", "Use pnpm, never npm", "--json")
    assert out.returncode == 0, out.stderr
    promoted = json.loads(out.stdout)
    knowledge = promoted.pop("knowledge")
    assert promoted["slug"].startswith(f"promoted-{pid}-use-pnpm-never-npm-")
    assert promoted == {"id": pid, "slug": promoted["slug"], "type": "decision"}
    # The new decision's entities, by the rules: pnpm chosen, npm replaced ("never npm").
    stance = {e["name"]: e["relation"] for e in knowledge["entities"]}
    assert stance["pnpm"] == "uses" and stance["npm"] == "mentions", knowledge
    doc = Memoryd().store.read(promoted["slug"])[0]
    assert doc.meta.promoted_from == slug and doc.meta.title == "Use pnpm, never npm"
    assert doc.meta.dura_score == a["scores"] and doc.meta.ttl_days is None
    assert (isolated_home / "scopes" / doc.meta.scope_hash / "decisions" / f"{promoted['slug']}.md").exists()

    _one_line_error(cli("promote", str(pid)), 2, "already approved")
    _one_line_error(cli("reject", str(pid)), 2, "already approved")
    (event,) = json.loads(cli("audit", "--event-type", "promote", "--json").stdout)
    assert event["target_id"] == promoted["slug"] and json.loads(event["details"])["promotion"] == pid
    assert cli("audit", "verify").returncode == 0


@pytest.mark.parametrize("status", ["pending", "approved", "rejected"])
def test_promotions_lists_by_status(cli, project: Path, tmp_path: Path, status: str):
    slug = capture(cli, project, tmp_path, f"promo-{status}", [REMEMBER])
    pid = json.loads(cli("analyze-session", slug, "--json").stdout)["promotion_id"]
    if status == "approved":
        assert cli("promote", str(pid)).returncode == 0
    elif status == "rejected":
        assert cli("reject", str(pid)).returncode == 0
    rows = json.loads(cli("promotions", "--status", status, "--json").stdout)
    assert [r["id"] for r in rows] == [pid]
    text = cli("promotions").stdout
    assert text.splitlines()[0].split() == ["ID", "STATUS", "TYPE", "DURA", "TITLE", "FROM"]
    assert status in text
