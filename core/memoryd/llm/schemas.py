"""What each prompt must answer, as pydantic models: the provider validates against them,
so a malformed answer is caught at the edge and never reaches the store."""

from __future__ import annotations

from typing import Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

Score = float  # 0.0 .. 1.0, checked by Field bounds below

ProposedType = Literal["decision", "preference", "fact", "playbook", "warning", "none"]


class DuraOutput(BaseModel):
    """Seed 000's DURA scores for one session, and the long-term memory it would make."""

    model_config = ConfigDict(extra="ignore")

    D: float = Field(ge=0.0, le=1.0, description="Decision-worthy: a decision, not chit-chat")
    U: float = Field(ge=0.0, le=1.0, description="Useful in future sessions")
    R: float = Field(ge=0.0, le=1.0, description="Recallable: concrete hooks (names, projects, dates)")
    A: float = Field(ge=0.0, le=1.0, description="Accurate: stated by the user or verified, not invented")
    type: ProposedType = "none"
    title: str = Field(default="", max_length=200)
    body: str = Field(default="", max_length=4000)
    triggers: list[str] = Field(default_factory=list, max_length=12)
    reasoning: str = Field(default="", max_length=1000)
    supersedes: list[str] = Field(default_factory=list, max_length=10)


class Entity(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    name: str = Field(min_length=1, max_length=120)
    type: str = Field(
        default="concept",
        max_length=40,
        validation_alias=AliasChoices("type", "kind"),
        description="person, organization, place, library, tool, project or concept",
    )
    mentions: int = Field(default=1, ge=1, description="How many times the text names it")
    relation: str = Field(
        default="mentions",
        max_length=40,
        description="prefers, uses, works_on, runs_on, located_at, cites, mentions",
    )
    replaced: bool = Field(default=False, description="The text says the user dropped or replaced it")


class Entities(BaseModel):
    """The named things a memory is about, so it can be found from any of them."""

    model_config = ConfigDict(extra="ignore")

    entities: list[Entity] = Field(default_factory=list, max_length=30)


class SupersedesJudgement(BaseModel):
    """Whether a new memory replaces an old one (the old one is then retired, not deleted)."""

    model_config = ConfigDict(extra="ignore")

    supersedes: bool
    old_slug: str = Field(default="", max_length=200)
    # No confidence, no supersede: an answer that leaves it out changes nothing.
    confidence: float = Field(default=0.0, ge=0.0, le=1.0)
    reasoning: str = Field(default="", max_length=1000)


class SupersedesJudgements(BaseModel):
    """One judgement per older memory the new one was compared with."""

    model_config = ConfigDict(extra="ignore")

    judgements: list[SupersedesJudgement] = Field(default_factory=list, max_length=20)


class IdentityRewrite(BaseModel):
    """The identity profile rewritten with what was learned, and a line on what changed."""

    model_config = ConfigDict(extra="ignore")

    content_md: str = Field(max_length=12000)
    change_summary: str = Field(default="", max_length=1000)


class ChangeReport(BaseModel):
    """A readable account of how the profile changed, for the user to review."""

    model_config = ConfigDict(extra="ignore")

    content_md: str = Field(max_length=8000)


# Which schema each prompt's answer must match (prompt files: llm/prompts/<name>.vN.txt).
PROMPT_SCHEMAS: dict[str, type[BaseModel]] = {
    "dura": DuraOutput,
    "extract_entities": Entities,
    "judge_supersedes": SupersedesJudgements,
    "rewrite_identity": IdentityRewrite,
    "profile_change_report": ChangeReport,
}
