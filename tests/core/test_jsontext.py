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
