"""memoryd.jsontext: outside JSON read into values that can be written back as UTF-8."""

from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memoryd import jsontext
from tests.fuzzing import deep_json, json_values


@settings(max_examples=100, deadline=None)
@given(value=json_values)
def test_loads_gives_utf8_writable_values(value: object) -> None:
    try:
        text = json.dumps(value)
    except RecursionError:
        return
    for data in (text, text.encode()):
        json.dumps(jsontext.loads(data), ensure_ascii=False).encode("utf-8")


def test_surrogates_in_keys_and_deep_values() -> None:
    value = jsontext.loads(json.dumps({"k\ud800": [[{"v": "a\udfff"}]] * 2, "ok": "\U0001f600"}))
    assert value == {"k\ufffd": [[{"v": "a\ufffd"}]] * 2, "ok": "\U0001f600"}


@pytest.mark.parametrize("opener", ["[", '{"content":'])
def test_too_deep_is_a_value_error(opener: str) -> None:
    with pytest.raises(ValueError):
        jsontext.loads(deep_json(100_000, opener))


@given(st.binary(max_size=50))
def test_bytes_never_raise_other_than_value_error(data: bytes) -> None:
    with contextlib.suppress(ValueError):
        jsontext.loads(data)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-32", "utf-32-be"])
def test_a_surrogate_escape_in_utf16_or_utf32_bytes_is_replaced(encoding: str) -> None:
    """json.loads reads bytes in UTF-16 and UTF-32 too; the escape search looked at the
    bytes as ASCII and missed it there (found by the red team)."""
    data = json.dumps({"a": "x\ud800", "\udfff": 1}).encode(encoding)
    value = jsontext.loads(data)
    assert value == {"a": "x\ufffd", "\ufffd": 1}
    json.dumps(value, ensure_ascii=False).encode("utf-8")


def test_a_raw_surrogate_in_utf8_bytes_is_replaced() -> None:
    """json.loads decodes bytes with surrogatepass: ED A0 80 (a surrogate written raw, no
    escape) became '\\ud800' and the capture worker set the session aside (red team)."""
    value = jsontext.loads(b'{"a": "Always use pnpm \xed\xa0\x80 here", "\xed\xbf\xbf": 1}')
    assert value == {"a": "Always use pnpm \ufffd here", "\ufffd": 1}
    json.dumps(value, ensure_ascii=False).encode("utf-8")
