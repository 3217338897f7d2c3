"""The layering rule, checked: the desktop reaches core only through the facade (plus its
error tree and paths), never SQL or storage modules; and core loads without Qt."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from memoryd_desktop import assets

ALLOWED_CORE = {"memoryd.app", "memoryd.errors", "memoryd.paths", "memoryd.bundled"}
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
