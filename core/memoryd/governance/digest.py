"""The weekly digest (seed 000): pending promotions, duplicate pairs, TTL reminders,
trends and LLM spend. `Digest` is the documented JSON schema the tray reads
(docs/digest.schema.json is generated from it and checked by a test)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Literal

from pydantic import BaseModel, Field

from memoryd import clock
from memoryd.config import Config
from memoryd.db.engine import read_session
from memoryd.store import Store
from memoryd.store import governance as sql
from memoryd.sync import run as sync_run
from memoryd.textwidth import pad

from . import decay, promotions, spend

SCHEMA_VERSION = 1
WEEKS = 8  # how many weeks the trends chart shows


class Dura(BaseModel):
    D: float
    U: float
    R: float
    A: float


class PendingPromotion(BaseModel):
    id: int = Field(description="pass to `memoryd promote ID` / `memoryd reject ID`")
    session_slug: str
    scope_hash: str
    project: str = Field(default="", description="the project's name (memoryd.projects), else the scope hash")
    proposed_type: str
    title: str
    body: str
    triggers: list[str]
    dura: Dura
    mean: float
    reasoning: str
    supersedes: list[str]
    created_at: str


class MemoryRef(BaseModel):
    slug: str
    title: str
    type: str
    scope_hash: str
    project: str = Field(default="", description="the project's name (memoryd.projects), else the scope hash")
    created_at: str


class DuplicateGroup(BaseModel):
    fingerprint: str = Field(description="sha1 of the first 500 characters of the body")
    memories: list[MemoryRef]


class TTLReminder(BaseModel):
    slug: str
    title: str
    type: str
    scope_hash: str
    project: str = Field(default="", description="the project's name (memoryd.projects), else the scope hash")
    state: str
    next_state: str
    due_at: str
    idle_days: int


class TriggerCount(BaseModel):
    trigger: str
    hits: int


class RecallHot(BaseModel):
    slug: str
    title: str
    type: str
    scope_hash: str
    project: str = Field(default="", description="the project's name (memoryd.projects), else the scope hash")
    recalls: int = Field(description="recalls within the window")


class EntityTrend(BaseModel):
    """An entity named more in this window than in the one of the same length before."""

    name: str
    kind: str
    delta: int = Field(description="mentions this window minus mentions the window before")
    id: str = ""
    mentions: int = Field(default=0, description="mentions this window")


class SupersedeLine(BaseModel):
    """A memory replaced by a newer one within the window."""

    old_slug: str
    new_slug: str
    old_title: str = ""
    new_title: str = ""
    old_type: str = ""
    new_type: str = ""
    at: str = ""
    decided_by: str = Field(default="", description="auto, user or digest")
    confidence: float | None = None


class PendingSupersede(BaseModel):
    """A judgement between the review and the automatic thresholds: the user decides."""

    id: int = Field(description="pass to `memoryd supersede confirm ID` / `memoryd supersede dismiss ID`")
    new_slug: str
    old_slug: str
    new_title: str
    old_title: str
    scope_hash: str
    project: str = Field(default="", description="the project's name (memoryd.projects), else the scope hash")
    confidence: float
    reason: str
    judged_by: str
    created_at: str


class SuspectMemory(BaseModel):
    """A memory whose text reads as aimed at an AI (memoryd.suspect_doc): kept out of the
    start-up snapshot, the exports and the promotion queue until the user decides."""

    slug: str = Field(description="pass to `memoryd suspect clear SLUG` / `memoryd forget SLUG`")
    title: str
    type: str
    scope_hash: str
    project: str = Field(default="", description="the project's name (memoryd.projects), else the scope hash")
    source: str
    created_at: str
    reasons: list[str]


class WeekCount(BaseModel):
    """One week's activity, for the trends chart."""

    week: str = Field(description="the Monday the week starts on (UTC), YYYY-MM-DD")
    captures: int = Field(description="agent sessions captured")
    recalls: int = Field(description="memories recalled")
    promotions: int = Field(description="promotions approved")


