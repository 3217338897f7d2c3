"""The digest window's right-hand panes, one per tab: the promotion editor, the duplicate
pair side by side, the fading memory to keep, the supersede to confirm, the sync conflict
to settle (and its versions, side by side, in a window of their own). The trends tab is
in trends_chart.

Each pane only shows what it is given and owns its buttons; the window wires the buttons
to its actions and decides what to fetch, so the panes never call the facade.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication, QRect, Qt, Signal
from PySide6.QtGui import QFont, QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from memoryd_desktop import assets, project_text
from memoryd_desktop import digest_model as dm
from memoryd_desktop.dura_text import reasoning_text
from memoryd_desktop.side_by_side import SideBySide
from memoryd_desktop.texts import local_time, parse_triggers

translate = QCoreApplication.translate  # the bare name lupdate recognises


def wrapping(text: str = "", selectable: bool = True) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    if selectable:
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def muted(label: QLabel) -> QLabel:
    label.setStyleSheet("color: palette(placeholder-text);")
    return label


def bold(label: QLabel, scale: float = 1.0) -> QLabel:
    font = QFont(label.font())
    font.setBold(True)
    font.setPointSizeF(font.pointSizeF() * scale)
    label.setFont(font)
    return label


class ShortText(QPlainTextEdit):
    """Read-only wrapped text as tall as its lines, up to `max_lines`; longer text scrolls
    inside it instead of pushing what is below off the window (a label would grow)."""

    def __init__(self, max_lines: int = 5) -> None:
        super().__init__()
        self.max_lines = max_lines
        self.setReadOnly(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.document().setDocumentMargin(0)  # flush with the labels above and below
        self.setStyleSheet("QPlainTextEdit { background: transparent; color: palette(placeholder-text); }")
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # it wraps
        self.document().documentLayout().documentSizeChanged.connect(self._fit)
        self._fit()

    def _fit(self, *_: object) -> None:
        # Measured from the text and the width the widget has now, not from the document
        # layout, which may not have re-wrapped yet when the window is first shown.
        width = max(self.viewport().width() - 4, 60)
        spacing = self.fontMetrics().lineSpacing()
        bounds = self.fontMetrics().boundingRect(
            QRect(0, 0, width, spacing * 1000), Qt.TextFlag.TextWordWrap, self.toPlainText()
        )
        lines = min(max(1, -(-bounds.height() // spacing)), self.max_lines)
        margins = self.contentsMargins()
        height = (
            lines * self.fontMetrics().lineSpacing()
            + 2 * self.document().documentMargin()
            + margins.top()
            + margins.bottom()
        )
        self.setFixedHeight(int(height) + 1)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)  # wraps the text again at the new width
        if event.size().width() != event.oldSize().width():
            self._fit()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._fit()


class Paned(QStackedWidget):
    """A detail pane with an empty-state page in front of it when its list is empty."""

    def __init__(self, body: QWidget, empty_text: str) -> None:
        super().__init__()
        empty = muted(wrapping(empty_text, selectable=False))
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
        self.session = wrapping()
        self.dura = bold(wrapping())
        self.dura.setToolTip(
            translate(
                "DigestWindow",
                "D decision-worthy, U useful in future, R recallable hooks, A accurate; 0 to 1 each.",
            )
        )
        self.reasoning = ShortText(max_lines=5)
        self.supersedes = wrapping()
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
        self.session.setText(project_text.session_source(p))
        self.session.setToolTip(p.session_slug)
        s = p.dura
        self.dura.setText(
            translate("DigestWindow", "DURA  D {d}  U {u}  R {r}  A {a}   mean {mean}").format(
                d=f"{s.D:.2f}", u=f"{s.U:.2f}", r=f"{s.R:.2f}", a=f"{s.A:.2f}", mean=f"{p.mean:.2f}"
            )
        )
        why = reasoning_text(p.reasoning)
        self.reasoning.setPlainText(why or translate("DigestWindow", "No reasoning given."))
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
            triggers=parse_triggers(self.triggers.text()),
            body=self.body.toPlainText(),
        )


class MemoryColumn(QWidget):
    """One side of a duplicate pair: what it is, then its body."""

    def __init__(self) -> None:
        super().__init__()
        self.title = bold(wrapping())
        self.meta = muted(wrapping())
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
                slug=meta.slug,
                type=dm.type_label(dm.enum_text(meta.type)),
                day=meta.created_at.date().isoformat(),
            ),
            translate("DigestWindow", "Recalled {count} times · triggers: {triggers}").format(
                count=meta.recall_count, triggers=dm.join_triggers(meta.triggers) or "–"
            ),
        ]
        self.title.setText(meta.title)
        self.meta.setText("\n".join(lines))
        self.body.setPlainText(view.doc.body)


class PairPane(QWidget):
    """A duplicate pair side by side, a merge button under each side, a note when the
    two belong to different projects (which only the command line merges), and "Not
    duplicates" for a group whose memories differ."""

    def __init__(self) -> None:
        super().__init__()
        self.left = MemoryColumn()
        self.right = MemoryColumn()
        self.merge_left = QPushButton(translate("DigestWindow", "Merge into left"))
        self.merge_left.setToolTip(
            translate("DigestWindow", "Keep the left memory; the right one is folded into it")
        )
        self.merge_right = QPushButton(translate("DigestWindow", "Merge into right"))
        self.merge_right.setToolTip(
            translate("DigestWindow", "Keep the right memory; the left one is folded into it")
        )
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(self.left, 0, 0)
        grid.addWidget(self.right, 0, 1)
        grid.addWidget(self.merge_left, 1, 0)
        grid.addWidget(self.merge_right, 1, 1)
        self.pair_note = muted(
            wrapping(
                translate(
                    "DigestWindow",
                    "These two belong to different projects. Merging across projects is left to "
                    "the command line: memoryd merge --force.",
                )
            )
        )
        self.pair_note.hide()
        grid.addWidget(self.pair_note, 2, 0, 1, 2)
        self.not_duplicates = QPushButton(translate("DigestWindow", "Not duplicates"))
        self.not_duplicates.setToolTip(
            translate("DigestWindow", "These memories differ: stop proposing this group")
        )
        grid.addWidget(self.not_duplicates, 3, 0, 1, 2)
        grid.setRowStretch(0, 1)


