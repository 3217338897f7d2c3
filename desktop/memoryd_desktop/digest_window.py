"""The weekly review: approve or reject promotions, merge duplicates, keep what is fading,
confirm supersedes, glance at the trends. Meant as a two-minute habit, so it is keyboard
first (j/k move, a approves, r rejects) and opens fast on a long queue.

Every facade call goes through `Ops` (off the GUI thread, one at a time); after an action
the digest is fetched again, so what the window shows is always what core says now. The
lists are table views over `digest_model` models; the editor pane is filled for the
selected row only.
"""

from __future__ import annotations

from enum import IntEnum
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtGui import QFont, QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from memoryd.app import Changes, Memoryd
from memoryd.errors import AuthorizationRequired, MemorydError
from memoryd_desktop import assets
from memoryd_desktop import digest_model as dm
from memoryd_desktop.ops import Ops
from memoryd_desktop.texts import describe

translate = QCoreApplication.translate  # the bare name lupdate recognises
ACTOR = "tray"
DEFAULT_SIZE = (1100, 700)
_MOVE_KEYS = {Qt.Key.Key_J: 1, Qt.Key.Key_K: -1}
_ACT_KEYS = {Qt.Key.Key_A: "approve", Qt.Key.Key_R: "reject"}
_MODIFIERS = (
    Qt.KeyboardModifier.ControlModifier
    | Qt.KeyboardModifier.AltModifier
    | Qt.KeyboardModifier.MetaModifier
    | Qt.KeyboardModifier.ShiftModifier
)


class Tab(IntEnum):
    PROMOTIONS = 0
    DUPLICATES = 1
    EXPIRING = 2
    SUPERSEDES = 3
    TRENDS = 4


def _value(enum_or_str: Any) -> str:
    return str(getattr(enum_or_str, "value", enum_or_str))


class ReviewList(QTableView):
    """A list the review keys drive. Only the list reacts to j/k/a/r, so the same letters
    typed into the title, triggers or body editors stay text."""

    act = Signal(str)  # "approve" or "reject"

    def __init__(self, model: dm.RowsModel, stretch: tuple[int, ...], widths: dict[int, int]) -> None:
        super().__init__()
        self.setModel(model)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setTabKeyNavigation(False)
        self.setShowGrid(False)
        self.setWordWrap(False)
        self.setAlternatingRowColors(True)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        rows = self.verticalHeader()
        rows.hide()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)  # no per-row measuring
        rows.setDefaultSectionSize(self.fontMetrics().height() + 10)
        header = self.horizontalHeader()
        header.setHighlightSections(False)
        for column in range(model.columnCount()):
            if column in stretch:
                header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch)
            else:
                header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
                header.resizeSection(column, widths.get(column, 110))

    @property
    def rows(self) -> dm.RowsModel:
        model = self.model()
        assert isinstance(model, dm.RowsModel)
        return model

    def current_row(self) -> int | None:
        index = self.currentIndex()
        return index.row() if index.isValid() else None

    def current_item(self) -> Any:
        row = self.current_row()
        return None if row is None else self.rows.rows[row]

    def select_row(self, row: int) -> None:
        index = self.rows.index(row, 0)
        self.setCurrentIndex(index)
        self.scrollTo(index)

    def step(self, delta: int) -> None:
        """Move the selection down (1) or up (-1), stopping at either end."""
        count = self.rows.rowCount()
        if not count:
            return
        row = self.current_row()
        self.select_row(0 if row is None else max(0, min(count - 1, row + delta)))

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if not event.modifiers() & _MODIFIERS:
            key = event.key()
            if key in _MOVE_KEYS:
                self.step(_MOVE_KEYS[key])
                return
            if key in _ACT_KEYS:
                self.act.emit(_ACT_KEYS[key])
                return
        super().keyPressEvent(event)


