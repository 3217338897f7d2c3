"""The digest window's data side: table models over the digest's lists, and the pure rules
(what an edit changed, which promotions a threshold takes) the window and tests share.

The lists can be long (hundreds of pending promotions after a busy month), so each one is a
QAbstractTableModel over the digest's own objects: opening the window costs one model
reset, not one widget per row. Only QtCore is used here; no widgets.

The digest objects are the facade's pydantic models (memoryd.governance.digest); the
desktop may not import that module, so they are typed `Any` and read by field name.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QCoreApplication, QModelIndex, QPersistentModelIndex, Qt

# The review's plain rules live in core, shared with the terminal UI (memoryd.review).
from memoryd.review import Edits as Edits
from memoryd.review import changed_fields as changed_fields
from memoryd.review import enum_text as enum_text
from memoryd.review import join_triggers as join_triggers
from memoryd_desktop import project_text
from memoryd_desktop.texts import local_time

translate = QCoreApplication.translate  # the bare name lupdate recognises

Index = QModelIndex | QPersistentModelIndex
ItemRole = Qt.ItemDataRole.UserRole + 1  # the row's digest object
KeyRole = Qt.ItemDataRole.UserRole + 2  # what identifies the row across reloads

# The long-term types a promotion may become, in the order the type combo lists them.
PROMOTE_TYPES = ("decision", "preference", "fact", "playbook", "warning")
EPSILON = 1e-9  # a mean shown as 0.70 is "at" a threshold of 0.70


def type_label(memory_type: str) -> str:
    """The singular display name of a memory type; unknown types show as stored."""
    labels = {
        "session": translate("DigestWindow", "Session"),
        "decision": translate("DigestWindow", "Decision"),
        "preference": translate("DigestWindow", "Preference"),
        "fact": translate("DigestWindow", "Fact"),
        "playbook": translate("DigestWindow", "Playbook"),
        "warning": translate("DigestWindow", "Warning"),
    }
    return labels.get(memory_type, memory_type)


def state_label(state: str) -> str:
    """A decay state as the user reads it."""
    labels = {
        "alive": translate("DigestWindow", "alive"),
        "dim": translate("DigestWindow", "dim"),
        "soft-forgotten": translate("DigestWindow", "soft-forgotten"),
        "forgotten": translate("DigestWindow", "forgotten"),
    }
    return labels.get(state, state)


def day(timestamp: str) -> str:
    """The date part of an ISO timestamp: the lists show days, not seconds."""
    return timestamp[:10]


def at_or_above(proposals: Sequence[Any], threshold: float) -> list[Any]:
    """The promotions approve-all takes: DURA mean at or above the threshold."""
    return [p for p in proposals if p.mean + EPSILON >= threshold]


@dataclass(frozen=True)
class Pair:
    """Two memories with the same fingerprint, shown side by side; a group of n gives n-1."""

    left: Any  # MemoryRef
    right: Any  # MemoryRef
    fingerprint: str

    @property
    def key(self) -> tuple[str, str]:
        return (self.left.slug, self.right.slug)


def pairs(groups: Sequence[Any]) -> list[Pair]:
    """Each duplicate group as pairs against its oldest memory (the digest's keep hint)."""
    out = []
    for g in groups:
        first, *rest = g.memories
        out += [Pair(first, other, g.fingerprint) for other in rest]
    return out


@dataclass(frozen=True)
class Column:
    header: Callable[[], str]  # called at header time, so a late-installed catalogue applies
    text: Callable[[Any], str]
    align_right: bool = False
    tooltip: Callable[[Any], str] | None = None


class RowsModel(QAbstractTableModel):
    """A read-only table over a list of digest objects; `set_rows` is one reset."""

    def __init__(self, columns: Sequence[Column], key: Callable[[Any], object]) -> None:
        super().__init__()
        self.columns = list(columns)
        self._key = key
        self.rows: list[Any] = []

    def set_rows(self, rows: Sequence[Any]) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self.endResetModel()

    def key(self, row: int) -> object:
        return self._key(self.rows[row])

    def row_of(self, key: object) -> int | None:
        for i, item in enumerate(self.rows):
            if self._key(item) == key:
                return i
        return None

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self.columns)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.rows):
            return None
        item = self.rows[index.row()]
        column = self.columns[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return column.text(item)
        if role == Qt.ItemDataRole.ToolTipRole:
            return project_text.plain_tip(column.tooltip(item) if column.tooltip else column.text(item))
        if role == Qt.ItemDataRole.TextAlignmentRole and column.align_right:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == ItemRole:
            return item
        if role == KeyRole:
            return self._key(item)
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.columns[section].header()
        return None


def version_title(version: Any) -> str:
    """A conflict version's title; core words a deletion and a sealed version in English."""
    if version.deleted:
        return translate("DigestWindow", "(deleted)")
    if version.title == "(sealed)":
        return translate("DigestWindow", "(sealed)")
    return str(version.title)


def version_line(version: Any) -> str:
    """One version of a conflicted memory: its title and when it was changed."""
    return translate("DigestWindow", "“{title}”, changed {time}").format(
        title=version_title(version), time=local_time(version.updated_at)
    )


# -- the lists ---------------------------------------------------------------------------
def promotions_model() -> RowsModel:
    return RowsModel(
        [
            Column(lambda: translate("DigestWindow", "Mean"), lambda p: f"{p.mean:.2f}", align_right=True),
            Column(lambda: translate("DigestWindow", "Type"), lambda p: type_label(p.proposed_type)),
            Column(lambda: translate("DigestWindow", "Title"), lambda p: p.title),
            Column(
                lambda: translate("Projects", "Project"),
                project_text.from_digest,
                tooltip=project_text.session_source,
            ),
        ],
        key=lambda p: p.id,
    )


def pairs_model() -> RowsModel:
    return RowsModel(
        [
            Column(
                lambda: translate("DigestWindow", "Left"),
                lambda d: d.left.title,
                tooltip=lambda d: d.left.slug,
            ),
            Column(
                lambda: translate("DigestWindow", "Right"),
                lambda d: d.right.title,
                tooltip=lambda d: d.right.slug,
            ),
            Column(lambda: translate("DigestWindow", "Type"), lambda d: type_label(d.left.type)),
        ],
        key=lambda d: d.key,
    )


def reminders_model() -> RowsModel:
    return RowsModel(
        [
            Column(lambda: translate("DigestWindow", "Title"), lambda t: t.title, tooltip=lambda t: t.slug),
            Column(lambda: translate("DigestWindow", "Type"), lambda t: type_label(t.type)),
            Column(
                lambda: translate("DigestWindow", "Change"),
                lambda t: translate("DigestWindow", "{state} → {next}").format(
                    state=state_label(t.state), next=state_label(t.next_state)
                ),
            ),
            Column(lambda: translate("DigestWindow", "Due"), lambda t: day(t.due_at)),
            Column(
                lambda: translate("DigestWindow", "Idle days"), lambda t: str(t.idle_days), align_right=True
            ),
        ],
        key=lambda t: t.slug,
    )


def supersedes_model() -> RowsModel:
    return RowsModel(
        [
            Column(
                lambda: translate("DigestWindow", "New"), lambda s: s.new_title, tooltip=lambda s: s.new_slug
            ),
            Column(
                lambda: translate("DigestWindow", "Replaces"),
                lambda s: s.old_title,
                tooltip=lambda s: s.old_slug,
            ),
            Column(
                lambda: translate("DigestWindow", "Confidence"),
                lambda s: f"{s.confidence:.2f}",
                align_right=True,
            ),
        ],
        key=lambda s: s.id,
    )


def conflicts_model() -> RowsModel:
    """Memories changed on two devices: the version in use, and how many copies wait."""
    return RowsModel(
        [
            Column(
                lambda: translate("DigestWindow", "Memory"),
                lambda c: version_title(c.kept),
                tooltip=lambda c: c.slug,
            ),
            Column(
                lambda: translate("DigestWindow", "In use since"), lambda c: local_time(c.kept.updated_at)
            ),
            Column(
                lambda: translate("DigestWindow", "Copies"), lambda c: str(len(c.copies)), align_right=True
            ),
        ],
        key=lambda c: c.slug,
    )


def suspect_model() -> RowsModel:
    """Memories whose text reads as aimed at an AI. The title's tooltip is the slug, never
    the title: a tooltip renders rich text, and attack text may carry markup."""
    return RowsModel(
        [
            Column(lambda: translate("DigestWindow", "Title"), lambda m: m.title, tooltip=lambda m: m.slug),
            Column(
                lambda: translate("DigestWindow", "Project"),
                project_text.from_digest,  # by name, as the pane says it; the hash on hover
                tooltip=lambda m: m.scope_hash,
            ),
            Column(
                lambda: translate("DigestWindow", "Type"),
                lambda m: type_label(m.type),
                tooltip=lambda m: m.type,
            ),
            Column(
                lambda: translate("DigestWindow", "Date"),
                lambda m: day(m.created_at),
                tooltip=lambda m: m.created_at,
            ),
        ],
        key=lambda m: m.slug,
    )
