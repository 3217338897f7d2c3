"""The memory browser: search and filter memories, read one, record, edit, forget, merge,
and run the long maintenance jobs (reindex, import, mark a project sensitive).

Every facade call goes through `Ops` (or a `LongTask` on the same pool), so the window
never blocks and never races another call over the store. Answers that arrive after a newer
request was made are dropped (a generation counter), so fast typing cannot show stale rows.
A sensitive project's memories are listed under the facade's placeholder title; opening one
without a grant raises AuthorizationRequired, which is shown in the status line with a
Grant… button. Only that click emits `grant_needed` (the tray then opens Sensitive projects):
a read in the background, such as moving over sealed rows, never opens a window itself.

Decay filter: forgotten memories leave the index (their files move to forgotten/), so the
facade cannot list them; the filter offers the states that can be listed.

This module is the read side (filters, listing, detail); the query, fetch and table model
are in `browser_model`, and the write side (dialogs, long jobs) in `browser_edits`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePath
from typing import Any

from PySide6.QtCore import QCoreApplication, QItemSelection, QItemSelectionModel, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QAction, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMainWindow,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from memoryd.app import Memoryd, MemoryView, Project
from memoryd.errors import AuthorizationRequired
from memoryd_desktop import assets, project_text, window_keys
from memoryd_desktop.browser_edits import MemoryEdits
from memoryd_desktop.browser_model import (
    ACTOR,
    STATES,
    TYPES,
    Detail,
    Listing,
    MemoryTableModel,
    Query,
    fetch,
    history_lines,
    state_name,
)
from memoryd_desktop.highlight import HighlightDelegate
from memoryd_desktop.i18n import memory_type_label
from memoryd_desktop.long_task import LongTask, ProgressPanel
from memoryd_desktop.memory_detail import MemoryDetail
from memoryd_desktop.ops import Ops
from memoryd_desktop.texts import describe

translate = QCoreApplication.translate  # the bare name lupdate recognises

SEARCH_DELAY_MS = 250  # typing pauses this long before the search runs
TITLE_MIN_PX = 240  # the title column never gets narrower than this when the table is shown
PROJECT_MAX_PX = 200  # a long project name is elided (its folder is on hover)


class BrowserWindow(MemoryEdits, QMainWindow):
    """Filters and search on top, results and the selected memory's detail below."""

    results_shown = Signal(int)  # how many rows the table now shows
    detail_shown = Signal(str)  # the slug whose detail is shown
    changed = Signal(object)  # memoryd.app.Changes after record / edit / forget / merge / a long task
    grant_needed = Signal(str)  # the user clicked Grant…: the missing grant's text (scope, folder)
    failed = Signal(str)  # any failure, as shown in the status line
    task_started = Signal(object)  # a LongTask, emitted before it starts (connect to it here)

    def __init__(self, facade: Memoryd, ops: Ops, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.facade = facade
        self.ops = ops
        self.task: LongTask | None = None
        self.dialog: QDialog | None = None  # the open dialog, if any (tests drive it)
        self.view: MemoryView | None = None  # the memory in the detail pane
        self.terms: list[str] = []  # what the shown results were searched for (highlighted)
        self._generation = 0
        self._detail_generation = 0
        self._loaded = False
        self._select_after: str | None = None
        self._outcome: tuple[str, bool] | None = None  # shown by the refresh after an action
        self.setWindowTitle(translate("BrowserWindow", "Memories"))
        self.setWindowIcon(assets.icon())
        self.resize(1200, 700)

        self.search_edit = QLineEdit()
        self.search_edit.setPlaceholderText(translate("BrowserWindow", "Search"))
        self.search_edit.setClearButtonEnabled(True)
        self.search_timer = QTimer(self)
        self.search_timer.setSingleShot(True)
        self.search_timer.setInterval(SEARCH_DELAY_MS)
        self.search_timer.timeout.connect(self.refresh)
        self.search_edit.textChanged.connect(self.search_timer.start)
        self.search_edit.textEdited.connect(self._preload_search)
        self.search_edit.returnPressed.connect(self.refresh)

        self.scope_combo = QComboBox()
        self.scope_combo.addItem(translate("BrowserWindow", "All projects"), None)
        self.type_combo = QComboBox()
        self.type_combo.addItem(translate("BrowserWindow", "All types"), None)
        for t in TYPES:
            self.type_combo.addItem(memory_type_label(t), t)
        self.state_combo = QComboBox()
        self.state_combo.addItem(translate("BrowserWindow", "Alive and dim"), None)
        for s in STATES:
            self.state_combo.addItem(state_name(s), s)
        self.state_combo.addItem(translate("BrowserWindow", "All, with soft-forgotten"), "all")
        for combo in (self.scope_combo, self.type_combo, self.state_combo):
            combo.currentIndexChanged.connect(self.refresh)

        filters = QHBoxLayout()
        filters.addWidget(self.search_edit, 1)
        filters.addWidget(self.scope_combo)
        filters.addWidget(self.type_combo)
        filters.addWidget(self.state_combo)

        self.model = MemoryTableModel()
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSortingEnabled(False)  # rows arrive ranked; a header click re-sorts
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionsClickable(True)
        header.sectionClicked.connect(self._sort_by)
        self.table.verticalHeader().hide()
        self.table.selectionModel().selectionChanged.connect(self._selection_changed)
        self.table.setMinimumWidth(TITLE_MIN_PX)
        self.highlighter = HighlightDelegate(self.table)
        self.table.setItemDelegateForColumn(0, self.highlighter)
        self._fit_columns()

        self.detail = MemoryDetail()
        self.history = QPlainTextEdit()
        self.history.setReadOnly(True)
        self.history.setMaximumHeight(140)
        pane = QWidget()
        pane_layout = QVBoxLayout(pane)
        pane_layout.setContentsMargins(0, 0, 0, 0)
        pane_layout.addWidget(self.detail, 1)
        pane_layout.addWidget(QLabel(translate("BrowserWindow", "Supersedes chain")))
        pane_layout.addWidget(self.history)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.table)
        splitter.addWidget(pane)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setSizes([700, 500])
        self.splitter = splitter

        central = QWidget()
        layout = QVBoxLayout(central)
        layout.addLayout(filters)
        layout.addWidget(splitter, 1)
        self.setCentralWidget(central)

        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.grant_button = QPushButton(translate("BrowserWindow", "Grant…"))
        self.grant_button.setToolTip(
            translate("BrowserWindow", "Open Sensitive projects to grant access to this project")
        )
        self.grant_button.clicked.connect(self.ask_grant)
        self.grant_button.hide()
        self._grant_text = ""
        self.progress_panel = ProgressPanel()
        self.statusBar().addWidget(self.status, 1)
        self.statusBar().addWidget(self.grant_button)
        self.statusBar().addPermanentWidget(self.progress_panel)
        self._make_actions()
        self.keys = window_keys.install(self, search=self.search_edit)

    # -- actions ----------------------------------------------------------------------
    def _action(self, text: str, slot: Callable[[], object], shortcut: str | None = None) -> QAction:
        action = QAction(text, self)
        action.triggered.connect(lambda _checked=False: slot())
        if shortcut:
            action.setShortcut(shortcut)
        return action

    def _make_actions(self) -> None:
        self.record_action = self._action(translate("BrowserWindow", "Record…"), self.open_record, "Ctrl+N")
        self.edit_action = self._action(translate("BrowserWindow", "Edit…"), self.open_edit, "Ctrl+E")
        self.forget_action = self._action(translate("BrowserWindow", "Forget"), self.ask_forget, "Del")
        self.merge_action = self._action(translate("BrowserWindow", "Merge…"), self.open_merge)
        self.refresh_action = self._action(translate("BrowserWindow", "Refresh"), self.refresh, "F5")
        self.reindex_action = self._action(translate("BrowserWindow", "Reindex"), self.reindex)
        self.import_action = self._action(translate("BrowserWindow", "Import…"), self.open_import)
        self.mark_action = self._action(
            translate("BrowserWindow", "Mark a project sensitive…"), self.open_mark_sensitive
        )
        memory = self.menuBar().addMenu(translate("BrowserWindow", "&Memory"))
        toolbar = self.addToolBar(translate("BrowserWindow", "Memory"))
        toolbar.setMovable(False)
        for action in (self.record_action, self.edit_action, self.forget_action, self.merge_action):
            memory.addAction(action)
            toolbar.addAction(action)
        memory.addSeparator()
        memory.addAction(self.refresh_action)
        tools = self.menuBar().addMenu(translate("BrowserWindow", "&Tools"))
        for action in (self.reindex_action, self.import_action, self.mark_action):
            tools.addAction(action)
        self._update_actions()

    def _update_actions(self) -> None:
        selected = self.selected_slugs()
        single = len(selected) == 1
        shown = self.view is not None and single and self.view.doc.meta.slug == selected[0]
        self.edit_action.setEnabled(shown)
        self.forget_action.setEnabled(single)
        self.merge_action.setEnabled(len(selected) >= 2)
        busy = self.task is not None
        for action in (self.reindex_action, self.import_action, self.mark_action):
            action.setEnabled(not busy)

    # -- status -----------------------------------------------------------------------
    def show_status(self, text: str, error: bool = False, grant: bool = False) -> None:
        """The status line; `grant` offers the Grant… button next to it (a grant is missing)."""
        self.status.setText(text)
        self.status.setStyleSheet("color: #b3261e;" if error else "")
        self._grant_text = text if grant else ""
        self.grant_button.setVisible(grant)

    def _failed(self, exc: BaseException) -> None:
        """The window's one error path; a missing grant offers the Grant… button."""
        text = describe(exc)
        self.show_status(text, error=True, grant=isinstance(exc, AuthorizationRequired))
        self.failed.emit(text)

    @Slot()
    def ask_grant(self) -> None:
        """The user asked for a grant (Grant…): the tray opens Sensitive projects."""
        self.grant_needed.emit(self._grant_text or self.status.text())

    # -- listing ----------------------------------------------------------------------
    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._loaded:
            self.refresh()

    @Slot()
    def _preload_search(self) -> None:
        """At the first keystroke the model and the vectors start loading (Memoryd.preload),
        while the user types; a browser only used to list memories holds none of it (over
        300 MB at 100k memories). Off the GUI thread: a search may hold the model's lock."""
        if self.facade.preloading is None:
            self.ops.run(self.facade.preload, lambda _thread: None, lambda _exc: None)

    @Slot()
    def load(self) -> None:
        """Fresh rows and scope list (the tray calls this each time it shows the window)."""
        self._loaded = False
        self.refresh()

    def query(self) -> Query:
        return Query(
            text=self.search_edit.text(),
            scope=self.scope_combo.currentData(),
            memory_type=self.type_combo.currentData(),
            state=self.state_combo.currentData(),
            with_scopes=not self._loaded,
        )

    @Slot()
    def refresh(self) -> None:
        """Run the current search (or listing) in the background; stale answers are dropped."""
        self.search_timer.stop()
        self._generation += 1
        generation, q, facade = self._generation, self.query(), self.facade
        self._loaded = True
        self.ops.run(lambda: fetch(facade, q), lambda listing: self._show(generation, listing), self._failed)

    def _show(self, generation: int, listing: Listing) -> None:
        if generation != self._generation:
            return
        if listing.scopes is not None:
            self._fill_scopes(listing.scopes, listing.projects)
        selected = self._select_after or (self.view.doc.meta.slug if self.view else None)
        self._select_after = None
        self.highlighter.terms = listing.terms
        self.terms = listing.terms
        self.model.set_rows(listing.rows, listing.projects)
        self._fit_columns()
        self._show_outcome(listing)
        row = self.model.row_of(selected) if selected else -1
        if row >= 0:
            # Read the detail again, even of the same memory: the CLI or an agent may have
            # changed it, and Edit must not start from (and write back) a stale copy.
            self.view = None
            self.table.selectionModel().setCurrentIndex(
                self.model.index(row, 0),
                QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
            )
        else:
            self._clear_detail()
        self._update_actions()
        self.results_shown.emit(len(listing.rows))

    def _show_outcome(self, listing: Listing) -> None:
        """The status line after a listing: the last action's outcome (if this listing
        follows one), what a search could not look into, else how many rows are shown."""
        texts, error = [], False
        if self._outcome is not None:
            (text, error), self._outcome = self._outcome, None
            texts.append(text)
        if listing.withheld:
            # each by its folder's name, as the grant prompt names it; the paths on hover
            parts = [
                translate("BrowserWindow", "{count} in {root}").format(
                    count=n, root=PurePath(root).name or root
                )
                for _h, root, n in listing.withheld
            ]
            paths = "\n".join(str(root) for _h, root, _n in listing.withheld)
            texts.append(
                translate("BrowserWindow", "Sensitive projects not searched without a grant: {where}").format(
                    where="; ".join(parts)
                )
            )
        if not texts:
            texts.append(
                translate("BrowserWindow", "Memories shown: {count}").format(count=len(listing.rows))
            )
        self.show_status(" ".join(texts), error, grant=bool(listing.withheld))
        self.status.setToolTip(project_text.plain_tip(paths) if listing.withheld else "")

    def _fill_scopes(self, by_scope: dict[str, int], projects: dict[str, Project]) -> None:
        """All projects, then each project with memories by name (its folder on hover); the
        current choice survives."""
        current = self.scope_combo.currentData()
        self.scope_combo.blockSignals(True)
        try:
            while self.scope_combo.count() > 1:
                self.scope_combo.removeItem(1)
            named = {
                h: projects.get(h) or Project(h, "", None)
                for h in set(by_scope) | ({current} if current else set())
            }
            for h, project in sorted(
                named.items(), key=lambda kv: (project_text.label(kv[1]).casefold(), kv[0])
            ):
                label = translate("BrowserWindow", "{project} ({count})")
                self.scope_combo.addItem(
                    label.format(project=project_text.label(project), count=by_scope.get(h, 0)), h
                )
                self.scope_combo.setItemData(
                    self.scope_combo.count() - 1, project_text.tooltip(project), Qt.ItemDataRole.ToolTipRole
                )
            self.scope_combo.setCurrentIndex(max(self.scope_combo.findData(current), 0))
        finally:
            self.scope_combo.blockSignals(False)

    def _fit_columns(self) -> None:
        """Every column but the title as wide as its header and cells (a date or a Chinese
        header is never cut); a long project name is elided at PROJECT_MAX_PX; the table
        keeps TITLE_MIN_PX for the title, which takes the rest."""
        project = MemoryTableModel.COLUMNS.index("project")
        others = 0
        for column in range(1, len(MemoryTableModel.COLUMNS)):
            self.table.resizeColumnToContents(column)
            if column == project and self.table.columnWidth(column) > PROJECT_MAX_PX:
                self.table.setColumnWidth(column, PROJECT_MAX_PX)
            others += self.table.columnWidth(column)
        chrome = 2 * self.table.frameWidth() + self.table.verticalScrollBar().sizeHint().width()
        self.table.setMinimumWidth(others + TITLE_MIN_PX + chrome)

    @Slot(int)
    def _sort_by(self, column: int) -> None:
        header = self.table.horizontalHeader()
        same = header.sortIndicatorSection() == column and header.isSortIndicatorShown()
        order = (
            Qt.SortOrder.DescendingOrder
            if same and header.sortIndicatorOrder() == Qt.SortOrder.AscendingOrder
            else Qt.SortOrder.AscendingOrder
        )
        header.setSortIndicatorShown(True)
        header.setSortIndicator(column, order)
        self.model.sort(column, order)  # the selection follows its rows
        self._fit_columns()  # the sort arrow needs room beside the header's text
        self._update_actions()

    def selected_slugs(self) -> list[str]:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        return [self.model.slug_at(r) for r in rows]

    def selected_rows(self) -> list[dict[str, Any]]:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        return [self.model.rows[r] for r in rows]

    def select(self, *slugs: str) -> None:
        """Select these rows (the first one becomes current and opens in the detail pane)."""
        chosen = QItemSelection()
        for row in (self.model.row_of(slug) for slug in slugs):
            if row >= 0:
                chosen.select(
                    self.model.index(row, 0), self.model.index(row, len(MemoryTableModel.COLUMNS) - 1)
                )
        selection = self.table.selectionModel()
        first = self.model.row_of(slugs[0]) if slugs else -1
        if first >= 0:
            selection.setCurrentIndex(self.model.index(first, 0), QItemSelectionModel.SelectionFlag.NoUpdate)
        selection.select(chosen, QItemSelectionModel.SelectionFlag.ClearAndSelect)  # one change, one signal

    # -- detail -----------------------------------------------------------------------
    @Slot()
    def _selection_changed(self) -> None:
        slugs = self.selected_slugs()
        if len(slugs) == 1 and (self.view is None or self.view.doc.meta.slug != slugs[0]):
            self.show_detail(slugs[0])
        self._update_actions()

    def show_detail(self, slug: str) -> None:
        """Read one memory (no recall counted) and its supersedes chain, in the background."""
        self._detail_generation += 1
        generation, facade = self._detail_generation, self.facade

        def load() -> Detail:
            view = facade.get(slug, count_recall=False, actor=ACTOR)
            h = view.doc.meta.scope_hash
            project = facade.project_names([h]).get(h) or Project(h, "", None)
            return Detail(slug, view, facade.history(slug, actor=ACTOR), project)

        self.ops.run(
            load, lambda d: self._show_detail(generation, d), lambda e: self._detail_failed(generation, e)
        )

    def _show_detail(self, generation: int, detail: Detail) -> None:
        if generation != self._detail_generation:
            return
        self.view = detail.view
        self.detail.show_memory(detail.view, detail.project, self.terms)
        self.history.setPlainText("\n".join(history_lines(detail.slug, detail.history)))
        self._update_actions()
        self.detail_shown.emit(detail.slug)

    def _detail_failed(self, generation: int, exc: BaseException) -> None:
        if generation != self._detail_generation:
            return
        self._clear_detail()
        self._failed(exc)

    def _clear_detail(self) -> None:
        self.view = None
        self.detail.clear()
        self.history.clear()
        self._update_actions()