class Trends(BaseModel):
    top_triggers: list[TriggerCount]
    weeks: list[WeekCount] = Field(
        default_factory=list, description=f"the last {WEEKS} weeks, oldest first, this week last"
    )
    rising_entities: list[EntityTrend] = Field(default_factory=list)
    recent_supersedes: list[SupersedeLine] = Field(default_factory=list)
    recall_hot: list[RecallHot]


class SpendPeriod(BaseModel):
    tokens: int
    calls: int
    cost_usd: float | None


class Spend(BaseModel):
    today: SpendPeriod
    month: SpendPeriod
    daily_budget: int
    left_today: int


class ConflictVersion(BaseModel):
    rev: str = Field(description="pass a prefix to `memoryd sync --resolve SLUG --take REV`")
    updated_at: str
    title: str = Field(description='"(sealed)" in a sensitive project, "(deleted)" for a deletion')
    deleted: bool


class SyncConflict(BaseModel):
    """A memory changed on two devices: the newer version is in the file, the other kept
    as a copy until the user picks (docs/sync.md)."""

    slug: str
    scope_hash: str
    project: str = Field(default="", description="the project's name (memoryd.projects), else the scope hash")
    kept: ConflictVersion
    copies: list[ConflictVersion]


class Digest(BaseModel):
    schema_version: Literal[1] = SCHEMA_VERSION
    generated_at: str
    since: str
    until: str
    scopes: list[str] | None = Field(description="null: every scope")
    promote_threshold: float
    pending_promotions: list[PendingPromotion]
    duplicates: list[DuplicateGroup]
    ttl_reminders: list[TTLReminder]
    pending_supersedes: list[PendingSupersede] = Field(default_factory=list)
    sync_conflicts: list[SyncConflict] = Field(default_factory=list)
    suspect: list[SuspectMemory] = Field(default_factory=list)
    trends: Trends
    spend: Spend