def _wrapping(text: str = "", selectable: bool = True) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    if selectable:
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def _muted(label: QLabel) -> QLabel:
    label.setStyleSheet("color: palette(placeholder-text);")
    return label


def _bold(label: QLabel, scale: float = 1.0) -> QLabel:
    font = QFont(label.font())
    font.setBold(True)
    font.setPointSizeF(font.pointSizeF() * scale)
    label.setFont(font)
    return label


class Paned(QStackedWidget):
    """A detail pane with an empty-state page in front of it when its list is empty."""

    def __init__(self, body: QWidget, empty_text: str) -> None:
        super().__init__()
        empty = _muted(_wrapping(empty_text, selectable=False))
        empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.addWidget(empty)
        self.addWidget(body)

    def show_body(self, shown: bool) -> None:
        self.setCurrentIndex(1 if shown else 0)


class PromotionEditor(QWidget):
    """Where a proposal is read (session, DURA, reasoning) and edited before approval."""

    def __init__(self) -> None:
        super().__init__()
        self.pid: int | None = None
        self.dirty = False
        self._filling = False
        self.session = _wrapping()
        self.dura = _bold(_wrapping())
        self.dura.setToolTip(
            translate(
                "DigestWindow",
                "D decision-worthy, U useful in future, R recallable hooks, A accurate; 0 to 1 each.",
            )
        )
        self.reasoning = _muted(_wrapping())
        self.supersedes = _wrapping()
        self.type = QComboBox()
        for name in dm.PROMOTE_TYPES:
            self.type.addItem(dm.type_label(name), name)
        self.title = QLineEdit()
        self.triggers = QLineEdit()
        self.triggers.setPlaceholderText(translate("DigestWindow", "comma separated"))
        self.body = QPlainTextEdit()
        self.approve = QPushButton(translate("DigestWindow", "Approve"))
        self.approve.setToolTip(translate("DigestWindow", "Write it as long-term memory (a in the list)"))
        self.reject = QPushButton(translate("DigestWindow", "Reject"))
        self.reject.setToolTip(translate("DigestWindow", "Drop the proposal (r in the list)"))
        for signal in (self.title.textEdited, self.triggers.textEdited, self.body.textChanged):
            signal.connect(self._edited)
        self.type.currentIndexChanged.connect(self._edited)

        form = QFormLayout()
        form.addRow(translate("DigestWindow", "Type"), self.type)
        form.addRow(translate("DigestWindow", "Title"), self.title)
        form.addRow(translate("DigestWindow", "Triggers"), self.triggers)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.reject)
        buttons.addWidget(self.approve)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.session, self.dura, self.reasoning, self.supersedes):
            layout.addWidget(widget)
        layout.addLayout(form)
        layout.addWidget(self.body, 1)
        layout.addLayout(buttons)

    def _edited(self) -> None:
        if not self._filling:
            self.dirty = True

    def show_proposal(self, p: Any) -> None:
        """Fill the pane; a reload of the row being edited keeps the user's edits."""
        self.session.setText(
            translate("DigestWindow", "From session {slug}, proposed {day}").format(
                slug=p.session_slug, day=dm.day(p.created_at)
            )
        )
        s = p.dura
        self.dura.setText(
            translate("DigestWindow", "DURA  D {d}  U {u}  R {r}  A {a}   mean {mean}").format(
                d=f"{s.D:.2f}", u=f"{s.U:.2f}", r=f"{s.R:.2f}", a=f"{s.A:.2f}", mean=f"{p.mean:.2f}"
            )
        )
        self.reasoning.setText(p.reasoning or translate("DigestWindow", "No reasoning given."))
        self.supersedes.setText(
            translate("DigestWindow", "Replaces: {slugs}").format(slugs=", ".join(p.supersedes))
        )
        self.supersedes.setVisible(bool(p.supersedes))
        if p.id == self.pid and self.dirty:
            return
        self._filling = True
        try:
            if self.type.findData(p.proposed_type) < 0:
                self.type.addItem(dm.type_label(p.proposed_type), p.proposed_type)
            self.type.setCurrentIndex(self.type.findData(p.proposed_type))
            self.title.setText(p.title)
            self.title.setCursorPosition(0)
            self.triggers.setText(dm.join_triggers(p.triggers))
            self.triggers.setCursorPosition(0)
            self.body.setPlainText(p.body)
        finally:
            self._filling = False
        self.pid, self.dirty = p.id, False

    def edits(self) -> dm.Edits:
        return dm.Edits(
            memory_type=str(self.type.currentData()),
            title=self.title.text(),
            triggers=dm.parse_triggers(self.triggers.text()),
            body=self.body.toPlainText(),
        )


