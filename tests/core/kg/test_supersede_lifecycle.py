"""What happens to a supersede after it was made (seed 001 section 5), end to end through
the real CLI with the rules judge: `memoryd supersede undo`, the successor forgotten or
merged away, and `memoryd reindex` after a supersede cut short or taken back by hand."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

MAY, NOV, DEC = "2026-05-01T09:00:00Z", "2026-11-01T09:00:00Z", "2026-12-01T09:00:00Z"
REACT = ("Prefer React for the frontend framework", "I prefer React for frontend framework work.")
SOLID = ("Frontend: Solid now", "We switched from React to Solid for the frontend framework.")
SOLID_AGAIN = ("Solid for the frontend framework, confirmed", "Solid stays for the UI layer.")
QUERY = "frontend framework"


# -- helpers (small copies of tests/core/kg/test_supersedes.py's) ------------------------
def _at(monkeypatch, when: str) -> None:
    monkeypatch.setenv("MEMORYD_NOW", when)


def _json(out) -> Any:
    assert out.returncode == 0, (out.returncode, out.stdout, out.stderr)
    return json.loads(out.stdout)


def _one_line_error(out, code: int, *words: str) -> None:
    assert out.returncode == code, (out.returncode, out.stdout, out.stderr)
    assert out.stdout == "", out.stdout
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr
    for w in words:
        assert w in out.stderr, (w, out.stderr)


def _ok(out) -> None:
    assert out.returncode == 0, (out.returncode, out.stdout, out.stderr)


def _record(cli, project: Path, title: str, body: str) -> dict[str, Any]:
    args = ("--type", "preference", "--title", title, "--body", body, "--scope", str(project))
    return _json(cli("record", *args, "--json"))


def _react_then_solid(cli, project: Path, monkeypatch) -> tuple[str, str]:
    """React on 2026-05-01, Solid on 2026-11-01: the rules say Solid replaces React."""
    _at(monkeypatch, MAY)
    react = _record(cli, project, *REACT)["slug"]
    _at(monkeypatch, NOV)
    second = _record(cli, project, *SOLID)
    (j,) = second["knowledge"]["judgements"]
    assert (j["older"], j["confidence"], j["outcome"]) == (react, 0.9, "superseded"), second
    return react, second["slug"]


def _path(home: Path, slug: str) -> Path:
    (path,) = home.glob(f"scopes/*/preferences/{slug}.md")
    return path


def _front(home: Path, slug: str) -> str:
    text = _path(home, slug).read_text(encoding="utf-8")
    assert text.startswith("---\n"), text
    return text.split("\n---", 1)[0]


def _supersedes(home: Path, slug: str) -> list[str]:
    """The slugs in the frontmatter's `supersedes:` (flow `[a, b]` or block `- a`)."""
    front = _front(home, slug)
    m = re.search(r"^supersedes:(.*(?:\n[ ]*- .*)*)", front, re.M)
    if m is None:
        return []
    return re.findall(r"\d{4}-\d{2}-\d{2}-[\w-]+", m.group(1))


def _superseded_by(home: Path, slug: str) -> str | None:
    m = re.search(r"^superseded_by:[ ]*(\S*)", _front(home, slug), re.M)
    return m.group(1) if m and m.group(1) not in ("", "null", "~") else None


def _ranks(cli, project: Path) -> dict[str, str | None]:
    """slug -> superseded_by, as `memoryd search` reports it."""
    hits = _json(cli("search", QUERY, "--scope", str(project), "--json"))
    return {h["slug"]: h["superseded_by"] for h in hits}


def _links(cli, slug: str) -> set[tuple[str, str]]:
    h = _json(cli("history", slug, "--json"))
    return {(x["newer_memory_id"], x["older_memory_id"]) for x in h["links"]}


def _linked(home: Path, cli, project: Path, react: str, solid: str) -> None:
    assert _superseded_by(home, react) == solid
    assert _supersedes(home, solid) == [react]
    ranks = _ranks(cli, project)
    assert ranks[react] == solid and ranks[solid] is None, ranks
    assert _links(cli, react) == {(solid, react)}


def _unlinked(home: Path, cli, project: Path, *slugs: str) -> None:
    ranks = _ranks(cli, project)
    for slug in slugs:
        assert _superseded_by(home, slug) is None, _front(home, slug)
        assert _supersedes(home, slug) == [], _front(home, slug)
        assert ranks[slug] is None, ranks
        h = _json(cli("history", slug, "--json"))
        assert h["links"] == [], h
        assert all(m["superseded_by"] is None for m in h["chain"]), h


def _drop_superseded_by(home: Path, slug: str) -> None:
    path = _path(home, slug)
    text = path.read_text(encoding="utf-8")
    new = re.sub(r"^superseded_by:.*\n", "", text, count=1, flags=re.M)
    assert new != text, text
    path.write_text(new, encoding="utf-8")


