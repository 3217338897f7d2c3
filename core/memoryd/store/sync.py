"""SQL for sync's ledger of applied versions (migration 013). Callers own the session."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import text
from sqlmodel import Session


@dataclass(frozen=True)
class Applied:
    slug: str
    rev: str
    history: tuple[str, ...]
    deleted: bool
    file_sha: str | None
    body_path: str | None
    recalls: int  # -1: unknown (a sealed file written without its key)
    last_recalled_at: str | None
    decay_state: str | None
    own: int = 0  # of `recalls`, those made on this device (its share of the count)


COLUMNS = "slug, rev, history, deleted, file_sha, body_path, recalls, last_recalled_at, decay_state, own"


def load(s: Session) -> dict[str, Applied]:
    out = {}
    for r in s.exec(text(f"SELECT {COLUMNS} FROM sync_applied")):  # type: ignore[call-overload]
        out[r[0]] = Applied(
            r[0], r[1], tuple(json.loads(r[2])), bool(r[3]), r[4], r[5], r[6], r[7], r[8], r[9]
        )
    return out


def put(s: Session, rows: Iterable[Applied]) -> None:
    for a in rows:
        s.exec(
            text(
                f"INSERT OR REPLACE INTO sync_applied ({COLUMNS}) VALUES "
                "(:slug, :rev, :history, :deleted, :file_sha, :body_path, :recalls, :lra, :decay, :own)"
            ),
            params={
                "slug": a.slug,
                "rev": a.rev,
                "history": json.dumps(list(a.history)),
                "deleted": int(a.deleted),
                "file_sha": a.file_sha,
                "body_path": a.body_path,
                "recalls": a.recalls,
                "lra": a.last_recalled_at,
                "decay": a.decay_state,
                "own": a.own,
            },
        )


def load_pending(s: Session) -> dict[str, tuple[str | None, str | None]]:
    rows = s.exec(text("SELECT slug, file_sha, body_path FROM sync_pending"))  # type: ignore[call-overload]
    return {r[0]: (r[1], r[2]) for r in rows}


def put_pending(s: Session, rows: Iterable[tuple[str, str | None, str | None]]) -> None:
    for slug, file_sha, body_path in rows:
        s.exec(
            text("INSERT OR REPLACE INTO sync_pending (slug, file_sha, body_path) VALUES (:s, :f, :b)"),
            params={"s": slug, "f": file_sha, "b": body_path},
        )


def clear_pending(s: Session, slugs: Iterable[str]) -> None:
    for slug in slugs:
        s.exec(text("DELETE FROM sync_pending WHERE slug = :s"), params={"s": slug})
