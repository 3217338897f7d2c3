"""memoryd sync through a shared folder, with two or three data directories standing in
for devices: stores converge whatever the order, concurrent edits keep both versions,
deletions and recalls travel, each device audits its own syncs, a sync killed at any
point is finished by the next, and bad files in the folder are skipped."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from memoryd import clock, frontmatter
from tests.core.sensitive.support import one_line_error

from .homes import (
    Clock,
    Home,
    at,
    capture,
    copy_world,
    diff,
    make_homes,
    record,
    sync_round,
    sync_until_stable,
)

REMEMBER_A = (
    "Remember: in this repo always use pnpm, never npm. This is important for the lockfile.",
    "Understood: pnpm only; I switched the scripts in package.json to pnpm.",
)
REMEMBER_B = (
    "Remember: from now on we deploy with ansible, never by hand. This is important.",
    "OK, ansible only from now on.",
)
ROUTINE = ("what does the parse function return", "It returns the parsed config as a dict.")


def _search(home: Home, word: str) -> list[tuple[str, str, float]]:
    return [(r.slug, r.title, r.score) for r in home.app().search(word, scopes=None)]


def _assert_same_files(homes: list[Home]) -> dict[str, bytes]:
    first = homes[0].files()
    assert first
    for h in homes[1:]:
        other = h.files()
        assert other == first, (homes[0].name, h.name, diff(first, other))
    return first


def _doc(home: Home, slug: str):
    """The memory's file, parsed (wherever it is: alive, dim or forgotten)."""
    (path,) = [p for p in home.path.glob(f"scopes/*/*/{slug}.md")]
    return frontmatter.parse(path.read_text(encoding="utf-8"), where=str(path))


def _path_of(home: Home, slug: str) -> str | None:
    found = [k for k in home.files() if k.endswith(f"/{slug}.md") or k.endswith(f"/{slug}.md.enc")]
    assert len(found) <= 1, found
    return found[0] if found else None


# -- acceptance -------------------------------------------------------------------------
def test_two_devices_converge(tmp_path: Path, monkeypatch, project: Path, folder: Path, clk: Clock):
    """Captures, records, a promotion and a forget on each side; after A, B, A, B the two
    stores are the same, file for file, and answer searches the same."""
    a, b = make_homes(tmp_path, monkeypatch, "A", "B")
    transcripts = tmp_path / "transcripts"
    made: dict[str, dict[str, str]] = {}
    for home, remember, words in ((a, REMEMBER_A, "pnpm"), (b, REMEMBER_B, "ansible")):
        clk.tick()
        session = capture(home, project, transcripts, f"sess-{home.name}", [remember])
        routine = capture(home, project, transcripts, f"routine-{home.name}", [ROUTINE])
        clk.tick()
        rec = record(home, project, f"Staging host {home.name}", f"Staging for {words} is db-{home.name}.")
        doomed = record(home, project, f"Scratch note {home.name}", f"Scratch {words} note to forget.")
        clk.tick()
        app = home.app()
        analysis = app.analyze_session(session)
        assert analysis.promotion_id, analysis
        promoted, _ = app.promote(analysis.promotion_id)
        clk.tick()
        home.app().forget(doomed)
        made[home.name] = {
            "session": session,
            "routine": routine,
            "record": rec,
            "doomed": doomed,
            "promoted": promoted.meta.slug,
        }
    # Distinct memories on each side: nothing here is one slug on two devices.
    assert not set(made["A"].values()) & set(made["B"].values())

    for home in (a, b, a, b):
        clk.tick()
        report = home.sync(folder)
        assert report.skipped == [] and report.conflicts == 0

    files = _assert_same_files([a, b])
    everything = {s for m in made.values() for s in m.values()}
    doomed = {made["A"]["doomed"], made["B"]["doomed"]}
    for home in (a, b):
        alive = home.slugs()
        assert alive == everything - doomed, home.name
        assert home.slugs(forgotten=True) == alive, home.name  # forgotten ones leave the index
        assert home.app().audit_verify().ok
    for m in made.values():
        (gone,) = [p for p in files if f"/{m['doomed']}." in p]
        assert "/forgotten/" in gone
        turns = [p for p in files if m["session"] in p and p.endswith(".turns.jsonl")]
        assert len(turns) == 1, turns
    # Both sides searched at the same instant (a search counts recalls: it writes files).
    clk.tick()
    assert not {s for s, _, _ in _search(a, "scratch")} & doomed
    assert not {s for s, _, _ in _search(b, "scratch")} & doomed
    for word in ("pnpm", "ansible", "lockfile", "db-A", "staging"):
        hits_a, hits_b = _search(a, word), _search(b, word)
        assert hits_a, word
        # Same memories in the same order; the scores up to float noise: each device
        # derives its own vectors and keyword statistics, and on a fresh machine on
        # 2026-11-28 (numpy 2.4.6) one score came out 1.0546 on one side, 1.0547 on the other.
        assert [h[:2] for h in hits_a] == [h[:2] for h in hits_b], word
        assert [h[2] for h in hits_a] == pytest.approx([h[2] for h in hits_b], abs=1e-3), word


