"""Lower layers never import upper ones: no import circle among core's modules.

Every import counts, also one inside a function or under TYPE_CHECKING: a lazy import that
closes a circle still ties the two modules together (the store once reached the renderer
through `inject`, and the app and the consolidation imported each other)."""

from __future__ import annotations

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parents[1] / "core" / "memoryd"


def _modules(root: Path) -> dict[str, Path]:
    out = {}
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _owner(name: str, mods: dict[str, Path]) -> str | None:
    """The module a dotted import name lands in (`memoryd.store.Store` -> memoryd.store)."""
    while name and name not in mods:
        name = name.rpartition(".")[0]
    return name or None


def import_graph(root: Path = CORE) -> dict[str, set[str]]:
    mods = _modules(root)
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for mod, path in mods.items():
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*parts, base] if base else parts)
                names = [base, *(f"{base}.{a.name}" for a in node.names)]
            for name in names:
                target = _owner(name, mods) if name.startswith(root.name) else None
                # A package's __init__ runs before its submodules: an edge for modules outside it.
                if target and target != mod and not mod.startswith(target + "."):
                    graph[mod].add(target)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    comp.append(top)
                    if top == node:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def test_core_has_no_import_circle():
    assert circles(import_graph()) == []


def test_the_store_is_the_bottom_layer():
    graph = import_graph()
    upper = {"memoryd.inject", "memoryd.startup", "memoryd.snapshot", "memoryd.app", "memoryd.consolidate"}
    upper |= {
        m
        for m in graph
        if m.startswith("memoryd.sensitive.")
        and m not in ("memoryd.sensitive.keys", "memoryd.sensitive.state")
    }
    for mod in (m for m in graph if m == "memoryd.store" or m.startswith("memoryd.store.")):
        assert not graph[mod] & upper, (mod, sorted(graph[mod] & upper))


def test_the_detector_finds_a_circle_made_by_a_lazy_import(tmp_path: Path):
    pkg = tmp_path / "memoryd"
    (pkg / "store").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "store" / "__init__.py").write_text("def f():\n    from memoryd import inject\n")
    (pkg / "inject.py").write_text("def g():\n    from memoryd.store import files\n")
    (pkg / "store" / "files.py").write_text("from . import kg\n")
    (pkg / "store" / "kg.py").write_text("")
    assert circles(import_graph(pkg)) == [["memoryd.inject", "memoryd.store"]]
