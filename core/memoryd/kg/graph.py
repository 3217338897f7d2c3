"""Reading the knowledge graph: one entity with its memories and neighbours, the entities
ranked, the whole graph as GraphML or node-link JSON for a viewer (Gephi, yEd, Cytoscape,
networkx, d3), and extracting entities for memories written before it existed."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any
from xml.etree import ElementTree as ET

from memoryd.db.engine import read_session
from memoryd.errors import CorruptFile, KeyUnavailable, NotFound, UsageError
from memoryd.kg import lexicon
from memoryd.models import VISIBLE_STATES
from memoryd.store import Store
from memoryd.store import kg as sql

FORMATS = ("graphml", "json")
# Characters XML 1.0 cannot hold (terminal escapes pasted into a title): dropped in GraphML.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml(value: object) -> str:
    return _NOT_XML.sub("", str(value))


def entity(store: Store, name: str) -> dict[str, Any]:
    """An entity by any of its names or its id: the memories naming it (newest first,
    with how each stands to it) and the entities named alongside it."""
    name = name.strip()
    if not name:
        raise UsageError("give an entity name, e.g. `memoryd graph entity React`")
    with read_session(store.engine) as s:
        row = sql.entity(s, name) if name.startswith("entity:") else None
        matches = [row] if row else sql.find_entities(s, lexicon.norm(name))
        if not matches:
            raise NotFound(f"no entity named {name!r}; `memoryd graph entities` lists them")
        top = matches[0]
        memories = sql.mentions_of(s, top["id"])
        related = sql.co_mentioned(s, top["id"])
    for m in memories:
        m["predicates"] = sorted(set((m.get("predicates") or "").split(","))) if m.get("predicates") else []
    return {
        **top,
        "memories": memories,
        "related": related,
        "also": [{"id": m["id"], "name": m["name"], "type": m["type"]} for m in matches[1:]],
    }


def entities(store: Store, *, kind: str | None = None, top: int | None = None) -> list[dict[str, Any]]:
    if kind is not None and kind not in lexicon.TYPES:
        raise UsageError(f"--type must be one of {', '.join(lexicon.TYPES)}")
    if top is not None and top < 1:
        raise UsageError("--top must be at least 1")
    with read_session(store.engine) as s:
        return sql.entities(s, kind=kind, top=top)


def export(store: Store, fmt: str, *, scopes: Sequence[str] | None = None) -> str:
    if fmt not in FORMATS:
        raise UsageError(f"--format must be one of {', '.join(FORMATS)}")
    with read_session(store.engine) as s:
        nodes, edges = sql.graph(s, scopes)
    out = [_node(n) for n in nodes]
    links = [
        {
            "source": e["subject_id"],
            "target": e["object_id"],
            "predicate": e["predicate"],
            "scope": e["scope_hash"],
        }
        for e in edges
    ]
    if fmt == "json":
        doc = {
            "directed": True,
            "multigraph": True,
            "graph": {"name": "memoryd"},
            "nodes": out,
            "links": links,
        }
        return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"
    return _graphml(out, links)


def _node(n: dict[str, Any]) -> dict[str, Any]:
    if "slug" in n:
        return {
            "id": n["slug"],
            "label": n["title"],
            "kind": "memory",
            "type": n["type"],
            "scope": n["scope_hash"],
            "created_at": n["created_at"],
            "superseded_by": n["superseded_by"] or "",
        }
    return {
        "id": n["id"],
        "label": n["name"],
        "kind": "entity",
        "type": n["type"],
        "mentions": n["mention_count"],
        "aliases": ", ".join(n["aliases"]),
    }


_KEYS = (
    ("label", "node", "string"),
    ("kind", "node", "string"),
    ("type", "node", "string"),
    ("scope", "node", "string"),
    ("created_at", "node", "string"),
    ("superseded_by", "node", "string"),
    ("mentions", "node", "int"),
    ("aliases", "node", "string"),
    ("predicate", "edge", "string"),
)


def _graphml(nodes: list[dict[str, Any]], links: list[dict[str, Any]]) -> str:
    ns = "http://graphml.graphdrawing.org/xmlns"
    ET.register_namespace("", ns)
    root = ET.Element(f"{{{ns}}}graphml")
    for name, where, kind in _KEYS:
        ET.SubElement(
            root,
            f"{{{ns}}}key",
            {"id": f"{where[0]}_{name}", "for": where, "attr.name": name, "attr.type": kind},
        )
    g = ET.SubElement(root, f"{{{ns}}}graph", {"id": "memoryd", "edgedefault": "directed"})
    for n in nodes:
        el = ET.SubElement(g, f"{{{ns}}}node", {"id": _xml(n["id"])})
        for key, value in n.items():
            if key != "id" and value not in (None, ""):
                ET.SubElement(el, f"{{{ns}}}data", {"key": f"n_{key}"}).text = _xml(value)
    for i, e in enumerate(links):
        ends = {"source": _xml(e["source"]), "target": _xml(e["target"])}
        el = ET.SubElement(g, f"{{{ns}}}edge", {"id": f"e{i}", **ends})
        ET.SubElement(el, f"{{{ns}}}data", {"key": "e_predicate"}).text = _xml(e["predicate"])
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def backfill(
    store: Store, learner: Any, *, all_memories: bool, progress: Callable[[int, int], None] | None = None
) -> dict[str, int]:
    from memoryd.sensitive import gate

    rows = store.list(states=list(VISIBLE_STATES))
    with read_session(store.engine) as s:
        done = sql.slugs_with_mentions(s)
    todo = [r for r in rows if all_memories or r["slug"] not in done]
    report = {"memories": len(todo), "extracted": 0, "entities": 0, "skipped": 0}
    for i, row in enumerate(todo, 1):
        if not gate.allowed(store, row["scope_hash"]):
            report["skipped"] += 1
        else:
            try:
                learned = learner.learn(row["slug"], judge=False)
                report["extracted"] += 1
                report["entities"] += len(learned.entities)
            except (CorruptFile, KeyUnavailable, NotFound):
                report["skipped"] += 1
        if progress is not None:
            progress(i, len(todo))
    return report
