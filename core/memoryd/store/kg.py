"""SQL for the knowledge graph: entities, their mentions by memories, relations, the
supersedes chain and the supersedes waiting for the user. Callers own the session and
the transaction.

A memory's mentions and relations are derived from its frontmatter (observations,
relations, superseded_by) and replaced whenever the memory is written, so `reindex`
rebuilds them; an entity's mention_count and first/last seen follow by delta. The
supersedes decisions have no file: they stay across a reindex. An entity goes once no
memory or relation names it (its name and aliases came from memories' text)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import bindparam, text
from sqlmodel import Session

from memoryd.store.index import _rows

ENTITY_COLUMNS = (
    "id",
    "name",
    "type",
    "aliases",
    "context",
    "first_seen_at",
    "last_seen_at",
    "mention_count",
    "scope_hash",
    "decay_state",
    "norm",
)
_ECOLS = ", ".join(ENTITY_COLUMNS)


def _in(name: str) -> Any:
    return bindparam(name, expanding=True)


# -- derived rows of one memory ---------------------------------------------------------
def replace_for_memory(
    s: Session,
    *,
    slug: str,
    scope_hash: str,
    memory_type: str,
    seen_at: str,
    mentions: dict[str, int],
    relations: Sequence[tuple[str, str, str]],
) -> None:
    """Set one memory's mentions {entity_id: n} and relations [(predicate, object_id,
    object_kind)], moving each entity's mention_count by the difference."""
    old = {
        r[0]: int(r[1])
        for r in s.exec(
            text("SELECT entity_id, mentions FROM entity_mentions WHERE slug = :slug"), params={"slug": slug}
        )
    }
    if old != mentions:
        s.exec(text("DELETE FROM entity_mentions WHERE slug = :slug"), params={"slug": slug})
        for eid, n in mentions.items():
            s.exec(
                text(
                    "INSERT INTO entity_mentions (slug, entity_id, scope_hash, memory_type, mentions, "
                    "seen_at) VALUES (:slug, :e, :h, :t, :n, :seen)"
                ),
                params={"slug": slug, "e": eid, "h": scope_hash, "t": memory_type, "n": n, "seen": seen_at},
            )
        for eid in old.keys() | mentions.keys():
            _move(s, eid, mentions.get(eid, 0) - old.get(eid, 0), seen_at if eid in mentions else None)
    else:
        old = {}
        s.exec(
            text("UPDATE entity_mentions SET memory_type = :t, seen_at = :seen WHERE slug = :slug"),
            params={"slug": slug, "t": memory_type, "seen": seen_at},
        )
    s.exec(text("DELETE FROM relations WHERE source_memory_id = :slug"), params={"slug": slug})
    for predicate, obj, kind in dict.fromkeys(relations):
        s.exec(
            text(
                "INSERT OR IGNORE INTO relations (subject_id, subject_kind, predicate, object_id, "
                "object_kind, source_memory_id, scope_hash, created_at) "
                "VALUES (:slug, 'memory', :p, :o, :k, :slug, :h, :seen)"
            ),
            params={"slug": slug, "p": predicate, "o": obj, "k": kind, "h": scope_hash, "seen": seen_at},
        )
    _drop_unnamed(s, old.keys() - mentions.keys())


def remove_memory(s: Session, slug: str) -> None:
    old = s.exec(
        text("SELECT entity_id, mentions FROM entity_mentions WHERE slug = :slug"), params={"slug": slug}
    ).all()
    s.exec(text("DELETE FROM entity_mentions WHERE slug = :slug"), params={"slug": slug})
    for eid, n in old:
        _move(s, eid, -int(n), None)
    s.exec(text("DELETE FROM relations WHERE source_memory_id = :slug"), params={"slug": slug})
    _drop_unnamed(s, {eid for eid, _ in old})


def _drop_unnamed(s: Session, eids: Iterable[str]) -> None:
    """Entities a memory stopped naming go once no memory or relation names them: every
    field of an entity comes from memories' text, and a secret that redaction missed, taken
    for a name, stayed in index.db after the person edited it out of the memory (a
    red-team note, 2026-11-28)."""
    for eid in sorted(eids):
        s.exec(
            text(
                "DELETE FROM entities WHERE id = :id AND mention_count <= 0 "
                "AND NOT EXISTS (SELECT 1 FROM entity_mentions WHERE entity_id = :id) "
                "AND NOT EXISTS (SELECT 1 FROM relations WHERE object_id = :id OR subject_id = :id)"
            ),
            params={"id": eid},
        )


