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
