"""The layering rule, checked: the desktop reaches core only through the facade (plus its
error tree and paths), never SQL or storage modules; and core loads without Qt."""

from __future__ import annotations

import ast
import io
import subprocess
import sys
import tokenize
from pathlib import Path

from memoryd_desktop import assets

# memoryd.review: the review rules the tray and the terminal UI share (no I/O in it);
# memoryd.visible: hidden controls shown as escapes, as the command line shows them (pure)
ALLOWED_CORE = {
    "memoryd.app",
    "memoryd.errors",
    "memoryd.paths",
    "memoryd.bundled",
    "memoryd.review",
    "memoryd.visible",
}
FORBIDDEN = ("sqlite3", "sqlalchemy", "sqlmodel")
PACKAGE = Path(assets.__file__).parent  # the package __file__ is None while an install maps it as a namespace


def _imports(path: Path) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
            out.update(f"{node.module}.{alias.name}" for alias in node.names if node.module == "memoryd")
    return out


def test_desktop_uses_only_the_facade() -> None:
    modules = sorted(PACKAGE.glob("*.py"))
    assert len(modules) >= 8
    offending = {}
    for path in modules:
        names = _imports(path)
        core = {n for n in names if n == "memoryd" or n.startswith("memoryd.")} - {"memoryd"}
        bad = sorted((core - ALLOWED_CORE) | {n for n in names if n.split(".")[0] in FORBIDDEN})
        if bad:
            offending[path.name] = bad
    assert offending == {}


def test_core_facade_imports_without_qt() -> None:
    code = "import sys, memoryd.app; print(sorted(m for m in sys.modules if m.startswith('PySide6')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def _code_hits(path: Path) -> list[str]:
    """`sqlite…`/`sqlmodel` names and calls of the builtin `open(` in code (not in
    comments or docstrings, and not Qt methods such as `dialog.open()`)."""
    tokens = [t for t in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)]
    hits = []
    for i, tok in enumerate(tokens):
        if tok.type != tokenize.NAME:
            continue
        before = tokens[i - 1].string if i else ""
        after = tokens[i + 1].string if i + 1 < len(tokens) else ""
        if (
            "sqlite" in tok.string.lower()
            or tok.string == "sqlmodel"
            or (tok.string in ("open", "io") and after == "(" and before not in (".", "def"))
        ):
            hits.append(f"{path.name}:{tok.start[0]}: {tok.line.strip()}")
    return hits


def test_no_sql_or_file_open_in_the_desktop_source() -> None:
    """The issue's grep, on code: no sqlite, sqlmodel or builtin open( in the desktop
    package; it reaches the data folder only through the facade."""
    modules = sorted(PACKAGE.rglob("*.py"))
    assert len(modules) >= 15
    assert [hit for path in modules for hit in _code_hits(path)] == []


def test_the_grep_finds_what_it_looks_for(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import sqlite3\nx = open('index.db')\nw.open()\n# open( in a comment\n")
    assert [h.split(":")[1] for h in _code_hits(bad)] == ["1", "2"]