def build(
    store: Store, config: Config, *, since: datetime | None = None, scopes: list[str] | None = None
) -> Digest:
    now = clock.now()
    since = since or now - timedelta(days=config.digest.since_days)
    since_day = since.strftime("%Y-%m-%d")
    threshold = config.governance.promote_threshold
    top = config.digest.top_n
    with read_session(store.engine) as s:
        pending = [
            p
            for p in sql.promotions(s, status="pending", scopes=scopes)
            if _mean(p["dura_score"]) >= threshold
        ]
    pending = [promotions.readable(store, p) for p in pending]
    with read_session(store.engine) as s:
        groups = sql.duplicate_groups(s, scopes)
        triggers = sql.top_triggers(s, since_day, scopes, top)
        hot = sql.recall_hot(s, since_day, scopes, top)
    reminders = [
        t
        for t in decay.due(store, config.decay, now=now, horizon_days=config.digest.ttl_warning_days)
        if scopes is None or t.scope_hash in scopes
    ]
    rep = spend.report(store, config.llm)
    from memoryd.kg import supersedes, trends

    waiting = [promotions_pair(store, r) for r in supersedes.listing(store, status="pending", scopes=scopes)]
    rising = trends.rising(store, since, now, scopes, top)
    suspect = store.suspects(scopes)
    replaced = trends.supersedes_since(store, since, scopes, top)
    weeks = weekly(store, now, scopes)
    d = Digest(
        generated_at=clock.iso(now),
        since=clock.iso(since),
        until=clock.iso(now),
        scopes=scopes,
        promote_threshold=threshold,
        pending_promotions=[
            PendingPromotion(
                id=p["id"],
                session_slug=p["source_session_slug"],
                scope_hash=p["scope_hash"],
                proposed_type=p["proposed_type"],
                title=p["proposed_title"],
                body=p["proposed_body"],
                triggers=p["proposed_triggers"],
                dura=Dura(**{k: float(p["dura_score"].get(k, 0.0)) for k in "DURA"}),
                mean=_mean(p["dura_score"]),
                reasoning=p["reasoning"] or "",
                supersedes=p["proposed_supersedes"],
                created_at=p["created_at"],
            )
            for p in pending
        ],
        duplicates=[
            DuplicateGroup(
                fingerprint=g[0]["fingerprint"],
                memories=[
                    MemoryRef(**{k: m[k] for k in ("slug", "title", "type", "scope_hash", "created_at")})
                    for m in g
                ],
            )
            for g in groups
        ],
        ttl_reminders=[
            TTLReminder(
                slug=t.slug,
                title=t.title,
                type=t.type,
                scope_hash=t.scope_hash,
                state=t.from_state,
                next_state=t.to_state,
                due_at=t.due_at,
                idle_days=t.idle_days,
            )
            for t in reminders
        ],
        pending_supersedes=[PendingSupersede(**w) for w in waiting],
        sync_conflicts=[SyncConflict(**c) for c in sync_run.conflicts(store.layout.home, scopes)],
        suspect=[
            SuspectMemory(
                slug=r["slug"],
                title=r["title"] or promotions.SEALED_TITLE,
                type=r["type"],
                scope_hash=r["scope_hash"],
                source=r["source"],
                created_at=r["created_at"],
                reasons=list(r["suspect"]),
            )
            for r in suspect
        ],
        trends=Trends(
            top_triggers=[TriggerCount(trigger=r["trigger"], hits=int(r["hits"])) for r in triggers],
            weeks=weeks,
            rising_entities=[EntityTrend(**e) for e in rising],  # type: ignore[arg-type]
            recent_supersedes=[
                SupersedeLine(
                    old_slug=r["older_memory_id"],
                    new_slug=r["newer_memory_id"],
                    old_title=r["older_title"] or "",
                    new_title=r["newer_title"] or "",
                    old_type=r["older_type"] or "",
                    new_type=r["newer_type"] or "",
                    at=r["decided_at"],
                    decided_by=r["decided_by"],
                    confidence=r["confidence"],
                )
                for r in replaced
            ],
            recall_hot=[
                RecallHot(
                    **{k: r[k] for k in ("slug", "title", "type", "scope_hash")}, recalls=int(r["recalls"])
                )
                for r in hot
            ],
        ),
        spend=Spend(
            today=SpendPeriod(tokens=rep.today.tokens, calls=rep.today.calls, cost_usd=rep.today.cost_usd),
            month=SpendPeriod(tokens=rep.month.tokens, calls=rep.month.calls, cost_usd=rep.month.cost_usd),
            daily_budget=rep.daily_budget,
            left_today=rep.left_today,
        ),
    )
    _name_projects(store, d)
    return d


def weekly(store: Store, now: datetime, scopes: list[str] | None, count: int = WEEKS) -> list[WeekCount]:
    """Captures, recalls and approved promotions summed per week (Monday to Sunday, UTC)
    for the last `count` weeks; weeks with nothing in them are there, as zeros."""
    from datetime import UTC, date

    today = now.astimezone(UTC).date()
    first = today - timedelta(days=today.weekday(), weeks=count - 1)
    starts = [first + timedelta(weeks=i) for i in range(count)]
    sums: dict[date, dict[str, int]] = {w: {"captures": 0, "recalls": 0, "promotions": 0} for w in starts}
    with read_session(store.engine) as s:
        rows = sql.daily_activity(s, first.isoformat(), scopes)
    for r in rows:
        try:
            day = date.fromisoformat(str(r["day"]))
        except ValueError:
            continue
        monday = day - timedelta(days=day.weekday())
        if monday in sums:
            sums[monday][r["kind"]] += int(r["n"] or 0)
    return [WeekCount(week=w.isoformat(), **sums[w]) for w in starts]


