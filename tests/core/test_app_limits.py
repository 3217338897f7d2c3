"""Size limits on what one record or update carries (memoryd.app.check_sizes): an 8.9 MB
body once took two minutes to record. Over a limit: one line naming the argument and the
limit, at once, nothing written; at the limit: recorded."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from memoryd.app import MAX_BODY_BYTES, MAX_TITLE_CHARS, Memoryd
from memoryd.errors import UsageError

BIG = ("lorem ipsum dolor sit amet " * 400_000)[: int(8.9 * 1024 * 1024)]


def _one_line(out, *words: str) -> None:
    assert out.returncode == 2, (out.returncode, out.stderr)
    assert out.stdout == "" and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr
    for w in words:
        assert w in out.stderr, out.stderr


def test_a_huge_body_is_refused_at_once_naming_the_limit(cli, project: Path, isolated_home: Path):
    start = time.monotonic()
    out = cli("record", "--type", "fact", "--title", "huge", "--scope", str(project), stdin=BIG)
    _one_line(out, "body on stdin is over the limit of 64 KB")
    assert time.monotonic() - start < 60  # two CLI runs; unlimited, the record alone took 114 s
    assert json.loads(cli("list", "--all-scopes", "--json").stdout) == []


def test_a_long_title_is_refused(cli, project: Path):
    out = cli("record", "--type", "fact", "--title", "t" * 300, "--scope", str(project), stdin="short body")
    _one_line(out, f"title is 300 characters; the limit is {MAX_TITLE_CHARS}")


def test_update_has_the_same_limits(cli, project: Path):
    made = cli("record", "--type", "fact", "--title", "small", "--scope", str(project), "--json", stdin="b")
    slug = json.loads(made.stdout)["slug"]
    _one_line(cli("update", slug, "--body", "-", stdin=BIG), "body on stdin is over the limit of 64 KB")
    _one_line(cli("update", slug, "--trigger", "t" * 1001), "triggers holds an entry of 1001 characters")
    _one_line(cli("update", slug, "--title", "x" * 201), "title is 201 characters")
    assert json.loads(cli("get", slug, "--json").stdout)["body"] == "b\n"


def test_the_facade_says_it_in_the_tool_argument_names(project: Path):
    """The MCP server reaches record through the facade: its error names `body`, no flag."""
    with pytest.raises(UsageError, match=r"^body is 65 KB; the limit is 64 KB") as exc:
        Memoryd().record("fact", "t", "x" * (MAX_BODY_BYTES + 1024), scope_path=project, actor="mcp")
    assert "--" not in str(exc.value)


def test_a_body_at_the_limit_is_recorded(project: Path):
    body = ("word " * MAX_BODY_BYTES)[:MAX_BODY_BYTES]
    start = time.monotonic()
    doc, _ = Memoryd().record("fact", "at the limit", body, scope_path=project)
    took = time.monotonic() - start
    assert doc.body.startswith("word word") and took < 60, took  # about 1.2 s on an idle machine


def test_stdin_is_read_only_to_the_limit(project: Path, isolated_home: Path):
    """`record < /dev/zero` read for ever (5.7 GB after 6 s, from an outside test): the CLI
    reads one byte past the limit and stops."""
    import os
    import subprocess
    import sys

    with open("/dev/zero", "rb") as zero:
        out = subprocess.run(
            [sys.executable, "-m", "memoryd.cli.main", "record", "--type", "fact", "--title", "zero"],
            stdin=zero,
            capture_output=True,
            text=True,
            cwd=project,
            env=os.environ,
            timeout=60,
            check=False,
        )
    _one_line(out, "body on stdin is over the limit of 64 KB")


def test_triggers_and_tags_are_limited_too(project: Path):
    """Through MCP, 1.6 million triggers and an 8 MB tag were accepted: a 16 MB memory file."""
    app = Memoryd()
    with pytest.raises(UsageError, match=r"^triggers has 33 entries; the limit is 32$"):
        app.record("fact", "t", "b", triggers=[f"w{i}" for i in range(33)], scope_path=project)
    with pytest.raises(UsageError, match=r"^tags holds an entry of 8000000 characters; the limit is 1000$"):
        app.record("fact", "t", "b", tags=["t" * 8_000_000], scope_path=project)
    doc, _ = app.record("fact", "t", "b", triggers=["w"] * 32, tags=["x" * 1000], scope_path=project)
    assert doc.meta.tags == ["x" * 1000]


def test_one_byte_over_says_so_exactly(project: Path):
    with pytest.raises(UsageError, match=r"^body is 65,537 bytes, over; the limit is 64 KB"):
        Memoryd().record("fact", "t", "x" * (MAX_BODY_BYTES + 1), scope_path=project)


def test_a_title_that_is_not_utf8_is_a_usage_error(cli, project: Path):
    """argv's undecodable bytes arrive as lone surrogates; they were an internal error."""
    import os
    import subprocess
    import sys

    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "memoryd.cli.main",
            "record",
            "--type",
            "fact",
            "--title",
            b"x\x9by",
            "--body",
            "b",
        ],
        capture_output=True,
        text=True,
        cwd=project,
        env=os.environ,
        timeout=60,
        check=False,
    )
    _one_line(out, "title is not UTF-8 text")
