"""The weekly review: approve or reject promotions, merge duplicates, keep what is fading,
confirm supersedes, settle sync conflicts, clear or forget suspect memories, glance at the
trends. Meant as a two-minute
habit, so it is keyboard first (j/k move, a approves, r rejects) and opens fast on a long
queue.

Every facade call goes through `Ops` (off the GUI thread, one at a time); after an action
the digest is fetched again, so what the window shows is always what core says now. The
lists are table views over `digest_model` models; the editor pane is filled for the
selected row only. The lists live in `digest_list`, the panes in `digest_panes`, and what
each action asks core in `digest_actions`; this module ties them together.

A duplicate pair's bodies, and a suspect memory's text, are read only while their tab is
shown. A read that
needs a grant (a sensitive project) shows the reason in the status line with a Grant…
button; only that click emits `grant_needed`, so loading never pops up another window.
"""

from __future__ import annotations

from enum import IntEnum
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from memoryd.app import Changes, Memoryd
from memoryd.errors import AuthorizationRequired
from memoryd_desktop import assets, window_keys
from memoryd_desktop import digest_actions as review
from memoryd_desktop import digest_model as dm
from memoryd_desktop.digest_list import ReviewList
from memoryd_desktop.digest_panes import (
    ConflictPane,
    PairPane,
    Paned,
    PromotionEditor,
    ReminderPane,
    SupersedePane,
    VersionsDialog,
    bold,
    muted,
    wrapping,
)
from memoryd_desktop.digest_suspect import SuspectPane, forget_question
from memoryd_desktop.ops import Ops
from memoryd_desktop.texts import describe
from memoryd_desktop.trends_chart import TrendsPane

translate = QCoreApplication.translate  # the bare name lupdate recognises
ACTOR = "tray"
DEFAULT_SIZE = (1100, 700)


class Tab(IntEnum):
    PROMOTIONS = 0
    DUPLICATES = 1
    EXPIRING = 2
    SUPERSEDES = 3
    CONFLICTS = 4
    SUSPECT = 5
    TRENDS = 6