def _move(s: Session, eid: str, delta: int, seen: str | None) -> None:
    """An entity's count moves by `delta`; a name never seen before gets a row of its own
    (a memory written by hand or by an importer can name one)."""
    from memoryd.kg import lexicon

    if seen is not None:
        kind, name = lexicon.split_id(eid)
        s.exec(
            text(
                f"INSERT OR IGNORE INTO entities ({_ECOLS}) VALUES (:id, :name, :type, '[]', :ctx, "
                ":seen, :seen, 0, NULL, 'fresh', :norm)"
            ),
            params={
                "id": eid,
                "name": name,
                "type": kind,
                "ctx": lexicon.category_of(eid),
                "seen": seen,
                "norm": lexicon.norm(name),
            },
        )
        s.exec(
            text(
                "UPDATE entities SET mention_count = max(0, mention_count + :d), "
                "first_seen_at = min(first_seen_at, :seen), last_seen_at = max(last_seen_at, :seen) "
                "WHERE id = :id"
            ),
            params={"id": eid, "d": delta, "seen": seen},
        )
    elif delta:
        s.exec(
            text("UPDATE entities SET mention_count = max(0, mention_count + :d) WHERE id = :id"),
            params={"id": eid, "d": delta},
        )


def forget_unmentioned(s: Session) -> None:
    """Entities no memory names any more (their names may be all that is left of a scope
    just marked sensitive)."""
    s.exec(
        text(
            "DELETE FROM entities WHERE mention_count <= 0 "
            "AND id NOT IN (SELECT entity_id FROM entity_mentions) "
            "AND id NOT IN (SELECT object_id FROM relations) "
            "AND id NOT IN (SELECT subject_id FROM relations)"
        )
    )


def clear_derived(s: Session) -> None:
    """Before a reindex: mentions and per-memory relations go, counts restart at zero."""
    s.exec(text("DELETE FROM entity_mentions"))
    s.exec(text("DELETE FROM relations WHERE source_memory_id IS NOT NULL"))
    s.exec(text("UPDATE entities SET mention_count = 0"))


# -- entities ---------------------------------------------------------------------------
def resolve(s: Session, norms: Iterable[str]) -> dict[str, str]:
    """norm -> the id already used for that name, whatever its type or spelling then."""
    wanted = sorted(set(norms))
    if not wanted:
        return {}
    rows = s.exec(
        text("SELECT norm, id FROM entities WHERE norm IN :n ORDER BY mention_count DESC, id").bindparams(
            _in("n")
        ),
        params={"n": wanted},
    ).all()
    out: dict[str, str] = {}
    for norm, eid in rows:
        out.setdefault(norm, eid)
    return out


def upsert_entity(
    s: Session,
    *,
    eid: str,
    name: str,
    kind: str,
    norm: str,
    aliases: Iterable[str],
    context: str | None,
    scope_hash: str | None,
    seen: str,
) -> None:
    """Create the entity or add the spellings seen this time to its aliases."""
    row = s.exec(text("SELECT aliases FROM entities WHERE id = :id"), params={"id": eid}).first()
    if row is None:
        s.exec(
            text(
                f"INSERT INTO entities ({_ECOLS}) VALUES (:id, :name, :type, :aliases, :ctx, :seen, :seen, "
                "0, :scope, 'fresh', :norm)"
            ),
            params={
                "id": eid,
                "name": name,
                "type": kind,
                "aliases": json.dumps(sorted(set(aliases)), ensure_ascii=False),
                "ctx": context,
                "seen": seen,
                "scope": scope_hash,
                "norm": norm,
            },
        )
        return
    known = set(_aliases(row[0]))
    merged = sorted(known | set(aliases))
    if merged != sorted(known):
        s.exec(
            text("UPDATE entities SET aliases = :a, norm = coalesce(norm, :norm) WHERE id = :id"),
            params={"id": eid, "a": json.dumps(merged, ensure_ascii=False), "norm": norm},
        )


