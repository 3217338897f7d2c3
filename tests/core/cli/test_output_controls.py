"""A memory's title and body can come from an agent (MCP mem_record), a transcript or an
import: `list`, `get` and `search` never hand its control characters, terminal escapes or
bidi overrides to the terminal (or to a pipe), and `--json` keeps the exact text."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memoryd.app import Memoryd
from tests.conftest import run_cli

TITLE = "\x00nul\x1b[31mred\u202eevil zebrafinch"
BODY = "first \x1b]0;pwned\x07 line\n\tindented \x9b2J line\r\nlast zebrafinch \U000e0041\n"
RAW = ("\x00", "\x1b", "\x07", "\x9b", "\u202e", "\U000e0041", "\r")


@pytest.fixture
def hostile(project: Path) -> str:
    """One memory holding every kind of control character. The store strips bidi and tag
    characters from what it writes (memoryd.suspect_doc), so those arrive as a hand edit
    or an older file would bring them: the file rewritten behind the store's back, then
    reindexed."""
    from memoryd import frontmatter

    app = Memoryd()
    doc, _ = app.record("fact", "placeholder zebrafinch", "placeholder", scope_path=project, actor="mcp")
    (path,) = app.layout.scopes.rglob(f"{doc.meta.slug}.md")
    edited = frontmatter.parse(path.read_text(encoding="utf-8"), where=str(path))
    edited.meta.title, edited.body = TITLE, BODY
    path.write_bytes(frontmatter.render(edited).encode("utf-8"))
    app.reindex()
    return doc.meta.slug


def _on_pty(*args: str) -> str:
    """stdout of the real CLI on a pseudo-terminal, as a person at a terminal sees it."""
    master, slave = os.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "memoryd.cli.main", *args],
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=subprocess.PIPE,
        close_fds=True,
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert proc.wait(timeout=60) == 0, proc.stderr.read() if proc.stderr else ""
    return b"".join(chunks).decode("utf-8").replace("\r\n", "\n")  # the tty's own CRLF


@pytest.mark.parametrize("where", ["pty", "pipe"])
@pytest.mark.parametrize("command", ["list", "get", "search"])
def test_controls_are_shown_escaped(hostile: str, project: Path, where: str, command: str):
    args = {
        "list": ("list", "--scope", str(project)),
        "get": ("get", hostile),
        "search": ("search", "zebrafinch", "--scope", str(project)),
    }[command]
    if where == "pty":
        out = _on_pty(*args)
    else:
        res = run_cli(*args)
        assert res.returncode == 0, res.stderr
        out = res.stdout
    assert not [c for c in RAW if c in out], repr(out)
    assert "\\x00nul\\x1b[31mred\\u202eevil" in out, out
    if command == "get":
        assert "first \\x1b]0;pwned\\x07 line\n\tindented \\x9b2J line\nlast zebrafinch \\U000e0041" in out, (
            out
        )


def test_json_keeps_the_exact_text(hostile: str):
    res = run_cli("get", hostile, "--json")
    assert res.returncode == 0, res.stderr
    assert "\x1b" not in res.stdout and "\x00" not in res.stdout  # JSON escapes C0 controls
    got = json.loads(res.stdout)
    assert got["title"] == TITLE and got["body"] == BODY
