"""A proposal's DURA reasoning in the user's language: the rules' line read back as values
by core (memoryd.review.read_rule_reasoning) and worded here; an LLM's reasoning is its
own prose and is shown as written."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from memoryd.review import RuleReasoning, read_rule_reasoning

translate = QCoreApplication.translate  # the bare name lupdate recognises


def _kind(code: str) -> str:
    return {
        "identity": translate("DuraReasoning", "identity, health or safety"),
        "temporary": translate("DuraReasoning", "temporary"),
        "nothing": translate("DuraReasoning", "nothing stated to keep"),
        "decision": translate("DuraReasoning", "decision"),
        "preference": translate("DuraReasoning", "preference"),
        "warning": translate("DuraReasoning", "warning"),
        "playbook": translate("DuraReasoning", "playbook"),
        "fact": translate("DuraReasoning", "fact"),
    }.get(code, code)


def _reason(why: RuleReasoning) -> str:
    return {
        "": "",
        "sensitive": translate("DuraReasoning", "sensitive project: nothing sent to the LLM"),
        "suspect": translate("DuraReasoning", "suspect memory: nothing sent to the LLM"),
        "budget": translate("DuraReasoning", "today's LLM token budget is spent"),
        "llm_failed": translate("DuraReasoning", "the LLM failed"),
        "no_key": translate("DuraReasoning", "no API key for the LLM"),
        "rules_chosen": translate("DuraReasoning", "the settings choose the rules"),
    }.get(why.reason, translate("DuraReasoning", "the LLM was not used"))


def _cue(why: RuleReasoning) -> str:
    if not why.cue_is_label:
        return translate("DuraReasoning", "said as \u201c{words}\u201d").format(words=why.cue)
    return {
        "remember": translate("DuraReasoning", "asked to remember"),
        "remember_to": translate("DuraReasoning", "asked to remember to do it"),
        "steps": translate("DuraReasoning", "steps"),
    }.get(why.cue, why.cue)


def _signal(code: str, weight: float) -> str:
    label = {
        "remember": translate("DuraReasoning", "asked to remember"),
        "important": translate("DuraReasoning", "marked important"),
        "passing": translate("DuraReasoning", "said in passing"),
    }.get(code, code)
    return f"{label} {weight:+.1f}"


def reasoning_text(text: str | None) -> str:
    """The reasoning as the review shows it; empty when there is none."""
    why = read_rule_reasoning(text)
    if why is None:
        return text or ""
    parts = [f"{_kind(why.kind)} {why.intrinsic:.1f}"]
    if why.type:
        parts.append(translate("DuraReasoning", "{type} ({cue})").format(type=_kind(why.type), cue=_cue(why)))
    parts += [_signal(code, weight) for code, weight in why.signals]
    if why.repeated:
        words = ", ".join(why.repeated)
        parts.append(translate("DuraReasoning", "repeated \u201c{words}\u201d +0.2").format(words=words))
    reason = _reason(why)
    head = (
        translate("DuraReasoning", "Scored by the rules ({reason})").format(reason=reason)
        if reason
        else translate("DuraReasoning", "Scored by the rules")
    )
    return translate("DuraReasoning", "{head}: importance {importance} = {parts}").format(
        head=head,
        importance=f"{why.importance:.2f}",
        parts=translate("DuraReasoning", "; ").join(parts),
    )
