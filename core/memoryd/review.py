"""The weekly review's plain rules, shared by the tray's review window and the terminal UI
(`memoryd digest --tui`): which fields an edit changed, and how a triggers line splits and
joins. No UI here, so both front ends behave the same and the rules test without one."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memoryd.rule_reasoning import RuleReasoning
from memoryd.rule_reasoning import read as read_rule_reasoning

__all__ = ["RuleReasoning", "read_rule_reasoning"]  # the rules' DURA reasoning, as values

_LIST_SPLIT = re.compile(r"[,，、;；]")  # English and Chinese list separators


def parse_triggers(text: str) -> list[str]:
    """A comma separated line (English or Chinese commas, 、 and semicolons) to a clean,
    ordered list: blanks and duplicates dropped."""
    return list(dict.fromkeys(t.strip() for t in _LIST_SPLIT.split(text) if t.strip()))


def join_triggers(triggers: Sequence[str]) -> str:
    return ", ".join(triggers)


def enum_text(enum_or_str: Any) -> str:
    return str(getattr(enum_or_str, "value", enum_or_str))


@dataclass(frozen=True)
class Edits:
    """What the edit form holds for one promotion."""

    memory_type: str
    title: str
    triggers: list[str]
    body: str


def changed_fields(proposal: Any, edits: Edits) -> dict[str, Any]:
    """Only what the user changed, as `Memoryd.promote` keywords. Unchanged fields are left
    to core: a sealed proposal (a sensitive scope without a grant) shows a placeholder title
    and no body, and sending those back would overwrite the real ones."""
    out: dict[str, Any] = {}
    if edits.memory_type != proposal.proposed_type:
        out["memory_type"] = edits.memory_type
    if edits.title.strip() != proposal.title.strip():
        out["title"] = edits.title.strip()
    if edits.triggers != list(proposal.triggers):
        out["triggers"] = edits.triggers
    if edits.body.strip() != proposal.body.strip():
        out["body"] = edits.body
    return out
