"""SQL for the consolidation job's checkpoints (migration 012). Callers own the session
and the transaction."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from sqlalchemy import text
from sqlmodel import Session

from memoryd.store.index import _rows

STATE_COLUMNS = (
    "since",
    "run_id",
    "run_started",
    "run_trigger",
    "current_phase",
    "last_run",
    "last_success",
    "retry_count",
    "last_error",
)


def state(s: Session, now: str) -> dict[str, Any]:
    """The one state row, created on first look (`since`: when memoryd first looked, so a
    new install is not "overdue" before it ever had the chance to run)."""
    s.exec(
        text("INSERT OR IGNORE INTO consolidation_state (id, since) VALUES (1, :now)"), params={"now": now}
    )
    return peek(s) or {}


def peek(s: Session) -> dict[str, Any] | None:
    """The state row without creating it (readers that must not write)."""
    cols = ", ".join(STATE_COLUMNS)
    rows = _rows(s.exec(text(f"SELECT {cols} FROM consolidation_state WHERE id = 1")))
    return rows[0] if rows else None


def update(s: Session, **values: Any) -> None:
    unknown = set(values) - set(STATE_COLUMNS)
    assert not unknown, unknown
    sets = ", ".join(f"{k} = :{k}" for k in values)
    s.exec(text(f"UPDATE consolidation_state SET {sets} WHERE id = 1"), params=values)


def phases(s: Session, run_id: str) -> list[dict[str, Any]]:
    rows = _rows(
        s.exec(
            text(
                "SELECT phase, started_at, finished_at, attempts, result FROM consolidation_phases "
                "WHERE run_id = :run ORDER BY started_at, rowid"
            ),
            params={"run": run_id},
        )
    )
    for r in rows:
        r["result"] = json.loads(r["result"]) if r["result"] else None
    return rows


def start_phase(s: Session, run_id: str, phase: str, now: str) -> None:
    """A phase begins, or begins again after its process died (attempts counts them)."""
    s.exec(
        text(
            "INSERT INTO consolidation_phases (run_id, phase, started_at) VALUES (:run, :phase, :now) "
            "ON CONFLICT (run_id, phase) DO UPDATE SET attempts = attempts + 1"
        ),
        params={"run": run_id, "phase": phase, "now": now},
    )


def finish_phase(s: Session, run_id: str, phase: str, now: str, result: dict[str, Any]) -> None:
    s.exec(
        text(
            "UPDATE consolidation_phases SET finished_at = :now, result = :result "
            "WHERE run_id = :run AND phase = :phase"
        ),
        params={"run": run_id, "phase": phase, "now": now, "result": json.dumps(result, sort_keys=True)},
    )


def mark_done(s: Session, run_id: str, phase: str, items: Iterable[str]) -> None:
    s.exec(
        text("INSERT OR IGNORE INTO consolidation_done (run_id, phase, item) VALUES (:run, :phase, :item)"),
        params=[{"run": run_id, "phase": phase, "item": i} for i in items],
    )


def done_items(s: Session, run_id: str, phase: str) -> set[str]:
    rows = s.exec(
        text("SELECT item FROM consolidation_done WHERE run_id = :run AND phase = :phase"),
        params={"run": run_id, "phase": phase},
    )
    return {r[0] for r in rows}


def forget_run(s: Session, run_id: str) -> None:
    """A finished run's item lists are not needed again (its phase rows stay as history)."""
    s.exec(text("DELETE FROM consolidation_done WHERE run_id = :run"), params={"run": run_id})


def recent_runs(s: Session, limit: int) -> list[dict[str, Any]]:
    return _rows(
        s.exec(
            text(
                "SELECT run_id, min(started_at) AS started_at, max(finished_at) AS finished_at, "
                "count(*) AS phases, sum(finished_at IS NOT NULL) AS finished, "
                "sum(attempts) - count(*) AS retries FROM consolidation_phases "
                "GROUP BY run_id ORDER BY min(started_at) DESC, run_id DESC LIMIT :limit"
            ),
            params={"limit": limit},
        )
    )


def tokens_since(s: Session, ts: str) -> int:
    """LLM tokens spent from `ts` on (llm_usage, migration 008)."""
    r = s.exec(
        text("SELECT coalesce(sum(input_tokens + output_tokens), 0) FROM llm_usage WHERE ts >= :ts"),
        params={"ts": ts},
    ).one()
    return int(r[0])


def long_term_fingerprints(s: Session, keys: set[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """(scope_hash, fingerprint) -> the slug of a visible long-term memory with that body."""
    out: dict[tuple[str, str], str] = {}
    for scope_hash in sorted({k[0] for k in keys}):
        rows = s.exec(
            text(
                "SELECT fingerprint, min(slug) FROM memories WHERE scope_hash = :scope AND "
                "type != 'session' AND decay_state != 'forgotten' GROUP BY fingerprint"
            ),
            params={"scope": scope_hash},
        )
        for fp, slug in rows:
            if (scope_hash, fp) in keys:
                out[(scope_hash, fp)] = slug
    return out