def _aliases(raw: str | None) -> list[str]:
    try:
        value = json.loads(raw or "[]")
    except ValueError:
        return []
    return [str(v) for v in value] if isinstance(value, list) else []


def _entity(row: dict[str, Any]) -> dict[str, Any]:
    return {**row, "aliases": _aliases(row.get("aliases"))}


def entity(s: Session, eid: str) -> dict[str, Any] | None:
    rows = _rows(s.exec(text(f"SELECT {_ECOLS} FROM entities WHERE id = :id"), params={"id": eid}))
    return _entity(rows[0]) if rows else None


def find_entities(s: Session, norm: str) -> list[dict[str, Any]]:
    """Entities called `norm`, or with an alias that folds to it."""
    from memoryd.kg import lexicon

    esc = norm.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    rows = _rows(
        s.exec(
            text(f"SELECT {_ECOLS} FROM entities WHERE norm = :n OR id LIKE :tail ESCAPE '\\'"),
            params={"n": norm, "tail": f"entity:%:{esc}"},
        )
    )
    if not rows and norm:
        for r in _rows(
            s.exec(
                text(f"SELECT {_ECOLS} FROM entities WHERE aliases LIKE :l ESCAPE '\\'"),
                params={"l": f"%{esc[:3]}%"},
            )
        ):
            if any(lexicon.norm(a) == norm for a in _aliases(r["aliases"])):
                rows.append(r)
    return [_entity(r) for r in sorted(rows, key=lambda r: (-r["mention_count"], r["id"]))]


def entities(s: Session, *, kind: str | None, top: int | None) -> list[dict[str, Any]]:
    where, params = "WHERE mention_count > 0", {}
    if kind:
        where += " AND type = :t"
        params["t"] = kind
    sql = f"SELECT {_ECOLS} FROM entities {where} ORDER BY mention_count DESC, name"
    if top:
        sql += f" LIMIT {int(top)}"
    return [_entity(r) for r in _rows(s.exec(text(sql), params=params))]


def mentions_of(s: Session, eid: str) -> list[dict[str, Any]]:
    """The memories that name an entity, with how (their relation to it)."""
    return _rows(
        s.exec(
            text(
                "SELECT m.slug, m.title, m.type, m.scope_hash, m.created_at, m.decay_state, m.superseded_by, "
                "em.mentions, (SELECT group_concat(r.predicate) FROM relations r "
                "  WHERE r.source_memory_id = m.slug AND r.object_id = em.entity_id) AS predicates "
                "FROM entity_mentions em JOIN memories m ON m.slug = em.slug "
                "WHERE em.entity_id = :e ORDER BY m.created_at DESC, m.slug"
            ),
            params={"e": eid},
        )
    )


def co_mentioned(s: Session, eid: str, limit: int = 10) -> list[dict[str, Any]]:
    """Entities that appear in the same memories, most shared first."""
    return _rows(
        s.exec(
            text(
                "SELECT e.id, e.name, e.type, count(*) AS memories FROM entity_mentions a "
                "JOIN entity_mentions b ON b.slug = a.slug AND b.entity_id != a.entity_id "
                "JOIN entities e ON e.id = b.entity_id WHERE a.entity_id = :e "
                "GROUP BY e.id ORDER BY memories DESC, e.name LIMIT :n"
            ),
            params={"e": eid, "n": limit},
        )
    )