# -- three devices, every order ---------------------------------------------------------
def _three_device_world(root: Path, mp: pytest.MonkeyPatch, clk: Clock, project: Path) -> dict[str, str]:
    """A, B and C share a start (synced), then each changes things on its own: one memory
    edited on A and on B, one forgotten on B, one merged away on C, recalls on all three,
    a new memory on each. Returns the slugs by role."""
    a, b, c = make_homes(root, mp, "A", "B", "C")
    folder = root / "Sync"
    folder.mkdir(parents=True)
    clk.set(0)
    s = {
        "shared": record(a, project, "Release plan", "Release on Fridays after the smoke tests."),
        "doomed": record(a, project, "Old build step", "Run make bootstrap before building."),
        "hot": record(a, project, "Cache policy", "Cache API responses for five minutes."),
        "keep": record(c, project, "Lint rule", "Lint with ruff, line length 110."),
        "dup": record(c, project, "Lint rule again", "Lint with ruff, line length 110."),
    }
    sync_until_stable([a, b, c], folder, clk)
    clk.set(100)
    a.app().update(s["shared"], body="Release on Thursdays (A's plan).")
    for _ in range(2):
        a.app().get(s["hot"])
    s["new_a"] = record(a, project, "Tracing", "Trace with OpenTelemetry.")
    clk.set(110)
    b.app().update(s["shared"], body="Release on Mondays (B's plan).")
    b.app().forget(s["doomed"])
    b.app().get(s["hot"])
    b.app().get(s["keep"])
    s["new_b"] = record(b, project, "Metrics", "Export metrics to Prometheus.")
    clk.set(120)
    res, _ = c.app().merge(s["keep"], [s["dup"]])
    assert list(res.dropped) == [s["dup"]]
    for _ in range(3):
        c.app().get(s["hot"])
    s["new_c"] = record(c, project, "Logging", "Log as JSON lines.")
    return s


def test_three_devices_every_order_converge(tmp_path: Path, monkeypatch, project: Path, clk: Clock):
    template = tmp_path / "template"
    slugs = _three_device_world(template, monkeypatch, clk, project)
    base_hot = _doc(make_homes(template, monkeypatch, "A")[0], slugs["hot"]).meta.recall_count - 2
    work = tmp_path / "work"
    ends: dict[tuple[str, ...], dict[str, bytes]] = {}
    for order in itertools.permutations("ABC"):
        copy_world(template, work)
        homes = {h.name: h for h in make_homes(work, monkeypatch, "A", "B", "C")}
        clk.set(200)
        ordered = [homes[n] for n in order]
        sync_round(ordered, work / "Sync", clk)
        sync_until_stable(ordered, work / "Sync", clk)
        ends[order] = _assert_same_files(list(homes.values()))
        for h in homes.values():
            assert _doc(h, slugs["shared"]).body == "Release on Mondays (B's plan).\n", order
            (row,) = h.app().sync_conflicts()
            assert row["slug"] == slugs["shared"] and len(row["copies"]) == 1
            assert "/forgotten/" in (_path_of(h, slugs["doomed"]) or "")
            assert _path_of(h, slugs["dup"]) is None
            assert _doc(h, slugs["hot"]).meta.recall_count == base_hot + 6, (order, h.name)
            assert {slugs["new_a"], slugs["new_b"], slugs["new_c"], slugs["keep"]} <= h.slugs()
    first = next(iter(ends.values()))
    for order, files in ends.items():
        assert files == first, (order, diff(first, files))


