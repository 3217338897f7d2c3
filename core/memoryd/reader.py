"""The store's reads over the standard library's sqlite3, for the cold CLI.

`memoryd search`, `get`, `list` and `scope` run as short processes that agents call in a
loop; the full Store imports SQLAlchemy, SQLModel and pydantic, most of such a process's
time. A Reader offers the read methods memoryd.search calls on a Store (search,
search_turns, list, rows, turns_at, traces_text, triggers, files.absolute, vectors,
record_recall) with the same statements (memoryd.index_sql) and the same vectors
(memoryd.vectors), and counts recalls as Store.record_recall does: the index rows in one
transaction, then each file under the store's write lock (memoryd.writelock), through
memoryd.plainfront when the file is one memoryd wrote, through the Store otherwise.

`open_current` gives a Reader only for an index at the current migration version: an
absent, older or newer index goes to the full path, which creates or migrates it.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memoryd import clock, faults, projects
from memoryd import index_sql as sql
from memoryd.index_sql import Hit, TurnHit
from memoryd.kinds import MemoryType
from memoryd.paths import Layout

if TYPE_CHECKING:
    from memoryd.vectors import Vectors
    from memoryd.writelock import WriteLock

# What `list` shows for a memory of a sensitive scope (its title is not in the index).
SENSITIVE_TITLE = "(sensitive: grant to read)"
# The settings file that makes a scope sensitive (memoryd.sensitive.state.SETTINGS; not
# imported from there, which would bring in the cryptography package).
SENSITIVE_SETTINGS = "sensitive.json"
BUSY_TIMEOUT_MS = 60_000  # as memoryd.db.engine


def migration_versions() -> set[int]:
    """The packaged migrations' versions (memoryd.db.engine.migrations, names only)."""
    folder = Path(__file__).with_name("migrations")
    if folder.is_dir():
        names = os.listdir(folder)
    else:  # not unpacked (a zip or a frozen bundle): as the engine finds them
        from importlib import resources

        names = [e.name for e in resources.files("memoryd").joinpath("migrations").iterdir()]
    return {int(n[:3]) for n in names if n.endswith(".sql") and n[:3].isdigit()}


def sensitive_hashes(layout: Layout) -> set[str]:
    """As memoryd.sensitive.state.sensitive_hashes."""
    if not layout.scopes.exists():
        return set()
    return {p.parent.name for p in layout.scopes.glob(f"*/{SENSITIVE_SETTINGS}")}


