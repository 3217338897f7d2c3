"""SQL for governance: the promotion queue, analysis retries, LLM spend, decay candidates
and the digest's aggregates. Callers own the session and the transaction."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import bindparam, text
from sqlmodel import Session

from memoryd import vectors
from memoryd.store.index import MEMORY_COLUMNS, _rows

PROMOTION_COLUMNS = (
    "id",
    "source_session_slug",
    "proposed_type",
    "proposed_title",
    "proposed_body",
    "proposed_triggers",
    "dura_score",
    "reasoning",
    "proposed_supersedes",
    "scope_hash",
    "status",
    "created_at",
    "decided_at",
    "decided_type",
)
_PCOLS = ", ".join(PROMOTION_COLUMNS)


def _promotion(row: dict[str, Any]) -> dict[str, Any]:
    """JSON columns decoded, so callers never parse; `type` is what the promotion is now:
    the type it was approved with, else the proposed one."""
    out = dict(row)
    out["type"] = out.get("decided_type") or out["proposed_type"]
    for key in ("proposed_triggers", "dura_score", "proposed_supersedes"):
        try:
            out[key] = json.loads(out[key]) if out[key] else ([] if key != "dura_score" else {})
        except ValueError:
            out[key] = [] if key != "dura_score" else {}
    return out


# -- promotions -------------------------------------------------------------------------
def queue_promotion(s: Session, row: dict[str, Any]) -> tuple[int, str]:
    """Insert a pending promotion for a session, or refresh the pending one. A session
    whose promotion was already decided gets no new one: (id, "queued" | "updated" |
    "decided")."""
    slug = row["source_session_slug"]
    found = s.exec(
        text(
            "SELECT id, status FROM promotions WHERE source_session_slug = :slug "
            "ORDER BY status = 'pending' DESC, id DESC LIMIT 1"
        ),
        params={"slug": slug},
    ).first()
    values = {
        **row,
        "proposed_triggers": json.dumps(row["proposed_triggers"], ensure_ascii=False),
        "dura_score": json.dumps(row["dura_score"], sort_keys=True),
        "proposed_supersedes": json.dumps(row["proposed_supersedes"], ensure_ascii=False),
    }
    if found and found[1] == "pending":
        s.exec(
            text(
                "UPDATE promotions SET proposed_type = :proposed_type, proposed_title = :proposed_title, "
                "proposed_body = :proposed_body, proposed_triggers = :proposed_triggers, "
                "dura_score = :dura_score, reasoning = :reasoning, "
                "proposed_supersedes = :proposed_supersedes WHERE id = :id"
            ),
            params={**values, "id": found[0]},
        )
        return int(found[0]), "updated"
    if found:
        return int(found[0]), "decided"
    cols = [c for c in PROMOTION_COLUMNS if c in values and c != "id"]
    new_id = s.exec(
        text(
            f"INSERT INTO promotions ({', '.join(cols)}) VALUES ({', '.join(':' + c for c in cols)}) "
            "RETURNING id"
        ),
        params=values,
    ).scalar()
    return int(new_id), "queued"


def promotion(s: Session, pid: int) -> dict[str, Any] | None:
    rows = _rows(s.exec(text(f"SELECT {_PCOLS} FROM promotions WHERE id = :id"), params={"id": pid}))
    return _promotion(rows[0]) if rows else None


def promotions(
    s: Session, *, status: str | None, scopes: Sequence[str] | None, limit: int | None = None
) -> list[dict[str, Any]]:
    where, params, binds = ["1"], {}, []
    if status:
        where.append("status = :status")
        params["status"] = status
    if scopes is not None:
        where.append("scope_hash IN :scopes")
        params["scopes"] = list(scopes)
        binds.append(bindparam("scopes", expanding=True))
    sql = f"SELECT {_PCOLS} FROM promotions WHERE {' AND '.join(where)} ORDER BY id"
    if limit:
        sql += f" LIMIT {int(limit)}"
    return [_promotion(r) for r in _rows(s.exec(text(sql).bindparams(*binds), params=params))]


def count_promotions(s: Session, status: str) -> int:
    """How many proposals have a status (the tray's badge), without reading them."""
    row = s.exec(text("SELECT COUNT(*) FROM promotions WHERE status = :status"), params={"status": status})
    return int(row.one()[0])


def decide(s: Session, pid: int, status: str, when: str, *, decided_type: str | None = None) -> bool:
    """Decide a pending promotion; False when another process decided it first. An
    approval records the type the memory was written with (the listings show it)."""
    res = s.exec(
        text(
            "UPDATE promotions SET status = :status, decided_at = :ts, decided_type = :type "
            "WHERE id = :id AND status = 'pending'"
        ),
        params={"status": status, "ts": when, "id": pid, "type": decided_type},
    )
    return bool(res.rowcount)


def promotion_rows(s: Session, slugs: Sequence[str]) -> list[dict[str, Any]]:
    """The sessions' promotions as stored (JSON columns left encoded), for a merge to keep
    in the trash: the index drops them with their session, and its undo puts them back."""
    if not slugs:
        return []
    sql = f"SELECT {_PCOLS} FROM promotions WHERE source_session_slug IN :slugs ORDER BY id"
    return _rows(
        s.exec(text(sql).bindparams(bindparam("slugs", expanding=True)), params={"slugs": list(slugs)})
    )


def promotion_ids_taken(s: Session, ids: Sequence[int]) -> set[int]:
    if not ids:
        return set()
    sql = "SELECT id FROM promotions WHERE id IN :ids"
    return {
        int(r[0])
        for r in s.exec(text(sql).bindparams(bindparam("ids", expanding=True)), params={"ids": list(ids)})
    }


def restore_promotion(s: Session, row: dict[str, Any]) -> None:
    """A row `promotion_rows` gave, back under its id (its decisions name it)."""
    s.exec(
        text(f"INSERT INTO promotions ({_PCOLS}) VALUES ({', '.join(':' + c for c in PROMOTION_COLUMNS)})"),
        params={c: row[c] for c in PROMOTION_COLUMNS},
    )


# -- analysis ---------------------------------------------------------------------------
def due_for_analysis(s: Session, limit: int | None, *, failed_before: str | None = None) -> list[str]:
    """Sessions never analysed, or whose body changed since (re-captured). With
    `failed_before`, sessions whose last failed try is newer than that wait."""
    sql = (
        "SELECT slug FROM memories WHERE type = 'session' AND decay_state IN ('alive', 'dim') "
        "AND (analyzed_fingerprint IS NULL OR analyzed_fingerprint != fingerprint) "
    )
    params: dict[str, Any] = {}
    if failed_before:
        sql += "AND slug NOT IN (SELECT slug FROM analysis_failures WHERE last_try_at > :cutoff) "
        params["cutoff"] = failed_before
    sql += "ORDER BY created_at, slug"
    if limit:
        sql += f" LIMIT {int(limit)}"
    return [r[0] for r in s.exec(text(sql), params=params)]


def requeue_lost_proposals(s: Session, threshold: float) -> int:
    """Proposals live only in the index. When it was rebuilt from files, sessions that
    scored at or above the threshold but have no promotion row (pending or decided) are
    marked due again, so the next analysis queues them once more."""
    result = s.exec(
        text(
            "UPDATE memories SET analyzed_fingerprint = NULL WHERE type = 'session' "
            "AND dura_mean >= :t AND analyzed_fingerprint IS NOT NULL "
            "AND slug NOT IN (SELECT source_session_slug FROM promotions)"
        ),
        params={"t": threshold},
    )
    return int(result.rowcount or 0)


def record_failure(s: Session, slug: str, error: str, when: str) -> int:
    return int(
        s.exec(
            text(
                "INSERT INTO analysis_failures (slug, attempts, last_error, last_try_at) "
                "VALUES (:slug, 1, :err, :ts) ON CONFLICT(slug) DO UPDATE SET "
                "attempts = attempts + 1, last_error = excluded.last_error, "
                "last_try_at = excluded.last_try_at RETURNING attempts"
            ),
            params={"slug": slug, "err": error, "ts": when},
        ).scalar()
    )


def failures(s: Session, slug: str | None = None) -> list[dict[str, Any]]:
    sql = "SELECT slug, attempts, last_error, last_try_at FROM analysis_failures"
    if slug:
        return _rows(s.exec(text(sql + " WHERE slug = :slug"), params={"slug": slug}))
    return _rows(s.exec(text(sql + " ORDER BY last_try_at")))


def clear_failure(s: Session, slug: str) -> None:
    s.exec(text("DELETE FROM analysis_failures WHERE slug = :slug"), params={"slug": slug})


# -- LLM spend --------------------------------------------------------------------------
def record_usage(s: Session, row: dict[str, Any]) -> None:
    s.exec(
        text(
            "INSERT INTO llm_usage (ts, day, provider, model, task, input_tokens, output_tokens, "
            "cost_usd, outcome) VALUES (:ts, :day, :provider, :model, :task, :input_tokens, "
            ":output_tokens, :cost_usd, :outcome)"
        ),
        params=row,
    )


def usage_since(s: Session, day: str) -> dict[str, Any]:
    """Tokens, calls and cost from `day` (YYYY-MM-DD) on; cost is None when a call's
    price was unknown and no call had a price."""
    r = s.exec(
        text(
            "SELECT count(*), coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0), "
            "sum(cost_usd), sum(cost_usd IS NULL) FROM llm_usage WHERE day >= :day"
        ),
        params={"day": day},
    ).one()
    return {
        "calls": int(r[0]),
        "input_tokens": int(r[1]),
        "output_tokens": int(r[2]),
        "tokens": int(r[1]) + int(r[2]),
        "cost_usd": round(float(r[3]), 6) if r[3] is not None else (0.0 if not r[0] else None),
        "unpriced_calls": int(r[4] or 0),
    }


# -- decay ------------------------------------------------------------------------------
# Days since the last sign of life: a recall, an update (a re-capture) or creation.
_AGE = (
    "julianday(:now) - julianday(max(created_at, coalesce(updated_at, ''), coalesce(last_recalled_at, '')))"
)
# Sessions fade after their ttl (default from config); long-term types only with a ttl.
_DECAYS = "(type = 'session' OR ttl_days IS NOT NULL)"


def decay_candidates(
    s: Session, now: str, *, dim_days: int, soft_days: int, forget_days: int, horizon_days: float = 0.0
) -> list[dict[str, Any]]:
    """Rows whose age (plus `horizon_days`, for reminders) reaches the next step."""
    ttl = f"coalesce(ttl_days, {int(dim_days)})"
    sql = (
        f"SELECT slug, type, scope_hash, title, decay_state, body_path, {ttl} AS ttl, "
        "max(created_at, coalesce(updated_at, ''), coalesce(last_recalled_at, '')) AS last_active, "
        f"{_AGE} + :horizon AS age FROM memories WHERE {_DECAYS} AND ("
        f"(decay_state = 'alive' AND {_AGE} + :horizon >= {ttl}) OR "
        f"(decay_state = 'dim' AND {_AGE} + :horizon >= {ttl} + :soft) OR "
        f"(decay_state = 'soft-forgotten' AND {_AGE} + :horizon >= {ttl} + :soft + :forget)) "
        "ORDER BY slug"
    )
    return _rows(
        s.exec(
            text(sql),
            params={"now": now, "horizon": horizon_days, "soft": soft_days, "forget": forget_days},
        )
    )


def set_states(s: Session, changes: Sequence[tuple[str, str]]) -> None:
    for slug, state in changes:
        s.exec(
            text("UPDATE memories SET decay_state = :state WHERE slug = :slug"),
            params={"slug": slug, "state": state},
        )


def delete_memory(s: Session, slug: str) -> None:
    """Drop a memory's rows; the FTS rows by hand (virtual tables have no cascade)."""
    from memoryd.store import kg

    kg.remove_memory(s, slug)
    s.exec(
        text("DELETE FROM memories_fts WHERE rowid IN (SELECT id FROM fts_docs WHERE slug = :slug)"),
        params={"slug": slug},
    )
    s.exec(
        text("DELETE FROM turns_fts WHERE rowid IN (SELECT id FROM turns WHERE slug = :slug)"),
        params={"slug": slug},
    )
    s.exec(text("DELETE FROM memories WHERE slug = :slug"), params={"slug": slug})
    vectors.drop_refs(s.connection().connection.driver_connection, [slug])


# -- digest -----------------------------------------------------------------------------
def duplicate_groups(s: Session, scopes: Sequence[str] | None) -> list[list[dict[str, Any]]]:
    """Memories sharing a fingerprint (seed 002: sha1 of the body's first 500 chars),
    less the groups a person called "not duplicates" (any part of one: a new member makes
    the group new)."""
    where, params, binds = "", {}, []
    if scopes is not None:
        where = "AND scope_hash IN :scopes"
        params["scopes"] = list(scopes)
        binds.append(bindparam("scopes", expanding=True))
    sql = (
        "SELECT slug, title, type, scope_hash, fingerprint, created_at FROM memories "
        "WHERE fingerprint IN (SELECT fingerprint FROM memories WHERE decay_state != 'forgotten' "
        f"{where} GROUP BY fingerprint HAVING count(*) > 1) AND decay_state != 'forgotten' {where} "
        "ORDER BY fingerprint, created_at, slug"
    )
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in _rows(s.exec(text(sql).bindparams(*binds), params=params)):
        groups.setdefault(row["fingerprint"], []).append(row)
    if not groups:
        return []
    decided = [set(k.split(" ")) for (k,) in s.exec(text("SELECT group_key FROM not_duplicates"))]
    return [g for g in groups.values() if not any({m["slug"] for m in g} <= d for d in decided)]


def top_triggers(
    s: Session, since_day: str, scopes: Sequence[str] | None, limit: int
) -> list[dict[str, Any]]:
    where, params, binds = "day >= :day", {"day": since_day, "limit": limit}, []
    if scopes is not None:
        where += " AND scope_hash IN :scopes"
        params["scopes"] = list(scopes)
        binds.append(bindparam("scopes", expanding=True))
    sql = (
        f'SELECT "trigger", sum(hits) AS hits FROM trigger_stats WHERE {where} '
        'GROUP BY "trigger" ORDER BY hits DESC, "trigger" LIMIT :limit'
    )
    return _rows(s.exec(text(sql).bindparams(*binds), params=params))


def recall_hot(s: Session, since_day: str, scopes: Sequence[str] | None, limit: int) -> list[dict[str, Any]]:
    """Memories recalled most within the window (recall_stats counts recalls per day)."""
    where, params, binds = "r.day >= :day", {"day": since_day}, []
    if scopes is not None:
        where += " AND m.scope_hash IN :scopes"
        params["scopes"] = list(scopes)
        binds.append(bindparam("scopes", expanding=True))
    sql = (
        "SELECT m.slug, m.title, m.type, m.scope_hash, sum(r.hits) AS recalls FROM recall_stats r "
        f"JOIN memories m ON m.slug = r.slug WHERE {where} GROUP BY m.slug "
        f"ORDER BY recalls DESC, m.slug LIMIT {int(limit)}"
    )
    return _rows(s.exec(text(sql).bindparams(*binds), params=params))


__all__ = ["MEMORY_COLUMNS"]


def proposal_ident(row: dict[str, Any]) -> str:
    """A proposal as its decisions' keys name it: its id with its creation time, since ids
    restart when the index is deleted and rebuilt (promotions live only there) and a new
    proposal with an old one's id is another decision."""
    return f"{row['id']}@{row['created_at']}"


def decision_key(kind: str, target: str, drop: str | None = None) -> str:
    """A review decision's audit dedupe key: the same for a retry of it (a consolidation
    resumed after a kill writes no second event). Made again after an undo, the decision
    is a new event because the undo's event names this key among those it `cancels`
    (audit.AuditLog.append), which holds after the index is deleted and rebuilt: the
    log, not the index, says what was undone. A proposal's `target` is `proposal_ident`."""
    if kind == "approve":
        return f"promote:{target}"
    if kind == "reject":
        return f"reject:{target}"
    if kind == "merge":
        return f"merge:{drop}:{target}"
    if kind == "not_duplicates":
        return f"not_duplicates:{hashlib.sha256(target.encode('utf-8')).hexdigest()[:16]}"
    raise ValueError(f"no review decision {kind!r}")


def daily_activity(s: Session, since_day: str, scopes: Sequence[str] | None) -> list[dict[str, Any]]:
    """Per day since `since_day`: sessions captured, recalls, and promotions approved, as
    rows of (kind, day, n): the digest's weekly series sums them by week."""
    params: dict[str, Any] = {"day": since_day}
    binds = []
    where_m = where_p = ""
    if scopes is not None:
        where_m, where_p = " AND m.scope_hash IN :scopes", " AND p.scope_hash IN :scopes"
        params["scopes"] = list(scopes)
        binds.append(bindparam("scopes", expanding=True))
    sql = (
        "SELECT 'captures' AS kind, substr(m.created_at, 1, 10) AS day, count(*) AS n FROM memories m "
        f"WHERE m.type = 'session' AND substr(m.created_at, 1, 10) >= :day{where_m} GROUP BY day "
        "UNION ALL SELECT 'recalls', r.day, sum(r.hits) FROM recall_stats r "
        f"JOIN memories m ON m.slug = r.slug WHERE r.day >= :day{where_m} GROUP BY r.day "
        "UNION ALL SELECT 'promotions', substr(p.decided_at, 1, 10) AS pday, count(*) FROM promotions p "
        f"WHERE p.status = 'approved' AND substr(p.decided_at, 1, 10) >= :day{where_p} GROUP BY pday"
    )
    return _rows(s.exec(text(sql).bindparams(*binds), params=params))
