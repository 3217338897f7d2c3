"""Fuzzed hand-edited memory files and turns sidecars through the real store: reindex and
doctor name the damaged file and go on; the memories that were there stay as they were and
the audit chain stays whole."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memoryd.store.files import turns_from_text
from tests.core.test_fuzz_frontmatter import GOOD, memory_files
from tests.core.undamaged import seeded
from tests.fuzzing import jsonl_bytes

E2E = settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
TURN = {"seq": 0, "role": "user", "ts": "2026-05-18T22:30:12Z", "ext_id": "u1", "text": "why is cron slow"}
FUZZ_SLUG = "2026-05-18-use-postgres-for-jobs"


@E2E
@given(text=memory_files(), turns=st.one_of(st.none(), jsonl_bytes([TURN, TURN])))
@example(text=GOOD, turns=b'{"seq": 1e999, "role": "user", "text": "x"}\n')
@example(text=GOOD, turns=b'{"seq": 0, "role": "user", "text": "x", "ts": {"a": 1}, "ext_id": [1]}\n')
@example(text=GOOD, turns=b'{"seq": 0, "role": "user", "text": "\\ud800"}\n')
def test_fuzzed_file_costs_itself_only(project: Path, text: str, turns: bytes | None) -> None:
    app, before = seeded(project, ("Never force-push main", "前端性能预算"))
    assert len(before) == 2
    folder = next(p.parent for p in before if p.suffix == ".md")
    scope_hash = folder.relative_to(app.layout.scopes).parts[0]
    fuzzed = folder / f"{FUZZ_SLUG}.md"
    fuzzed.write_bytes(text.replace("0123456789ab", scope_hash).encode("utf-8"))
    sidecar = folder / f"{FUZZ_SLUG}.turns.jsonl"
    if turns is not None:
        sidecar.write_bytes(turns)
    try:
        report = app.reindex()
        assert report.indexed in (2, 3)
        doctor = app.doctor()
        assert all(fuzzed.name in c for c in doctor.corrupt_files), doctor.corrupt_files
        assert not doctor.rows_without_files and doctor.audit is not None and doctor.audit.ok
        assert app.audit_verify().ok
        for path, data in before.items():
            assert path.read_bytes() == data, path
        app.search("postgres cron", scopes=None, limit=5)
    finally:
        fuzzed.unlink()
        sidecar.unlink(missing_ok=True)
        app.reindex()
        assert app.doctor().ok
        app.store.engine.dispose()


def test_turns_sidecar_lines_of_any_shape() -> None:
    """Found by the fuzzer: a sidecar line with `"seq": 1e999` raised OverflowError, and
    fields of the wrong type reached the index as they were."""
    text = "\n".join(
        [
            '{"seq": 1e999, "role": "user", "text": "x"}',
            '{"seq": 0, "role": "user", "text": "x", "ts": {"a": 1}, "ext_id": [1]}',
            '{"seq": 1, "role": "user", "text": "\\ud800"}',
            "[" * 5000 + "]" * 5000,
            json.dumps(TURN),
        ]
    )
    turns = turns_from_text(text)
    for t in turns:
        assert isinstance(t.seq, int) and isinstance(t.text, str)
        assert t.ts is None or isinstance(t.ts, str)
        assert t.ext_id is None or isinstance(t.ext_id, str)
        t.to_json().encode("utf-8")
    assert turns[-1].text == "why is cron slow"