class MemoryColumn(QWidget):
    """One side of a duplicate pair: what it is, then its body."""

    def __init__(self) -> None:
        super().__init__()
        self.title = _bold(_wrapping())
        self.meta = _muted(_wrapping())
        self.body = QPlainTextEdit()
        self.body.setReadOnly(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.meta)
        layout.addWidget(self.body, 1)

    def show_ref(self, ref: Any) -> None:
        self.title.setText(ref.title)
        self.meta.setText(
            translate("DigestWindow", "{slug} · {type} · created {day}").format(
                slug=ref.slug, type=dm.type_label(ref.type), day=dm.day(ref.created_at)
            )
        )
        self.body.setPlainText(translate("DigestWindow", "Loading…"))

    def show_view(self, view: Any) -> None:
        meta = view.doc.meta
        lines = [
            translate("DigestWindow", "{slug} · {type} · created {day}").format(
                slug=meta.slug, type=dm.type_label(_value(meta.type)), day=meta.created_at.date().isoformat()
            ),
            translate("DigestWindow", "Recalled {count} times · triggers: {triggers}").format(
                count=meta.recall_count, triggers=dm.join_triggers(meta.triggers) or "–"
            ),
        ]
        self.title.setText(meta.title)
        self.meta.setText("\n".join(lines))
        self.body.setPlainText(view.doc.body)


