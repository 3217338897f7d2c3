"""The rules' DURA reasoning as values: written as one English line (what the CLI and the
database keep), read back here so a window can word it in its own language.

memoryd.llm.rules writes the line with `line()`; `read()` parses it. Both sit here so the
shape cannot drift apart. An LLM's reasoning is its own prose: `read()` answers None.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

PREFIX = "rule-scored"
# What a session is, before signals: the kind's words in the line -> its code.
KINDS = {
    "identity/health/safety": "identity",
    "temporary": "temporary",
    "nothing stated to keep": "nothing",
    "decision": "decision",
    "preference": "preference",
    "warning": "warning",
    "playbook": "playbook",
    "fact": "fact",
}
SIGNALS = {"asked to remember": "remember", "marked important": "important", "said in passing": "passing"}
# Cues named by a label of memoryd.llm.cues rather than the user's own words.
CUE_LABELS = {"asked to remember": "remember", "remember to": "remember_to", "steps": "steps"}
# Why the rules scored instead of an LLM (memoryd.governance.analyze, memoryd.llm.factory).
REASONS = (
    ("sensitive scope", "sensitive"),
    ("suspect memory", "suspect"),
    ("daily token budget spent", "budget"),
    ("the LLM failed", "llm_failed"),
    ("no API key", "no_key"),
    ('provider = "rules"', "rules_chosen"),
)

_TYPES = "decision|preference|warning|playbook|fact"
_LINE = re.compile(
    rf"^{PREFIX}(?: \((?P<reason>.*)\))?: importance (?P<importance>\d+\.\d+) = (?P<notes>.*)$", re.S
)
_NOTES = re.compile(
    rf"^(?P<kind>{'|'.join(re.escape(k) for k in KINDS)}) (?P<intrinsic>\d\.\d)"
    rf"(?:, (?P<type>{_TYPES}) \((?P<cue>.*?)\))?"
    rf"(?P<signals>(?:, (?:{'|'.join(SIGNALS)}) [+-]\d\.\d)*)"
    r"(?:, repeated \((?P<repeated>.*)\) \+0\.2)?$",
    re.S,
)
_SIGNAL = re.compile(rf"({'|'.join(SIGNALS)}) ([+-]\d\.\d)")


@dataclass(frozen=True)
class RuleReasoning:
    importance: float
    kind: str  # a code of KINDS
    intrinsic: float
    type: str = ""  # the memory type the cue says, "" for none
    cue: str = ""  # the user's words that said it, or a CUE_LABELS code
    cue_is_label: bool = False
    signals: list[tuple[str, float]] = field(default_factory=list)  # (code of SIGNALS, weight)
    repeated: list[str] = field(default_factory=list)
    reason: str = ""  # a code of REASONS, "other", or "" when the rules were simply chosen
    reason_text: str = ""  # as written (English), for an "other" reason


def reason_code(reason: str) -> str:
    if not reason:
        return ""
    return next((code for start, code in REASONS if reason.startswith(start)), "other")


def line(reason: str, importance: float, notes: list[str]) -> str:
    return f"{PREFIX}{f' ({reason})' if reason else ''}: importance {importance:.2f} = " + ", ".join(notes)


def read(text: str | None) -> RuleReasoning | None:
    """The values of a rules' reasoning line; None for anything else (an LLM's words)."""
    m = _LINE.match((text or "").strip())
    if m is None:
        return None
    n = _NOTES.match(m.group("notes"))
    if n is None:
        return None
    cue = n.group("cue") or ""
    reason = m.group("reason") or ""
    return RuleReasoning(
        importance=float(m.group("importance")),
        kind=KINDS[n.group("kind")],
        intrinsic=float(n.group("intrinsic")),
        type=n.group("type") or "",
        cue=CUE_LABELS.get(cue, cue),
        cue_is_label=cue in CUE_LABELS,
        signals=[(SIGNALS[label], float(w)) for label, w in _SIGNAL.findall(n.group("signals") or "")],
        repeated=[w for w in (n.group("repeated") or "").split(", ") if w],
        reason=reason_code(reason),
        reason_text=reason,
    )
