"""What the first review of sync found, each kept from coming back: an edit made while a
sync runs, a kill that left a forget half-applied, a lost state file, hand-made or
damaged files in the folder, a forget and a later recall on two devices, and export of a
linked project."""

from __future__ import annotations

import json
from pathlib import Path

from memoryd.sync import local, run

from .homes import at, make_homes, record


def test_an_edit_made_while_a_sync_runs_is_kept(tmp_path, monkeypatch, project, folder, clk):
    """Tried: B's sync, between its scan and its writes, meets an update made by another
    writer to a memory whose counters the sync is about to rewrite (a recall on A)."""
    a, b = make_homes(tmp_path, monkeypatch, "A", "B")
    clk.set(0)
    slug = record(a, project, "Deploy target", "We deploy to fly.io.")
    a.sync(folder)
    b.sync(folder)
    clk.set(10)
    a.app().get(slug)  # a recall: B's sync will rewrite the file's counters
    a.sync(folder)
    real = local.apply_scopes

    def edit_then_continue(store, merged):  # type: ignore[no-untyped-def]
        b.app().update(slug, body="IMPORTANT edit made during the sync.")
        return real(store, merged)

    clk.set(20)
    monkeypatch.setattr(local, "apply_scopes", edit_then_continue)
    b.use()
    report = b.app().sync(folder)
    monkeypatch.setattr(local, "apply_scopes", real)
    assert any("changed during the sync" in why for why in report.skipped)
    for h in (b, a, b, a):
        clk.tick()
        h.sync(folder)
    for h in (a, b):
        assert "IMPORTANT edit" in h.app().get(slug, count_recall=False).doc.body
    assert a.files() == b.files()


def test_a_kill_mid_apply_does_not_undo_a_forget(tmp_path, monkeypatch, project, folder, clk):
    a, b = make_homes(tmp_path, monkeypatch, "A", "B")
    clk.set(0)
    first = record(a, project, "Aaa first", "First body.")
    second = record(a, project, "Zzz second", "Second body.")
    a.sync(folder)
    b.sync(folder)
    clk.set(10)
    a.app().update(first, body="First body, edited.")
    a.app().forget(second)
    a.sync(folder)
    clk.set(20)
    killed = b.cli("sync", "--folder", str(folder), env={"MEMORYD_KILL_AT": "sync:apply@1"})
    assert killed.returncode == -9, killed.stderr
    for h in (b, a, b, a):
        clk.tick()
        h.sync(folder)
    for h in (a, b):
        assert any(f.endswith(f"/forgotten/{second}.md") for f in h.files()), h.name
        assert second not in h.slugs(), h.name
        assert "edited" in h.app().get(first, count_recall=False).doc.body
    assert a.files() == b.files()


def test_a_lost_state_file_is_rebuilt_from_the_files(tmp_path, monkeypatch, project, folder, clk):
    (a,) = make_homes(tmp_path, monkeypatch, "A")
    clk.set(0)
    slugs = {record(a, project, f"Fact {i}", f"Body {i}.") for i in range(3)}
    a.sync(folder)
    (a.path / "sync" / "state.json").unlink()
    a.sync(folder)
    mine = json.loads(next((folder / "memoryd-sync").glob("*.json")).read_text())
    assert set(mine["memories"]) == slugs


def _device_file(folder: Path, memories: dict) -> Path:  # type: ignore[type-arg]
    path = folder / "memoryd-sync" / "ffffffffffffffff.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = {
        "format": "memoryd-memories",
        "version": 1,
        "device": {"id": "ffffffffffffffff"},
        "memories": memories,
    }
    path.write_text(json.dumps(doc))
    return path


def _head(slug: str, content: str, *, scope: str = "0123456789ab", encrypted: bool = False) -> dict:  # type: ignore[type-arg]
    return {
        "rev": "e" * 32,
        "history": [],
        "updated_at": at(5),
        "scope_hash": scope,
        "type": "fact",
        "deleted": False,
        "encrypted": encrypted,
        "content": content,
        "turns": None,
    }


def test_hand_made_files_cannot_write_outside_the_home_or_over_another_memory(
    tmp_path, monkeypatch, project, folder, clk
):
    """Tried: a scope hash with ../ in it, a slug that is not one, content naming another
    memory's slug, a version whose content is not a memory file, bad base64."""
    (a,) = make_homes(tmp_path, monkeypatch, "A")
    clk.set(0)
    mine = record(a, project, "Mine", "My own body.")
    a.sync(folder)
    evil = {
        "2026-04-06-evil-0000": {"heads": [_head("x", "x", scope="../../../../tmp/pwned", encrypted=True)]}
    }
    bad = _device_file(folder, evil)
    report = a.sync(folder)
    assert any("scope_hash" in why for why in report.skipped) and not (tmp_path / "pwned").exists()
    other = (
        f"---\ntitle: Over\nslug: {mine}\ntype: fact\nscope_hash: 0123456789ab\nsource: manual\n"
        f"created_at: '{at(1)}'\n---\nOVERWRITTEN\n"
    )
    _device_file(
        folder,
        {
            "2026-04-06-other-0000": {"heads": [_head("o", other)]},
            "2026-04-06-junk-0000": {"heads": [_head("j", "not a memory file")]},
        },
    )
    report = a.sync(folder)
    assert len(report.skipped) == 2, report.skipped  # each bad version alone
    assert "OVERWRITTEN" not in a.app().get(mine, count_recall=False).doc.body
    _device_file(folder, {"2026-04-06-b64-0000": {"heads": [_head("b", "%%%", encrypted=True)]}})
    report = a.sync(folder)
    assert any("not base64" in why for why in report.skipped)  # the whole file
    # (the versions skipped before stay in the merged state, and are skipped, named, again)
    assert "OVERWRITTEN" not in a.app().get(mine, count_recall=False).doc.body
    bad.unlink()
    report = a.sync(folder)  # the bad versions are not stuck in the state: syncing goes on
    assert a.app().get(mine, count_recall=False).doc.body.startswith("My own body")


def test_a_recall_after_a_forget_elsewhere_keeps_the_memory(tmp_path, monkeypatch, project, folder, clk):
    a, b = make_homes(tmp_path, monkeypatch, "A", "B")
    clk.set(0)
    slug = record(a, project, "Still useful", "Recalled later on B.")
    a.sync(folder)
    b.sync(folder)
    clk.set(60)
    a.app().forget(slug)
    a.sync(folder)  # the forget leaves A (B has not synced since)
    clk.set(120)
    b.app().get(slug)  # a later recall, on the other device
    clk.set(180)
    for h in (a, b, a, b):
        h.sync(folder)
        clk.tick()
    for h in (a, b):
        assert slug in h.slugs(), h.name


def test_export_of_a_linked_project_holds_memories_moved_under_it(tmp_path, monkeypatch, folder, clk):
    (a,) = make_homes(tmp_path, monkeypatch, "A")
    clk.set(0)
    p1, p2 = tmp_path / "p1", tmp_path / "p2"
    p1.mkdir()
    p2.mkdir()
    s1 = record(a, p1, "In one", "Body one.")
    s2 = record(a, p2, "In two", "Body two.")
    h1, h2 = a.app().scope(p1).hash, a.app().scope(p2).hash
    a.app().scope_link(h1, h2)
    out = tmp_path / "p1.json"
    a.app().export_memories(out, scopes=[a.app().scope(p1).hash])
    assert {s1, s2} <= set(json.loads(out.read_text())["memories"])
    assert run.conflicts(tmp_path / "A") == []