class ReminderPane(QWidget):
    """A memory that is fading, and the button that keeps it."""

    def __init__(self) -> None:
        super().__init__()
        self.reminder = wrapping()
        self.keep = QPushButton(translate("DigestWindow", "Keep"))
        explain = muted(
            wrapping(
                translate(
                    "DigestWindow",
                    "Keeping counts as a recall: the memory stays alive and its clock starts again.",
                ),
                selectable=False,
            )
        )
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(bold(self.reminder))
        layout.addWidget(explain)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.keep)
        layout.addLayout(row)
        layout.addStretch(1)

    def show_reminder(self, item: Any) -> None:
        self.reminder.setText(
            translate("DigestWindow", "{type} “{title}” turns {next} on {day}, idle for {idle} days.").format(
                type=dm.type_label(item.type),
                title=item.title,
                next=dm.state_label(item.next_state),
                day=dm.day(item.due_at),
                idle=item.idle_days,
            )
        )


class SupersedePane(QWidget):
    """A supersede the judge was unsure of: confirm that the new memory replaces the old
    one, or dismiss it and keep both."""

    def __init__(self) -> None:
        super().__init__()
        self.supersede = wrapping()
        self.supersede_reason = muted(wrapping())
        self.confirm = QPushButton(translate("DigestWindow", "Confirm"))
        self.confirm.setToolTip(
            translate("DigestWindow", "The new memory replaces the old one (a in the list)")
        )
        self.dismiss = QPushButton(translate("DigestWindow", "Dismiss"))
        self.dismiss.setToolTip(translate("DigestWindow", "Both stay current (r in the list)"))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(bold(self.supersede))
        layout.addWidget(self.supersede_reason)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.dismiss)
        row.addWidget(self.confirm)
        layout.addLayout(row)
        layout.addStretch(1)

    def show_supersede(self, item: Any) -> None:
        self.supersede.setText(
            translate("DigestWindow", "Does “{new}” replace “{old}”? Confidence {confidence} ({by}).").format(
                new=item.new_title,
                old=item.old_title,
                confidence=f"{item.confidence:.2f}",
                by=item.judged_by,
            )
        )
        self.supersede_reason.setText(item.reason)