# -- concurrent edits -------------------------------------------------------------------
def test_concurrent_edits_keep_both(tmp_path: Path, monkeypatch, project: Path, folder: Path, clk: Clock):
    a, b = make_homes(tmp_path, monkeypatch, "A", "B")
    slug = record(a, project, "Deploy window", "Deploy between 9 and 11.")
    for h in (a, b):
        clk.tick()
        h.sync(folder)
    clk.set(50)
    a.app().update(slug, body="Deploy between 14 and 16 (from A).")
    clk.set(60)
    b.app().update(slug, body="Deploy only on Tuesdays (from B).")
    for h in (a, b, a, b):
        clk.tick()
        h.sync(folder)

    _assert_same_files([a, b])
    copies = {}
    for h in (a, b):
        assert _doc(h, slug).body == "Deploy only on Tuesdays (from B).\n"
        (row,) = h.main_json("sync", "--conflicts")
        assert row["slug"] == slug and row["kept"]["title"] == "Deploy window"
        (copy,) = row["copies"]
        assert copy["updated_at"] < row["kept"]["updated_at"] and not copy["deleted"]
        copies[h.name] = copy["rev"]
        code, out, err = h.main("sync", "--show", slug)
        assert code == 0, err
        assert "from A" in out and "from B" in out and out.index("from B") < out.index("from A")
        digest = h.main_json("digest")
        assert "sync_conflicts" in digest, "the digest has no sync_conflicts field"
        assert [c["slug"] for c in digest["sync_conflicts"]] == [slug]
    assert copies["A"] == copies["B"]

    clk.tick()
    code, out, err = a.main("sync", "--resolve", slug, "--take", copies["A"][:8])
    assert code == 0 and slug in out, err
    assert _doc(a, slug).body == "Deploy between 14 and 16 (from A).\n"
    assert a.app().sync_conflicts() == []
    for h in (a, b, a, b):
        clk.tick()
        h.sync(folder)
    _assert_same_files([a, b])
    for h in (a, b):
        assert h.app().sync_conflicts() == [], h.name
        assert h.main_json("digest")["sync_conflicts"] == []
        assert _doc(h, slug).body == "Deploy between 14 and 16 (from A).\n"
        code, _, err = h.main("sync", "--show", slug)
        assert code == 1 and "no conflict copies" in err
        assert [r.slug for r in h.app().search("tuesdays", scopes=None)] == []
        assert [r.slug for r in h.app().search("deploy", scopes=None)] == [slug]
    assert [e.event_type for e in a.app().audit_events(event_type="sync_resolve")] == ["sync_resolve"]
    assert b.app().audit_events(event_type="sync_resolve") == []


