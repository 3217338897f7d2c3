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


PLAIN = "content_md NOT LIKE 'withheld:%'"  # see memoryd.profile.withheld


def latest(s: Session, *, plain: bool = False) -> dict[str, Any] | None:
    """The newest version; with `plain`, the newest not withheld for a sensitive project."""
    where = f"WHERE {PLAIN} " if plain else ""
    rows = _rows(
        s.exec(text(f"SELECT {_COLS} FROM profile_versions {where}ORDER BY version_num DESC LIMIT 1"))
    )
    return rows[0] if rows else None


def version(s: Session, num: int) -> dict[str, Any] | None:
    rows = _rows(
        s.exec(text(f"SELECT {_COLS} FROM profile_versions WHERE version_num = :n"), params={"n": num})
    )
    return rows[0] if rows else None


def versions(s: Session) -> list[dict[str, Any]]:
    """Each version's summary row; a withheld one's sealed words in content_md (else None)."""
    cols = (
        "version_num, written_at, trigger, change_summary, sources_count, source_scopes, "
        f"CASE WHEN {PLAIN} THEN NULL ELSE content_md END AS content_md"
    )
    return _rows(s.exec(text(f"SELECT {cols} FROM profile_versions ORDER BY version_num")))


def versions_drawing_on(s: Session, scope_hash: str) -> list[dict[str, Any]]:
    """Plain versions whose sources include the scope, or whose sources are not recorded."""
    rows = _rows(s.exec(text(f"SELECT {_COLS} FROM profile_versions WHERE {PLAIN}")))
    return [r for r in rows if not r["source_scopes"] or scope_hash in r["source_scopes"]]


def reports_drawing_on(s: Session, scope_hash: str) -> list[dict[str, Any]]:
    rows = _rows(
        s.exec(text(f"SELECT period, content_md, source_scopes FROM profile_change_reports WHERE {PLAIN}"))
    )
    return [r for r in rows if not r["source_scopes"] or scope_hash in r["source_scopes"]]


def sealed_by(s: Session, scope_hash: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(versions, reports) withheld under this scope's key."""
    like = {"p": f"withheld:{scope_hash}:%"}
    versions = _rows(
        s.exec(text(f"SELECT {_COLS} FROM profile_versions WHERE content_md LIKE :p"), params=like)
    )
    reports = _rows(
        s.exec(
            text(
                "SELECT period, content_md, source_scopes FROM profile_change_reports "
                "WHERE content_md LIKE :p"
            ),
            params=like,
        )
    )
    return versions, reports


def set_version_words(s: Session, num: int, words: dict[str, Any]) -> None:
    """Withhold (sealed content, no diff or summary) or restore a version's words."""
    s.exec(
        text(
            "UPDATE profile_versions SET content_md = :content_md, diff_from_prev = :diff_from_prev, "
            "change_summary = :change_summary WHERE version_num = :n"
        ),
        params={"n": num, **words},
    )


def set_report_words(s: Session, period: str, content_md: str) -> None:
    s.exec(
        text("UPDATE profile_change_reports SET content_md = :c WHERE period = :p"),
        params={"p": period, "c": content_md},
    )


def drop(s: Session, versions: list[int], periods: list[str]) -> None:
    for n in versions:
        s.exec(text("DELETE FROM profile_versions WHERE version_num = :n"), params={"n": n})
    for p in periods:
        s.exec(text("DELETE FROM profile_change_reports WHERE period = :p"), params={"p": p})


# -- the monthly change report: what happened between two instants ----------------------
def versions_between(s: Session, a: str, b: str) -> list[dict[str, Any]]:
    sql = (
        "SELECT version_num, written_at, trigger, change_summary, content_md, source_scopes "
        f"FROM profile_versions WHERE written_at >= :a AND written_at < :b AND {PLAIN} ORDER BY version_num"
    )
    return _rows(s.exec(text(sql), params={"a": a, "b": b}))


def last_before(s: Session, a: str) -> dict[str, Any] | None:
    sql = (
        f"SELECT content_md FROM profile_versions WHERE written_at < :a AND {PLAIN} "
        "ORDER BY version_num DESC LIMIT 1"
    )
    rows = _rows(s.exec(text(sql), params={"a": a}))
    return rows[0] if rows else None


def supersedes_between(s: Session, a: str, b: str) -> list[dict[str, Any]]:
    sql = (
        "SELECT newer_memory_id, older_memory_id, confidence, decided_by FROM supersedes_chain "
        "WHERE decided_at >= :a AND decided_at < :b ORDER BY decided_at"
    )
    return _rows(s.exec(text(sql), params={"a": a, "b": b}))


def entities_added(s: Session, a: str, b: str) -> list[dict[str, Any]]:
    sql = (
        "SELECT name, type, scope_hash FROM entities "
        "WHERE first_seen_at >= :a AND first_seen_at < :b ORDER BY name"
    )
    return _rows(s.exec(text(sql), params={"a": a, "b": b}))


def entities_dropped(s: Session, prev: str, a: str) -> list[dict[str, Any]]:
    """Seen in the month before, not since."""
    sql = (
        "SELECT name, type, scope_hash FROM entities "
        "WHERE last_seen_at >= :p AND last_seen_at < :a ORDER BY name"
    )
    return _rows(s.exec(text(sql), params={"p": prev, "a": a}))


def save_report(s: Session, row: dict[str, Any]) -> None:
    """One report per period: regenerating replaces it."""
    s.exec(
        text("DELETE FROM profile_change_reports WHERE period = :period"), params={"period": row["period"]}
    )
    cols = ", ".join(row)
    s.exec(
        text(f"INSERT INTO profile_change_reports ({cols}) VALUES ({', '.join(':' + c for c in row)})"),
        params=row,
    )


def reports(s: Session) -> list[dict[str, Any]]:
    """Every monthly change report, newest period first."""
    return _rows(
        s.exec(
            text(
                "SELECT period, generated_at, content_md, versions_count, supersedes_count, "
                "entities_added, entities_dropped, source_scopes FROM profile_change_reports "
                "ORDER BY period DESC"
            )
        )
    )