class ConflictPane(QWidget):
    """A memory changed on two devices: the version in use, each copy kept beside it, a
    button to keep the one or take the other, and one to read them all."""

    use_copy = Signal(str)  # the rev of the copy to take

    def __init__(self) -> None:
        super().__init__()
        self.title = bold(wrapping())
        self.slug = muted(wrapping())
        explain = muted(
            wrapping(
                translate(
                    "DigestWindow",
                    "This memory was changed on two devices. The newer change is in use; the other "
                    "is kept as a copy until you pick one. Every device follows your pick at its "
                    "next sync.",
                ),
                selectable=False,
            )
        )
        self.kept = wrapping()
        self.keep = QPushButton(translate("DigestWindow", "Keep this version"))
        self.keep.setToolTip(translate("DigestWindow", "Keep the version in use and drop the copies"))
        kept_box = QGroupBox(translate("DigestWindow", "In use"))
        kept_row = QHBoxLayout(kept_box)
        kept_row.addWidget(self.kept, 1)
        kept_row.addWidget(self.keep, 0, Qt.AlignmentFlag.AlignTop)
        self.copies_box = QGroupBox(translate("DigestWindow", "Copies"))
        self.copies = QVBoxLayout(self.copies_box)
        self.copy_rows: list[QWidget] = []
        self.copy_lines: list[QLabel] = []
        self.copy_buttons: list[QPushButton] = []
        self.show_versions = QPushButton(translate("DigestWindow", "Show versions"))
        self.show_versions.setToolTip(translate("DigestWindow", "Read every version, side by side"))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.title, self.slug, explain, kept_box, self.copies_box):
            layout.addWidget(widget)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.show_versions)
        layout.addLayout(row)
        layout.addStretch(1)

    def show_conflict(self, item: Any) -> None:
        self.title.setText(dm.version_title(item.kept))
        self.slug.setText(item.slug)
        self.kept.setText(dm.version_line(item.kept))
        for old in self.copy_rows:
            self.copies.removeWidget(old)
            old.deleteLater()
        self.copy_rows, self.copy_lines, self.copy_buttons = [], [], []
        for version in item.copies:
            line = wrapping(dm.version_line(version))
            line.setToolTip(version.rev)
            button = QPushButton(translate("DigestWindow", "Use this copy"))
            button.setToolTip(translate("DigestWindow", "Take this copy instead of the version in use"))
            button.setEnabled(self.keep.isEnabled())
            button.clicked.connect(lambda _=False, rev=version.rev: self.use_copy.emit(rev))
            row = QWidget()
            layout = QHBoxLayout(row)
            layout.setContentsMargins(0, 0, 0, 0)
            layout.addWidget(line, 1)
            layout.addWidget(button, 0, Qt.AlignmentFlag.AlignTop)
            self.copies.addWidget(row)
            self.copy_rows.append(row)
            self.copy_lines.append(line)
            self.copy_buttons.append(button)

    def set_enabled(self, enabled: bool) -> None:
        for button in (self.keep, self.show_versions, *self.copy_buttons):
            button.setEnabled(enabled)


def version_text(version: dict[str, Any]) -> str:
    """What a version of a conflicted memory holds, as the versions window shows it: the
    fields a person changes and the body, not the file's frontmatter."""
    if version.get("deleted"):
        return translate("DigestWindow", "This version deletes the memory.")
    if version.get("encrypted") or not version.get("content"):
        return translate("DigestWindow", "This version is sealed: its project is sensitive.")
    fields = version.get("fields")
    if not fields:  # core could not read it: the file as it is
        return str(version["content"])
    none = translate("DigestWindow", "none")
    lines = [
        str(fields["title"]),
        translate("DigestWindow", "Type: {type}").format(type=dm.type_label(str(fields["type"]))),
        translate("DigestWindow", "Triggers: {triggers}").format(
            triggers=", ".join(fields["triggers"]) or none
        ),
        translate("DigestWindow", "Tags: {tags}").format(tags=", ".join(fields["tags"]) or none),
        "",
        str(fields["body"]).rstrip("\n"),
    ]
    return "\n".join(lines)


def version_label(version: dict[str, Any]) -> str:
    time = local_time(str(version.get("updated_at") or ""))
    if version.get("kept"):
        return translate("DigestWindow", "In use, changed {time}").format(time=time)
    return translate("DigestWindow", "Copy {rev}, changed {time}").format(
        rev=str(version.get("rev", ""))[:8], time=time
    )


class VersionsDialog(QDialog):
    """Every version of a conflicted memory, read-only: the one in use on the left, the copy
    picked above on the right, their differences marked."""

    def __init__(self, slug: str, versions: list[dict[str, Any]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(translate("DigestWindow", "Versions of {slug}").format(slug=slug))
        self.setWindowIcon(assets.icon())
        self.resize(1000, 620)
        self.versions = versions
        self.kept = next((v for v in versions if v.get("kept")), versions[0])
        self.others = [v for v in versions if v is not self.kept]
        self.pick = QComboBox()
        for version in self.others:
            self.pick.addItem(version_label(version))
        self.pick.currentIndexChanged.connect(self._compare)
        self.diff = SideBySide()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        top = QHBoxLayout()
        top.addWidget(QLabel(translate("DigestWindow", "Compare the version in use with:")))
        top.addWidget(self.pick, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.diff, 1)
        layout.addWidget(buttons)
        self._compare(0)

    def _compare(self, index: int) -> None:
        other = self.others[index] if 0 <= index < len(self.others) else None
        self.diff.set_texts(
            version_text(self.kept),
            version_text(other) if other is not None else "",
            left_title=version_label(self.kept),
            right_title=version_label(other) if other is not None else "",
        )