# -- deletions --------------------------------------------------------------------------
def test_tombstones(tmp_path: Path, monkeypatch, project: Path, folder: Path, clk: Clock):
    a, b = make_homes(tmp_path, monkeypatch, "A", "B")
    forgotten = record(a, project, "Temp token", "The temp token rotates hourly.")
    keep = record(a, project, "Staging DB", "Staging database is db-2.")
    dup = record(a, project, "DB hosts", "Staging database is db-2.")
    raced = record(a, project, "Queue host", "The queue runs on mq-1.")
    for h in (a, b):
        clk.tick()
        h.sync(folder)
    assert raced in b.slugs() and dup in b.slugs()

    clk.set(50)
    a.app().forget(forgotten)
    res, _ = a.app().merge(keep, [dup, raced])  # hard deletes on A
    assert list(res.dropped) == [dup, raced]
    clk.set(55)
    b.app().update(raced, body="The queue moved to mq-7 (edited on B).")
    for h in (a, b, a, b):
        clk.tick()
        h.sync(folder)

    _assert_same_files([a, b])
    for h in (a, b):
        assert "/forgotten/" in (_path_of(h, forgotten) or ""), h.name
        assert forgotten not in h.slugs(forgotten=True)
        assert _path_of(h, dup) is None and dup not in h.slugs(forgotten=True), h.name
        code, _, err = h.main("get", dup)
        assert code == 1 and "Traceback" not in err
        assert _doc(h, keep).meta.title == "Staging DB"
    # The edit made on B while A deleted the memory is not lost. The deletion wins the
    # file (a tombstone is stamped when the deleting device syncs, after B's edit), and
    # the edit stays as a conflict copy that --show prints and --resolve brings back.
    edit = "mq-7 (edited on B)"
    for h in (a, b):
        assert _path_of(h, raced) is None and raced not in h.slugs(), h.name
        (row,) = h.app().sync_conflicts()
        assert row["slug"] == raced and row["kept"]["deleted"], h.name
        (copy,) = row["copies"]
        assert not copy["deleted"] and copy["title"] == "Queue host"
        shown = h.app().sync_show(raced)
        assert [v["kept"] for v in shown] == [True, False]
        assert edit in shown[1]["content"]
        # a version as a person compares it; a deleted one has nothing to read
        assert shown[0]["fields"] is None
        assert shown[1]["fields"]["title"] == "Queue host" and edit in shown[1]["fields"]["body"]
        assert "updated_at" not in shown[1]["fields"]["body"]
    code, out, err = b.main("sync", "--show", raced)
    assert code == 0 and edit in out and "deleted" in out.splitlines()[0], (out, err)
    clk.tick()
    code, out, err = b.main("sync", "--resolve", raced, "--take", copy["rev"][:10])
    assert code == 0, err
    for h in (b, a, b, a):
        clk.tick()
        h.sync(folder)
    _assert_same_files([a, b])
    for h in (a, b):
        assert edit in _doc(h, raced).body and raced in h.slugs(), h.name
        assert h.app().sync_conflicts() == []
        assert [r.slug for r in h.app().search("mq-7", scopes=None)] == [raced]
        assert _path_of(h, dup) is None  # the other deletion stands


# -- counters ---------------------------------------------------------------------------
def test_recall_counts_add(tmp_path: Path, monkeypatch, project: Path, folder: Path, clk: Clock):
    a, b = make_homes(tmp_path, monkeypatch, "A", "B")
    slug = record(a, project, "Pager rota", "The pager rota is in the wiki.")
    a.app().get(slug)
    for h in (a, b):
        clk.tick()
        h.sync(folder)
    base = _doc(b, slug).meta.recall_count
    assert base == _doc(a, slug).meta.recall_count == 1
    clk.set(30)
    for _ in range(2):
        a.app().get(slug)
    clk.set(40)
    for _ in range(3):
        b.app().get(slug)
    for h in (a, b, a, b):
        clk.tick()
        h.sync(folder)
    _assert_same_files([a, b])
    for h in (a, b):
        meta = _doc(h, slug).meta
        assert meta.recall_count == base + 5, h.name
        assert clock.iso(meta.last_recalled_at) == at(40)
        (row,) = [r for r in h.app().list(scopes=None) if r["slug"] == slug]
        assert row["recall_count"] == base + 5
    assert a.app().sync_conflicts() == []


