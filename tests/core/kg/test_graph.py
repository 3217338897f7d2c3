"""The knowledge graph through the CLI and the facade: one entity whatever the spelling,
the frontmatter that carries it, counts that follow forgetting, a reindex from the files
alone, GraphML and node-link exports, extraction for memories written without entities,
and nothing of a sensitive scope left in the index."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import pytest

from memoryd import clock
from memoryd.app import Memoryd
from memoryd.frontmatter import Document
from memoryd.models import Frontmatter, MemoryType
from memoryd.scope import resolve
from tests.core.sensitive.support import leaks, one_line_error

CANARY = "QuokkaLedger5521"
REACT = "entity:library:react"
GRAPHML = "{http://graphml.graphdrawing.org/xmlns}"


def _at(monkeypatch: pytest.MonkeyPatch, when: str) -> None:
    monkeypatch.setenv("MEMORYD_NOW", when)


def _record(cli, scope: Path, mtype: str, title: str, body: str) -> str:
    out = cli("record", "--type", mtype, "--title", title, "--scope", str(scope), "--json", stdin=body)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["slug"]


def _json(cli, *args: str) -> Any:
    out = cli(*args, "--json")
    assert out.returncode == 0, (args, out.stderr)
    return json.loads(out.stdout)


def _sql(home: Path, query: str, *params: Any) -> list[tuple[Any, ...]]:
    with closing(sqlite3.connect(home / "index.db")) as db:
        return db.execute(query, params).fetchall()


def _graph_rows(home: Path) -> dict[str, set[tuple[Any, ...]]]:
    """Everything of the graph derived from the files."""
    return {
        "mentions": set(
            _sql(home, "SELECT slug, entity_id, scope_hash, memory_type, mentions FROM entity_mentions")
        ),
        "relations": set(
            _sql(
                home,
                "SELECT subject_id, predicate, object_id, object_kind, source_memory_id, scope_hash "
                "FROM relations",
            )
        ),
        "superseded_by": set(_sql(home, "SELECT slug, superseded_by FROM memories")),
        "chain": set(_sql(home, "SELECT newer_memory_id, older_memory_id FROM supersedes_chain")),
        "counts": set(_sql(home, "SELECT id, mention_count FROM entities WHERE mention_count > 0")),
    }


@pytest.fixture
def three_spellings(cli, project: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The issue's acceptance: three memories, each naming the framework its own way."""
    _at(monkeypatch, "2026-11-01T09:00:00Z")
    a = _record(cli, project, "preference", "Frontend framework", "I prefer React for the UI.")
    _at(monkeypatch, "2026-11-02T09:00:00Z")
    b = _record(cli, project, "fact", "Widgets", "The widgets are react.js components on PostgreSQL data.")
    _at(monkeypatch, "2026-11-03T09:00:00Z")
    c = _record(cli, project, "decision", "Dashboard", "The dashboard keeps ReactJS.")
    return [a, b, c]


# -- one entity, any spelling --------------------------------------------------------------
def test_three_spellings_become_one_entity(cli, three_spellings: list[str]):
    rows = _json(cli, "graph", "entities")
    by_id = {r["id"]: r for r in rows}
    assert set(by_id) == {REACT, "entity:tool:postgresql"}
    react = by_id[REACT]
    assert react["name"] == "React" and react["type"] == "library" and react["norm"] == "react"
    assert react["mention_count"] == 3
    assert sorted(react["aliases"]) == sorted(["React", "react.js", "ReactJS"])
    assert react["first_seen_at"] == "2026-11-01T09:00:00Z"
    assert react["last_seen_at"] == "2026-11-03T09:00:00Z"
    assert [r["id"] for r in rows] == [REACT, "entity:tool:postgresql"]  # most mentioned first

    e = _json(cli, "graph", "entity", "react.js")
    assert e["id"] == REACT and e["mention_count"] == 3
    assert [m["slug"] for m in e["memories"]] == three_spellings[::-1]  # newest first
    assert [m["predicates"] for m in e["memories"]] == [["uses"], ["mentions"], ["prefers"]]
    assert [r["id"] for r in e["related"]] == ["entity:tool:postgresql"]
    assert e["also"] == []

    text = cli("graph", "entity", "ReactJS")
    assert text.returncode == 0, text.stderr
    assert text.stdout.startswith("React  (library, frontend framework)  entity:library:react\n")
    assert "3 mention(s) in 3 memories" in text.stdout
    for slug in three_spellings:
        assert slug in text.stdout
    by_name = _json(cli, "graph", "entity", REACT)  # the id works too
    assert by_name["id"] == REACT and by_name["mention_count"] == 3


