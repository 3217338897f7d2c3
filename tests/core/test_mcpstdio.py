"""memoryd.mcpstdio's line triage and bounded reader, fuzzed: whatever a client writes on
one line, triage either passes a message the SDK parses or answers with a JSON-RPC error,
and never raises. (The server end to end: tests/core/test_mcpserver_wire.py.)"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import types

from memoryd import mcpstdio

CODES = {types.PARSE_ERROR, types.INVALID_REQUEST, types.INVALID_PARAMS}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=8,
)
# Objects shaped like JSON-RPC messages, each field right, wrong or missing.
messages = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.sampled_from(["2.0", "1.0", 2]) | json_values,
        "id": st.integers() | st.text(max_size=5) | json_values,
        "method": st.sampled_from(["ping", "tools/call", "notifications/initialized"]) | json_values,
        "params": st.dictionaries(st.text(max_size=8), json_values, max_size=3) | json_values,
        "result": json_values,
        "error": json_values,
    },
)


def check(line: bytes) -> None:
    text, reply = mcpstdio.triage(line)
    assert text is None or reply is None
    if text is not None:
        types.jsonrpc_message_adapter.validate_json(text, by_name=False)  # the SDK takes it
    if reply is not None:
        assert reply.error.code in CODES and "\n" not in reply.error.message
        rid: Any = reply.id
        assert rid is None or isinstance(rid, str | int)
        json.loads(reply.model_dump_json(by_alias=True, exclude_unset=True))


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_any_bytes_are_passed_on_answered_or_dropped_never_raised(line: bytes) -> None:
    check(line)


@settings(max_examples=200, deadline=None)
@given(messages)
def test_any_message_shaped_object_is_passed_on_answered_or_dropped(obj: dict[str, Any]) -> None:
    check(json.dumps(obj).encode())


def test_a_request_with_a_usable_id_is_answered_with_that_id() -> None:
    """The client can match the error to its request only by the id: it is kept whenever it
    is a string or an integer, null otherwise (JSON-RPC 2.0 section 5)."""
    _, reply = mcpstdio.triage(b'{"jsonrpc":"2.0","id":"a","method":"tools/call","params":"x"}')
    assert reply is not None and reply.id == "a" and reply.error.code == types.INVALID_PARAMS
    _, reply = mcpstdio.triage(b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}')
    assert reply is not None and reply.id is None and reply.error.code == types.INVALID_REQUEST


def test_the_reader_holds_at_most_the_limit_and_resyncs_on_the_next_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A line over MAX_LINE is reported too long and skipped to its end; the next line is
    read whole (here with a small limit, as the real one is 16 MiB)."""
    monkeypatch.setattr(mcpstdio, "MAX_LINE", 10)
    source = io.BytesIO(b"x" * 5000 + b"\n" + b'{"a":1}\n' + b"tail")
    assert mcpstdio.read_line(source) == (b"", True)
    assert mcpstdio.read_line(source) == (b'{"a":1}\n', False)
    assert mcpstdio.read_line(source) == (b"tail", False)
    assert mcpstdio.read_line(source) is None