# -- audit ------------------------------------------------------------------------------
def test_each_sync_is_one_event_on_its_own_device(
    tmp_path: Path, monkeypatch, project: Path, folder: Path, clk: Clock
):
    a, b = make_homes(tmp_path, monkeypatch, "A", "B")
    record(a, project, "Alpha", "Alpha body.")
    record(b, project, "Beta", "Beta body.")
    for h, other in ((a, b), (b, a), (a, b), (b, a)):
        clk.tick()
        mine, theirs = h.audit_types(), other.audit_types()
        report = h.sync(folder)
        after = h.audit_types()
        assert after[: len(mine)] == mine and after[len(mine) :] == ["sync"], h.name
        assert other.audit_types() == theirs
        event = h.app().audit_events(event_type="sync")[-1]
        details = event.details_obj
        assert details["device"] == report.device
        assert (details["sent"], details["received"]) == (report.sent, report.received)
    for h in (a, b):
        assert h.app().audit_verify().ok
        listed = h.main_json("audit", "--event-type", "sync")
        assert len(listed) == 2
        code, out, err = h.main("audit", "verify")
        assert code == 0, (out, err)
    first_a = a.app().audit_events(event_type="sync")[0]
    details = first_a.details_obj
    assert details["sent"] == 1 and details["received"] == 0


# -- kill mid-sync ----------------------------------------------------------------------
def _kill_world(root: Path, mp: pytest.MonkeyPatch, clk: Clock, project: Path) -> dict[str, str]:
    """A and B in step, then each changes things; B has synced its changes, A has not."""
    a, b = make_homes(root, mp, "A", "B")
    folder = root / "Sync"
    folder.mkdir(parents=True)
    clk.set(0)
    s = {f"a{i}": record(a, project, f"Alpha fact {i}", f"Alpha body {i}.") for i in range(3)}
    s |= {f"b{i}": record(b, project, f"Beta fact {i}", f"Beta body {i}.") for i in range(2)}
    for h in (a, b, a):
        clk.tick()
        h.sync(folder)
    clk.set(50)
    for i in range(3):
        s[f"b-new{i}"] = record(b, project, f"Gamma fact {i}", f"Gamma body {i}.")
    b.app().update(s["a0"], body="Alpha body 0, edited on B.")
    for _ in range(3):
        b.app().get(s["b0"])
    b.app().get(s["a1"])
    clk.set(60)
    a.app().update(s["a2"], body="Alpha body 2, edited on A.")
    a.app().get(s["a1"])
    s["a-new"] = record(a, project, "Delta fact", "Delta body.")
    clk.set(70)
    b.sync(folder)
    return s


@pytest.mark.parametrize(
    "point", ["sync:apply@1", "sync:apply@3", "sync:merged", "sync:applied", "sync:written"]
)
def test_killed_sync_is_finished_by_the_next(
    tmp_path: Path, monkeypatch, project: Path, clk: Clock, point: str
):
    world, ref = tmp_path / "world", tmp_path / "reference"
    slugs = _kill_world(world, monkeypatch, clk, project)
    copy_world(world, ref)
    ra, rb = make_homes(ref, monkeypatch, "A", "B")
    clk.set(80)  # every sync from here on, killed or not, runs at this instant
    assert ra.sync(ref / "Sync").received >= 4  # so apply@3 is in the middle of the run
    rb.sync(ref / "Sync")
    ra.sync(ref / "Sync")
    want = {"A": ra.files(), "B": rb.files()}

    a, b = make_homes(world, monkeypatch, "A", "B")
    before = a.audit_types().count("sync")
    killed = a.cli("sync", "--folder", str(world / "Sync"), env={"MEMORYD_KILL_AT": point})
    assert killed.returncode == -9, (killed.returncode, killed.stdout, killed.stderr)
    assert a.audit_types().count("sync") == before  # the killed run logged nothing
    for h in (a, b, a):
        h.sync(world / "Sync")
    got = {"A": a.files(), "B": b.files()}
    assert got["A"] == got["B"], diff(got["A"], got["B"])
    assert got["A"] == want["A"], diff(want["A"], got["A"])  # left: without the kill
    assert got["B"] == want["B"], diff(want["B"], got["B"])
    for h in (a, b):
        assert set(slugs.values()) <= h.slugs(), h.name
        assert "edited on B" in _doc(h, slugs["a0"]).body and "edited on A" in _doc(h, slugs["a2"]).body
        assert _doc(h, slugs["b0"]).meta.recall_count == 3
        assert _doc(h, slugs["a1"]).meta.recall_count == 2
        assert h.app().sync_conflicts() == []
        assert h.app().audit_verify().ok
    assert a.audit_types().count("sync") == before + 2


