"""Fuzzed hook payloads (Claude Code, Codex hooks and notify, OpenClaw): parse_payload and
capture either spool a payload the worker can read or raise InvalidPayload, nothing else."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memoryd import envpaths
from memoryd.capture import hook, spool
from memoryd.errors import InvalidPayload, MemorydError
from tests.fuzzing import deep_json, dumps, mutated

FAST = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))

STOP = {
    "session_id": "s1",
    "transcript_path": "/nonexistent/t.jsonl",
    "cwd": "/tmp",
    "hook_event_name": "Stop",
    "stop_hook_active": False,
    "last_assistant_message": "done",
}
NOTIFY = {
    "type": "agent-turn-complete",
    "thread-id": "0199a",
    "turn-id": "1",
    "cwd": "/tmp",
    "input-messages": ["fix it"],
    "last-assistant-message": "fixed",
}


def _raw(value: object, ascii_only: bool) -> bytes:
    return dumps(value, ascii_only=ascii_only).encode("utf-8", "surrogatepass")


payloads = st.builds(_raw, st.one_of(mutated(STOP), mutated(NOTIFY)), st.booleans())


@FAST
@given(raw=st.one_of(payloads, st.binary(max_size=200)))
@example(raw=b'{"session_id": "s", "last_assistant_message": "\\ud800"}')
def test_fuzzed_payload_spools_or_is_refused(raw: bytes) -> None:
    home = envpaths.data_home()
    before = set(os.listdir(envpaths.spool_dir(home))) if os.path.isdir(envpaths.spool_dir(home)) else set()
    try:
        name, warnings = hook.capture("claude-code", raw, spawn=False)
    except InvalidPayload as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    assert all(isinstance(w, str) for w in warnings)
    new = set(os.listdir(envpaths.spool_dir(home))) - before
    assert new == {name}
    record = json.loads(Path(envpaths.spool_dir(home), name).read_text(encoding="utf-8"))
    assert record["payload"]["session_id"].strip()
    assert spool.pending(Path(envpaths.spool_dir(home)))


@pytest.mark.parametrize("opener", ["[", '{"content":'])
def test_deeply_nested_payload_is_invalid(opener: str) -> None:
    with pytest.raises(InvalidPayload):
        hook.parse_payload(deep_json(100_000, opener).encode(), "/tmp")


def test_parse_payload_raises_only_memoryd_errors() -> None:
    """A non-object, a wrong-typed id, path or cwd: one InvalidPayload each."""
    for raw in (b"[]", b'"x"', b'{"session_id": 1}', b'{"session_id": "s", "cwd": []}', b"\xff\xfe"):
        with pytest.raises(MemorydError):
            hook.parse_payload(raw, "/tmp")
