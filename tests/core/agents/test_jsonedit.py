"""jsonedit: a JSON (or commented JSONC) text changed to hold new values with every byte
outside the changed entries kept: compact, pretty, commented and CRLF files, with or
without a BOM or a final newline; putting memoryd's entries in and taking them out again
gives the same bytes back."""

from __future__ import annotations

import json
from typing import Any

import pytest

from memoryd.agents import jsonedit

OURS = {"hooks": [{"type": "command", "command": "memoryd capture --source=claude-code", "timeout": 10}]}

PRETTY = """{
    "model": "opus",
    "permissions": {"allow": ["Bash(npm test:*)", "Read(~/.zshrc)"]},
    "hooks": {
        "Stop": [
            {"hooks": [{"type": "command", "command": "echo hi"}]}
        ]
    }
}
"""
COMPACT = '{"model":"opus","permissions":{"allow":["Bash(npm test:*)"]},"hooks":{"Stop":[{"hooks":[]}]}}'
JSONC = """{
  // my model, pinned on purpose
  "model": "opus", /* inline note */
  "hooks": {
    "Stop": [
      {"hooks": [{"type": "command", "command": "echo hi"}]} // mine
    ] // end of Stop
  }, // end of hooks
  /* a block
     comment */
  "env": {"A": "b // not a comment", "B": "/* nor this */"}
}
"""
CRLF = PRETTY.replace("\n", "\r\n")
STYLES = {"pretty": PRETTY, "compact": COMPACT, "jsonc": JSONC, "crlf": CRLF}


def _with_ours(value: dict[str, Any]) -> dict[str, Any]:
    """What setup would make of it: our group appended to Stop, a new event and a new key."""
    out = json.loads(json.dumps(value))
    out["hooks"]["Stop"].append(OURS)
    out["hooks"]["SessionStart"] = [OURS]
    out["mcpServers"] = {"memoryd": {"type": "stdio", "command": "memoryd", "args": ["mcp"], "env": {}}}
    return out


@pytest.mark.parametrize("style", sorted(STYLES))
@pytest.mark.parametrize("bom", ["", "\ufeff"])
@pytest.mark.parametrize("final_newline", [True, False])
def test_in_and_out_again_gives_the_same_bytes(style: str, bom: str, final_newline: bool) -> None:
    text = bom + (STYLES[style] if final_newline else STYLES[style].rstrip("\r\n"))
    original = jsonedit.loads(text)
    installed = jsonedit.update(text, _with_ours(original))
    assert jsonedit.loads(installed) == _with_ours(original)
    assert installed.startswith(bom + "{")
    if style == "crlf":
        assert "\n" not in installed.replace("\r\n", "")
    if style == "compact":
        assert "\n" not in installed.rstrip("\n")
    if style == "jsonc":
        for comment in ("// my model, pinned on purpose", "/* inline note */", "// mine", "// end of hooks"):
            assert comment in installed
    assert jsonedit.update(installed, original) == text


@pytest.mark.parametrize("style", sorted(STYLES))
def test_bytes_outside_our_entries_stay(style: str) -> None:
    """Every byte of the user's stays, in order: what is added is only inserted."""
    text = STYLES[style]
    installed = jsonedit.update(text, _with_ours(jsonedit.loads(text)))
    it = iter(installed)
    assert all(ch in it for ch in text), "the original is a subsequence of the result"


def test_inserted_text_follows_the_files_indent() -> None:
    text = '{\n\t"a": 1\n}\n'
    out = jsonedit.update(text, {"a": 1, "b": {"c": [1]}})
    assert out == '{\n\t"a": 1,\n\t"b": {\n\t\t"c": [\n\t\t\t1\n\t\t]\n\t}\n}\n'


@pytest.mark.parametrize(
    "text",
    ["{}", "{}\n", "{\n}\n", '{"hooks": {}}', '{\n  "hooks": {},\n  "x": []\n}\n', '{"hooks": {"Stop": []}}'],
)
def test_into_empty_containers_and_out_again(text: str) -> None:
    value = jsonedit.loads(text)
    new = json.loads(json.dumps(value))
    new.setdefault("hooks", {}).setdefault("Stop", []).append(OURS)
    installed = jsonedit.update(text, new)
    assert jsonedit.loads(installed) == new
    back = jsonedit.update(installed, value)
    assert jsonedit.loads(back) == value
    if text != "{\n}\n":  # the one shape whose inner newline cannot be told from ours
        assert back == text


def test_a_changed_value_is_replaced_in_place() -> None:
    text = (
        '{\n  "mcpServers": {\n    "memoryd": {"command": "/old/memoryd", "args": ["mcp"]}, // ours\n'
        '    "x": 1\n  }\n}'
    )
    new = {"mcpServers": {"memoryd": {"command": "memoryd", "args": ["mcp"]}, "x": 1}}
    assert jsonedit.update(text, new) == text.replace("/old/memoryd", "memoryd")


@pytest.mark.parametrize(
    "junk",
    ['{"model": "opus",', "not json", '{"a": 1,}', '{"a": 1} x', "{'a': 1}", '{"a": /* open', "[" * 5000],
)
def test_invalid_text_is_refused(junk: str) -> None:
    with pytest.raises(jsonedit.JsonError):
        jsonedit.loads(junk)


def test_values_read_as_the_json_module_reads_them() -> None:
    text = '{"a": [1, -2.5e3, true, false, null, "\\u00e9\\n"], "b": {"c": "d"}, "a2": 0}'
    assert jsonedit.loads(text) == json.loads(text)