def test_listing_entities_by_type_and_top(cli, three_spellings: list[str]):
    assert [r["id"] for r in _json(cli, "graph", "entities", "--type", "library")] == [REACT]
    assert [r["id"] for r in _json(cli, "graph", "entities", "--type", "tool")] == ["entity:tool:postgresql"]
    assert _json(cli, "graph", "entities", "--type", "person") == []
    assert [r["id"] for r in _json(cli, "graph", "entities", "--top", "1")] == [REACT]
    table = cli("graph", "entities")
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert lines[0].split()[:4] == ["MENTIONS", "NAME", "TYPE", "LAST"]
    assert lines[1].split()[:3] == ["3", "React", "library"]


def test_bad_graph_input_is_one_line(cli, three_spellings: list[str], tmp_path: Path):
    for args, code, word in (
        (["graph", "entities", "--type", "gadget"], 2, "--type must be one of"),
        (["graph", "entities", "--top", "0"], 2, "--top must be"),
        (["graph", "entities", "--top", "many"], 2, "--top"),
        (["graph", "entity", "nothing-like-this"], 1, "no entity named 'nothing-like-this'"),
        (["graph", "entity", "  "], 2, "give an entity name"),
        (["graph", "export", "--format", "dot"], 2, "--format must be one of graphml, json"),
        (["graph", "export", "--out", str(tmp_path)], 2, "cannot write"),
        (["graph", "export", "--scope", str(tmp_path / "nowhere")], 2, "no such directory"),
    ):
        one_line_error(cli(*args), code, word)


# -- the memory file ----------------------------------------------------------------------
def test_the_frontmatter_carries_the_graph(cli, three_spellings: list[str]):
    store = Memoryd().store
    doc, path = store.read(three_spellings[0])
    assert doc.meta.observations == [REACT]
    assert doc.meta.relations == ["prefers:" + REACT]
    assert doc.meta.extras["entity_mentions"] == {REACT: 1}
    raw = path.read_text(encoding="utf-8")
    assert "- prefers:entity:library:react\n" in raw and "entity_mentions:\n" in raw

    fact, _ = store.read(three_spellings[1])
    assert fact.meta.observations == [REACT, "entity:tool:postgresql"]
    assert fact.meta.relations == ["mentions:" + REACT, "mentions:entity:tool:postgresql"]


def test_forgetting_a_memory_lowers_the_count(cli, three_spellings: list[str]):
    assert cli("forget", three_spellings[0]).returncode == 0
    e = _json(cli, "graph", "entity", "React")
    assert e["mention_count"] == 2
    assert [m["slug"] for m in e["memories"]] == three_spellings[:0:-1]
    assert cli("forget", three_spellings[1]).returncode == 0
    rows = {r["id"]: r["mention_count"] for r in _json(cli, "graph", "entities")}
    assert rows == {REACT: 1}  # PostgreSQL's only memory is gone: it is no longer listed


