"""The Identity window (issue 7): who the memories say the user is, how that changed, and
the monthly change reports.

Three tabs: the current `identity.md` rendered; the numbered versions with a side-by-side
diff of any two (pick them in the two boxes, or select two rows; one row compares it with
the version before); the monthly reports. "Rewrite now" and "Generate this month's report"
run the same core calls as `memoryd profile …`, as actor "tray". Everything is read
through the facade in the background (`Ops`); the window holds no state of its own beyond
what the last load returned.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Protocol

from PySide6.QtCore import QCoreApplication, Qt, Signal, Slot
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QTabWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from memoryd.app import Memoryd
from memoryd.errors import NotFound
from memoryd_desktop import assets, identity_report, project_text, window_keys
from memoryd_desktop.memory_detail import MarkdownBody
from memoryd_desktop.ops import Ops
from memoryd_desktop.side_by_side import SideBySide
from memoryd_desktop.texts import describe, local_time

log = logging.getLogger("memoryd.tray")

translate = QCoreApplication.translate  # the bare name lupdate recognises
ACTOR = "tray"
NUM_ROLE = Qt.ItemDataRole.UserRole


def trigger_label(trigger: str) -> str:
    labels = {
        "manual": translate("IdentityWindow", "manual"),
        "weekly_cron": translate("IdentityWindow", "weekly"),
        "on_event": translate("IdentityWindow", "after an event"),
    }
    return labels.get(trigger, trigger)


@dataclass
class Profile:
    """What one refresh read: the latest version (None before the first), every version's
    summary row, every monthly report."""

    current: dict[str, Any] | None
    versions: list[dict[str, Any]] = field(default_factory=list)
    reports: list[dict[str, Any]] = field(default_factory=list)
    withheld: Any = None  # Memoryd.profile_withheld(): what sensitive projects hide
    projects: list[Any] = field(default_factory=list)  # the withholding projects, to name


def read_profile(facade: Memoryd) -> Profile:
    """Runs off the GUI thread."""
    try:
        current: dict[str, Any] | None = facade.profile_version(None, actor=ACTOR)
    except NotFound:  # no rewrite has happened yet: an empty window, not an error
        current = None
    versions, reports = facade.profile_versions(), facade.monthly_reports()
    withheld = facade.profile_withheld()
    names = facade.project_names(withheld.scopes)
    return Profile(current, versions, reports, withheld, [names[h] for h in withheld.scopes if h in names])


class RewriteResult(Protocol):
    """What `Memoryd.rewrite_identity()` answers, as far as the window reads it."""

    changed: bool
    version: int | None

    @property
    def change(self) -> dict[str, Any]: ...


class ReportResult(Protocol):
    """What `Memoryd.monthly_report()` answers, as far as the window reads it."""

    period: str


def change_text(change: dict[str, Any] | None) -> str:
    """A version's change, from core's values (memoryd.profile.identity.change_of)."""
    change = change or {}
    kind = change.get("kind")
    if kind == "first":
        return translate("IdentityWindow", "first version")
    if kind == "withdrawn":
        return translate("IdentityWindow", "rewritten by rules: a project was marked sensitive")
    if kind == "lines":
        return lines_changed(int(change.get("added", 0)), int(change.get("removed", 0)))
    return str(change.get("text") or "")


def lines_changed(added: int, removed: int) -> str:
    return translate("IdentityWindow", "{added} line(s) added, {removed} removed").format(
        added=added, removed=removed
    )


class IdentityWindow(QWidget):
    """The profile, its versions and reports. Signals for whoever waits on them:
    `loaded` after each load is shown, `diff_shown(older, newer)` after a diff is drawn,
    `changed(kind)` when "rewrite" or "report" finished, `report_shown(period)` once a
    report's changes are worded, `failed(text)` on any error."""

    loaded = Signal()
    diff_shown = Signal(int, int)
    report_shown = Signal(str)
    changed = Signal(str)
    failed = Signal(str)

    def __init__(self, facade: Memoryd, ops: Ops, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.facade = facade
        self.ops = ops
        self.profile = Profile(None)
        self._texts: dict[int, str] = {}  # version -> content, for this load's diffs
        self._wanted: tuple[int, int] | None = None  # the diff last asked for
        self._shown: tuple[int, int] | None = None
        self._refreshing = False
        self._stale = False
        self._acting = False
        self._report_wanted: str | None = None
        self._changes: dict[str, Any] = {}  # period -> Memoryd.monthly_changes(), this load's
        self.setWindowTitle(translate("IdentityWindow", "Identity profile"))
        self.setWindowIcon(assets.icon())
        self.resize(900, 640)

        self.tabs = QTabWidget()
        self.tabs.addTab(self._current_tab(), translate("IdentityWindow", "Current profile"))
        self.tabs.addTab(self._versions_tab(), translate("IdentityWindow", "Versions"))
        self.tabs.addTab(self._reports_tab(), translate("IdentityWindow", "Monthly reports"))

        self.notice = QLabel()
        self.notice.setWordWrap(True)
        self.notice.setTextFormat(Qt.TextFormat.PlainText)
        self.notice.hide()
        self.rewrite_button = QPushButton(translate("IdentityWindow", "Rewrite now"))
        self.rewrite_button.setToolTip(
            translate("IdentityWindow", "Write the profile again from the memories, as the weekly job does.")
        )
        self.rewrite_button.clicked.connect(self.rewrite_now)
        self.report_button = QPushButton(translate("IdentityWindow", "Generate this month's report"))
        self.report_button.clicked.connect(self.generate_report)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.rewrite_button)
        row.addWidget(self.report_button)

        self.withheld_info = QLabel()  # why fewer versions or reports show (sensitive projects)
        self.withheld_info.setWordWrap(True)
        self.withheld_info.setTextFormat(Qt.TextFormat.PlainText)
        self.withheld_info.hide()

        layout = QVBoxLayout(self)
        layout.addWidget(self.withheld_info)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.notice)
        layout.addLayout(row)
        window_keys.install(self)

    # -- building ---------------------------------------------------------------------
    def _current_tab(self) -> QWidget:
        self.current_info = QLabel(translate("IdentityWindow", "Reading the profile…"))
        self.current_info.setWordWrap(True)
        self.current_info.setTextFormat(Qt.TextFormat.PlainText)
        self.current_view = MarkdownBody()  # the profile quotes memories: no HTML, nothing loaded
        tab = QWidget()
        layout = QVBoxLayout(tab)
        layout.addWidget(self.current_info)
        layout.addWidget(self.current_view, 1)
        return tab

    def _versions_tab(self) -> QWidget:
        self.versions_list = QTreeWidget()
        self.versions_list.setHeaderLabels(
            [
                translate("IdentityWindow", "Version"),
                translate("IdentityWindow", "Written"),
                translate("IdentityWindow", "Trigger"),
                translate("IdentityWindow", "Change"),
                translate("IdentityWindow", "Sources"),
            ]
        )
        self.versions_list.setRootIsDecorated(False)
        self.versions_list.header().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.versions_list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.versions_list.itemSelectionChanged.connect(self._picked_rows)

        self.older_box = QComboBox()
        self.newer_box = QComboBox()
        self.older_box.currentIndexChanged.connect(self._picked_boxes)
        self.newer_box.currentIndexChanged.connect(self._picked_boxes)
        self.diff_info = QLabel()
        self.diff_info.setTextFormat(Qt.TextFormat.PlainText)
        pick = QHBoxLayout()
        pick.addWidget(QLabel(translate("IdentityWindow", "Compare")))
        pick.addWidget(self.older_box)
        pick.addWidget(QLabel(translate("IdentityWindow", "with")))
        pick.addWidget(self.newer_box)
        pick.addWidget(self.diff_info, 1)
        self.diff = SideBySide()

        lower = QWidget()
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addLayout(pick)
        lower_layout.addWidget(self.diff, 1)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.versions_list)
        split.addWidget(lower)
        split.setSizes([140, 460])
        tab = QWidget()
        QVBoxLayout(tab).addWidget(split)
        return tab

    def _reports_tab(self) -> QWidget:
        self.reports_list = QListWidget()
        self.reports_list.currentItemChanged.connect(self._picked_report)
        self.report_info = QLabel()
        self.report_info.setWordWrap(True)
        self.report_info.setTextFormat(Qt.TextFormat.PlainText)
        self.report_words = MarkdownBody()  # the month's changes, worded here
        self.raw_toggle = QPushButton(translate("IdentityReport", "Show the report file and its diff"))
        self.raw_toggle.setCheckable(True)
        self.raw_toggle.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
        self.raw_toggle.toggled.connect(self._toggle_raw)
        self.report_view = MarkdownBody()  # the stored report, raw diff included
        self.report_view.setObjectName("report_view")  # named for tests/e2e/test_zh_strings.py
        self.report_view.hide()
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.report_info)
        right_layout.addWidget(self.report_words, 1)
        right_layout.addWidget(self.raw_toggle)
        right_layout.addWidget(self.report_view, 1)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.reports_list)
        split.addWidget(right)
        split.setSizes([140, 760])
        tab = QWidget()
        QVBoxLayout(tab).addWidget(split)
        return tab

    # -- loading ----------------------------------------------------------------------
    @Slot()
    def load(self) -> None:
        """Read everything again (the tray calls this each time it opens the window); a
        load asked for while one runs follows it."""
        if self._refreshing:
            self._stale = True
            return
        self._refreshing = True
        facade = self.facade
        self.ops.run(lambda: read_profile(facade), self._loaded, self._load_failed)

    def _loaded(self, profile: Profile) -> None:
        self._refreshing = False
        if self._stale:
            self._stale = False
            self.load()
            return
        self.profile = profile
        self._texts = {}
        self._changes = {}
        self._shown = None
        self._show_withheld(profile)
        self._show_current(profile.current)
        self._show_versions(profile.versions)
        self._show_reports(profile.reports)
        self.loaded.emit()

    def _load_failed(self, exc: BaseException) -> None:
        self._refreshing = False
        self._stale = False
        self.current_info.setText(translate("IdentityWindow", "Could not read the profile."))
        self.show_error(exc)

    def _show_withheld(self, profile: Profile) -> None:
        text = ""
        if profile.withheld is not None:
            names = [project_text.label(p) for p in profile.projects]
            text = identity_report.withheld_text(profile.withheld, names)
        self.withheld_info.setText(text)
        self.withheld_info.setVisible(bool(text))

    def _show_current(self, current: dict[str, Any] | None) -> None:
        if current is None:
            self.current_info.setText(
                translate(
                    "IdentityWindow",
                    'No identity profile yet. "Rewrite now" writes the first one from your memories.',
                )
            )
            self.current_view.clear()
            return
        info = translate("IdentityWindow", "Version {version}, written {when} ({trigger}).").format(
            version=current["version_num"],
            when=local_time(current.get("written_at")),
            trigger=trigger_label(current.get("trigger") or ""),
        )
        change = change_text(current.get("change"))
        if change:
            info += " " + translate("IdentityWindow", "Change: {summary}.").format(summary=change.rstrip("."))
        if current.get("sources_count") is not None:
            info += " " + translate("IdentityWindow", "Drawn from {count} memories.").format(
                count=current["sources_count"]
            )
        self.current_info.setText(info)
        self.current_view.show_markdown(current.get("content_md") or "")
        self._texts[int(current["version_num"])] = current.get("content_md") or ""

    def _version_title(self, row: dict[str, Any]) -> str:
        return translate("IdentityWindow", "v{version} · {when}").format(
            version=row["version_num"], when=local_time(row.get("written_at"))
        )

    def _show_versions(self, versions: list[dict[str, Any]]) -> None:
        keep = self._wanted
        self.versions_list.blockSignals(True)
        self.versions_list.clear()
        for row in reversed(versions):  # newest on top
            item = QTreeWidgetItem(
                [
                    translate("IdentityWindow", "v{version}").format(version=row["version_num"]),
                    local_time(row.get("written_at")),
                    trigger_label(row.get("trigger") or ""),
                    change_text(row.get("change")),
                    str(row.get("sources_count") if row.get("sources_count") is not None else ""),
                ]
            )
            item.setData(0, NUM_ROLE, int(row["version_num"]))
            if row.get("withheld_by"):  # shown only because a grant is live
                for col in range(item.columnCount()):
                    item.setToolTip(col, identity_report.opened_note())
            self.versions_list.addTopLevelItem(item)
        self.versions_list.blockSignals(False)

        nums = [int(row["version_num"]) for row in versions]
        for box in (self.older_box, self.newer_box):
            box.blockSignals(True)
            box.clear()
            for row in versions:
                box.addItem(self._version_title(row), int(row["version_num"]))
            box.blockSignals(False)
        if len(nums) < 2:
            self.diff.clear()
            self.diff_info.setText(
                translate("IdentityWindow", "Only one version so far: nothing to compare.")
                if nums
                else translate("IdentityWindow", "No versions yet.")
            )
            return
        if keep is not None and keep[0] in nums and keep[1] in nums:
            self.show_diff(*keep)
        else:
            self.show_diff(nums[-2], nums[-1])

    def _show_reports(self, reports: list[dict[str, Any]]) -> None:
        wanted = self._report_wanted
        current = self.reports_list.currentItem()
        keep = wanted or (current.data(NUM_ROLE) if current is not None else None)
        self._report_wanted = None
        self.reports_list.blockSignals(True)
        self.reports_list.clear()
        for report in reports:
            item = QListWidgetItem(str(report["period"]))
            item.setData(NUM_ROLE, report["period"])
            self.reports_list.addItem(item)
        self.reports_list.blockSignals(False)
        if not reports:
            self.report_info.setText(
                translate(
                    "IdentityWindow", 'No monthly report yet: "Generate this month\'s report" writes one.'
                )
            )
            self.report_view.clear()
            self.report_words.clear()
            return
        periods = [str(r["period"]) for r in reports]
        self.reports_list.setCurrentRow(periods.index(keep) if keep in periods else 0)
        if wanted in periods:
            self.tabs.setCurrentIndex(2)

    # -- the diff ---------------------------------------------------------------------
    def _picked_rows(self) -> None:
        """Two rows selected: compare them; one row: compare it with the version before."""
        picked = sorted(int(item.data(0, NUM_ROLE)) for item in self.versions_list.selectedItems())
        nums = [int(row["version_num"]) for row in self.profile.versions]
        if len(picked) == 2:
            self.show_diff(picked[0], picked[1])
        elif len(picked) == 1 and nums.index(picked[0]) > 0:
            self.show_diff(nums[nums.index(picked[0]) - 1], picked[0])

    def _picked_boxes(self) -> None:
        older, newer = self.older_box.currentData(), self.newer_box.currentData()
        if older is not None and newer is not None:
            self.show_diff(int(older), int(newer))

    def _set_boxes(self, older: int, newer: int) -> None:
        for box, num in ((self.older_box, older), (self.newer_box, newer)):
            box.blockSignals(True)
            box.setCurrentIndex(box.findData(num))
            box.blockSignals(False)

    def show_diff(self, a: int, b: int) -> None:
        """Compare two versions, the older always on the left; fetches texts not yet read."""
        older, newer = min(a, b), max(a, b)
        self._set_boxes(older, newer)
        self._wanted = (older, newer)
        missing = [n for n in (older, newer) if n not in self._texts]
        if not missing:
            self._draw(older, newer)
            return
        facade = self.facade

        def fetch() -> dict[int, str]:
            return {n: facade.profile_version(n, actor=ACTOR).get("content_md") or "" for n in missing}

        self.diff_info.setText(translate("IdentityWindow", "Reading versions…"))
        self.ops.run(fetch, lambda texts: self._fetched(texts, (older, newer)), self._diff_failed)

    def _fetched(self, texts: dict[int, str], pair: tuple[int, int]) -> None:
        self._texts.update(texts)
        if pair == self._wanted:  # else a later choice superseded this one
            self._draw(*pair)

    def _diff_failed(self, exc: BaseException) -> None:
        self.diff_info.setText("")
        self.show_error(exc)

    def _draw(self, older: int, newer: int) -> None:
        rows = {int(r["version_num"]): r for r in self.profile.versions}
        self.diff.set_texts(
            self._texts[older],
            self._texts[newer],
            left_title=self._version_title(rows[older]) if older in rows else "",
            right_title=self._version_title(rows[newer]) if newer in rows else "",
        )
        added, removed = self.diff.counts()
        self.diff_info.setText(
            translate("IdentityWindow", "{added} line(s) added, {removed} removed.").format(
                added=added, removed=removed
            )
        )
        self._shown = (older, newer)
        self.diff_shown.emit(older, newer)

    @property
    def shown_pair(self) -> tuple[int, int] | None:
        """The versions the diff shows now (older, newer)."""
        return self._shown

    # -- reports ----------------------------------------------------------------------
    def _picked_report(self, item: QListWidgetItem | None, _previous: QListWidgetItem | None = None) -> None:
        if item is None:
            return
        period = item.data(NUM_ROLE)
        report = next((r for r in self.profile.reports if r["period"] == period), None)
        if report is None:
            return
        generated = translate("IdentityWindow", "{period}, generated {when}.").format(
            period=period, when=local_time(report.get("generated_at"))
        )
        counts = translate(
            "IdentityWindow",
            "Versions: {versions}. Superseded: {supersedes}. Entities new: {added}, gone: {dropped}.",
        ).format(
            versions=report.get("versions_count", 0),
            supersedes=report.get("supersedes_count", 0),
            added=report.get("entities_added", 0),
            dropped=report.get("entities_dropped", 0),
        )
        if report.get("withheld_by"):
            counts += " " + translate("IdentityReport", "({note})").format(note=identity_report.opened_note())
        self.report_info.setText(generated + " " + counts)
        self.report_view.show_markdown(report.get("content_md") or "")
        self._show_changes(str(period))

    def _show_changes(self, period: str) -> None:
        """The month in words: core's values for it, read once a load."""
        if period in self._changes:
            self.report_words.setHtml(identity_report.changes_html(self._changes[period]))
            self.report_shown.emit(period)
            return
        self.report_words.setPlainText(translate("IdentityReport", "Reading the month's changes…"))
        facade = self.facade

        def done(changes: Any) -> None:
            self._changes[period] = changes
            current = self.reports_list.currentItem()
            if current is not None and current.data(NUM_ROLE) == period:
                self._show_changes(period)

        def failed(exc: BaseException) -> None:
            self.report_words.clear()
            self.show_error(exc)

        self.ops.run(lambda: facade.monthly_changes(period), done, failed)

    @Slot(bool)
    def _toggle_raw(self, shown: bool) -> None:
        self.report_view.setVisible(shown)
        self.raw_toggle.setText(
            translate("IdentityReport", "Hide the report file")
            if shown
            else translate("IdentityReport", "Show the report file and its diff")
        )

    def report_periods(self) -> list[str]:
        return [self.reports_list.item(i).text() for i in range(self.reports_list.count())]

    # -- actions ----------------------------------------------------------------------
    def _acting_on(self, busy: bool) -> None:
        self._acting = busy
        self.rewrite_button.setEnabled(not busy)
        self.report_button.setEnabled(not busy)

    @Slot()
    def rewrite_now(self) -> None:
        """A manual rewrite: a new version only if the profile changed."""
        if self._acting:
            return
        self._acting_on(True)
        self.notify(translate("IdentityWindow", "Rewriting the profile…"))
        facade = self.facade
        self.ops.run(
            lambda: facade.rewrite_identity(trigger="manual", actor=ACTOR),
            self._rewritten,
            self._action_failed,
        )

    def _rewritten(self, result: RewriteResult) -> None:
        self._acting_on(False)
        if result.changed:
            self._wanted = None  # show the change just made, not the pair looked at before
            self.notify(
                translate("IdentityWindow", "Version {version} written: {summary}.").format(
                    version=result.version, summary=change_text(result.change).rstrip(".")
                )
            )
        else:
            self.notify(
                translate("IdentityWindow", "Nothing new: the profile stays at version {version}.").format(
                    version=result.version
                )
            )
        self.changed.emit("rewrite")
        self.load()

    @Slot()
    def generate_report(self) -> None:
        """This month's change report (regenerating replaces it)."""
        if self._acting:
            return
        self._acting_on(True)
        self.notify(translate("IdentityWindow", "Writing this month's report…"))
        facade = self.facade
        self.ops.run(lambda: facade.monthly_report(None, actor=ACTOR), self._reported, self._action_failed)

    def _reported(self, report: ReportResult) -> None:
        self._acting_on(False)
        self._report_wanted = report.period
        self.notify(translate("IdentityWindow", "Report for {period} written.").format(period=report.period))
        self.changed.emit("report")
        self.load()

    def _action_failed(self, exc: BaseException) -> None:
        self._acting_on(False)
        self.show_error(exc)

    # -- messages ---------------------------------------------------------------------
    def notify(self, text: str, error: bool = False) -> None:
        self.notice.setText(text)
        self.notice.setStyleSheet("color: #b3261e;" if error else "")
        self.notice.show()

    def show_error(self, exc: BaseException | str) -> None:
        text = exc if isinstance(exc, str) else describe(exc)
        log.error("identity window: %s", text)
        self.notify(text, error=True)
        self.failed.emit(text)