class Files:
    """The part of MemoryFiles that search reads: where a row's file is."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout

    def absolute(self, body_path: str) -> Path:
        return self.layout.home / body_path


class Reader:
    def __init__(self, layout: Layout, con: sqlite3.Connection) -> None:
        self.layout = layout
        self.con = con
        self.files = Files(layout)
        self._writes: WriteLock | None = None
        self._vectors: Vectors | None = None

    def close(self) -> None:
        if self._vectors is not None:
            self._vectors.close()
        self.con.close()

    @property
    def vectors(self) -> Vectors:
        """Store.vectors (numpy is imported when a search first needs it, not for `list`)."""
        if self._vectors is None:
            from memoryd.vectors import Vectors

            self._vectors = Vectors(self.layout.index_db)
        return self._vectors

    def _all(self, statement: str, params: dict[str, Any]) -> list[tuple[Any, ...]]:
        return self.con.execute(statement, params).fetchall()

    # -- what memoryd.search calls on a Store -------------------------------------------
    def projects(self) -> list[projects.Row]:
        """Every project name row (memoryd.projects)."""
        return projects.rows(self.con)

    def row(self, slug: str) -> dict[str, Any] | None:
        rows = self._all(sql.GET, {"slug": slug})
        return sql.memory_row(dict(zip(sql.MEMORY_COLUMNS, rows[0], strict=True))) if rows else None

    def rows(self, slugs: Sequence[str]) -> dict[str, dict[str, Any]]:
        if not slugs:
            return {}
        statement, params = sql.get_many(slugs)
        found = (
            sql.memory_row(dict(zip(sql.MEMORY_COLUMNS, r, strict=True)))
            for r in self._all(statement, params)
        )
        return {r["slug"]: r for r in found}

    def turns_at(self, keys: Sequence[tuple[str, int]]) -> dict[tuple[str, int], TurnHit]:
        out: dict[tuple[str, int], TurnHit] = {}
        for slug, seqs in sql.by_slug(keys).items():
            for r in self._all(*sql.turns_at(slug, seqs)):
                out[(r[0], int(r[1]))] = TurnHit(*r[:6], 0.0)
        return out

    def started(self, slugs: Sequence[str]) -> dict[str, str]:
        return dict(self._all(*sql.started_of(slugs))) if slugs else {}

    def traces_text(self, slug: str) -> str:
        return "\n".join(r[0] for r in self._all(sql.STORED_TRACES, {"slug": slug}))

    def verbatim(
        self,
        needles: Sequence[str],
        *,
        scopes: Sequence[str] | None,
        types: Sequence[str] | None,
        states: Sequence[str] | None,
        limit: int,
    ) -> list[dict[str, Any]]:
        """Store.verbatim: identifiers the tokenizer splits to nothing (1.4.2)."""
        statement, params = sql.verbatim(needles, scopes, types, states, limit)
        return [sql.hit(tuple(r))[1] for r in self._all(statement, params)]

    def list(
        self,
        *,
        scopes: Sequence[str] | None = None,
        types: Sequence[str] | None = None,
        states: Sequence[str] | None = None,
        limit: int | None = None,
    ) -> list[dict[str, Any]]:
        statement, params = sql.list_rows(scopes, types, states, limit)
        return [
            sql.memory_row(dict(zip(sql.MEMORY_COLUMNS, r, strict=True)))
            for r in self._all(statement, params)
        ]

    def search(
        self,
        match: str,
        *,
        scopes: Sequence[str] | None,
        types: Sequence[str] | None,
        states: Sequence[str] | None,
        limit: int,
    ) -> list[tuple[Hit, dict[str, Any]]]:
        statement, params = sql.search(match, scopes, types, states, limit)
        return [sql.hit(r) for r in self._all(statement, params)]

    def search_turns(
        self, match: str, *, scopes: Sequence[str] | None, states: Sequence[str] | None, limit: int
    ) -> list[TurnHit]:
        return sql.ranked_turns(self._all, match, scopes, states, limit)

    def triggers(self, slug: str) -> list[str]:
        return [r[0] for r in self._all(sql.TRIGGERS_OF, {"slug": slug})]

    # -- recall -------------------------------------------------------------------------
    def writing(self) -> Any:
        if self._writes is None:  # filelock and YAML only when there is something to write
            from memoryd.writelock import WriteLock

            self._writes = WriteLock(self.layout.write_lock)
        return self._writes.held()

    def record_recall(self, slugs: Sequence[str], trigger_hits: Iterable[tuple[str, str]]) -> None:
        """Store.record_recall's effects: counters, last_recalled_at and decay back to
        alive in the index (one transaction) and in each file."""
        now = clock.now()
        when = clock.iso(now)
        self.con.execute("BEGIN IMMEDIATE")
        try:
            for slug in slugs:
                self.con.execute(sql.MARK_RECALLED, {"slug": slug, "ts": when})
                self.con.execute(sql.RECALL_STATS, {"slug": slug, "day": when[:10]})
            day = now.strftime("%Y-%m-%d")
            for trig, scope_hash in trigger_hits:
                self.con.execute(sql.TRIGGER_HIT, {"t": trig, "scope": scope_hash, "day": day})
            self.con.execute("COMMIT")
        except BaseException:
            self.con.execute("ROLLBACK")
            raise
        for slug in slugs:
            with self.writing():
                done = self._recall_file(slug, when)
            if not done:  # not a file this module writes: the model's way, outside our lock
                self._full_recall_file(slug, now)

    def canonical_file(self, slug: str) -> tuple[Path, dict[str, Any], str] | None:
        """(path, frontmatter, body) of a plain memory file memoryd wrote where the store
        would write it again, or None (sealed, missing, hand-edited, elsewhere)."""
        row = self.row(slug)
        if row is None or row["scope_sensitive"] or not row["body_path"].endswith(".md"):
            return None
        path = self.files.absolute(row["body_path"])
        try:
            text = path.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        from memoryd import plainfront

        got = plainfront.canonical(text, slug)
        if got is None:
            return None
        data, body = got
        want = self.layout.scope_dir(data["scope_hash"]) / MemoryType(data["type"]).folder / f"{slug}.md"
        if data["decay_state"] == "forgotten" or path != want:
            return None
        return path, data, body

    def _recall_file(self, slug: str, when: str) -> bool:
        """True when done here (written, or nothing to write: the row is gone)."""
        if self.row(slug) is None:
            return True  # Store.read would raise NotFound, and the loop goes on
        found = self.canonical_file(slug)
        if found is None:
            return False
        path, data, body = found
        faults.pause("recall:read")
        from memoryd import atomic, plainfront

        atomic.write_text(path, plainfront.render(plainfront.recalled(data, when), body), sync=False)
        return True

    def _full_recall_file(self, slug: str, now: datetime) -> None:
        from memoryd.store import Store

        Store.open(self.layout).recall_file(slug, now)


def open_current(layout: Layout) -> Reader | None:
    """A Reader over index.db if it exists and has exactly the packaged migrations."""
    path = layout.index_db
    if not path.is_file():
        return None
    try:
        con = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    except sqlite3.Error:
        return None
    try:
        con.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        con.execute("PRAGMA foreign_keys = ON")
        con.execute("PRAGMA synchronous = NORMAL")
        applied = {r[0] for r in con.execute("SELECT version FROM schema_migrations")}
    except sqlite3.Error:
        con.close()
        return None
    if applied != migration_versions():
        con.close()
        return None
    return Reader(layout, con)
