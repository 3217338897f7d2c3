"""Prose core writes for people (the identity profile, the monthly report) in the user's
language, English or Simplified Chinese.

Everything a window shows is worded by the desktop with Qt's translations from the
structured values core hands it; only documents core writes to disk are worded here,
once, when they are written. The language is the tray's setting (`[tray] language` in
config.toml: "en", "zh_CN", or "system"), and for "system" the locale the environment
names, looked up as gettext does: LANGUAGE, LC_ALL, LC_MESSAGES, LANG, first set wins.
Standard library only, so any core module may import it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

EN, ZH = "en", "zh"
_ENV_ORDER = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")

# key -> (English, Chinese). Add a key for every new phrase, in both languages.
TEXTS: dict[str, tuple[str, str]] = {
    "profile.title": ("Identity profile", "身份画像"),
    "profile.summary": ("Summary", "概要"),
    "profile.prefers": ("Prefers", "偏好"),
    "profile.recent_decisions": ("Recent decisions", "近期决定"),
    "profile.works_with": ("Works with", "常用工具"),
    "profile.this_week": (
        "This week: {sessions} sessions in {projects} projects",
        "本周：{projects} 个项目中的 {sessions} 次会话",
    ),
    "profile.this_week_one": (
        "This week: {sessions} sessions in 1 project",
        "本周：1 个项目中的 {sessions} 次会话",
    ),
    "profile.nothing_known": (
        "Nothing is known yet: no long-term memories outside sensitive projects",
        "尚无所知：敏感项目之外还没有长期记忆",
    ),
    "profile.preference": ("Preferences", "偏好"),
    "profile.decision": ("Decisions", "决定"),
    "profile.warning": ("Warnings", "警示"),
    "profile.playbook": ("Playbooks", "操作手册"),
    "profile.fact": ("Facts", "事实"),
    "profile.tools": ("Tools and languages", "工具与语言"),
    # the monthly report (memoryd.profile.report)
    "report.title": ("Identity profile: changes in {period}", "身份画像：{period} 的变化"),
    "report.versions": (
        "{count} version(s) this month, v{first} to v{last}.",
        "本月共 {count} 个版本，从 v{first} 到 v{last}。",
    ),
    "report.unchanged": ("The profile did not change this month.", "本月画像没有变化。"),
    "report.preferences_added": ("Preferences added", "新增的偏好"),
    "report.preferences_dropped": ("Preferences dropped", "放弃的偏好"),
    "report.superseded": ("Superseded", "被取代"),
    "report.decisions_added": ("Decisions added", "新增的决定"),
    "report.warnings_added": ("Warnings added", "新增的警示"),
    "report.facts_added": ("Facts added", "新增的事实"),
    "report.playbooks_added": ("Playbooks added", "新增的操作手册"),
    "report.entities_new": ("New entities", "新出现的名称"),
    "report.entities_gone": ("Entities no longer mentioned", "不再提及的名称"),
    "report.replaced": ("{old} -> {new}", "{old} → {new}"),
    "report.of_kind": ("{what} ({kind})", "{what}（{kind}）"),
    "report.version_list": ("Versions", "版本"),
    "report.version": ("v{num} {day} ({trigger}): {change}", "v{num} {day}（{trigger}）：{change}"),
    "report.diff": ("The profile's diff", "画像的差异"),
    "report.before_month": ("before the month", "本月之前"),
    # a version's change summary and what made it (memoryd.profile.identity.change_of)
    "change.first": ("first version", "第一个版本"),
    "change.lines": ("{added} line(s) added, {removed} removed", "新增 {added} 行，删除 {removed} 行"),
    "change.withdrawn": (
        "rewritten by rules: a project was marked sensitive",
        "按规则重写：有项目被标记为敏感项目",
    ),
    "trigger.manual": ("manual", "手动"),
    "trigger.weekly_cron": ("weekly", "每周"),
    "trigger.on_event": ("on an event", "因事件"),
    # memory types and the knowledge graph's entity types, as a report names them
    "kind.preference": ("preference", "偏好"),
    "kind.decision": ("decision", "决定"),
    "kind.warning": ("warning", "警示"),
    "kind.playbook": ("playbook", "操作手册"),
    "kind.fact": ("fact", "事实"),
    "kind.session": ("session", "会话"),
    "entity.library": ("library", "库"),
    "entity.tool": ("tool", "工具"),
    "entity.language": ("language", "语言"),
    "entity.framework": ("framework", "框架"),
    "entity.organization": ("organization", "组织"),
    "entity.person": ("person", "人物"),
    "entity.place": ("place", "地点"),
    "entity.project": ("project", "项目"),
    "entity.service": ("service", "服务"),
    "entity.concept": ("concept", "概念"),
}


def _from_locale(name: str) -> str | None:
    name = name.strip().lower()
    if not name or name in ("c", "posix") or name.startswith(("c.", "posix.")):
        return None
    return ZH if name.startswith("zh") and not name.startswith(("zh_tw", "zh_hk", "zh_mo")) else EN


def language(raw_config: Mapping[str, Any] | None = None, env: Mapping[str, str] | None = None) -> str:
    """ "en" or "zh": the tray's language setting, else the environment's locale."""
    table = (raw_config or {}).get("tray")
    chosen = table.get("language") if isinstance(table, Mapping) else None
    if chosen == "zh_CN":
        return ZH
    if chosen == "en":
        return EN
    env = os.environ if env is None else env
    for var in _ENV_ORDER:
        value = env.get(var, "")
        if value:  # LANGUAGE is a priority list ("zh_CN:en"): its first entry decides
            found = _from_locale(value.split(":")[0])
            if found:
                return found
            if var != "LANGUAGE":
                return EN  # "C" / "POSIX": the source language
    return EN


def text(key: str, lang: str, **values: Any) -> str:
    """The phrase `key` in `lang`, its {placeholders} filled."""
    en, zh = TEXTS[key]
    return (zh if lang == ZH else en).format(**values)


def known(key: str) -> bool:
    """Whether `key` is worded here (a kind or type read from the store may not be)."""
    return key in TEXTS


def variants(key: str) -> tuple[str, ...]:
    """Every language's wording of `key`: for readers that must find it in either."""
    return TEXTS[key]


def separator(lang: str) -> str:
    """Between a label and what follows ("Prefers: x" / "偏好：x")."""
    return "：" if lang == ZH else ": "


def list_separator(lang: str) -> str:
    return "；" if lang == ZH else "; "