def _name_projects(store: Store, d: Digest) -> None:
    """Each entry's project by name (a sensitive one's only under a grant)."""
    from memoryd.sensitive import names

    entries: list[Any] = [
        *d.pending_promotions,
        *(m for g in d.duplicates for m in g.memories),
        *d.ttl_reminders,
        *d.pending_supersedes,
        *d.sync_conflicts,
        *d.suspect,
        *d.trends.recall_hot,
    ]
    found = names.names(store, {e.scope_hash for e in entries})
    for e in entries:
        e.project = found[e.scope_hash].label


def promotions_pair(store: Store, row: dict[str, object]) -> dict[str, object]:
    """A pending supersede as the digest shows it (a sensitive scope's only under a grant)."""
    from memoryd.kg import supersedes

    r = supersedes.readable(store, dict(row))
    return {
        "id": r["id"],
        "new_slug": r["newer_memory_id"],
        "old_slug": r["older_memory_id"],
        "new_title": r["newer_title"] or "",
        "old_title": r["older_title"] or "",
        "scope_hash": r["scope_hash"],
        "confidence": r["confidence"],
        "reason": r["reason"] or "",
        "judged_by": r["judged_by"],
        "created_at": r["created_at"],
    }


def _mean(score: dict[str, float]) -> float:
    values = [float(score[k]) for k in "DURA" if k in score]
    return round(sum(values) / len(values), 4) if values else 0.0


# -- text -------------------------------------------------------------------------------
LIST_LIMIT = 30


def _cost(value: float | None) -> str:
    return "cost unknown" if value is None else f"~${value:.2f}"


