"""`memoryd import agent-memory PATH`: seed 004's SQLite store (memory.db) -> memoryd
(source importer-agent-memory).

Mapping (also in docs/importers.md):
- memories.type FACT -> fact, PREFERENCE -> preference, SKILL -> playbook, ERROR ->
  warning, RULE -> preference tagged `rule` (a standing instruction on how to work);
  an unknown type -> fact tagged with it.
- memories whose expires_at has passed are skipped (that store would have dropped them);
  rows without content are counted malformed.
- subject, predicate, priority, importance and confidence travel in the body.
- episodes -> session memories (goal, tools used, outcome), keyed by the episode id.
The file is opened read-only; columns are read by name, so a store with extra or fewer
optional columns still imports.
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path
from typing import Any

from memoryd import clock, jsontext
from memoryd.errors import UsageError
from memoryd.importers.common import ImportReport, Item, Progress, Writer, first_line, parse_when
from memoryd.models import MemoryType
from memoryd.scope import Scope
from memoryd.store import Store

SOURCE = "importer-agent-memory"
TYPES = {
    "FACT": (MemoryType.fact, []),
    "PREFERENCE": (MemoryType.preference, []),
    "SKILL": (MemoryType.playbook, []),
    "ERROR": (MemoryType.warning, []),
    "RULE": (MemoryType.preference, ["rule"]),
}


def locate(path: Path) -> Path:
    for candidate in (path, path / "memory.db", path / "data" / "memory" / "memory.db"):
        if candidate.is_file():
            return candidate
    raise UsageError(f"no memory.db at {path}")


def _connect(db: Path) -> sqlite3.Connection:
    try:
        conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
        conn.row_factory = sqlite3.Row
        conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
    except sqlite3.DatabaseError as exc:
        raise UsageError(f"{db} is not a readable SQLite database ({exc})") from None
    return conn


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {r["name"] for r in conn.execute(f"PRAGMA table_info({table})")}


def _rows(conn: sqlite3.Connection, table: str, needed: set[str]) -> list[dict[str, Any]]:
    cols = _columns(conn, table)
    if not cols:
        return []
    if not needed <= cols:
        raise UsageError(f"table {table} lacks column(s) {', '.join(sorted(needed - cols))}")
    return [dict(r) for r in conn.execute(f"SELECT * FROM {table}")]


def _memory(row: dict[str, Any], scope: Scope, report: ImportReport) -> Item | None:
    content = row.get("content")
    if not isinstance(content, str) or not content.strip():
        report.malformed += 1
        return None
    now = clock.now()
    expires = row.get("expires_at")
    if isinstance(expires, str) and expires.strip() and parse_when(expires, now) <= now:
        report.skipped.append(f"memory {row.get('id')}: expired {expires[:10]}")
        return None
    kind = str(row.get("type") or "").upper()
    mtype, tags = TYPES.get(kind, (MemoryType.fact, [kind.lower()] if kind else []))
    details = [
        f"{k.replace('_', ' ')} {row[k]}"
        for k in ("subject", "predicate", "priority", "importance_score", "confidence")
        if row.get(k) not in (None, "")
    ]
    body = content.strip() + "\n\nImported from agent-memory (" + ", ".join([kind or "?", *details]) + ").\n"
    return Item(
        key=f"memory:{row['id']}",
        type=mtype,
        title=first_line(content),
        body=body,
        created_at=parse_when(row.get("created_at"), now),
        scope=scope,
        tags=["agent-memory", *tags],
    )


def _list(value: Any) -> list[str]:
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            value = jsontext.loads(value)
    return [str(v) for v in value] if isinstance(value, list) else []


def _episode(row: dict[str, Any], scope: Scope, report: ImportReport) -> Item | None:
    summary = row.get("summary")
    if not isinstance(summary, str) or not summary.strip():
        report.malformed += 1
        return None
    sections = [("Goal", str(row.get("goal") or summary).strip())]
    done = [f"- {summary.strip()}"]
    tools = _list(row.get("tools_used"))
    if tools:
        done.append("- Tools used: " + ", ".join(tools))
    sections.append(("What was done", "\n".join(done)))
    entities = _list(row.get("entities"))
    if entities:
        sections.append(("Entities", ", ".join(entities)))
    sections.append(("Outcome", str(row.get("outcome") or "(not recorded)").strip()))
    return Item(
        key=f"episode:{row['id']}",
        type=MemoryType.session,
        title=first_line(summary),
        body="\n\n".join(f"## {name}\n{text}" for name, text in sections) + "\n",
        created_at=parse_when(row.get("started_at"), clock.now()),
        scope=scope,
        tags=["agent-memory", "episode"],
    )


def run(
    store: Store,
    path: Path,
    *,
    scope: Scope,
    progress: Progress | None = None,
    actor: str = "cli",
) -> ImportReport:
    db = locate(path.expanduser())
    writer = Writer(store, SOURCE, actor=actor)
    with contextlib.closing(_connect(db)) as conn:
        try:
            memories = _rows(conn, "memories", {"id", "type", "content"})
            episodes = _rows(conn, "episodes", {"id", "summary"})
        except sqlite3.DatabaseError as exc:
            # !a: sqlite quotes the undecodable cell itself, newlines and all
            raise UsageError(f"{db}: cannot read it ({str(exc)[:160]!a})") from None
    if not memories and not episodes:
        raise UsageError(f"{db} has neither a memories nor an episodes table")
    total = len(memories) + len(episodes)
    rows = [(_memory, r) for r in memories] + [(_episode, r) for r in episodes]
    for n, (build, row) in enumerate(rows, 1):
        item = build(row, scope, writer.report)
        if item is not None:
            writer.put(item)
        if progress:
            progress(n, total)
    return writer.finish()