# -- bad input --------------------------------------------------------------------------
def test_bad_folders_and_files(tmp_path: Path, monkeypatch, project: Path, folder: Path, clk: Clock):
    a, b = make_homes(tmp_path, monkeypatch, "A", "B")
    mine = record(a, project, "Alpha", "Alpha body.")
    theirs = record(b, project, "Beta", "Beta body.")
    b.sync(folder)

    out = a.cli("sync", "--folder", str(tmp_path / "no-such-folder"))
    one_line_error(out, 2, "does not exist")
    out = a.cli("sync")
    one_line_error(out, 2, "no sync folder")
    code, _, err = a.main("sync", "--take", "abc")
    assert code == 2 and "--resolve" in err and err.count("\n") == 1

    shared = folder / "memoryd-sync"
    (good,) = shared.glob("*.json")
    text = good.read_text()
    (shared / "garbage.json").write_text("this is not json {")
    (shared / "other.json").write_text(json.dumps({"format": "something-else", "version": 1}))
    (shared / "future.json").write_text(json.dumps({**json.loads(text), "version": 99}))
    (shared / "cut.json").write_text(text[: len(text) // 2])
    (shared / "binary.json").write_bytes(b"\xff\xfe\x00garbage")
    (shared / "heads.json").write_text(
        json.dumps({"format": "memoryd-memories", "version": 1, "memories": {"x": {"heads": []}}})
    )
    (shared / "README.txt").write_text("not a device file")
    out = a.cli("sync", "--folder", str(folder))
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr and out.stderr == ""
    skipped = [line for line in out.stdout.splitlines() if line.strip().startswith("skipped")]
    assert len(skipped) == 6, out.stdout
    for name in ("garbage", "other", "future", "cut", "binary", "heads"):
        (line,) = [x for x in skipped if f"{name}.json" in x]
        assert len(line) < 300
    assert "version 99 is newer" in out.stdout and "synced with 1 other device" in out.stdout
    assert {mine, theirs} <= a.slugs()
    assert a.app().audit_verify().ok


# -- names made on two devices -----------------------------------------------------------
def test_independent_promotions_stay_two_memories(
    tmp_path: Path, monkeypatch, project: Path, folder: Path, clk: Clock
):
    """Each device promotes its own first proposal; the same lesson learnt twice (same
    words, other sessions) is two memories after a sync, not one with a conflict copy."""
    a, b = make_homes(tmp_path, monkeypatch, "A", "B")
    promoted = {}
    for h, sid in ((a, "laptop-session"), (b, "desktop-session")):
        clk.tick()
        session = capture(h, project, tmp_path / "transcripts", sid, [REMEMBER_A])
        app = h.app()
        doc, _ = app.promote(app.analyze_session(session).promotion_id)
        promoted[h.name] = (doc.meta.slug, session)
    for h in (a, b, a, b):
        clk.tick()
        h.sync(folder)
    _assert_same_files([a, b])
    for h in (a, b):
        assert h.app().sync_conflicts() == [], (h.name, promoted)
        sources = {d.meta.promoted_from for d in (_doc(h, s) for s in h.slugs() if s.startswith("promoted-"))}
        assert sources == {promoted["A"][1], promoted["B"][1]}, (h.name, promoted)
