"""The memory model of seed 002: six types and the frontmatter schema with its defaults."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from memoryd.kinds import LONG_TERM_TYPES as LONG_TERM_TYPES  # re-exported: models is where callers look
from memoryd.kinds import DecayState, MemoryType

SESSION_TTL_DAYS = 90

VISIBLE_STATES = (DecayState.alive.value, DecayState.dim.value)

SOURCES = ("claude-code", "codex", "codex-rollout", "openclaw", "openclaw-fs", "manual")


def default_ttl(memory_type: MemoryType) -> int | None:
    """Sessions fade after 90 days; long-term memory never expires by default."""
    return SESSION_TTL_DAYS if memory_type is MemoryType.session else None


class Frontmatter(BaseModel):
    """Seed 002's frontmatter. Unknown keys are kept so hand edits survive a rewrite."""

    model_config = ConfigDict(extra="allow", use_enum_values=False)

    title: str
    slug: str
    type: MemoryType
    scope_hash: str
    source: str
    created_at: datetime
    updated_at: datetime | None = None
    tags: list[str] = Field(default_factory=list)
    triggers: list[str] = Field(default_factory=list)
    category: str | None = None
    ttl_days: int | None = None
    decay_state: DecayState = DecayState.alive
    recall_count: int = 0
    last_recalled_at: datetime | None = None
    dura_score: dict[str, float] | None = None
    promoted_from: str | None = None
    supersedes: list[str] = Field(default_factory=list)
    # The newer memory that replaced this one (seed 001 section 5); kept, ranked below it.
    superseded_by: str | None = None
    observations: list[str] = Field(default_factory=list)
    relations: list[str] = Field(default_factory=list)
    # memoryd extension: the agent's session id, so a re-capture updates, never duplicates.
    session_id: str | None = None

    @field_validator("scope_hash")
    @classmethod
    def _scope_hash(cls, value: str) -> str:
        if len(value) != 12 or any(c not in "0123456789abcdef" for c in value):
            raise ValueError("scope_hash must be 12 lowercase hex characters")
        return value

    @field_validator("tags", "triggers", "supersedes", "observations", "relations", mode="before")
    @classmethod
    def _listify(cls, value: Any) -> Any:
        if value is None:
            return []
        if isinstance(value, str):
            return [value]
        # A hand edit that made a list something else costs that list, not the memory.
        return [str(v) for v in value] if isinstance(value, list) else []

    @field_validator("superseded_by", mode="before")
    @classmethod
    def _slug_or_none(cls, value: Any) -> Any:
        return value.strip() or None if isinstance(value, str) else None

    @property
    def extras(self) -> dict[str, Any]:
        return dict(self.model_extra or {})
