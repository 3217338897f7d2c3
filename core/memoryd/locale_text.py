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


def variants(key: str) -> tuple[str, ...]:
    """Every language's wording of `key`: for readers that must find it in either."""
    return TEXTS[key]


def separator(lang: str) -> str:
    """Between a label and what follows ("Prefers: x" / "偏好：x")."""
    return "：" if lang == ZH else ": "


def list_separator(lang: str) -> str:
    return "；" if lang == ZH else "; "
