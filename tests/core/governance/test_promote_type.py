"""`promote --type` is the type every listing shows afterwards (issue 21): `promotions`,
its --json (with the type analysis proposed kept as proposed_type) and the digest."""

from __future__ import annotations

import json
from pathlib import Path

from memoryd.governance.digest import Digest

from .sessions import REMEMBER, capture


def _other_type(proposed: str) -> str:
    return "decision" if proposed != "decision" else "playbook"


def _queued(cli, project: Path, tmp_path: Path, sid: str) -> dict:
    slug = capture(cli, project, tmp_path, sid, [REMEMBER])
    pid = json.loads(cli("analyze-session", slug, "--json").stdout)["promotion_id"]
    assert pid
    (row,) = json.loads(cli("promotions", "--json").stdout)
    assert row["id"] == pid and row["type"] == row["proposed_type"]
    return row


def test_promotions_show_the_type_chosen_at_promote(cli, project: Path, tmp_path: Path):
    row = _queued(cli, project, tmp_path, "type-1")
    proposed = row["proposed_type"]
    chosen = _other_type(proposed)
    out = cli("promote", str(row["id"]), "--type", chosen, "--json")
    assert out.returncode == 0, out.stderr
    slug = json.loads(out.stdout)["slug"]

    (after,) = json.loads(cli("promotions", "--json").stdout)
    assert after["status"] == "approved"
    assert (after["type"], after["proposed_type"], after["decided_type"]) == (chosen, proposed, chosen)

    table = cli("promotions").stdout.splitlines()
    assert table[0].split()[:3] == ["ID", "STATUS", "TYPE"]
    assert table[1].split()[:3] == [str(row["id"]), "approved", chosen], table
    assert proposed not in table[1].split()[:3]

    # The digest lists the memory with its decided type (here in a duplicates group, made
    # by recording another memory with the same body).
    body = json.loads(cli("get", slug, "--json").stdout)["body"]
    rec = cli("record", "--type", "fact", "--title", "The same, by hand", "--scope", str(project), stdin=body)
    assert rec.returncode == 0, rec.stderr
    d = Digest.model_validate_json(cli("digest", "--json").stdout)
    (group,) = d.duplicates
    assert {m.slug: m.type for m in group.memories}[slug] == chosen
    assert "warning" not in {m.type for m in group.memories} - {"fact", chosen}


def test_promote_without_type_keeps_the_proposed_one(cli, project: Path, tmp_path: Path):
    row = _queued(cli, project, tmp_path, "type-2")
    assert cli("promote", str(row["id"])).returncode == 0
    (after,) = json.loads(cli("promotions", "--status", "approved", "--json").stdout)
    assert after["type"] == after["proposed_type"] == row["proposed_type"]


def test_rejected_and_pending_keep_the_proposed_type(cli, project: Path, tmp_path: Path):
    row = _queued(cli, project, tmp_path, "type-3")
    assert row["decided_type"] is None
    assert cli("reject", str(row["id"])).returncode == 0
    (after,) = json.loads(cli("promotions", "--json").stdout)
    assert after["decided_type"] is None and after["type"] == after["proposed_type"]
