"""open_index(): one SQLite file in WAL mode, migrations applied in order and recorded.

The driver runs in autocommit mode and writers take `BEGIN IMMEDIATE`, so concurrent
processes queue on the busy timeout instead of failing on a read-to-write upgrade.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.pool import QueuePool
from sqlmodel import Session

from memoryd.clock import now_iso
from memoryd.errors import StorageError

BUSY_TIMEOUT_MS = 60_000


@dataclass(frozen=True)
class Capabilities:
    """What the running SQLite can do, probed at start-up (platform SQLites range 3.37-3.5x)."""

    sqlite_version: str
    fts5: bool
    trigram: bool


def probe() -> Capabilities:
    con = sqlite3.connect(":memory:")
    try:

        def works(sql: str) -> bool:
            try:
                con.execute(sql)
                return True
            except sqlite3.OperationalError:
                return False

        fts5 = works("CREATE VIRTUAL TABLE temp.p1 USING fts5(x)")
        trigram = works("CREATE VIRTUAL TABLE temp.p2 USING fts5(x, tokenize='trigram')")
        return Capabilities(sqlite3.sqlite_version, fts5, trigram)
    finally:
        con.close()


def migrations() -> list[tuple[int, str, str]]:
    """(version, name, sql) for each packaged migration, in order."""
    out = []
    for entry in resources.files("memoryd").joinpath("migrations").iterdir():
        name = entry.name
        if name.endswith(".sql") and name[:3].isdigit():
            out.append((int(name[:3]), name, entry.read_text(encoding="utf-8")))
    return sorted(out)


def _on_connect(dbapi_con: sqlite3.Connection, _record: Any) -> None:
    dbapi_con.isolation_level = None
    dbapi_con.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    dbapi_con.execute("PRAGMA foreign_keys = ON")
    dbapi_con.execute("PRAGMA synchronous = NORMAL")


def _apply(path: Path) -> None:
    con = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    try:
        con.execute("PRAGMA journal_mode = WAL")
        con.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
        )
        for version, name, sql in migrations():
            con.execute("BEGIN IMMEDIATE")
            try:
                done = con.execute("SELECT 1 FROM schema_migrations WHERE version = ?", (version,)).fetchone()
                if not done:
                    for statement in _statements(sql):
                        con.execute(statement)
                    con.execute(
                        "INSERT INTO schema_migrations VALUES (?, ?, ?)",
                        (version, name, now_iso()),
                    )
                con.execute("COMMIT")
            except BaseException:
                con.execute("ROLLBACK")
                raise
    finally:
        con.close()


def _statements(sql: str) -> Iterator[str]:
    buf = ""
    for line in sql.splitlines(keepends=True):
        if line.lstrip().startswith("--"):
            continue
        buf += line
        if sqlite3.complete_statement(buf):
            yield buf.strip()
            buf = ""
    if buf.strip():
        yield buf.strip()


def open_index(path: Path) -> Engine:
    """Open (creating and migrating as needed) the index at `path`."""
    caps = probe()
    if not caps.fts5:
        raise StorageError(
            f"this Python's SQLite {caps.sqlite_version} has no FTS5; "
            "install a Python built with FTS5 (python.org, Debian, Homebrew and pyenv builds have it)"
        )
    try:
        _apply(path)
        os.chmod(path, 0o600)  # SQLite gives -wal and -shm the same mode
    except sqlite3.DatabaseError as exc:
        raise StorageError(f"cannot open index {path}: {exc}") from None
    # Connections are kept and reused (opening one and setting its pragmas costs ~1 ms,
    # half of a daily decay sweep); check_same_thread is off because the tray hands the
    # facade to worker threads, one at a time per connection.
    engine = create_engine(
        f"sqlite:///{path}",
        poolclass=QueuePool,
        pool_size=4,
        max_overflow=8,
        connect_args={"check_same_thread": False},
    )
    event.listen(engine, "connect", _on_connect)
    return engine


def schema_version(engine: Engine) -> int:
    with engine.connect() as con:
        return int(con.exec_driver_sql("SELECT max(version) FROM schema_migrations").scalar() or 0)


@contextmanager
def write_session(engine: Engine) -> Iterator[Session]:
    """One write transaction, taken up front so writers queue instead of deadlocking."""
    with Session(engine) as session:
        session.connection().exec_driver_sql("BEGIN IMMEDIATE")
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise


@contextmanager
def read_session(engine: Engine) -> Iterator[Session]:
    with Session(engine) as session:
        yield session