def graph(s: Session, scopes: Sequence[str] | None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every entity and memory that takes part in a relation, and the relations."""
    where, params, binds = "", {}, []
    if scopes is not None:
        where = "WHERE r.scope_hash IN :scopes"
        params["scopes"] = list(scopes)
        binds.append(_in("scopes"))
    edges = _rows(
        s.exec(
            text(
                "SELECT r.subject_id, r.subject_kind, r.predicate, r.object_id, r.object_kind, "
                f"r.scope_hash, r.created_at FROM relations r {where} ORDER BY r.id"
            ).bindparams(*binds),
            params=params,
        )
    )
    ids = {e["subject_id"] for e in edges} | {e["object_id"] for e in edges}
    ents = [
        _entity(r)
        for r in _rows(s.exec(text(f"SELECT {_ECOLS} FROM entities ORDER BY id")))
        if r["id"] in ids
    ]
    mems = [
        r
        for r in _rows(
            s.exec(text("SELECT slug, title, type, scope_hash, created_at, superseded_by FROM memories"))
        )
        if r["slug"] in ids
    ]
    return ents + mems, edges


# -- supersedes: candidates, chain, pending ---------------------------------------------
# The newest long-term mentions of each name read for a supersedes check: a name that
# thousands of memories mention (the project's main language) costs no more than this.
PER_NAME = 400
MAX_PARTS = 240


def candidates(
    s: Session,
    *,
    scope_hash: str,
    entity_ids: Sequence[str],
    types: Sequence[str],
    exclude: str,
    before: str,
    limit: int,
) -> list[dict[str, Any]]:
    """Older long-term memories of the scope naming any of `entity_ids`, still current:
    most shared names first, then newest. Each (name, type) is read newest first from the
    covering index, at most PER_NAME rows, so the cost does not grow with the store."""
    if not entity_ids or not types:
        return []
    params: dict[str, Any] = {"h": scope_hash, "x": exclude, "before": before, "n": limit, "pool": limit * 4}
    parts = []
    # SQLite allows 500 terms in a compound SELECT: the memory's own names come first.
    for i, eid in enumerate(entity_ids[: MAX_PARTS // len(types)]):
        params[f"e{i}"] = eid
        for j, kind in enumerate(types):
            params[f"t{j}"] = kind
            parts.append(
                "SELECT * FROM (SELECT slug, entity_id, seen_at FROM entity_mentions "
                f"WHERE entity_id = :e{i} AND scope_hash = :h AND memory_type = :t{j} AND seen_at <= :before "
                f"ORDER BY seen_at DESC LIMIT {PER_NAME})"
            )
    sql = (
        f"WITH picked AS ({' UNION ALL '.join(parts)}), "
        "grouped AS (SELECT slug, count(*) AS shared, group_concat(entity_id, ' ') AS entities, "
        "max(seen_at) AS seen FROM picked WHERE slug != :x GROUP BY slug "
        "ORDER BY shared DESC, seen DESC, slug LIMIT :pool) "
        "SELECT g.slug, m.title, m.type, m.created_at, g.shared, g.entities "
        "FROM grouped g CROSS JOIN memories m ON m.slug = g.slug "
        "WHERE m.superseded_by IS NULL AND m.decay_state IN ('alive', 'dim') "
        "ORDER BY g.shared DESC, g.seen DESC, g.slug LIMIT :n"
    )
    return _rows(s.exec(text(sql), params=params))


def relations_from(s: Session, slugs: Sequence[str]) -> dict[str, list[tuple[str, str]]]:
    """Each memory's (predicate, entity) pairs."""
    out: dict[str, list[tuple[str, str]]] = {slug: [] for slug in slugs}
    if not slugs:
        return out
    for slug, pred, obj in s.exec(
        text(
            "SELECT source_memory_id, predicate, object_id FROM relations "
            "WHERE source_memory_id IN :s AND object_kind = 'entity'"
        ).bindparams(_in("s")),
        params={"s": list(slugs)},
    ):
        out[slug].append((pred, obj))
    return out


CHAIN_COLUMNS = (
    "newer_memory_id",
    "older_memory_id",
    "entity_id",
    "confidence",
    "decided_at",
    "decided_by",
    "reason",
)


def add_chain(s: Session, row: dict[str, Any], *, replace: bool = True) -> None:
    verb = "INSERT OR REPLACE" if replace else "INSERT OR IGNORE"
    s.exec(
        text(
            f"{verb} INTO supersedes_chain ({', '.join(CHAIN_COLUMNS)}) "
            f"VALUES ({', '.join(':' + c for c in CHAIN_COLUMNS)})"
        ),
        params=row,
    )


def chain_row(s: Session, newer: str, older: str) -> dict[str, Any] | None:
    rows = _rows(
        s.exec(
            text(
                f"SELECT {', '.join(CHAIN_COLUMNS)} FROM supersedes_chain "
                "WHERE newer_memory_id = :n AND older_memory_id = :o"
            ),
            params={"n": newer, "o": older},
        )
    )
    return rows[0] if rows else None


def chain_links(s: Session, slug: str) -> list[dict[str, Any]]:
    """Every link of the chain `slug` belongs to, following both directions."""
    seen, todo, links = {slug}, [slug], {}
    while todo:
        cur = todo.pop()
        for r in _rows(
            s.exec(
                text(
                    f"SELECT {', '.join(CHAIN_COLUMNS)} FROM supersedes_chain "
                    "WHERE newer_memory_id = :s OR older_memory_id = :s"
                ),
                params={"s": cur},
            )
        ):
            links[(r["newer_memory_id"], r["older_memory_id"])] = r
            for other in (r["newer_memory_id"], r["older_memory_id"]):
                if other not in seen:
                    seen.add(other)
                    todo.append(other)
    return sorted(links.values(), key=lambda r: (r["decided_at"], r["newer_memory_id"]))


PENDING_COLUMNS = (
    "id",
    "newer_memory_id",
    "older_memory_id",
    "entity_id",
    "scope_hash",
    "confidence",
    "reason",
    "judged_by",
    "status",
    "created_at",
    "decided_at",
)
_PCOLS = ", ".join(PENDING_COLUMNS)


def add_pending(s: Session, row: dict[str, Any]) -> tuple[int, bool]:
    """(id, created): a pair already judged keeps its row and its decision."""
    found = s.exec(
        text("SELECT id FROM pending_supersedes WHERE newer_memory_id = :n AND older_memory_id = :o"),
        params={"n": row["newer_memory_id"], "o": row["older_memory_id"]},
    ).first()
    if found:
        return int(found[0]), False
    cols = [c for c in PENDING_COLUMNS if c not in ("id", "status", "decided_at")]
    pid = s.exec(
        text(
            f"INSERT INTO pending_supersedes ({', '.join(cols)}) VALUES ({', '.join(':' + c for c in cols)}) "
            "RETURNING id"
        ),
        params={c: row[c] for c in cols},
    ).scalar()
    return int(pid), True


def pending(s: Session, pid: int) -> dict[str, Any] | None:
    rows = _rows(s.exec(text(f"SELECT {_PCOLS} FROM pending_supersedes WHERE id = :id"), params={"id": pid}))
    return rows[0] if rows else None


def pending_list(s: Session, *, status: str | None, scopes: Sequence[str] | None) -> list[dict[str, Any]]:
    where, params, binds = ["1"], {}, []
    if status:
        where.append("p.status = :st")
        params["st"] = status
    if status == "pending":  # moot once either memory is gone or the older one was replaced
        where.append("n.slug IS NOT NULL AND o.slug IS NOT NULL AND o.superseded_by IS NULL")
    if scopes is not None:
        where.append("p.scope_hash IN :scopes")
        params["scopes"] = list(scopes)
        binds.append(_in("scopes"))
    cols = ", ".join(f"p.{c}" for c in PENDING_COLUMNS)
    return _rows(
        s.exec(
            text(
                f"SELECT {cols}, n.title AS newer_title, n.type AS newer_type, o.title AS older_title, "
                "o.type AS older_type FROM pending_supersedes p "
                "LEFT JOIN memories n ON n.slug = p.newer_memory_id "
                "LEFT JOIN memories o ON o.slug = p.older_memory_id "
                f"WHERE {' AND '.join(where)} ORDER BY p.created_at, p.id"
            ).bindparams(*binds),
            params=params,
        )
    )


def remove_chain(s: Session, newer: str, older: str) -> None:
    s.exec(
        text("DELETE FROM supersedes_chain WHERE newer_memory_id = :n AND older_memory_id = :o"),
        params={"n": newer, "o": older},
    )


def dismiss_pair(s: Session, newer: str, older: str, scope_hash: str, when: str) -> None:
    """Record that `newer` does not replace `older`, so no later check applies it."""
    s.exec(
        text(
            "INSERT INTO pending_supersedes (newer_memory_id, older_memory_id, scope_hash, confidence, "
            "judged_by, status, created_at, decided_at) "
            "VALUES (:n, :o, :h, 0, 'user', 'dismissed', :ts, :ts) "
            "ON CONFLICT(newer_memory_id, older_memory_id) "
            "DO UPDATE SET status = 'dismissed', decided_at = :ts"
        ),
        params={"n": newer, "o": older, "h": scope_hash, "ts": when},
    )


def dismissed_for(s: Session, newer: str) -> set[str]:
    return {
        r[0]
        for r in s.exec(
            text(
                "SELECT older_memory_id FROM pending_supersedes WHERE newer_memory_id = :n "
                "AND status = 'dismissed'"
            ),
            params={"n": newer},
        )
    }


def chain_pairs(s: Session) -> list[tuple[str, str]]:
    return [
        (r[0], r[1]) for r in s.exec(text("SELECT newer_memory_id, older_memory_id FROM supersedes_chain"))
    ]


def orphaned(s: Session) -> list[tuple[str, str]]:
    """(memory, successor) where the successor has no row any more."""
    return [
        (r[0], r[1])
        for r in s.exec(
            text(
                "SELECT m.slug, m.superseded_by FROM memories m WHERE m.superseded_by IS NOT NULL "
                "AND NOT EXISTS (SELECT 1 FROM memories n WHERE n.slug = m.superseded_by) ORDER BY m.slug"
            )
        )
    ]


def mark_superseded(s: Session, older: str, newer: str) -> None:
    """The index follows the newer memory's `supersedes` when the older file lacks the
    mark (a supersede cut short between its two files)."""
    s.exec(
        text("UPDATE memories SET superseded_by = :n WHERE slug = :o AND superseded_by IS NULL"),
        params={"n": newer, "o": older},
    )


def decide_pending(s: Session, pid: int, status: str, when: str) -> None:
    s.exec(
        text("UPDATE pending_supersedes SET status = :st, decided_at = :ts WHERE id = :id"),
        params={"id": pid, "st": status, "ts": when},
    )


def settle_pair(s: Session, newer: str, older: str, when: str) -> None:
    """A pair superseded by any road is no longer waiting."""
    s.exec(
        text(
            "UPDATE pending_supersedes SET status = 'confirmed', decided_at = :ts "
            "WHERE newer_memory_id = :n AND older_memory_id = :o AND status = 'pending'"
        ),
        params={"n": newer, "o": older, "ts": when},
    )


# -- trends -----------------------------------------------------------------------------
def mention_totals(s: Session, since: str, until: str, scopes: Sequence[str] | None) -> dict[str, int]:
    where, params, binds = "", {"a": since, "b": until}, []
    if scopes is not None:
        where = "AND scope_hash IN :scopes"
        params["scopes"] = list(scopes)
        binds.append(_in("scopes"))
    return {
        r[0]: int(r[1])
        for r in s.exec(
            text(
                "SELECT entity_id, sum(mentions) FROM entity_mentions "
                f"WHERE seen_at >= :a AND seen_at < :b {where} GROUP BY entity_id"
            ).bindparams(*binds),
            params=params,
        )
    }


def names(s: Session, ids: Sequence[str]) -> dict[str, tuple[str, str]]:
    if not ids:
        return {}
    return {
        r[0]: (r[1], r[2])
        for r in s.exec(
            text("SELECT id, name, type FROM entities WHERE id IN :ids").bindparams(_in("ids")),
            params={"ids": list(ids)},
        )
    }


def supersedes_since(s: Session, since: str, scopes: Sequence[str] | None) -> list[dict[str, Any]]:
    where, params, binds = "", {"a": since}, []
    if scopes is not None:
        where = "AND (n.scope_hash IN :scopes OR o.scope_hash IN :scopes)"
        params["scopes"] = list(scopes)
        binds.append(_in("scopes"))
    return _rows(
        s.exec(
            text(
                "SELECT c.newer_memory_id, c.older_memory_id, c.decided_at, c.decided_by, c.confidence, "
                "n.title AS newer_title, n.type AS newer_type, o.title AS older_title, o.type AS older_type "
                "FROM supersedes_chain c LEFT JOIN memories n ON n.slug = c.newer_memory_id "
                f"LEFT JOIN memories o ON o.slug = c.older_memory_id WHERE c.decided_at >= :a {where} "
                "ORDER BY c.decided_at DESC"
            ).bindparams(*binds),
            params=params,
        )
    )


def slugs_with_mentions(s: Session) -> set[str]:
    return {r[0] for r in s.exec(text("SELECT DISTINCT slug FROM entity_mentions"))}