def render_text(d: Digest) -> str:
    """Plain text, the same in the terminal and in the email."""
    out = [f"memoryd digest, {d.since[:10]} to {d.until[:10]}", ""]

    out.append(f"=== Pending promotions ({len(d.pending_promotions)}, DURA >= {d.promote_threshold:g}) ===")
    for p in d.pending_promotions[:LIST_LIMIT]:
        s = p.dura
        out.append(f'  #{p.id} {p.proposed_type}: "{p.title}"')
        out.append(
            f"     DURA D {s.D:.2f} U {s.U:.2f} R {s.R:.2f} A {s.A:.2f} (mean {p.mean:.2f}); "
            f"from {p.session_slug} [{p.project or p.scope_hash}]"
        )
        if p.reasoning:
            out.append(f"     why: {p.reasoning}")
        if p.supersedes:
            out.append(f"     replaces: {', '.join(p.supersedes)}")
    if d.pending_promotions:
        out.append("  approve: memoryd promote ID    reject: memoryd reject ID")
    else:
        out.append("  none")
    out.append("")

    out.append(f"=== Duplicates ({len(d.duplicates)} group(s), same fingerprint) ===")
    for g in d.duplicates[:LIST_LIMIT]:
        keep, *rest = g.memories
        out.append(f'  "{keep.title}": {", ".join(m.slug for m in g.memories)}')
        out.append(f"     merge: memoryd merge --keep {keep.slug} --drop {' '.join(m.slug for m in rest)}")
    if not d.duplicates:
        out.append("  none")
    out.append("")

    out.append(f"=== TTL reminders ({len(d.ttl_reminders)}, changing state within the next days) ===")
    for t in d.ttl_reminders[:LIST_LIMIT]:
        out.append(
            f'  {t.type} "{t.title}" ({t.slug}): {t.state} -> {t.next_state} on {t.due_at[:10]}, '
            f"idle {t.idle_days} days"
        )
    if len(d.ttl_reminders) > LIST_LIMIT:
        out.append(f"  ... and {len(d.ttl_reminders) - LIST_LIMIT} more (memoryd digest --json)")
    if not d.ttl_reminders:
        out.append("  none")
    out.append("  a search hit or `memoryd get SLUG` keeps a memory alive")
    out.append("")

    out.append(f"=== Supersedes to confirm ({len(d.pending_supersedes)}) ===")
    for ps in d.pending_supersedes[:LIST_LIMIT]:
        out.append(
            f'  #{ps.id} "{ps.new_title}" replaces "{ps.old_title}"? '
            f"confidence {ps.confidence:.2f} ({ps.judged_by})"
        )
        out.append(f"     {ps.new_slug} -> supersedes {ps.old_slug}")
        if ps.reason:
            out.append(f"     why: {ps.reason}")
    if d.pending_supersedes:
        out.append("  confirm: memoryd supersede confirm ID    dismiss: memoryd supersede dismiss ID")
    else:
        out.append("  none")
    out.append("")

    if d.suspect:
        out.append(f"=== Suspect memories ({len(d.suspect)}, kept from agents until you decide) ===")
        for m in d.suspect[:LIST_LIMIT]:
            out.append(f'  {m.type} "{m.title}" ({m.slug}) [{m.project or m.scope_hash}]')
            out += [f"     why: {r}" for r in m.reasons]
        if len(d.suspect) > LIST_LIMIT:
            out.append(f"  ... and {len(d.suspect) - LIST_LIMIT} more (memoryd suspect)")
        out.append(
            "  read: memoryd get SLUG    clear: memoryd suspect clear SLUG    forget: memoryd forget SLUG"
        )
        out.append("")

    if d.sync_conflicts:
        out.append(f"=== Sync conflicts ({len(d.sync_conflicts)}) ===")
        for c in d.sync_conflicts[:LIST_LIMIT]:
            out.append(f'  {c.slug}: kept "{c.kept.title}" ({c.kept.updated_at})')
            out += [f'     copy {v.rev[:8]}: "{v.title}" ({v.updated_at})' for v in c.copies]
        out.append("  see: memoryd sync --show SLUG    keep one: memoryd sync --resolve SLUG [--take REV]")
        out.append("")

    tr = d.trends
    out.append(f"=== Trends (since {d.since[:10]}) ===")
    out.append("Top triggers:")
    out += [f"  {pad(t.trigger, 24)} {t.hits} hits" for t in tr.top_triggers] or ["  none"]
    out.append("Top entities (rising):")
    out += [f"  {pad(e.name, 24)} {e.delta:+d} mentions" for e in tr.rising_entities] or ["  none"]
    out.append("Recent supersedes:")
    out += [
        f"  {s.old_type or 'memory'}#{s.old_slug} → {s.new_type or 'memory'}#{s.new_slug}"
        for s in tr.recent_supersedes
    ] or ["  none"]
    out.append("Recall hot:")
    out += [f"  {r.type}#{r.slug}  recalled {r.recalls} times" for r in tr.recall_hot] or ["  none"]
    out.append("")

    sp = d.spend
    out.append("=== LLM spend ===")
    out.append(
        f"  today: {sp.today.tokens:,} tokens, {sp.today.calls} call(s), {_cost(sp.today.cost_usd)}; "
        f"daily budget {sp.daily_budget:,}, {sp.left_today:,} left"
    )
    out.append(
        f"  this month: {sp.month.tokens:,} tokens, {sp.month.calls} call(s), {_cost(sp.month.cost_usd)}"
    )
    return "\n".join(out) + "\n"


def headline(d: Digest) -> str:
    """One line for a notification's title."""
    parts = [f"{len(d.pending_promotions)} promotion(s) to review"]
    if d.duplicates:
        parts.append(f"{len(d.duplicates)} duplicate group(s)")
    if d.ttl_reminders:
        parts.append(f"{len(d.ttl_reminders)} fading soon")
    if d.pending_supersedes:
        parts.append(f"{len(d.pending_supersedes)} supersede(s) to confirm")
    if d.sync_conflicts:
        parts.append(f"{len(d.sync_conflicts)} sync conflict(s)")
    if d.suspect:
        parts.append(f"{len(d.suspect)} suspect memory(ies)")
    return "memoryd: " + ", ".join(parts)


def subject(d: Digest) -> str:
    return f"memoryd digest {d.until[:10]}: {len(d.pending_promotions)} promotion(s) to review"


if __name__ == "__main__":  # regenerates docs/digest.schema.json
    import json

    print(json.dumps(Digest.model_json_schema(), indent=2, ensure_ascii=False))
