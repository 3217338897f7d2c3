"""`memoryd import memory-system`: seed 003's layer2 store -> typed memories, archive kept
soft-forgotten, beliefs marked as inferred, keys that survive a lost index."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli
from tests.core.importers.fixtures import MemorySystemFixture, build_memory_system
from tests.core.importers.support import by_key, listed, read_doc, run_import

SOURCE = "importer-memory-system"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> MemorySystemFixture:
    """One memory-system tree for the module: imports only read it."""
    return build_memory_system(tmp_path_factory.mktemp("memory-system"))


def total(ms: MemorySystemFixture) -> int:
    return ms.active_records + ms.archived_records + ms.entities


def record_ids(path: Path) -> list[str]:
    """Ids of the usable records (JSON objects with content) in a layer2 jsonl file."""
    ids = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict) and str(rec.get("content") or "").strip():
            ids.append(rec["id"])
    return ids


def archived_ids(ms: MemorySystemFixture) -> set[str]:
    return {i for f in (ms.root / "layer2" / "archive").glob("*.jsonl") for i in record_ids(f)}


def check_report(report: dict[str, Any], ms: MemorySystemFixture) -> None:
    assert report["source"] == SOURCE
    assert report["imported"] == total(ms)
    assert report["malformed"] == ms.malformed_lines
    assert (report["updated"], report["unchanged"], report["skipped"]) == (0, 0, 0)


def test_import_maps_records(store: MemorySystemFixture, project: Path, isolated_home: Path) -> None:
    """Records and entities land in --scope; archived records arrive soft-forgotten (listed
    only with --include-forgotten); beliefs are tagged and say they were inferred; an
    allergy is a warning that a Chinese query finds."""
    check_report(run_import("memory-system", str(store.root), "--scope", str(project)), store)
    archived = archived_ids(store)
    assert len(archived) == store.archived_records

    alive = by_key(listed(project))
    assert len(alive) == store.active_records + store.entities
    assert {r["decay_state"] for r in alive.values()} == {"alive"}
    everything = by_key(listed(project, "--include-forgotten"))
    assert len(everything) == total(store)
    gone = {k: r for k, r in everything.items() if k not in alive}
    assert set(gone) == {f"{SOURCE}:{i}" for i in archived}
    assert {r["decay_state"] for r in gone.values()} == {"soft-forgotten"}

    beliefs = record_ids(store.root / "layer2" / "active" / "beliefs.jsonl")
    assert beliefs
    for rid in beliefs:
        doc = read_doc(isolated_home, alive[f"{SOURCE}:{rid}"])
        assert "belief" in doc.meta.tags
        assert "Inferred" in doc.body

    peanut = [r for r in alive.values() if r["title"] == "用户对花生过敏"]
    assert len(peanut) == 1 and peanut[0]["type"] == "warning"
    out = run_cli("search", "花生", "--scope", str(project), "--json")
    assert out.returncode == 0, out.stderr
    assert peanut[0]["slug"] in [r["slug"] for r in json.loads(out.stdout)]


def test_workspace_parent_path(store: MemorySystemFixture, project: Path) -> None:
    """The workspace that holds memory/ is accepted as PATH too."""
    report = run_import("memory-system", str(store.root.parent), "--scope", str(project))
    check_report(report, store)


def test_reruns_and_reindex_change_nothing(
    store: MemorySystemFixture, project: Path, isolated_home: Path
) -> None:
    """A rerun is all unchanged; so is a third run after index.db is deleted and rebuilt by
    `memoryd reindex` (the keys live in the files' frontmatter)."""
    run_import("memory-system", str(store.root), "--scope", str(project))
    before = {k: r["slug"] for k, r in by_key(listed(project, "--include-forgotten")).items()}

    def rerun() -> None:
        again = run_import("memory-system", str(store.root), "--scope", str(project))
        assert (again["imported"], again["updated"], again["unchanged"]) == (0, 0, total(store))
        after = by_key(listed(project, "--include-forgotten"))
        assert {k: r["slug"] for k, r in after.items()} == before

    rerun()
    for f in isolated_home.glob("index.db*"):
        f.unlink()
    assert run_cli("reindex", "--json").returncode == 0
    rerun()