class DigestWindow(QWidget):
    """The digest and promotion window; `load()` fetches, `loaded` says the view is filled."""

    loaded = Signal()
    busy_changed = Signal(bool)
    done = Signal(str)  # an action finished: the message shown in the status line
    failed = Signal(str)  # a fetch or an action failed: the error shown in the status line
    grant_needed = Signal(str)  # AuthorizationRequired's text: a sensitive scope needs a grant
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
        self._load_error = False
        self.setWindowTitle(translate("DigestWindow", "memoryd: weekly review"))
        self.setWindowIcon(assets.icon())
        self.resize(*DEFAULT_SIZE)

        heading = _bold(QLabel(translate("DigestWindow", "Weekly review")), 1.4)
        self.period = _muted(QLabel())
        self.refresh = QPushButton(translate("DigestWindow", "Refresh"))
        self.refresh.clicked.connect(self.load)
        top = QHBoxLayout()
        top.addWidget(heading)
        top.addWidget(self.period, 1)
        top.addWidget(self.refresh)

        self.tabs = QTabWidget()
        self.views: dict[Tab, ReviewList] = {}
        self.panes: dict[Tab, Paned] = {}
        self.tabs.addTab(self._promotions_tab(), "")
        self.tabs.addTab(self._duplicates_tab(), "")
        self.tabs.addTab(self._expiring_tab(), "")
        self.tabs.addTab(self._supersedes_tab(), "")
        self.tabs.addTab(self._trends_tab(), "")
        self.tabs.currentChanged.connect(self._tab_changed)
        for tab, view in self.views.items():
            view.act.connect(lambda what, tab=tab: self._key_act(tab, what))
            view.selectionModel().currentRowChanged.connect(lambda *_, tab=tab: self._show_current(tab))

        self.status = _wrapping()
        self.status.setText(translate("DigestWindow", "Reading the digest…"))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 14, 14, 10)
        layout.addLayout(top)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.status)
        self._retitle()
        self._sync_buttons()

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
        layout.addWidget(_muted(QLabel(hint)))
        return side

    def _promotions_tab(self) -> QWidget:
        self.threshold = QDoubleSpinBox()
        self.threshold.setRange(0.0, 1.0)
        self.threshold.setDecimals(2)
        self.threshold.setSingleStep(0.05)
        self.threshold.setValue(self.facade.config.governance.promote_threshold)
        self.approve_all_button = QPushButton()
        self.threshold.valueChanged.connect(self._sync_buttons)
        self.approve_all_button.clicked.connect(self.approve_all)
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
        self.left = MemoryColumn()
        self.right = MemoryColumn()
        self.merge_left = QPushButton(translate("DigestWindow", "Merge into left"))
        self.merge_left.setToolTip(
            translate("DigestWindow", "Keep the left memory; the right one is folded into it")
        )
        self.merge_left.clicked.connect(lambda: self.merge_current("left"))
        self.merge_right = QPushButton(translate("DigestWindow", "Merge into right"))
        self.merge_right.setToolTip(
            translate("DigestWindow", "Keep the right memory; the left one is folded into it")
        )
        self.merge_right.clicked.connect(lambda: self.merge_current("right"))
        body = QWidget()
        grid = QGridLayout(body)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(self.left, 0, 0)
        grid.addWidget(self.right, 0, 1)
        grid.addWidget(self.merge_left, 1, 0)
        grid.addWidget(self.merge_right, 1, 1)
        self.pair_note = _muted(
            _wrapping(
                translate(
                    "DigestWindow",
                    "These two belong to different projects. Merging across projects is left to "
                    "the command line: memoryd merge --force.",
                )
            )
        )
        self.pair_note.hide()
        grid.addWidget(self.pair_note, 2, 0, 1, 2)
        grid.setRowStretch(0, 1)
        pane = Paned(body, translate("DigestWindow", "No duplicates found."))
        hint = translate("DigestWindow", "j/k move")
        return self._split(Tab.DUPLICATES, self._list_side(Tab.DUPLICATES, view, hint), pane)

    def _expiring_tab(self) -> QWidget:
        view = ReviewList(dm.reminders_model(), stretch=(0,), widths={1: 90, 2: 150, 3: 90, 4: 70})
        self.reminder = _wrapping()
        self.keep = QPushButton(translate("DigestWindow", "Keep"))
        self.keep.clicked.connect(self.keep_current)
        explain = _muted(
            _wrapping(
                translate(
                    "DigestWindow",
                    "Keeping counts as a recall: the memory stays alive and its clock starts again.",
                ),
                selectable=False,
            )
        )
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(_bold(self.reminder))
        layout.addWidget(explain)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.keep)
        layout.addLayout(row)
        layout.addStretch(1)
        pane = Paned(body, translate("DigestWindow", "Nothing is fading this week."))
        hint = translate("DigestWindow", "j/k move · a keep")
        return self._split(Tab.EXPIRING, self._list_side(Tab.EXPIRING, view, hint), pane)

    def _supersedes_tab(self) -> QWidget:
        view = ReviewList(dm.supersedes_model(), stretch=(0, 1), widths={2: 90})
        self.supersede = _wrapping()
        self.supersede_reason = _muted(_wrapping())
        self.confirm = QPushButton(translate("DigestWindow", "Confirm"))
        self.confirm.setToolTip(
            translate("DigestWindow", "The new memory replaces the old one (a in the list)")
        )
        self.confirm.clicked.connect(self.confirm_current)
        self.dismiss = QPushButton(translate("DigestWindow", "Dismiss"))
        self.dismiss.setToolTip(translate("DigestWindow", "Both stay current (r in the list)"))
        self.dismiss.clicked.connect(self.dismiss_current)
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(_bold(self.supersede))
        layout.addWidget(self.supersede_reason)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.dismiss)
        row.addWidget(self.confirm)
        layout.addLayout(row)
        layout.addStretch(1)
        pane = Paned(body, translate("DigestWindow", "No supersedes wait for confirmation."))
        hint = translate("DigestWindow", "j/k move · a confirm · r dismiss")
        return self._split(Tab.SUPERSEDES, self._list_side(Tab.SUPERSEDES, view, hint), pane)

    def _trends_tab(self) -> QWidget:
        self.trend_lists: dict[str, QListWidget] = {}
        page = QWidget()
        grid = QGridLayout(page)
        titles = (
            ("triggers", translate("DigestWindow", "Top triggers")),
            ("entities", translate("DigestWindow", "Rising entities")),
            ("supersedes", translate("DigestWindow", "Recent supersedes")),
            ("recalls", translate("DigestWindow", "Recalled most")),
        )
        for i, (key, title) in enumerate(titles):
            box = QGroupBox(title)
            inner = QVBoxLayout(box)
            self.trend_lists[key] = QListWidget()
            self.trend_lists[key].setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
            self.trend_lists[key].setFocusPolicy(Qt.FocusPolicy.NoFocus)
            inner.addWidget(self.trend_lists[key])
            grid.addWidget(box, i // 2, i % 2)
        self.spend = _muted(_wrapping())
        grid.addWidget(self.spend, 2, 0, 1, 2)
        return page

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

    def _say(self, text: str, error: bool = False) -> None:
        self.status.setText(text)
        self.status.setStyleSheet("color: #b3261e;" if error else "")

    def _fail(self, exc: BaseException) -> None:
        text = describe(exc)
        self._say(text, error=True)
        if isinstance(exc, AuthorizationRequired):
            self.grant_needed.emit(text)
        else:
            self.failed.emit(text)

    def _retitle(self) -> None:
        d = self.digest
        counts = {
            Tab.PROMOTIONS: len(d.pending_promotions) if d else 0,
            Tab.DUPLICATES: self.views[Tab.DUPLICATES].rows.rowCount(),
            Tab.EXPIRING: len(d.ttl_reminders) if d else 0,
            Tab.SUPERSEDES: len(d.pending_supersedes) if d else 0,
        }
        names = {
            Tab.PROMOTIONS: translate("DigestWindow", "Promotions ({count})"),
            Tab.DUPLICATES: translate("DigestWindow", "Duplicates ({count})"),
            Tab.EXPIRING: translate("DigestWindow", "Expiring ({count})"),
            Tab.SUPERSEDES: translate("DigestWindow", "Supersedes to confirm ({count})"),
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
        pair = self.current(Tab.DUPLICATES)
        same_scope = pair is None or pair.left.scope_hash == pair.right.scope_hash
        self.pair_note.setVisible(not same_scope)
        for button in (self.merge_left, self.merge_right):
            button.setEnabled(idle and same_scope)

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
            self._fail(exc)
            self._load_error = True

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
        self._fill_trends(digest)
        self._retitle()
        self._sync_buttons()
        if self._load_error or self.status.text() == translate("DigestWindow", "Reading the digest…"):
            self._say("")  # an action's message stays; a failed fetch's error is over
        self._load_error = False

    def _fill_trends(self, d: Any) -> None:
        t = d.trends
        lines = {
            "triggers": [
                translate("DigestWindow", "{trigger}: {hits} hits").format(trigger=x.trigger, hits=x.hits)
                for x in t.top_triggers
            ],
            "entities": [
                translate("DigestWindow", "{name}: {delta} mentions").format(
                    name=e.name, delta=f"{e.delta:+d}"
                )
                for e in t.rising_entities
            ],
            "supersedes": [
                translate("DigestWindow", "{old} → {new}").format(
                    old=s.old_title or s.old_slug, new=s.new_title or s.new_slug
                )
                for s in t.recent_supersedes
            ],
            "recalls": [
                translate("DigestWindow", "{title}: recalled {count} times").format(
                    title=r.title, count=r.recalls
                )
                for r in t.recall_hot
            ],
        }
        for key, texts in lines.items():
            widget = self.trend_lists[key]
            widget.clear()
            widget.addItems(texts or [translate("DigestWindow", "none")])
            if not texts:
                widget.item(0).setFlags(Qt.ItemFlag.NoItemFlags)  # shown greyed out
        sp = d.spend
        self.spend.setText(
            translate(
                "DigestWindow",
                "LLM today: {tokens} tokens in {calls} calls; {left} of the daily budget left.",
            ).format(tokens=f"{sp.today.tokens:,}", calls=sp.today.calls, left=f"{sp.left_today:,}")
        )

    # -- selection --------------------------------------------------------------------
    def _refocus(self) -> None:
        """Back to the list after an action, so the next j/k/a/r keeps the review going."""
        if self.isVisible() and not isinstance(self.focusWidget(), (QLineEdit, QPlainTextEdit)):
            self._tab_changed(self.tabs.currentIndex())

    def _tab_changed(self, index: int) -> None:
        if index in self.views:
            self.views[Tab(index)].setFocus()

    def show_tab(self, tab: Tab) -> None:
        """Open on one section (a notification about promotions opens that one)."""
        self.tabs.setCurrentIndex(tab)
        self._tab_changed(tab)

    def current(self, tab: Tab) -> Any:
        return self.views[tab].current_item()

    def _show_current(self, tab: Tab) -> None:
        item = self.current(tab)
        self.panes[tab].show_body(item is not None)
        if item is None:
            if tab is Tab.DUPLICATES:
                self._pair_key = None
            return
        if tab is Tab.PROMOTIONS:
            self.editor.show_proposal(item)
        elif tab is Tab.DUPLICATES:
            self._show_pair(item)
            self._sync_buttons()
        elif tab is Tab.EXPIRING:
            self.reminder.setText(
                translate(
                    "DigestWindow", "{type} “{title}” turns {next} on {day}, idle for {idle} days."
                ).format(
                    type=dm.type_label(item.type),
                    title=item.title,
                    next=dm.state_label(item.next_state),
                    day=dm.day(item.due_at),
                    idle=item.idle_days,
                )
            )
        elif tab is Tab.SUPERSEDES:
            self.supersede.setText(
                translate(
                    "DigestWindow", "Does “{new}” replace “{old}”? Confidence {confidence} ({by})."
                ).format(
                    new=item.new_title,
                    old=item.old_title,
                    confidence=f"{item.confidence:.2f}",
                    by=item.judged_by,
                )
            )
            self.supersede_reason.setText(item.reason)

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
                self.pair_shown.emit()

        def failed(exc: BaseException) -> None:
            if self._pair_key == pair.key:
                for column in (self.left, self.right):
                    column.body.setPlainText(describe(exc))
                self._fail(exc)

        self.ops.run(read, shown, failed)

    # -- actions ----------------------------------------------------------------------
    def _key_act(self, tab: Tab, what: str) -> None:
        actions = {
            (Tab.PROMOTIONS, "approve"): self.approve_current,
            (Tab.PROMOTIONS, "reject"): self.reject_current,
            (Tab.EXPIRING, "approve"): self.keep_current,
            (Tab.SUPERSEDES, "approve"): self.confirm_current,
            (Tab.SUPERSEDES, "reject"): self.dismiss_current,
        }
        action = actions.get((tab, what))
        if action is not None:
            action()

    def _act(self, fn: Any, message: Any) -> bool:
        """Run one facade action, say what it did, then fetch the digest again."""
        if self.busy:
            return False
        self._begin()

        def done(result: Any) -> None:
            text = message(result)
            self._say(text)
            self.done.emit(text)
            self.load()
            self._end()
            self._refocus()
            pair = result if isinstance(result, tuple) and len(result) == 2 else (None, None)
            self.changed.emit(pair[1] if isinstance(pair[1], Changes) else None)

        def failed(exc: BaseException) -> None:
            self._fail(exc)
            self.load()  # a failed action may still have changed something
            self._end()
            self.changed.emit(None)

        self.ops.run(fn, done, failed)
        return True

    def approve_current(self) -> bool:
        """Approve the selected promotion with whatever the editor changed."""
        p = self.current(Tab.PROMOTIONS)
        if p is None or self.editor.pid != p.id:
            return False
        edits = dm.changed_fields(p, self.editor.edits())
        facade = self.facade
        return self._act(
            lambda: facade.promote(p.id, **edits, actor=ACTOR),
            lambda res: translate("DigestWindow", "Approved “{title}” as {type}.").format(
                title=res[0].meta.title, type=dm.type_label(_value(res[0].meta.type))
            ),
        )

    def reject_current(self) -> bool:
        p = self.current(Tab.PROMOTIONS)
        if p is None:
            return False
        facade = self.facade
        return self._act(
            lambda: facade.reject(p.id, actor=ACTOR),
            lambda _: translate("DigestWindow", "Rejected “{title}”.").format(title=p.title),
        )

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
        facade = self.facade

        def run() -> tuple[int, list[str]]:
            approved, errors = 0, []
            for p in targets:
                try:
                    facade.promote(p.id, **edits.get(p.id, {}), actor=ACTOR)
                    approved += 1
                except MemorydError as exc:
                    errors.append(f"#{p.id}: {exc}")
            return approved, errors

        def message(result: tuple[int, list[str]]) -> str:
            approved, errors = result
            text = translate("DigestWindow", "Approved {count} promotions.").format(count=approved)
            if errors:
                text += " " + translate("DigestWindow", "Not approved: {errors}").format(
                    errors="; ".join(errors)
                )
            return text

        return self._act(run, message)

    def merge_current(self, into: str) -> bool:
        """Fold one memory of the selected pair into the other ("left" or "right" is kept)."""
        pair = self.current(Tab.DUPLICATES)
        if pair is None:
            return False
        keep, drop = (pair.left, pair.right) if into == "left" else (pair.right, pair.left)
        facade = self.facade
        return self._act(
            lambda: facade.merge(keep.slug, [drop.slug], actor=ACTOR),
            lambda _: translate("DigestWindow", "Merged “{dropped}” into “{kept}”.").format(
                dropped=drop.title, kept=keep.title
            ),
        )

    def keep_current(self) -> bool:
        """Keep a fading memory: reading it is a recall, which resets its decay clock."""
        t = self.current(Tab.EXPIRING)
        if t is None:
            return False
        facade = self.facade
        return self._act(
            lambda: facade.get(t.slug, count_recall=True, actor=ACTOR),
            lambda _: translate("DigestWindow", "Kept “{title}”.").format(title=t.title),
        )

    def confirm_current(self) -> bool:
        s = self.current(Tab.SUPERSEDES)
        if s is None:
            return False
        facade = self.facade
        return self._act(
            lambda: facade.confirm_supersede(s.id, decided_by="digest", actor=ACTOR),
            lambda _: translate("DigestWindow", "Confirmed: “{new}” replaces “{old}”.").format(
                new=s.new_title, old=s.old_title
            ),
        )

    def dismiss_current(self) -> bool:
        s = self.current(Tab.SUPERSEDES)
        if s is None:
            return False
        facade = self.facade
        return self._act(
            lambda: facade.dismiss_supersede(s.id, actor=ACTOR),
            lambda _: translate("DigestWindow", "Dismissed: “{old}” stays current.").format(old=s.old_title),
        )

    # -- screenshots ------------------------------------------------------------------
    def grab_png(self, path: str | Path) -> bool:
        """Save what the window shows (docs and visual checks)."""
        return self.grab().save(str(path), "PNG")

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        self._tab_changed(self.tabs.currentIndex())
