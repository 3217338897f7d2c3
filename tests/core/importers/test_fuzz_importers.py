"""Fuzzed stores of other systems (Codex rollouts, OpenClaw sessions, MEMORY.md and daily
logs, memory-system's JSONL and entity files, agent-memory's SQLite): an import either
refuses the store in one MemorydError or imports what it can read; afterwards doctor and
the audit chain are clean and the memories that were there are unchanged."""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memoryd.app import Memoryd
from memoryd.errors import MemorydError
from tests.core.capture.test_fuzz_transcripts import CODEX, OPENCLAW
from tests.core.undamaged import assert_undamaged, seeded
from tests.fuzzing import deep_json, dumps, hostile_text, json_values, jsonl_bytes, mutated, text_values

E2E = settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
ROLLOUT = "rollout-2026-05-18T22-30-12-0199a2b3-c4d5-4e6f-8a9b-0c1d2e3f4a5b.jsonl"
FACT = {
    "id": "f1",
    "content": "User prefers tabs",
    "created": "2026-05-18T22:30:12Z",
    "importance": 0.8,
    "score": 1,
    "entities": ["tabs"],
    "confidence": 0.7,
    "basis": "said so",
    "source_facts": ["f0", 3],
}
ENTITY = {"id": "e1", "name": "Alice", "type": "person", "aliases": ["Al"], "attributes": {"role": "dev"}}
MEMORY_MD = "# Memory\n\n## Preferences\n- User prefers tabs\n* Never push to main\n1. 用户对花生过敏\n"


def _import(app: Memoryd, before: dict[Path, bytes], kind: str, where: Path, project: Path) -> None:
    try:
        report = app.import_from(kind, where, scope_path=project)
        assert report.imported + report.updated + report.unchanged >= 0
    except MemorydError as exc:
        assert "\n" not in str(exc)
    finally:
        shutil.rmtree(where, ignore_errors=True)
    assert_undamaged(app, before)
    app.store.engine.dispose()


def _fresh(tmp_path_factory: Any) -> Path:
    return tmp_path_factory.mktemp("origin")


@E2E
@given(data=jsonl_bytes(CODEX))
def test_fuzzed_codex_rollout(project: Path, tmp_path_factory: Any, data: bytes) -> None:
    app, before = seeded(project)
    home = _fresh(tmp_path_factory)
    path = home / "sessions" / "2026" / "05" / "18" / ROLLOUT
    path.parent.mkdir(parents=True)
    path.write_bytes(data)
    _import(app, before, "codex", home, project)


@E2E
@given(session=jsonl_bytes(OPENCLAW), memory_md=st.one_of(hostile_text, text_values), daily=text_values)
@example(session=b"", memory_md="## \ud800\n- x \udfff\n", daily="\x00")
def test_fuzzed_openclaw(
    project: Path, tmp_path_factory: Any, session: bytes, memory_md: str, daily: str
) -> None:
    app, before = seeded(project)
    state = _fresh(tmp_path_factory)
    (state / "agents" / "main" / "sessions").mkdir(parents=True)
    (state / "agents" / "main" / "sessions" / "oc-1.jsonl").write_bytes(session)
    (state / "workspace" / "memory").mkdir(parents=True)
    (state / "workspace" / "MEMORY.md").write_bytes((MEMORY_MD + memory_md).encode("utf-8", "surrogatepass"))
    (state / "workspace" / "memory" / "2026-05-18.md").write_bytes(daily.encode("utf-8", "surrogatepass"))
    _import(app, before, "openclaw", state, project)


