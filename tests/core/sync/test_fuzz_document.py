"""Fuzzed memories.json documents (an import, another device's sync file): document.parse
gives a State or one UsageError naming the place; an import either refuses the file or
writes only memories the store reads back, and the memories that were there stay."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memoryd.errors import MemorydError, UsageError
from memoryd.sync import document
from tests.core.undamaged import assert_undamaged, seeded
from tests.fuzzing import deep_json, dumps, mutated

FAST = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
E2E = settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))

HASH = "2983e31a4cf9"
CONTENT = (
    "---\ntitle: Never force-push main\nslug: 2026-11-26-never-force-push-main-be37\ntype: decision\n"
    f"scope_hash: {HASH}\nsource: manual\ncreated_at: '2026-11-26T17:32:09Z'\n"
    "updated_at: '2026-11-26T17:32:09Z'\ntags: []\ntriggers: []\ncategory: null\nttl_days: null\n"
    "decay_state: alive\nrecall_count: 0\nlast_recalled_at: null\ndura_score: null\n---\nb\n"
)
DOC: dict[str, Any] = {
    "format": "memoryd-memories",
    "version": 1,
    "device": {"id": "f55cab665fe64796", "name": "vm"},
    "exported_at": "2026-11-26T17:32:10Z",
    "scopes": {HASH: {"sensitive": None, "unmarked_at": None, "remote": "git@example.com:a/b.git"}},
    "links": [[HASH, "0123456789ab"]],
    "memories": {
        "2026-11-26-never-force-push-main-be37": {
            "heads": [
                {
                    "rev": "5285cbe8d1635caf435c59b573ab92f6",
                    "history": ["0" * 32],
                    "updated_at": "2026-11-26T17:32:09Z",
                    "scope_hash": HASH,
                    "type": "decision",
                    "deleted": False,
                    "encrypted": False,
                    "content": CONTENT,
                    "turns": '{"seq": 0, "role": "user", "text": "hi"}\n',
                }
            ],
            "recalls": {"f55cab665fe64796": 2},
            "last_recalled_at": "2026-11-26T17:32:09Z",
            "decay": {"state": "alive", "at": "2026-11-26T17:32:09Z"},
        }
    },
}
documents = mutated(DOC)


@FAST
@given(raw=documents)
@example(
    raw={
        **DOC,
        "memories": {
            "s": {
                **DOC["memories"]["2026-11-26-never-force-push-main-be37"],
                "decay": {"state": [], "at": "x"},
            }
        },
    }
)
def test_fuzzed_document_parses_or_is_refused(raw: Any) -> None:
    try:
        state = document.parse(raw, where="m.json")
    except UsageError as exc:
        assert str(exc).startswith("m.json") and "\n" not in str(exc)
        return
    for entry in state.memories.values():
        assert entry.winner and entry.recall_count >= 0
    json.dumps(state.as_dict(device=None, exported_at="t"))


@E2E
@given(raw=documents, ascii_only=st.booleans())
@example(raw=DOC, ascii_only=True)
def test_fuzzed_import_refused_or_applied_cleanly(
    project: Path, tmp_path_factory, raw: Any, ascii_only: bool
) -> None:
    app, before = seeded(project)
    path = tmp_path_factory.mktemp("imp") / "memories.json"
    path.write_bytes(dumps(raw, ascii_only=ascii_only).encode("utf-8", "surrogatepass"))
    try:
        app.import_memories(path)
    except MemorydError as exc:
        assert "\n" not in str(exc)
    assert_undamaged(app, before)
    app.store.engine.dispose()


def test_deep_or_surrogate_file_is_one_usage_error(tmp_path: Path) -> None:
    """Found by the fuzzer: a file nested deeper than json.loads recurses raised
    RecursionError from `memoryd import`, not a UsageError naming the file."""
    path = tmp_path / "memories.json"
    path.write_text(deep_json(100_000))
    try:
        document.load(path)
    except UsageError as exc:
        assert "memories.json" in str(exc)
