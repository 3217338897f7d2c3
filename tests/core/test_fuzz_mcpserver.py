"""Fuzzed MCP tool arguments, called on the Tools class as the MCP wiring calls it (after the
SDK has checked the declared types: strings, ints, lists of strings, hostile in content):
each call answers or raises memoryd's own error or a ToolError, and the store stays clean."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from mcp.server.mcpserver.exceptions import ToolError

from memoryd.app import Memoryd
from memoryd.errors import MemorydError
from memoryd.mcpserver import Tools
from tests.fuzzing import hostile_text, text_values

E2E = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
# What a JSON-RPC client can send: any text (its JSON may escape a lone surrogate, which the
# SDK's parser is not relied on to clean), any integer.
text = st.one_of(hostile_text, text_values, st.sampled_from(["", " ", ".", "..", "/", "0123456789ab"]))
opt_text = st.one_of(st.none(), text)
ints = st.one_of(st.integers(-5, 50), st.integers(-(2**63), 2**63))
types = st.one_of(st.none(), st.sampled_from(["decision", "fact", "session", "warning"]), text)

calls = st.one_of(
    st.tuples(st.just("search"), st.tuples(text, opt_text, types, ints)),
    st.tuples(st.just("get"), st.tuples(text)),
    st.tuples(st.just("traces"), st.tuples(text, opt_text, ints)),
    st.tuples(
        st.just("record"),
        st.tuples(
            types,
            text,
            text,
            st.one_of(st.none(), st.lists(text, max_size=3)),
            st.one_of(st.none(), st.lists(text, max_size=3)),
            st.none(),
            opt_text,
        ),
    ),
    st.tuples(st.just("recent"), st.tuples(opt_text, types, ints)),
)


@pytest.fixture
def tools(project: Path, monkeypatch: pytest.MonkeyPatch) -> Tools:
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    app = Memoryd()
    app.record("decision", "Use Postgres for jobs", "SQLite locked under load.", scope_path=project)
    return Tools(app)


@E2E
@given(call=calls)
@example(call=("search", ("x", "\x00", None, 5)))
@example(call=("recent", ("a\x00b", None, 5)))
@example(call=("search", ("x", None, None, 2**63)))
@example(call=("record", ("decision", "t", "b", None, None, None, None)))
def test_fuzzed_tool_call(tools: Tools, call: tuple[str, tuple[Any, ...]]) -> None:
    name, args = call
    files = {p: p.read_bytes() for p in tools.app.layout.scopes.glob("*/decisions/*")}
    try:
        out = getattr(tools, name)(*args)
    except (MemorydError, ToolError) as exc:
        assert str(exc) and "\n" not in str(exc).strip()
    else:
        assert isinstance(out, dict)
    for path, data in files.items():
        if path.exists() and name != "get":  # a get counts a recall, in the file
            assert path.read_bytes() == data, path
    doctor = tools.app.doctor()
    assert doctor.ok, (
        doctor.corrupt_files,
        doctor.files_without_rows,
        doctor.rows_without_files,
        doctor.audit,
    )
