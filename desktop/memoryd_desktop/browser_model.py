"""What the memory browser lists and shows, with no widgets: the filters as a `Query`, the
fetch that answers it (run on the Ops thread), the table model over its rows, and the
supersedes chain shown under the detail pane.

Kept apart from the window so the rules of a listing (search or plain list, the decay
filter applied after the fetch) read on their own and run without a window.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QCoreApplication,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
)

from memoryd.app import Memoryd, MemoryView, Project
from memoryd.visible import clean
from memoryd_desktop import project_text
from memoryd_desktop.memory_dialogs import type_name

translate = QCoreApplication.translate  # the bare name lupdate recognises

ACTOR = "tray"
TYPES = ("session", "decision", "preference", "fact", "playbook", "warning")
STATES = ("alive", "dim", "soft-forgotten")
LIST_LIMIT = 1000
SEARCH_LIMIT = 200


def state_name(state: str) -> str:
    names = {
        "alive": translate("BrowserWindow", "Alive"),
        "dim": translate("BrowserWindow", "Dim"),
        "soft-forgotten": translate("BrowserWindow", "Soft-forgotten"),
        "forgotten": translate("BrowserWindow", "Forgotten"),
        "gone": translate("BrowserWindow", "Gone"),
    }
    return names.get(state, state)


@dataclass(frozen=True)
class Query:
    """What the filters ask for; `state` None means alive and dim, "all" adds soft-forgotten."""

    text: str = ""
    scope: str | None = None
    memory_type: str | None = None
    state: str | None = None
    with_scopes: bool = False


@dataclass
class Listing:
    rows: list[dict[str, Any]]
    withheld: list[tuple[str, str, int]] = field(default_factory=list)
    scopes: dict[str, int] | None = None
    projects: dict[str, Project] = field(default_factory=dict)  # each scope hash shown, named
    terms: list[str] = field(default_factory=list)  # what the search looked for (highlighted)


@dataclass
class Detail:
    slug: str
    view: MemoryView
    history: dict[str, Any]
    project: Project


def fetch(facade: Memoryd, q: Query) -> Listing:
    """The rows for a query (on the Ops thread): the CLI's search, or the plain listing."""
    scopes = [q.scope] if q.scope else None
    include_forgotten = q.state in ("soft-forgotten", "all")
    if q.text.strip():
        results = facade.search(
            q.text,
            scopes=scopes,
            memory_type=q.memory_type,
            limit=SEARCH_LIMIT,
            include_forgotten=include_forgotten,
            count_recall=False,  # browsing is not an agent recalling: decay must not see it
            actor=ACTOR,
        )
        rows = [r.as_dict() for r in results]
        withheld = list(facade.withheld)
    else:
        limit = None if q.state in STATES else LIST_LIMIT  # filtered below: do not cut first
        rows = facade.list(
            scopes=scopes, memory_type=q.memory_type, include_forgotten=include_forgotten, limit=limit
        )
        withheld = []
    if q.state in STATES:
        rows = [r for r in rows if r.get("decay_state") == q.state]
    by_scope = facade.stats()["by_scope"] if q.with_scopes else None
    hashes = {str(r["scope_hash"]) for r in rows} | set(by_scope or ()) | ({q.scope} if q.scope else set())
    terms = facade.search_terms(q.text) if q.text.strip() else []
    return Listing(rows, withheld, by_scope, facade.project_names(sorted(hashes)), terms)


def history_lines(slug: str, history: dict[str, Any]) -> list[str]:
    """The supersedes chain, oldest first, this memory marked."""
    chain = history.get("chain") or []
    lines = []
    if len(chain) <= 1 and not history.get("links"):
        lines.append(translate("BrowserWindow", "Not part of a supersedes chain."))
    else:
        for link in chain:
            mark = "▶" if link["slug"] == slug else " "
            line = translate("BrowserWindow", "{mark} {date}  {title}  [{state}]  {slug}").format(
                mark=mark,
                date=str(link.get("created_at") or "")[:10],
                title=clean(str(link.get("title") or ""), one_line=True),
                state=state_name(str(link.get("state") or "")),
                slug=link["slug"],
            )
            if link.get("superseded_by"):
                line += "  " + translate("BrowserWindow", "→ replaced by {slug}").format(
                    slug=link["superseded_by"]
                )
            lines.append(line)
    if pending := history.get("pending"):
        waiting = translate("BrowserWindow", "Supersedes waiting for a decision: {count}")
        lines.append(waiting.format(count=len(pending)))
    return lines


class MemoryTableModel(QAbstractTableModel):
    """Rows as the facade returns them (dicts); sorted in place when a header is clicked."""

    COLUMNS = ("title", "type", "decay_state", "project", "created_at", "recall_count")

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[dict[str, Any]] = []
        self.projects: dict[str, Project] = {}

    def set_rows(self, rows: Sequence[dict[str, Any]], projects: dict[str, Project] | None = None) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self.projects = dict(projects or {})
        self.endResetModel()

    def project(self, row: dict[str, Any]) -> Project:
        """The row's project as core names it (a hash core was not asked about as itself)."""
        h = str(row.get("scope_hash") or "")
        return self.projects.get(h) or Project(h, "", None)

    def _value(self, row: dict[str, Any], key: str) -> Any:
        return project_text.label(self.project(row)) if key == "project" else row.get(key)

    def slug_at(self, row: int) -> str:
        return str(self.rows[row]["slug"])

    def row_of(self, slug: str) -> int:
        return next((i for i, r in enumerate(self.rows) if r["slug"] == slug), -1)

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or role != Qt.ItemDataRole.DisplayRole:
            return None
        headers = (
            translate("BrowserWindow", "Title"),
            translate("BrowserWindow", "Type"),
            translate("BrowserWindow", "State"),
            translate("Projects", "Project"),
            translate("BrowserWindow", "Created"),
            translate("BrowserWindow", "Recalls"),
        )
        return headers[section]

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        key = self.COLUMNS[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            value = self._value(row, key)
            if key == "type":
                return type_name(str(value))
            if key == "decay_state":
                return state_name(str(value))
            if key == "created_at":
                return str(value or "").replace("T", " ")[:16]
            # a title or a folder name may hold a bidi override: shown, never obeyed
            return "" if value is None else clean(str(value), one_line=True)
        if role == Qt.ItemDataRole.ToolTipRole:
            if key == "project":
                return project_text.tooltip(self.project(row))
            return project_text.plain_tip(str(row.get("snippet") or row.get("slug") or ""))
        if role == Qt.ItemDataRole.UserRole:
            return row.get("slug")
        return None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        key = self.COLUMNS[column]

        def value(row: dict[str, Any]) -> tuple[bool, Any]:
            v = self._value(row, key)
            return (v is None, (v or 0) if key == "recall_count" else str(v or ""))

        self.layoutAboutToBeChanged.emit()
        # The selection and the current row are persistent indexes: they follow their rows
        # (the same row objects, wherever the sort puts them), not the old row numbers.
        before = self.persistentIndexList()
        held = [(self.rows[i.row()], i.column()) for i in before]
        self.rows.sort(key=value, reverse=order == Qt.SortOrder.DescendingOrder)
        where = {id(row): n for n, row in enumerate(self.rows)}
        self.changePersistentIndexList(before, [self.index(where[id(row)], column) for row, column in held])
        self.layoutChanged.emit()