@E2E
@given(
    facts=jsonl_bytes([FACT, FACT]),
    beliefs=jsonl_bytes([FACT]),
    summaries=jsonl_bytes([FACT]),
    entity=st.one_of(mutated(ENTITY), json_values),
    ascii_only=st.booleans(),
)
# Found by the fuzzer: a line (or an entity file) nested deeper than json.loads recurses
# raised RecursionError out of the import; a lone surrogate escape reached the memory file.
@example(facts=deep_json(5000).encode(), beliefs=b"", summaries=b"", entity=ENTITY, ascii_only=True)
@example(facts=b"", beliefs=b"", summaries=b"", entity=[[[1]]] * 2, ascii_only=True)
@example(facts=b"", beliefs=b"", summaries=b"", entity=deep_json(5000), ascii_only=True)
@example(
    facts=b'{"content": "x \\ud800", "id": "\\udfff"}', beliefs=b"", summaries=b"", entity={}, ascii_only=True
)
@example(  # a summary id of raw CESU bytes: a lone surrogate reached the index as a session key
    facts=b"",
    beliefs=b"",
    summaries=b'{"id": "\xed\xa0\x80", "content": "User prefers tabs", "created": "2026-05-18T22:30:12Z"}',
    entity={},
    ascii_only=True,
)
def test_fuzzed_memory_system(
    project: Path,
    tmp_path_factory: Any,
    facts: bytes,
    beliefs: bytes,
    summaries: bytes,
    entity: Any,
    ascii_only: bool,
) -> None:
    app, before = seeded(project)
    root = _fresh(tmp_path_factory)
    for pool in ("active", "archive"):
        folder = root / "layer2" / pool
        folder.mkdir(parents=True)
        (folder / "facts.jsonl").write_bytes(facts)
        (folder / "beliefs.jsonl").write_bytes(beliefs)
        (folder / "summaries.jsonl").write_bytes(summaries)
    (root / "layer2" / "entities").mkdir()
    text = entity if isinstance(entity, str) else dumps(entity, ascii_only=ascii_only)
    (root / "layer2" / "entities" / "e1.json").write_bytes(text.encode("utf-8", "surrogatepass"))
    _import(app, before, "memory-system", root, project)


_cell = st.one_of(
    st.none(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(),
    hostile_text,
    st.binary(max_size=20),
    st.sampled_from(
        ["FACT", "RULE", "ERROR", "2026-05-18T22:30:12Z", "2000-01-01", "[1, 2]", '["a", {"b": 1}]']
    ),
)


def _row(n: int) -> st.SearchStrategy[tuple[Any, ...]]:
    return st.lists(_cell, min_size=n, max_size=n).map(tuple)


MEMORY_COLS = (
    "id",
    "type",
    "content",
    "subject",
    "predicate",
    "priority",
    "importance_score",
    "confidence",
    "expires_at",
    "created_at",
)
EPISODE_COLS = ("id", "summary", "goal", "outcome", "entities", "tools_used", "started_at")


def _sql_value(value: Any) -> Any:
    """SQLite cannot bind a lone surrogate; such text goes in as the bytes a broken writer
    would leave (invalid UTF-8 stored as TEXT)."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return ("text", value.encode("utf-8", "surrogatepass"))
    return value


@E2E
@given(
    memories=st.lists(_row(len(MEMORY_COLS)), max_size=4),
    episodes=st.lists(_row(len(EPISODE_COLS)), max_size=3),
)
@example(memories=[("m1", "FACT", "x\ud800", None, None, None, None, None, None, None)], episodes=[])
# Found by the fuzzer: a cell that is not UTF-8 made the import's error quote it, newlines
# and all, so the CLI printed several lines.
@example(memories=[("m1", "FACT", "x", None, None, None, None, None, None, "a\n---\n\udcff")], episodes=[])
def test_fuzzed_agent_memory(
    project: Path, tmp_path_factory: Any, memories: list[tuple], episodes: list[tuple]
) -> None:
    app, before = seeded(project)
    root = _fresh(tmp_path_factory)
    with closing(sqlite3.connect(root / "memory.db")) as conn:
        for table, cols, rows in (("memories", MEMORY_COLS, memories), ("episodes", EPISODE_COLS, episodes)):
            conn.execute(f"CREATE TABLE {table} ({', '.join(cols)})")
            for row in rows:
                marks, args = [], []
                for value in map(_sql_value, row):
                    if isinstance(value, tuple):
                        marks.append("CAST(? AS TEXT)")
                        args.append(value[1])
                    else:
                        marks.append("?")
                        args.append(value)
                conn.execute(f"INSERT INTO {table} VALUES ({', '.join(marks)})", args)
        conn.commit()
    _import(app, before, "agent-memory", root, project)
