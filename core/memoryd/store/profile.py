"""SQL for the identity profile's versions (profile_versions, seed 002). Callers own the
session and the transaction."""

from __future__ import annotations

from typing import Any

from sqlalchemy import text
from sqlmodel import Session

from memoryd.store.index import _rows

COLUMNS = (
    "version_num",
    "written_at",
    "trigger",
    "content_md",
    "diff_from_prev",
    "change_summary",
    "sources_count",
    "sources_window_start",
    "sources_window_end",
    "source_scopes",
)
_COLS = ", ".join(COLUMNS)


def add_version(s: Session, row: dict[str, Any]) -> None:
    s.exec(
        text(f"INSERT INTO profile_versions ({_COLS}) VALUES ({', '.join(':' + c for c in COLUMNS)})"),
        params=row,
    )


def latest(s: Session) -> dict[str, Any] | None:
    rows = _rows(s.exec(text(f"SELECT {_COLS} FROM profile_versions ORDER BY version_num DESC LIMIT 1")))
    return rows[0] if rows else None


def version(s: Session, num: int) -> dict[str, Any] | None:
    rows = _rows(
        s.exec(text(f"SELECT {_COLS} FROM profile_versions WHERE version_num = :n"), params={"n": num})
    )
    return rows[0] if rows else None


def versions(s: Session) -> list[dict[str, Any]]:
    cols = "version_num, written_at, trigger, change_summary, sources_count"
    return _rows(s.exec(text(f"SELECT {cols} FROM profile_versions ORDER BY version_num")))


def versions_drawing_on(s: Session, scope_hash: str) -> list[int]:
    """Versions whose sources include the scope, or whose sources are not recorded."""
    rows = _rows(s.exec(text("SELECT version_num, source_scopes FROM profile_versions")))
    return [r["version_num"] for r in rows if not r["source_scopes"] or scope_hash in r["source_scopes"]]


def reports_drawing_on(s: Session, scope_hash: str) -> list[str]:
    rows = _rows(s.exec(text("SELECT period, source_scopes FROM profile_change_reports")))
    return [r["period"] for r in rows if not r["source_scopes"] or scope_hash in r["source_scopes"]]


def withdraw(s: Session, versions: list[int], periods: list[str]) -> None:
    for n in versions:
        s.exec(text("DELETE FROM profile_versions WHERE version_num = :n"), params={"n": n})
    for p in periods:
        s.exec(text("DELETE FROM profile_change_reports WHERE period = :p"), params={"p": p})