# -- reindex ------------------------------------------------------------------------------
def test_reindex_rebuilds_the_graph_from_the_files(
    cli, project: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
):
    _at(monkeypatch, "2026-11-01T09:00:00Z")
    old = _record(cli, project, "decision", "Orders database", "We use MySQL for the orders service.")
    _at(monkeypatch, "2026-11-05T09:00:00Z")
    new = _record(
        cli, project, "decision", "Orders storage", "The orders service keeps its rows in PostgreSQL."
    )
    _at(monkeypatch, "2026-11-06T09:00:00Z")
    linked = cli("supersede", "link", new, old)
    assert linked.returncode == 0, linked.stderr
    assert linked.stdout == f"{new} supersedes {old}\n"

    before = _graph_rows(isolated_home)
    assert (old, new) in before["superseded_by"] and (new, old) in before["chain"]
    assert (new, "supersedes", old, "memory", new, resolve(project).hash) in before["relations"]
    assert (old, "superseded_by", new, "memory", old, resolve(project).hash) in before["relations"]
    history = _json(cli, "history", old)
    entity = _json(cli, "graph", "entity", "mysql")

    # A reindex with the index in place changes nothing, the chain's own record included.
    assert cli("reindex").returncode == 0
    assert _graph_rows(isolated_home) == before
    assert _json(cli, "history", old) == history

    for p in isolated_home.glob("index.db*"):
        p.unlink()
    rebuilt = cli("reindex")
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert _graph_rows(isolated_home) == before

    again = _json(cli, "history", old)
    assert again["chain"] == history["chain"]
    assert [m["slug"] for m in again["chain"]] == [old, new]
    assert again["chain"][0]["superseded_by"] == new
    keep = ("newer_memory_id", "older_memory_id", "decided_by", "confidence")
    assert [{k: link[k] for k in keep} for link in again["links"]] == [
        {k: link[k] for k in keep} for link in history["links"]
    ]
    text = cli("history", old)
    assert f"superseded by {new}" in text.stdout and "replaced (user, confidence 1.00" in text.stdout

    shown = _json(cli, "graph", "entity", "mysql")
    for key in ("id", "name", "type", "mention_count", "memories", "related"):
        assert shown[key] == entity[key], key
    assert shown["memories"][0]["superseded_by"] == new


