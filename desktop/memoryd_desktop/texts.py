"""How errors, times and core's counts are worded for the user, shared by every window
(one rule each)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import PurePath
from typing import Any

from PySide6.QtCore import QCoreApplication, QDateTime, Qt

from memoryd.errors import AuthorizationRequired, MemorydError

_LIST_SPLIT = re.compile(r"[,，、;；]")  # English and Chinese list separators


def describe(exc: BaseException) -> str:
    """Our own errors already speak to the user; anything else also names its type. A
    missing grant is worded here, from the project core names (its English sentence
    carries the hash and a command line meant for a terminal)."""
    if isinstance(exc, AuthorizationRequired):
        return grant_needed(exc)
    return str(exc) if isinstance(exc, MemorydError) else f"{type(exc).__name__}: {exc}"


def grant_needed(exc: AuthorizationRequired) -> str:
    """A read stopped at a sensitive project without a grant, in the user's language."""
    root = getattr(exc, "root", None)
    if not root:
        return QCoreApplication.translate(
            "Errors", "This is in a sensitive project: grant access to read it."
        )
    name = PurePath(root).name or root
    return QCoreApplication.translate(
        "Errors", "\u201c{project}\u201d is a sensitive project: grant access to read it."
    ).format(project=name)


def local_time(iso: str | None) -> str:
    """A stored UTC timestamp as local time, to the minute; unparsable text as stored."""
    if not iso:
        return ""
    moment = QDateTime.fromString(iso, Qt.DateFormat.ISODate)
    return moment.toLocalTime().toString("yyyy-MM-dd HH:mm") if moment.isValid() else iso


def parse_triggers(text: str) -> list[str]:
    """A comma separated line (English or Chinese commas, 、 and semicolons) to a clean,
    ordered list: blanks and duplicates dropped. Triggers and tags alike."""
    return list(dict.fromkeys(t.strip() for t in _LIST_SPLIT.split(text) if t.strip()))


def consolidation_summary(summary: Mapping[str, int]) -> str:
    """What a consolidation did, from core's counts (`Report.summary()`), in the user's
    language: only what happened; empty when nothing did (a notice may then stay quiet)."""
    worded = (
        ("captured", QCoreApplication.translate("Consolidation", "{n} captures processed")),
        ("analysed", QCoreApplication.translate("Consolidation", "{n} sessions analysed")),
        ("queued", QCoreApplication.translate("Consolidation", "{n} proposals for review")),
        ("deduplicated", QCoreApplication.translate("Consolidation", "{n} duplicate proposals dropped")),
        ("decayed", QCoreApplication.translate("Consolidation", "{n} memories faded")),
        ("identity_version", QCoreApplication.translate("Consolidation", "identity profile v{n}")),
        ("rendered", QCoreApplication.translate("Consolidation", "{n} snapshots refreshed")),
        ("exported", QCoreApplication.translate("Consolidation", "{n} files exported")),
        ("tokens", QCoreApplication.translate("Consolidation", "{n} LLM tokens")),
    )
    parts = [text.format(n=f"{summary[key]:,}") for key, text in worded if summary.get(key)]
    return QCoreApplication.translate("Consolidation", ", ").join(parts)


def consolidation_step(step: Any) -> str:
    """A consolidation's step as core hands it (memoryd.consolidate.Step: status, phase,
    counts, seconds) in the user's language, for the menu while the run goes on."""
    phase = phase_name(str(step.phase))
    status = str(step.status)
    if status == "running":
        return QCoreApplication.translate("Consolidation", "{phase}…").format(phase=phase)
    if status == "resumed":
        return QCoreApplication.translate("Consolidation", "resuming the interrupted run")
    if status == "failed":
        return QCoreApplication.translate("Consolidation", "{phase} failed").format(phase=phase)
    if status == "earlier":
        return QCoreApplication.translate("Consolidation", "{phase}: done before the interruption").format(
            phase=phase
        )
    did = consolidation_summary(step.counts)
    if status == "finished":
        return did or QCoreApplication.translate("Consolidation", "nothing new")
    seconds = QCoreApplication.translate("Consolidation", "{seconds} s").format(
        seconds=f"{float(step.seconds):.1f}"
    )
    if not did:
        return QCoreApplication.translate("Consolidation", "{phase}: nothing to do ({seconds})").format(
            phase=phase, seconds=seconds
        )
    return QCoreApplication.translate("Consolidation", "{phase}: {done} ({seconds})").format(
        phase=phase, done=did, seconds=seconds
    )


def phase_name(name: str) -> str:
    """A consolidation phase (memoryd.schedule.CONSOLIDATION_PHASES) as the user reads it."""
    return {
        "capture": QCoreApplication.translate("Consolidation", "capture"),
        "analyze": QCoreApplication.translate("Consolidation", "analysis"),
        "dedupe": QCoreApplication.translate("Consolidation", "duplicates"),
        "decay": QCoreApplication.translate("Consolidation", "decay"),
        "identity": QCoreApplication.translate("Consolidation", "identity profile"),
        "snapshots": QCoreApplication.translate("Consolidation", "snapshots"),
        "exports": QCoreApplication.translate("Consolidation", "exports"),
    }.get(name, name)
