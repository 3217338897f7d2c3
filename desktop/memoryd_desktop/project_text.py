"""How a project is named on screen: core says which folder a scope hash stands for
(Memoryd.project_names, or a digest entry's `project`), the desktop words it. A sensitive
project without a grant is "sensitive project" and its short hash in the user's language,
the same rule as its memories' titles (docs/security.md, "Project names")."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication, QDate, QLocale
from PySide6.QtGui import Qt

from memoryd.app import Project
from memoryd.visible import clean

translate = QCoreApplication.translate  # the bare name lupdate recognises


def label(project: Project) -> str:
    """The name to show; a withheld one says so; a hash never seen shows as itself."""
    if project.name:
        return project.name
    if project.withheld:
        return withheld(project.scope_hash)
    return project.scope_hash


def tooltip(project: Project) -> str:
    """The folder on hover, else the hash."""
    return plain_tip(project.root or project.scope_hash)


def plain_tip(text: str) -> str:
    """`text` as a tooltip shows it, letter for letter: Qt renders a tooltip that looks
    like HTML as rich text, and a folder may be named `<img src=x>`; a hidden control
    (a bidi override reordering the letters) shows as its escape."""
    text = clean(text)
    return Qt.convertFromPlainText(text) if Qt.mightBeRichText(text) else text


def withheld(scope_hash: str) -> str:
    return translate("Projects", "sensitive project {hash}").format(hash=scope_hash)


def from_digest(entry: Any) -> str:
    """A digest entry's project (core's label) in the user's words."""
    core = str(getattr(entry, "project", "") or "")
    if not core or core == entry.scope_hash:
        return str(entry.scope_hash)
    if core == Project.withheld_label(entry.scope_hash):
        return withheld(entry.scope_hash)
    return core


def session_day(session_slug: str, fallback: str) -> str:
    """The day a session took place, from its name (sessions are named by their date, a
    sensitive one's too); `fallback` (an ISO time) when the name has none; in words."""
    day = QDate.fromString(session_slug[:10], "yyyy-MM-dd")
    if not day.isValid():
        day = QDate.fromString(fallback[:10], "yyyy-MM-dd")
    if not day.isValid():
        return fallback[:10]
    # The date's pattern is itself translated: "26 Nov 2026", "2026年11月26日".
    return QLocale().toString(day, translate("Projects", "d MMM yyyy"))


def session_source(entry: Any) -> str:
    """Where a proposal came from: "From the session of 26 Nov 2026 in api"."""
    return translate("Projects", "From the session of {day} in {project}").format(
        day=session_day(str(entry.session_slug), str(entry.created_at)), project=from_digest(entry)
    )