class DigestWindow(QWidget):
    """The digest and promotion window; `load()` fetches, `loaded` says the view is filled."""

    loaded = Signal()
    busy_changed = Signal(bool)
    done = Signal(str)  # an action finished: the message shown in the status line
    failed = Signal(str)  # a fetch, a read or an action failed: the error shown in the status line
    grant_needed = Signal(str)  # the user clicked Grant…: the missing grant's text (scope, folder)
    changed = Signal(object)  # after an action: its memoryd.app.Changes, or None; tray counts are stale
    pair_shown = Signal()  # the selected duplicate pair's bodies are on screen

    def __init__(self, facade: Memoryd, ops: Ops, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.facade = facade
        self.ops = ops
        self.digest: Any = None  # memoryd.governance.digest.Digest once loaded
        self._pending = 0  # calls in flight (fetches and actions)
        self._generation = 0  # only the newest fetch fills the view
        self._pair_key: tuple[str, str] | None = None
        self._read_error = False  # the status line shows a failed fetch or read (not an action's)
        self._grant_text = ""
        self.confirm_box: QMessageBox | None = None  # the open "Approve all" question, if any
        self.forget_box: QMessageBox | None = None  # the open "Forget" question, if any
        self.merge_box: QMessageBox | None = None  # the open "Merge" question, if any
        # The last decision made here that core can take back: (review action id, kind, title).
        self.undoable: tuple[int, str, str] | None = None
        self._suspect_key: str | None = None  # the suspect memory whose text is shown or read
        self.versions_dialog: VersionsDialog | None = None  # the last "Show versions" window
        self.setWindowTitle(translate("DigestWindow", "Weekly review"))
        self.setWindowIcon(assets.icon())
        self.resize(*DEFAULT_SIZE)

        heading = bold(QLabel(translate("DigestWindow", "Weekly review")), 1.4)
        self.period = muted(QLabel())
        self.refresh = QPushButton(translate("DigestWindow", "Refresh"))
        self.refresh.clicked.connect(self.load)
        self.undo_button = QPushButton(translate("DigestWindow", "Undo"))
        self.undo_button.setToolTip(
            translate("DigestWindow", "Undo the last review action taken here (Ctrl+Z)")
        )
        self.undo_button.clicked.connect(self.undo_last)
        # Ctrl+Z in a text field of the editor still undoes typing: the field takes the key first.
        self.undo_shortcut = QShortcut(QKeySequence(QKeySequence.StandardKey.Undo), self)
        self.undo_shortcut.activated.connect(self.undo_last)
        top = QHBoxLayout()
        top.addWidget(heading)
        top.addWidget(self.period, 1)
        top.addWidget(self.undo_button)
        top.addWidget(self.refresh)

        self.tabs = QTabWidget()
        self.views: dict[Tab, ReviewList] = {}
        self.panes: dict[Tab, Paned] = {}
        self.tabs.addTab(self._promotions_tab(), "")
        self.tabs.addTab(self._duplicates_tab(), "")
        self.tabs.addTab(self._expiring_tab(), "")
        self.tabs.addTab(self._supersedes_tab(), "")
        self.tabs.addTab(self._conflicts_tab(), "")
        self.tabs.addTab(self._suspect_tab(), "")
        self.tabs.addTab(self._trends_tab(), "")
        self.tabs.currentChanged.connect(self._tab_changed)
        for tab, view in self.views.items():
            view.act.connect(lambda what, tab=tab: self._key_act(tab, what))
            view.selectionModel().currentRowChanged.connect(lambda *_, tab=tab: self._show_current(tab))

        self.status = wrapping()
        self.status.setText(translate("DigestWindow", "Reading the digest…"))
        self.grant_button = QPushButton(translate("DigestWindow", "Grant…"))
        self.grant_button.setToolTip(
            translate("DigestWindow", "Open Sensitive projects to grant access to this project")
        )
        self.grant_button.clicked.connect(self.ask_grant)
        self.grant_button.hide()
        bottom = QHBoxLayout()
        bottom.addWidget(self.status, 1)
        bottom.addWidget(self.grant_button, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 14, 14, 10)
        layout.addLayout(top)
        layout.addWidget(self.tabs, 1)
        layout.addLayout(bottom)
        self._retitle()
        self._sync_buttons()
        self.keys = window_keys.install(self)
        # Ctrl+Enter in the editor approves what it says now (its text fields keep the key
        # free: only Enter alone is theirs).
        self.approve_keys = [QShortcut(QKeySequence(k), self.editor) for k in ("Ctrl+Return", "Ctrl+Enter")]
        for shortcut in self.approve_keys:
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(self.approve_current)

    # -- building ---------------------------------------------------------------------
    def _split(self, tab: Tab, list_side: QWidget, pane: Paned) -> QWidget:
        self.panes[tab] = pane
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(list_side)
        split.addWidget(pane)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        split.setSizes([520, 540])
        page = QWidget()
        QVBoxLayout(page).addWidget(split)
        return page

    def _list_side(self, tab: Tab, view: ReviewList, hint: str, above: QWidget | None = None) -> QWidget:
        self.views[tab] = view
        side = QWidget()
        layout = QVBoxLayout(side)
        layout.setContentsMargins(0, 0, 0, 0)
        if above is not None:
            layout.addWidget(above)
        layout.addWidget(view, 1)
        layout.addWidget(muted(QLabel(hint)))
        return side

    def _promotions_tab(self) -> QWidget:
        self.threshold = QDoubleSpinBox()
        self.threshold.setRange(0.0, 1.0)
        self.threshold.setDecimals(2)
        self.threshold.setSingleStep(0.05)
        self.threshold.setValue(self.facade.config.governance.promote_threshold)
        self.approve_all_button = QPushButton()
        self.threshold.valueChanged.connect(self._sync_buttons)
        self.approve_all_button.clicked.connect(self.ask_approve_all)
        bar = QWidget()
        row = QHBoxLayout(bar)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(QLabel(translate("DigestWindow", "Approve all with a DURA mean of at least")))
        row.addWidget(self.threshold)
        row.addStretch(1)
        row.addWidget(self.approve_all_button)
        view = ReviewList(dm.promotions_model(), stretch=(2,), widths={0: 48, 1: 90, 3: 150})
        hint = translate("DigestWindow", "j/k move · a approve · r reject")
        self.editor = PromotionEditor()
        self.editor.approve.clicked.connect(self.approve_current)
        self.editor.reject.clicked.connect(self.reject_current)
        pane = Paned(self.editor, translate("DigestWindow", "No promotions wait for review."))
        return self._split(Tab.PROMOTIONS, self._list_side(Tab.PROMOTIONS, view, hint, bar), pane)

    def _duplicates_tab(self) -> QWidget:
        view = ReviewList(dm.pairs_model(), stretch=(0, 1), widths={2: 100})
        self.pair_pane = body = PairPane()
        self.left, self.right, self.pair_note = body.left, body.right, body.pair_note
        self.merge_left, self.merge_right = body.merge_left, body.merge_right
        self.merge_left.clicked.connect(lambda: self.merge_current("left"))
        self.merge_right.clicked.connect(lambda: self.merge_current("right"))
        body.not_duplicates.clicked.connect(self.not_duplicates_current)
        pane = Paned(body, translate("DigestWindow", "No duplicates found."))
        hint = translate("DigestWindow", "j/k move")
        return self._split(Tab.DUPLICATES, self._list_side(Tab.DUPLICATES, view, hint), pane)

    def _expiring_tab(self) -> QWidget:
        view = ReviewList(dm.reminders_model(), stretch=(0,), widths={1: 90, 2: 150, 3: 90, 4: 70})
        self.reminder_pane = body = ReminderPane()
        self.reminder, self.keep = body.reminder, body.keep
        self.keep.clicked.connect(self.keep_current)
        pane = Paned(body, translate("DigestWindow", "Nothing is fading this week."))
        hint = translate("DigestWindow", "j/k move · a keep")
        return self._split(Tab.EXPIRING, self._list_side(Tab.EXPIRING, view, hint), pane)

    def _supersedes_tab(self) -> QWidget:
        view = ReviewList(dm.supersedes_model(), stretch=(0, 1), widths={2: 90})
        self.supersede_pane = body = SupersedePane()
        self.supersede, self.supersede_reason = body.supersede, body.supersede_reason
        self.confirm, self.dismiss = body.confirm, body.dismiss
        self.confirm.clicked.connect(self.confirm_current)
        self.dismiss.clicked.connect(self.dismiss_current)
        pane = Paned(body, translate("DigestWindow", "No supersedes wait for confirmation."))
        hint = translate("DigestWindow", "j/k move · a confirm · r dismiss")
        return self._split(Tab.SUPERSEDES, self._list_side(Tab.SUPERSEDES, view, hint), pane)

    def _conflicts_tab(self) -> QWidget:
        view = ReviewList(dm.conflicts_model(), stretch=(0,), widths={1: 130, 2: 60})
        self.conflict_pane = body = ConflictPane()
        body.keep.clicked.connect(lambda: self.resolve_current())
        body.use_copy.connect(self.resolve_current)
        body.show_versions.clicked.connect(self.show_versions)
        pane = Paned(body, translate("DigestWindow", "No sync conflicts."))
        hint = translate("DigestWindow", "j/k move")
        return self._split(Tab.CONFLICTS, self._list_side(Tab.CONFLICTS, view, hint), pane)

    def _suspect_tab(self) -> QWidget:
        view = ReviewList(dm.suspect_model(), stretch=(0,), widths={1: 110, 2: 90, 3: 90})
        self.suspect_pane = body = SuspectPane()
        body.clear.clicked.connect(self.clear_suspect_current)
        body.forget.clicked.connect(self.ask_forget)
        pane = Paned(body, translate("DigestWindow", "No suspect memories."))
        hint = translate("DigestWindow", "j/k move · a not suspicious · r forget")
        return self._split(Tab.SUSPECT, self._list_side(Tab.SUSPECT, view, hint), pane)

    def _trends_tab(self) -> QWidget:
        self.trends = TrendsPane()
        self.trend_lists, self.spend = self.trends.trend_lists, self.trends.spend
        return self.trends

    # -- state ------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self._pending > 0

    def _begin(self) -> None:
        self._pending += 1
        if self._pending == 1:
            self.busy_changed.emit(True)
            self._sync_buttons()

    def _end(self) -> None:
        self._pending -= 1
        if self._pending == 0:
            self.busy_changed.emit(False)
            self._sync_buttons()

    def _say(self, text: str, error: bool = False, grant: bool = False) -> None:
        """The status line; `grant` offers the Grant… button next to it (a grant is missing)."""
        self.status.setText(text)
        self.status.setStyleSheet("color: #b3261e;" if error else "")
        self._grant_text = text if grant else ""
        self.grant_button.setVisible(grant)
        if not error:
            self._read_error = False

    def _fail(self, exc: BaseException, read: bool = False) -> None:
        """Show a failure (`read`: of a fetch or a read, cleared by the next one that works)."""
        text = describe(exc)
        self._say(text, error=True, grant=isinstance(exc, AuthorizationRequired))
        self._read_error = read
        self.failed.emit(text)

    def ask_grant(self) -> None:
        """The user asked for a grant (Grant…): the tray opens Sensitive projects."""
        self.grant_needed.emit(self._grant_text or self.status.text())

    def _retitle(self) -> None:
        d = self.digest
        counts = {
            Tab.PROMOTIONS: len(d.pending_promotions) if d else 0,
            Tab.DUPLICATES: self.views[Tab.DUPLICATES].rows.rowCount(),
            Tab.EXPIRING: len(d.ttl_reminders) if d else 0,
            Tab.SUPERSEDES: len(d.pending_supersedes) if d else 0,
            Tab.CONFLICTS: len(d.sync_conflicts) if d else 0,
            Tab.SUSPECT: len(d.suspect) if d else 0,
        }
        names = {
            Tab.PROMOTIONS: translate("DigestWindow", "Promotions ({count})"),
            Tab.DUPLICATES: translate("DigestWindow", "Duplicates ({count})"),
            Tab.EXPIRING: translate("DigestWindow", "Expiring ({count})"),
            Tab.SUPERSEDES: translate("DigestWindow", "Supersedes to confirm ({count})"),
            Tab.CONFLICTS: translate("DigestWindow", "Sync conflicts ({count})"),
            Tab.SUSPECT: translate("DigestWindow", "Suspect ({count})"),
        }
        for tab, name in names.items():
            self.tabs.setTabText(tab, name.format(count=counts[tab]))
        self.tabs.setTabText(Tab.TRENDS, translate("DigestWindow", "Trends"))

    def above_threshold(self) -> list[Any]:
        """The pending promotions approve-all would take at the spin box's threshold."""
        return dm.at_or_above(self.digest.pending_promotions if self.digest else [], self.threshold.value())

    def _sync_buttons(self) -> None:
        idle = not self.busy
        count = len(self.above_threshold())
        self.approve_all_button.setText(
            translate("DigestWindow", "Approve all ({count})").format(count=count)
        )
        self.approve_all_button.setEnabled(idle and count > 0)
        for button in (self.editor.approve, self.editor.reject, self.keep, self.confirm, self.dismiss):
            button.setEnabled(idle)
        self.conflict_pane.set_enabled(idle)
        self.suspect_pane.set_enabled(idle)
        pair = self.current(Tab.DUPLICATES)
        same_scope = pair is None or pair.left.scope_hash == pair.right.scope_hash
        self.pair_note.setVisible(not same_scope)
        for button in (self.merge_left, self.merge_right):
            button.setEnabled(idle and same_scope)
        self.pair_pane.not_duplicates.setEnabled(idle and pair is not None)
        self.undo_button.setEnabled(idle and self.undoable is not None)

    # -- loading ----------------------------------------------------------------------
    def load(self) -> None:
        """Fetch the digest in the background; `loaded` follows once the view shows it."""
        self._generation += 1
        generation = self._generation
        self._begin()
        self.ops.run(
            self.facade.digest,
            lambda d: self._loaded(generation, d),
            lambda exc: self._load_failed(generation, exc),
        )

    def _loaded(self, generation: int, digest: Any) -> None:
        self._end()
        if generation != self._generation:
            return  # a newer fetch is queued behind this one
        self.fill(digest)
        self.loaded.emit()

    def _load_failed(self, generation: int, exc: BaseException) -> None:
        self._end()
        if generation == self._generation:
            self._fail(exc, read=True)

    def fill(self, digest: Any) -> None:
        """Show a digest: one model reset per list; the selection stays on the same item,
        or on the row that took its place when the item is gone (approve moves on)."""
        self.digest = digest
        self.threshold.setMinimum(digest.promote_threshold)  # the digest lists none below it
        self.period.setText(
            translate("DigestWindow", "{since} to {until}").format(
                since=dm.day(digest.since), until=dm.day(digest.until)
            )
        )
        lists = {
            Tab.PROMOTIONS: digest.pending_promotions,
            Tab.DUPLICATES: dm.pairs(digest.duplicates),
            Tab.EXPIRING: digest.ttl_reminders,
            Tab.SUPERSEDES: digest.pending_supersedes,
            Tab.CONFLICTS: digest.sync_conflicts,
            Tab.SUSPECT: digest.suspect,
        }
        for tab, rows in lists.items():
            view = self.views[tab]
            row = view.current_row()
            key = view.rows.key(row) if row is not None else None
            view.rows.set_rows(rows)
            again = view.rows.row_of(key) if key is not None else None
            if again is None and rows:
                again = min(row or 0, len(rows) - 1)
            if again is not None:
                view.select_row(again)
            self._show_current(tab)
        self.trends.fill(digest)
        self._retitle()
        self._sync_buttons()
        if self._read_error or self.status.text() == translate("DigestWindow", "Reading the digest…"):
            self._say("")  # an action's message stays; a failed fetch's or read's error is over

    # -- selection --------------------------------------------------------------------
    def _refocus(self) -> None:
        """Back to the list after an action, so the next j/k/a/r keeps the review going."""
        if self.isVisible() and not isinstance(self.focusWidget(), (QLineEdit, QPlainTextEdit)):
            self._tab_changed(self.tabs.currentIndex())

    def _tab_changed(self, index: int) -> None:
        if index in self.views:
            self.views[Tab(index)].setFocus()
        if index in (Tab.DUPLICATES, Tab.SUSPECT):
            self._show_current(Tab(index))  # their text is read only once it is looked at

    def show_tab(self, tab: Tab) -> None:
        """Open on one section (a notification about promotions opens that one)."""
        self.tabs.setCurrentIndex(tab)
        self._tab_changed(tab)

    def show_conflicts(self) -> None:
        """Open on the sync conflicts (a click on a sync notification)."""
        self.show_tab(Tab.CONFLICTS)

    def current(self, tab: Tab) -> Any:
        return self.views[tab].current_item()

    def _show_current(self, tab: Tab) -> None:
        item = self.current(tab)
        self.panes[tab].show_body(item is not None)
        if item is None:
            if tab is Tab.DUPLICATES:
                self._pair_key = None
            elif tab is Tab.SUSPECT:
                self._suspect_key = None
            return
        if tab is Tab.PROMOTIONS:
            self.editor.show_proposal(item)
        elif tab is Tab.DUPLICATES:
            if self.tabs.currentIndex() == Tab.DUPLICATES:
                self._show_pair(item)
            self._sync_buttons()
        elif tab is Tab.EXPIRING:
            self.reminder_pane.show_reminder(item)
        elif tab is Tab.SUPERSEDES:
            self.supersede_pane.show_supersede(item)
        elif tab is Tab.CONFLICTS:
            self.conflict_pane.show_conflict(item)
        elif tab is Tab.SUSPECT:
            self.suspect_pane.show_suspect(item)
            if self.tabs.currentIndex() == Tab.SUSPECT:
                self._read_suspect(item)

    def _show_pair(self, pair: dm.Pair) -> None:
        """Read both memories (without counting a recall) for the side-by-side view."""
        if pair.key == self._pair_key:
            return
        self._pair_key = pair.key
        self.left.show_ref(pair.left)
        self.right.show_ref(pair.right)
        facade = self.facade

        def read() -> tuple[Any, Any]:
            return (
                facade.get(pair.left.slug, count_recall=False, actor=ACTOR),
                facade.get(pair.right.slug, count_recall=False, actor=ACTOR),
            )

        def shown(views: tuple[Any, Any]) -> None:
            if self._pair_key == pair.key:
                self.left.show_view(views[0])
                self.right.show_view(views[1])
                if self._read_error:
                    self._say("")  # an earlier read's error is over
                self.pair_shown.emit()

        def failed(exc: BaseException) -> None:
            if self._pair_key == pair.key:
                for column in (self.left, self.right):
                    column.body.setPlainText(describe(exc))
                self._pair_key = None  # read it again when it is shown again (after a grant)
                self._fail(exc, read=True)

        self.ops.run(read, shown, failed)

    def _read_suspect(self, item: Any) -> None:
        """Read a suspect memory (without counting a recall) to show its text, as plain text."""
        if item.slug == self._suspect_key:
            return
        self._suspect_key = slug = item.slug
        facade = self.facade

        def shown(view: Any) -> None:
            if self._suspect_key == slug:
                self.suspect_pane.show_text(slug, view.doc.body)
                if self._read_error:
                    self._say("")  # an earlier read's error is over

        def failed(exc: BaseException) -> None:
            if self._suspect_key == slug:
                self.suspect_pane.show_text(slug, describe(exc))
                self._suspect_key = None  # read it again when it is shown again (after a grant)
                self._fail(exc, read=True)

        self.ops.run(lambda: facade.get(slug, count_recall=False, actor=ACTOR), shown, failed)

    # -- actions ----------------------------------------------------------------------
    def _key_act(self, tab: Tab, what: str) -> None:
        actions = {
            (Tab.PROMOTIONS, "approve"): self.approve_current,
            (Tab.PROMOTIONS, "reject"): self.reject_current,
            (Tab.EXPIRING, "approve"): self.keep_current,
            (Tab.SUPERSEDES, "approve"): self.confirm_current,
            (Tab.SUPERSEDES, "reject"): self.dismiss_current,
            (Tab.SUSPECT, "approve"): self.clear_suspect_current,
            (Tab.SUSPECT, "reject"): self.ask_forget,
        }
        action = actions.get((tab, what))
        if action is not None:
            action()

    def _act(self, fn: Any, message: Any, undo: tuple[str, str] | None = None) -> bool:
        """Run one facade action, say what it did, then fetch the digest again. `undo`
        (kind, title): core recorded it as a review action, which Undo can take back; any
        other action that works leaves nothing to undo here."""
        if self.busy:
            return False
        self._begin()
        facade = self.facade

        def call() -> Any:
            result = fn()
            return result, facade.last_action  # read in the same worker call that set it

        def done(both: Any) -> None:
            result, action = both
            self.undoable = (action, *undo) if undo is not None and action is not None else None
            text = message(result)
            self._say(text)
            self.done.emit(text)
            self.load()
            self._end()
            self._refocus()
            pair = result if isinstance(result, tuple) and len(result) == 2 else (None, result)
            self.changed.emit(pair[1] if isinstance(pair[1], Changes) else None)

        def failed(exc: BaseException) -> None:
            self._fail(exc)
            self.load()  # a failed action may still have changed something
            self._end()
            self.changed.emit(None)

        self.ops.run(call, done, failed)
        return True

    def approve_current(self) -> bool:
        """Approve the selected promotion with whatever the editor changed."""
        p = self.current(Tab.PROMOTIONS)
        if p is None or self.editor.pid != p.id:
            return False
        edits = dm.changed_fields(p, self.editor.edits())
        return self._act(*review.approve(self.facade, p, edits), undo=("approve", p.title))

    def reject_current(self) -> bool:
        p = self.current(Tab.PROMOTIONS)
        if p is None:
            return False
        return self._act(*review.reject(self.facade, p), undo=("reject", p.title))

    def ask_approve_all(self) -> QMessageBox | None:
        """The Approve all button: ask first (No is the default), then approve on Yes."""
        count = len(self.above_threshold())
        if not count or self.busy or self.confirm_box is not None:
            return self.confirm_box
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle(translate("DigestWindow", "Approve all"))
        box.setText(
            translate(
                "DigestWindow", "Approve {count} promotions with a DURA mean of at least {threshold}?"
            ).format(count=count, threshold=f"{self.threshold.value():.2f}")
        )
        box.setInformativeText(translate("DigestWindow", "Each becomes a long-term memory."))
        box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
        box.setDefaultButton(QMessageBox.StandardButton.No)
        box.setEscapeButton(QMessageBox.StandardButton.No)
        box.finished.connect(lambda _code: self._approve_all_answered(box))
        self.confirm_box = box
        box.open()
        return box

    def _approve_all_answered(self, box: QMessageBox) -> None:
        yes = box.clickedButton() is box.button(QMessageBox.StandardButton.Yes)
        self.confirm_box = None
        box.deleteLater()
        if yes:
            self.approve_all()

    def approve_all(self) -> bool:
        """Approve every listed promotion at or above the threshold; the selected one with
        its edits. One failure does not stop the others; they are counted in the message."""
        targets = self.above_threshold()
        if not targets:
            return False
        current = self.current(Tab.PROMOTIONS)
        edits: dict[int, dict[str, Any]] = {}
        if current is not None and self.editor.pid == current.id and self.editor.dirty:
            edits[current.id] = dm.changed_fields(current, self.editor.edits())
        return self._act(*review.approve_all(self.facade, targets, edits))

    def merge_current(self, into: str) -> QMessageBox | None:
        """Fold one memory of the selected pair into the other ("left" or "right" is kept),
        once the person confirms (Cancel is the default: a merge is undone with Undo)."""
        pair = self.current(Tab.DUPLICATES)
        if pair is None or self.busy or self.merge_box is not None:
            return self.merge_box
        keep, drop = (pair.left, pair.right) if into == "left" else (pair.right, pair.left)
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Question)
        box.setTextFormat(Qt.TextFormat.PlainText)  # titles are the memories', markup and all
        box.setWindowTitle(translate("DigestWindow", "Merge memories"))
        box.setText(
            translate("DigestWindow", "Merge “{dropped}” into “{kept}”?").format(
                dropped=drop.title, kept=keep.title
            )
        )
        box.setInformativeText(
            translate(
                "DigestWindow",
                "“{kept}” takes over the other's triggers, tags and recalls. Undo (Ctrl+Z) brings "
                "“{dropped}” back.",
            ).format(dropped=drop.title, kept=keep.title)
        )
        confirm = box.addButton(translate("DigestWindow", "Merge"), QMessageBox.ButtonRole.AcceptRole)
        cancel = box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(cancel)
        box.setEscapeButton(cancel)
        box.finished.connect(lambda _code: self._merge_answered(box, confirm, keep, drop))
        self.merge_box = box
        box.open()
        return box

    def _merge_answered(self, box: QMessageBox, confirm: QPushButton, keep: Any, drop: Any) -> None:
        yes = box.clickedButton() is confirm
        self.merge_box = None
        box.deleteLater()
        if yes:
            self._act(*review.merge(self.facade, keep, drop), undo=("merge", drop.title))

    def not_duplicates_current(self) -> bool:
        """The selected pair's whole group differs: the digest stops proposing it."""
        pair = self.current(Tab.DUPLICATES)
        if pair is None or self.digest is None:
            return False
        group = next((g for g in self.digest.duplicates if g.fingerprint == pair.fingerprint), None)
        slugs = [m.slug for m in group.memories] if group is not None else [pair.left.slug, pair.right.slug]
        return self._act(*review.not_duplicates(self.facade, slugs), undo=("not_duplicates", ""))

    def undo_last(self) -> bool:
        """Undo (button or Ctrl+Z): take back the last decision made in this window."""
        if self.undoable is None or self.busy:
            return False
        action, kind, title = self.undoable
        return self._act(*review.undo(self.facade, action, kind, title))

    def keep_current(self) -> bool:
        """Keep a fading memory: reading it is a recall, which resets its decay clock."""
        t = self.current(Tab.EXPIRING)
        if t is None:
            return False
        return self._act(*review.keep(self.facade, t))

    def confirm_current(self) -> bool:
        s = self.current(Tab.SUPERSEDES)
        if s is None:
            return False
        return self._act(*review.confirm(self.facade, s))

    def dismiss_current(self) -> bool:
        s = self.current(Tab.SUPERSEDES)
        if s is None:
            return False
        return self._act(*review.dismiss(self.facade, s))

    def resolve_current(self, rev: str | None = None) -> bool:
        """Settle the selected sync conflict: keep the version in use (`rev` None, "Keep
        this version") or take the copy with that rev ("Use this copy")."""
        c = self.current(Tab.CONFLICTS)
        if c is None:
            return False
        copy = None
        if rev is not None:
            copy = next((v for v in c.copies if v.rev == rev), None)
            if copy is None:
                return False
        return self._act(*review.resolve(self.facade, c, copy))

    def clear_suspect_current(self) -> bool:
        """Not suspicious: the person vouches for the selected memory as it stands."""
        m = self.current(Tab.SUSPECT)
        if m is None:
            return False
        return self._act(*review.clear_suspect(self.facade, m))

    def ask_forget(self) -> QMessageBox | None:
        """Forget (button or r): ask first (Cancel is the default), then forget on Forget."""
        m = self.current(Tab.SUSPECT)
        if m is None or self.busy or self.forget_box is not None:
            return self.forget_box
        box, confirm = forget_question(self, m.title)
        box.finished.connect(lambda _code: self._forget_answered(box, confirm, m))
        self.forget_box = box
        box.open()
        return box

    def _forget_answered(self, box: QMessageBox, confirm: QPushButton, m: Any) -> None:
        yes = box.clickedButton() is confirm
        self.forget_box = None
        box.deleteLater()
        if yes:
            self._act(*review.forget(self.facade, m))

    def show_versions(self) -> bool:
        """Read every version of the selected conflict (off the GUI thread), then show them
        side by side in a read-only window."""
        c = self.current(Tab.CONFLICTS)
        if c is None or self.busy:
            return False
        self._begin()
        facade = self.facade

        def shown(versions: list[dict[str, Any]]) -> None:
            self._end()
            if self.versions_dialog is not None:  # one at a time
                self.versions_dialog.close()
                self.versions_dialog.deleteLater()
            self.versions_dialog = VersionsDialog(c.slug, versions, self)
            self.versions_dialog.show()

        def failed(exc: BaseException) -> None:
            self._end()
            self._fail(exc, read=True)
            self.load()  # settled elsewhere meanwhile: the list catches up

        self.ops.run(lambda: facade.sync_show(c.slug), shown, failed)
        return True

    # -- screenshots ------------------------------------------------------------------
    def grab_png(self, path: str | Path) -> bool:
        """Save what the window shows (docs and visual checks)."""
        return self.grab().save(str(path), "PNG")

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        self._tab_changed(self.tabs.currentIndex())
