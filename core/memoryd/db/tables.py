"""SQLModel tables for every table the migrations create (FTS5 tables excepted: they are
virtual and have no SQLModel form). A test checks the two never drift apart."""

from __future__ import annotations

from sqlmodel import Field, SQLModel


class MemoryRow(SQLModel, table=True):
    __tablename__ = "memories"
    slug: str = Field(primary_key=True)
    type: str
    scope_hash: str = Field(index=False)
    title: str
    source: str
    created_at: str
    updated_at: str | None = None
    ttl_days: int | None = None
    decay_state: str = "alive"
    last_recalled_at: str | None = None
    recall_count: int = 0
    fingerprint: str
    body_path: str = Field(unique=True)
    scope_sensitive: int = 0
    session_key: str | None = None
    dura_score: str | None = None
    dura_mean: float | None = None
    analyzed_fingerprint: str | None = None
    superseded_by: str | None = None
    suspect: str | None = None  # JSON list of reasons (migration 014)
    suspect_checked: int = 1  # 0: indexed before the detector, not read by it yet (015)


class TriggerRow(SQLModel, table=True):
    __tablename__ = "triggers"
    slug: str = Field(primary_key=True, foreign_key="memories.slug", ondelete="CASCADE")
    trigger: str = Field(primary_key=True)


class PromotionRow(SQLModel, table=True):
    __tablename__ = "promotions"
    id: int | None = Field(default=None, primary_key=True)
    source_session_slug: str = Field(foreign_key="memories.slug", ondelete="CASCADE")
    proposed_type: str
    proposed_title: str
    proposed_body: str
    proposed_triggers: str
    dura_score: str
    reasoning: str | None = None
    proposed_supersedes: str = "[]"
    scope_hash: str
    status: str = "pending"
    created_at: str
    decided_at: str | None = None
    decided_type: str | None = None


class SensitiveScopeRow(SQLModel, table=True):
    __tablename__ = "sensitive_scopes"
    scope_hash: str = Field(primary_key=True)
    marked_at: str
    key_source: str = "random"


class EntityRow(SQLModel, table=True):
    __tablename__ = "entities"
    id: str = Field(primary_key=True)
    name: str
    type: str
    aliases: str | None = None
    context: str | None = None
    first_seen_at: str
    last_seen_at: str
    mention_count: int = 1
    scope_hash: str | None = None
    decay_state: str = "fresh"
    norm: str | None = None


class EntityMentionRow(SQLModel, table=True):
    __tablename__ = "entity_mentions"
    slug: str = Field(primary_key=True, foreign_key="memories.slug", ondelete="CASCADE")
    entity_id: str = Field(primary_key=True)
    scope_hash: str
    memory_type: str
    mentions: int = 1
    seen_at: str


class RelationRow(SQLModel, table=True):
    __tablename__ = "relations"
    id: int | None = Field(default=None, primary_key=True)
    subject_id: str
    subject_kind: str
    predicate: str
    object_id: str
    object_kind: str
    source_memory_id: str | None = None
    scope_hash: str | None = None
    confidence: float | None = None
    created_at: str
    superseded_at: str | None = None


class SupersedesRow(SQLModel, table=True):
    __tablename__ = "supersedes_chain"
    newer_memory_id: str = Field(primary_key=True)
    older_memory_id: str = Field(primary_key=True)
    entity_id: str | None = None
    confidence: float
    decided_at: str
    decided_by: str
    reason: str | None = None


class PendingSupersedeRow(SQLModel, table=True):
    __tablename__ = "pending_supersedes"
    id: int | None = Field(default=None, primary_key=True)
    newer_memory_id: str
    older_memory_id: str
    entity_id: str | None = None
    scope_hash: str
    confidence: float
    reason: str | None = None
    judged_by: str
    status: str = "pending"
    created_at: str
    decided_at: str | None = None


class ProfileVersionRow(SQLModel, table=True):
    __tablename__ = "profile_versions"
    id: int | None = Field(default=None, primary_key=True)
    version_num: int = Field(unique=True)
    written_at: str
    trigger: str
    content_md: str
    diff_from_prev: str | None = None
    change_summary: str | None = None
    sources_count: int | None = None
    sources_window_start: str | None = None
    sources_window_end: str | None = None
    source_scopes: str | None = None


class TriggerStatRow(SQLModel, table=True):
    __tablename__ = "trigger_stats"
    trigger: str = Field(primary_key=True)
    scope_hash: str = Field(default="_global", primary_key=True)
    day: str = Field(primary_key=True)
    hits: int = 1


class ProfileChangeReportRow(SQLModel, table=True):
    __tablename__ = "profile_change_reports"
    id: int | None = Field(default=None, primary_key=True)
    period: str = Field(unique=True)
    generated_at: str
    content_md: str
    versions_count: int | None = None
    supersedes_count: int | None = None
    entities_added: int | None = None
    entities_dropped: int | None = None
    source_scopes: str | None = None


class FtsDocRow(SQLModel, table=True):
    __tablename__ = "fts_docs"
    id: int | None = Field(default=None, primary_key=True)
    slug: str = Field(unique=True, foreign_key="memories.slug", ondelete="CASCADE")


class TurnRow(SQLModel, table=True):
    __tablename__ = "turns"
    id: int | None = Field(default=None, primary_key=True)
    slug: str = Field(foreign_key="memories.slug", ondelete="CASCADE")
    seq: int
    role: str
    ts: str | None = None
    ext_id: str | None = None
    text: str


class AuditHeadRow(SQLModel, table=True):
    __tablename__ = "audit_head"
    id: int = Field(default=1, primary_key=True)
    seq: int
    this_hash: str
    updated_at: str


class EventLastRow(SQLModel, table=True):
    __tablename__ = "event_last"
    event_type: str = Field(primary_key=True)
    seq: int
    ts: str


class AnalysisFailureRow(SQLModel, table=True):
    __tablename__ = "analysis_failures"
    slug: str = Field(primary_key=True, foreign_key="memories.slug", ondelete="CASCADE")
    attempts: int = 1
    last_error: str
    last_try_at: str


class LLMUsageRow(SQLModel, table=True):
    __tablename__ = "llm_usage"
    id: int | None = Field(default=None, primary_key=True)
    ts: str
    day: str
    provider: str
    model: str
    task: str
    input_tokens: int
    output_tokens: int
    cost_usd: float | None = None
    outcome: str


class RecallStatRow(SQLModel, table=True):
    __tablename__ = "recall_stats"
    slug: str = Field(primary_key=True, foreign_key="memories.slug", ondelete="CASCADE")
    day: str = Field(primary_key=True)
    hits: int = 1