# -- export -------------------------------------------------------------------------------
@pytest.fixture
def two_projects(cli, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    other = tmp_path / "other"
    other.mkdir()
    _at(monkeypatch, "2026-11-01T09:00:00Z")
    pref = _record(cli, project, "preference", "Frontend framework", "I prefer React for the UI.")
    fact = _record(cli, project, "fact", "Cache", "Redis has streams.")
    there = _record(cli, other, "decision", "Storage", "We use PostgreSQL here.")
    return {"pref": pref, "fact": fact, "there": there, "other": str(other)}


def _graphml(path: Path) -> tuple[dict[str, dict[str, str]], list[tuple[str, str, str]]]:
    root = ET.parse(path).getroot()
    assert root.tag == f"{GRAPHML}graphml"
    keys = {k.get("id"): k.get("attr.name") for k in root.iter(f"{GRAPHML}key")}
    nodes = {
        n.get("id"): {keys[d.get("key")]: d.text for d in n.iter(f"{GRAPHML}data")}
        for n in root.iter(f"{GRAPHML}node")
    }
    edges = [
        (e.get("source"), e.get("target"), e.find(f"{GRAPHML}data").text) for e in root.iter(f"{GRAPHML}edge")
    ]
    return nodes, edges


def test_graphml_export(cli, two_projects: dict[str, str], tmp_path: Path):
    out = tmp_path / "g.graphml"
    res = cli("graph", "export", "--format", "graphml", "--out", str(out))
    assert res.returncode == 0, res.stderr
    assert res.stdout == f"wrote {out} (graphml)\n"
    nodes, edges = _graphml(out)
    assert nodes[REACT]["kind"] == "entity" and nodes[REACT]["label"] == "React"
    assert nodes[REACT]["type"] == "library" and nodes[REACT]["mentions"] == "1"
    assert nodes[two_projects["pref"]]["kind"] == "memory"
    assert nodes[two_projects["pref"]]["type"] == "preference"
    assert set(nodes) == {
        REACT,
        "entity:tool:redis",
        "entity:tool:postgresql",
        two_projects["pref"],
        two_projects["fact"],
        two_projects["there"],
    }
    assert sorted(edges) == sorted(
        [
            (two_projects["pref"], REACT, "prefers"),
            (two_projects["fact"], "entity:tool:redis", "mentions"),
            (two_projects["there"], "entity:tool:postgresql", "uses"),
        ]
    )
    assert cli("graph", "export").stdout == out.read_text(encoding="utf-8")  # graphml to stdout by default


def test_graphml_export_of_a_title_with_terminal_codes_is_well_formed(cli, project: Path, tmp_path: Path):
    """A title pasted from a terminal keeps its escape codes (the CLI accepts them): the
    GraphML must still parse, as the JSON export does."""
    title = "Build log \x1b[31mred\x1b[0m"
    slug = _record(cli, project, "fact", title, "Redis caches the build.")
    doc = json.loads(cli("graph", "export", "--format", "json").stdout)
    assert {n["id"]: n["label"] for n in doc["nodes"]}[slug] == title
    out = tmp_path / "g.graphml"
    assert cli("graph", "export", "--out", str(out)).returncode == 0
    nodes, edges = _graphml(out)
    assert slug in nodes and (slug, "entity:tool:redis", "mentions") in edges


def test_json_export_is_node_link(cli, two_projects: dict[str, str], tmp_path: Path):
    out = tmp_path / "g.json"
    res = cli("graph", "export", "--format", "json", "--out", str(out), "--json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["format"] == "json"
    with out.open(encoding="utf-8") as fh:
        doc = json.load(fh)
    assert doc["directed"] is True and doc["multigraph"] is True
    ids = {n["id"] for n in doc["nodes"]}
    graphml = tmp_path / "g.graphml"
    assert cli("graph", "export", "--out", str(graphml)).returncode == 0
    assert ids == set(_graphml(graphml)[0])
    assert all(link["source"] in ids and link["target"] in ids for link in doc["links"])
    assert {(link["source"], link["target"], link["predicate"]) for link in doc["links"]} == {
        (two_projects["pref"], REACT, "prefers"),
        (two_projects["fact"], "entity:tool:redis", "mentions"),
        (two_projects["there"], "entity:tool:postgresql", "uses"),
    }


def test_export_of_one_scope(cli, project: Path, two_projects: dict[str, str]):
    here = resolve(project).hash
    doc = json.loads(cli("graph", "export", "--format", "json", "--scope", str(project)).stdout)
    assert {link["scope"] for link in doc["links"]} == {here}
    assert {n["id"] for n in doc["nodes"]} == {
        REACT,
        "entity:tool:redis",
        two_projects["pref"],
        two_projects["fact"],
    }
    there = json.loads(cli("graph", "export", "--format", "json", "--scope", two_projects["other"]).stdout)
    assert {n["id"] for n in there["nodes"]} == {"entity:tool:postgresql", two_projects["there"]}


# -- extraction for memories written without entities -------------------------------------
def _imported(project: Path) -> list[str]:
    """Two memories written as an importer writes them: no observations, no relations."""
    h = resolve(project).hash
    docs = []
    for i, (kind, title, body) in enumerate(
        [
            (MemoryType.decision, "Bundler", "We use Vite for the web app and Docker for CI."),
            (MemoryType.fact, "Team", "Alice Chen owns the Vite config."),
        ]
    ):
        when = clock.parse_ts(f"2026-10-0{i + 1}T09:00:00Z")
        meta = Frontmatter(
            title=title,
            slug=f"2026-10-0{i + 1}-imported-{i}",
            type=kind,
            scope_hash=h,
            source="manual",
            created_at=when,
            updated_at=when,
        )
        docs.append((Document(meta=meta, body=body + "\n"), None))
    store = Memoryd().store
    assert store.save_many(docs, actor="test") == 2
    store.engine.dispose()
    return [d.meta.slug for d, _ in docs]


def test_extract_finds_entities_for_older_memories(cli, project: Path, isolated_home: Path):
    slugs = _imported(project)
    assert _json(cli, "graph", "entities") == []
    assert _sql(isolated_home, "SELECT count(*) FROM entity_mentions") == [(0,)]

    rep = _json(cli, "graph", "extract")
    assert rep == {"memories": 2, "extracted": 2, "entities": 4, "skipped": 0}
    counts = {r["id"]: r["mention_count"] for r in _json(cli, "graph", "entities")}
    assert counts == {
        "entity:tool:vite": 2,
        "entity:tool:docker": 1,
        "entity:concept:alice-chen": 1,
    }
    doc, _ = Memoryd().store.read(slugs[0])
    assert doc.meta.relations == ["uses:entity:tool:vite", "uses:entity:tool:docker"]

    assert _json(cli, "graph", "extract") == {"memories": 0, "extracted": 0, "entities": 0, "skipped": 0}
    text = cli("graph", "extract")
    assert text.returncode == 0 and text.stdout.startswith("0 of 0 memories read"), text.stderr
    # --all reads them again; the counts do not double.
    assert _json(cli, "graph", "extract", "--all")["extracted"] == 2
    assert {r["id"]: r["mention_count"] for r in _json(cli, "graph", "entities")} == counts


# -- sensitive scopes ---------------------------------------------------------------------
def test_a_sensitive_scope_leaves_no_names_in_the_index(
    cli, secret_service: str, project: Path, tmp_path: Path, isolated_home: Path
):
    secret = tmp_path / "payroll"
    secret.mkdir()
    assert cli("mark-sensitive", str(secret)).returncode == 0
    slug = _record(
        cli, secret, "decision", f"Payroll on {CANARY}", f"We use {CANARY} with Svelte for payroll. {CANARY}!"
    )
    mine = _record(cli, project, "preference", "Frontend framework", "I prefer React for the UI.")

    h = resolve(secret).hash
    assert _sql(
        isolated_home, "SELECT count(*) FROM entity_mentions WHERE slug = ? OR scope_hash = ?", slug, h
    ) == [(0,)]
    assert _sql(
        isolated_home, "SELECT count(*) FROM relations WHERE source_memory_id = ? OR scope_hash = ?", slug, h
    ) == [(0,)]
    assert {r[0] for r in _sql(isolated_home, "SELECT id FROM entities")} == {REACT}
    assert {r["id"] for r in _json(cli, "graph", "entities")} == {REACT}
    one_line_error(cli("graph", "entity", CANARY), 1, "no entity named")
    export = cli("graph", "export", "--format", "json").stdout
    assert slug not in export and mine in export
    # The memory itself knows its entities (inside its encrypted file).
    doc, path = Memoryd().store.read(slug)
    assert path.name.endswith(".md.enc")
    assert "entity:concept:quokkaledger5521" in doc.meta.observations
    assert doc.meta.extras["entity_mentions"]["entity:concept:quokkaledger5521"] == 3
    assert leaks(isolated_home, CANARY) == []


def test_a_replacement_in_a_sensitive_scope_leaves_no_names(
    cli, secret_service: str, tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
):
    """The rules' supersedes reason names the replaced entity: in a sensitive scope that
    name must not reach index.db or the audit log."""
    secret = tmp_path / "payroll"
    secret.mkdir()
    assert cli("mark-sensitive", str(secret)).returncode == 0
    _at(monkeypatch, "2026-11-01T09:00:00Z")
    old = _record(cli, secret, "decision", "Payroll engine", f"We switched to {CANARY} from LegacyBooks2.")
    _at(monkeypatch, "2026-11-05T09:00:00Z")
    new = _json(
        cli,
        "record",
        "--type",
        "decision",
        "--title",
        "Payroll engine",
        "--scope",
        str(secret),
        "--body",
        f"We moved from {CANARY} to ZebraBooks7.",
    )
    (j,) = new["knowledge"]["judgements"]  # the rules saw the replacement and acted on it
    assert j["older"] == old and j["outcome"] == "superseded" and j["confidence"] == 0.9
    assert _sql(
        isolated_home, "SELECT newer_memory_id, older_memory_id, reason, entity_id FROM supersedes_chain"
    ) == [(new["slug"], old, "", None)]
    assert _sql(isolated_home, "SELECT count(*) FROM entities") == [(0,)]
    assert leaks(isolated_home, CANARY) == []


def test_marking_a_scope_sensitive_removes_its_names(
    cli, secret_service: str, project: Path, tmp_path: Path, isolated_home: Path
):
    secret = tmp_path / "payroll"
    secret.mkdir()
    _record(cli, secret, "decision", f"Salaries on {CANARY}", f"We use {CANARY} with React for salaries.")
    _record(cli, project, "preference", "Frontend framework", "I prefer React for the UI.")
    before = {r["id"]: r["mention_count"] for r in _json(cli, "graph", "entities")}
    assert before == {"entity:concept:quokkaledger5521": 2, REACT: 2}
    assert leaks(isolated_home, CANARY) != []  # the test can see a leak when there is one

    assert cli("mark-sensitive", str(secret)).returncode == 0
    assert {r["id"]: r["mention_count"] for r in _json(cli, "graph", "entities")} == {REACT: 1}
    assert {r[0] for r in _sql(isolated_home, "SELECT id FROM entities")} == {REACT}
    h = resolve(secret).hash
    assert _sql(isolated_home, "SELECT count(*) FROM entity_mentions WHERE scope_hash = ?", h) == [(0,)]
    assert _sql(isolated_home, "SELECT count(*) FROM relations WHERE scope_hash = ?", h) == [(0,)]
    assert len(_json(cli, "graph", "entity", "React")["memories"]) == 1
    assert leaks(isolated_home, CANARY) == []