def _empty_supersedes(home: Path, slug: str) -> None:
    path = _path(home, slug)
    text = path.read_text(encoding="utf-8")
    new = re.sub(r"^supersedes:.*\n(?:[ ]*- .*\n)*", "supersedes: []\n", text, count=1, flags=re.M)
    assert new != text, text
    path.write_text(new, encoding="utf-8")


# -- 1. supersede undo ----------------------------------------------------------------------
def test_undo_makes_both_current_is_audited_and_sticks(cli, project: Path, monkeypatch, isolated_home: Path):
    react, solid = _react_then_solid(cli, project, monkeypatch)
    _linked(isolated_home, cli, project, react, solid)

    _ok(cli("supersede", "undo", solid, react))
    _unlinked(isolated_home, cli, project, react, solid)
    events = _json(cli("audit", "--event-type", "supersede_undone", "--json"))
    assert events, events
    assert {e["target_id"] for e in events} == {react, solid}, events

    # a later edit of the successor is judged again, but the dismissed pair stays apart
    body = f"{SOLID[1]} Signals are nice."
    _ok(cli("update", solid, "--body", body))
    assert "Signals are nice." in _path(isolated_home, solid).read_text(encoding="utf-8")
    _unlinked(isolated_home, cli, project, react, solid)


def test_undo_of_a_pair_that_is_not_linked_is_a_one_line_error(cli, project: Path, monkeypatch):
    """A UsageError: exit 2 like `supersede confirm` of a settled pair (cli/main.py)."""
    react, solid = _react_then_solid(cli, project, monkeypatch)
    _one_line_error(cli("supersede", "undo", react, solid), 2, "does not supersede", react, solid)
    _ok(cli("supersede", "undo", solid, react))
    _one_line_error(cli("supersede", "undo", solid, react), 2, "does not supersede", solid, react)


# -- 2. and 3. the successor leaves -------------------------------------------------------
def test_forgetting_the_successor_makes_the_older_current(
    cli, project: Path, monkeypatch, isolated_home: Path
):
    react, solid = _react_then_solid(cli, project, monkeypatch)
    _ok(cli("forget", solid))
    assert _superseded_by(isolated_home, react) is None, _front(isolated_home, react)
    ranks = _ranks(cli, project)
    assert ranks[react] is None and solid not in ranks, ranks


def test_merging_the_successor_away_hands_the_link_to_the_kept_one(
    cli, project: Path, monkeypatch, isolated_home: Path
):
    react, solid = _react_then_solid(cli, project, monkeypatch)
    _at(monkeypatch, DEC)
    third = _record(cli, project, *SOLID_AGAIN)
    keep = third["slug"]
    assert all(j["outcome"] != "superseded" for j in third["knowledge"]["judgements"]), third
    assert _superseded_by(isolated_home, solid) is None and _supersedes(isolated_home, keep) == []

    _ok(cli("merge", "--keep", keep, "--drop", solid))
    assert list(isolated_home.glob(f"scopes/*/preferences/{solid}.md")) == []
    assert _superseded_by(isolated_home, react) == keep, _front(isolated_home, react)
    assert _supersedes(isolated_home, keep) == [react], _front(isolated_home, keep)
    h = _json(cli("history", react, "--json"))
    links = {(x["newer_memory_id"], x["older_memory_id"]): x for x in h["links"]}
    assert links[(keep, react)]["decided_by"] == "user", h
    assert f"{solid} was merged into it" in links[(keep, react)]["reason"], h
    chain = {m["slug"]: m for m in h["chain"]}
    assert chain[react]["superseded_by"] == keep and chain[keep]["superseded_by"] is None, h
    # the dropped one's old link stays as provenance, shown as gone, never as the successor
    assert set(links) <= {(keep, react), (solid, react)}, h
    assert solid not in chain or chain[solid]["state"] == "gone", h
    ranks = _ranks(cli, project)
    assert ranks[react] == keep and solid not in ranks, ranks


# -- 4. and 5. reindex reads the chain from the files --------------------------------------
def test_reindex_finishes_a_supersede_cut_short(cli, project: Path, monkeypatch, isolated_home: Path):
    react, solid = _react_then_solid(cli, project, monkeypatch)
    _drop_superseded_by(isolated_home, react)  # the older file was never written
    for name in ("index.db", "index.db-wal", "index.db-shm"):
        (isolated_home / name).unlink(missing_ok=True)
    _ok(cli("reindex"))

    assert _supersedes(isolated_home, solid) == [react]
    ranks = _ranks(cli, project)
    assert ranks[react] == solid and ranks[solid] is None, ranks
    assert _links(cli, react) == {(solid, react)}
    assert _links(cli, solid) == {(solid, react)}


def test_reindex_drops_a_link_taken_back_by_hand(cli, project: Path, monkeypatch, isolated_home: Path):
    react, solid = _react_then_solid(cli, project, monkeypatch)
    _drop_superseded_by(isolated_home, react)
    _empty_supersedes(isolated_home, solid)
    assert (isolated_home / "index.db").exists()
    _ok(cli("reindex"))
    _unlinked(isolated_home, cli, project, react, solid)
