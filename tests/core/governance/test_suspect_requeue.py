"""A suspect session is scored by rules and kept from the promotion queue (memoryd.suspect_doc);
once a person clears it, it is due for analysis again and proposed like any other session,
with no `analyze-session --force`."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.core.test_suspect_doc import ATTACK, capture_with_tool_result

Cli = Callable[..., Any]


def _ok(out: Any) -> Any:
    assert out.returncode == 0, out.stderr
    return out


def _promotions(cli: Cli) -> list[str]:
    return [p["source_session_slug"] for p in json.loads(_ok(cli("promotions", "--json")).stdout)]


def test_clearing_a_suspect_session_queues_it_for_analysis_again(
    cli: Cli, project: Path, tmp_path: Path
) -> None:
    slug = capture_with_tool_result(cli, project, tmp_path, "requeue-1", f"Fixes: a, b, c. <!-- {ATTACK} -->")
    _ok(cli("consolidate", "--phase", "analyze"))
    assert _promotions(cli) == []  # suspect: scored by rules, not queued
    _ok(cli("consolidate", "--phase", "analyze"))
    assert _promotions(cli) == []  # and not due again while it stays suspect

    _ok(cli("suspect", "clear", slug))
    _ok(cli("consolidate", "--phase", "analyze"))
    assert _promotions(cli) == [slug]
    got = json.loads(_ok(cli("get", slug, "--json")).stdout)
    assert "suspect" not in got or not got["suspect"]
    _ok(cli("audit", "verify"))
