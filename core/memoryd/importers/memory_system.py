"""`memoryd import memory-system PATH`: seed 003's three-layer store -> memoryd (source
importer-memory-system).

Mapping (also in docs/importers.md):
- layer2/*/facts.jsonl: a fact, or the type its content says (importers.kinds: a
  preference, a warning, ...). The user stated it, so it keeps its words as they are.
- layer2/*/beliefs.jsonl: a fact tagged `belief`; the body says it was inferred, with
  the confidence and the basis, so nobody mistakes it for something the user said.
- layer2/*/summaries.jsonl: a fact tagged `summary`, naming the facts it summarises.
- active/ stays alive; archive/ (cold storage there, out of retrieval) arrives
  soft-forgotten, which is the same thing here: kept, out of default search.
- entities/{id}.json: a fact tagged `entity` per entity (name, type, aliases,
  attributes), until the knowledge graph has its own import.
- layer1/snapshot.md and index/ are derived data there and are rebuilt here: skipped.
The record's id is the import key; its importance and score travel in the body.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memoryd import clock, jsontext, safeopen
from memoryd.errors import UsageError
from memoryd.importers import kinds
from memoryd.importers.common import (
    MAX_NOTE_BYTES,
    MAX_STORE_BYTES,
    ImportReport,
    Item,
    Progress,
    Writer,
    first_line,
    parse_when,
    text_key,
    unreadable,
)
from memoryd.models import DecayState, MemoryType
from memoryd.scope import Scope
from memoryd.store import Store

SOURCE = "importer-memory-system"
KINDS = ("facts", "beliefs", "summaries")


def locate(path: Path) -> Path:
    """The folder holding layer2/: PATH itself, PATH/memory or PATH/workspace/memory."""
    for candidate in (path, path / "memory", path / "workspace" / "memory"):
        if (candidate / "layer2").is_dir():
            return candidate
    raise UsageError(f"{path} holds no memory-system store (looked for layer2/ in it and in memory/)")


def _records(path: Path, report: ImportReport) -> list[dict[str, Any]]:
    out = []
    try:
        lines = safeopen.read_bytes(path, MAX_STORE_BYTES).splitlines()
    except OSError as exc:
        report.skipped.append(f"{path}: unreadable ({unreadable(exc)})")
        return []
    for raw in lines:
        if not raw.strip():
            continue
        try:
            rec = jsontext.loads(raw)
        except (ValueError, UnicodeDecodeError):
            report.malformed += 1
            continue
        content = rec.get("content") if isinstance(rec, dict) else None
        if not isinstance(content, str) or not content.strip():
            report.malformed += 1
            continue
        out.append(rec)
    return out


def _list(value: Any) -> list[Any]:
    """A list field as a list; anything else (a damaged record) as none."""
    return value if isinstance(value, list) else []


def _num(value: Any) -> str | None:
    return f"{value:g}" if isinstance(value, int | float) and not isinstance(value, bool) else None


def _item(kind: str, rec: dict[str, Any], pool: str, scope: Scope) -> Item:
    content = rec["content"].strip()
    lines = [content, ""]
    if kind == "beliefs":
        mtype, tags = MemoryType.fact, ["belief"]
        conf = _num(rec.get("confidence"))
        lines.append("Inferred, not stated by the user" + (f" (confidence {conf})." if conf else "."))
        if isinstance(rec.get("basis"), str) and rec["basis"].strip():
            lines.append(f"Basis: {rec['basis'].strip()}")
    elif kind == "summaries":
        mtype, tags = MemoryType.fact, ["summary"]
        facts = [str(f) for f in _list(rec.get("source_facts")) if isinstance(f, str | int)]
        if facts:
            lines.append("Summarises: " + ", ".join(facts))
    else:
        mtype, tags = kinds.guess(content), []
    meta = [f"{k} {v}" for k in ("importance", "score") if (v := _num(rec.get(k)))]
    origin = ", ".join([f"{pool}/{kind}.jsonl", *meta])
    lines.append(f"Imported from memory-system ({origin}).")
    entities = [kinds.tag(e) for e in _list(rec.get("entities")) if isinstance(e, str)]
    rid = rec.get("id")
    return Item(
        key=str(rid) if isinstance(rid, str | int) and str(rid) else text_key(kind, content),
        type=mtype,
        title=first_line(content),
        body="\n".join(ln for ln in lines if ln is not None).strip() + "\n",
        created_at=parse_when(rec.get("created"), clock.now()),
        scope=scope,
        tags=["memory-system", *tags, *[e for e in entities if e]],
        decay_state=DecayState.soft_forgotten if pool == "archive" else DecayState.alive,
    )


def _entities(folder: Path, report: ImportReport, scope: Scope) -> list[Item]:
    out = []
    for path in sorted(folder.glob("*.json")):
        if path.name.startswith("_"):
            continue
        try:
            ent = jsontext.loads(safeopen.read_text(path, MAX_NOTE_BYTES))
            name = ent["name"]
            if not isinstance(name, str) or not name.strip():
                raise ValueError("no name")
        except (OSError, ValueError, KeyError, TypeError, UnicodeDecodeError):
            report.malformed += 1
            continue
        lines = [f"{name} ({ent.get('type') or 'entity'})."]
        aliases = [str(a) for a in _list(ent.get("aliases"))]
        if aliases:
            lines.append("Also known as: " + ", ".join(aliases) + ".")
        attrs = ent.get("attributes") if isinstance(ent.get("attributes"), dict) else {}
        lines += [f"- {k}: {v}" for k, v in attrs.items()]
        out.append(
            Item(
                key=f"entity:{ent.get('id') or path.stem}",
                type=MemoryType.fact,
                title=f"{name} ({ent.get('type') or 'entity'})",
                body="\n".join(lines) + "\n",
                created_at=parse_when(ent.get("created"), clock.now()),
                scope=scope,
                tags=["memory-system", "entity"],
            )
        )
    return out


def run(
    store: Store,
    path: Path,
    *,
    scope: Scope,
    progress: Progress | None = None,
    actor: str = "cli",
) -> ImportReport:
    root = locate(path.expanduser())
    writer = Writer(store, SOURCE, actor=actor)
    batches: list[Item] = []
    for pool in ("active", "archive"):
        for kind in KINDS:
            file = root / "layer2" / pool / f"{kind}.jsonl"
            if file.is_file():
                batches += [_item(kind, rec, pool, scope) for rec in _records(file, writer.report)]
    if (root / "layer2" / "entities").is_dir():
        batches += _entities(root / "layer2" / "entities", writer.report, scope)
    for n, item in enumerate(batches, 1):
        writer.put(item)
        if progress:
            progress(n, len(batches))
    return writer.finish()
