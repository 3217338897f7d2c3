"""The browser's dialogs: record or edit a memory, merge, import, mark a folder sensitive.

They only collect input and hand it back as plain values; the browser window makes the
facade calls. Each is meant to be shown with `open()` (window-modal, no nested event loop),
so the window and tests drive them through their fields and buttons.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QCoreApplication, Slot
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from memoryd.visible import clean
from memoryd_desktop.texts import parse_triggers

translate = QCoreApplication.translate  # the bare name lupdate recognises

RECORD_TYPES = ("fact", "decision", "preference", "playbook", "warning")  # sessions come from capture
IMPORT_KINDS = ("codex", "openclaw", "memory-system", "agent-memory")
KINDS_NEEDING_SCOPE = ("memory-system", "agent-memory")  # core would file them under its own cwd


def type_name(memory_type: str) -> str:
    """The singular display name of a memory type (a table cell, a combo entry)."""
    names = {
        "session": translate("MemoryType", "Session"),
        "decision": translate("MemoryType", "Decision"),
        "preference": translate("MemoryType", "Preference"),
        "fact": translate("MemoryType", "Fact"),
        "playbook": translate("MemoryType", "Playbook"),
        "warning": translate("MemoryType", "Warning"),
    }
    return names.get(memory_type, memory_type)


def split_list(text: str) -> list[str]:
    """Comma-separated input to a list, blanks and duplicates dropped, order kept; Chinese
    commas (，、；) separate too, the same rule as the digest's trigger field."""
    return parse_triggers(text)


class FolderField(QWidget):
    """A path line edit with a Browse… button (a folder picker)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.edit = QLineEdit()
        self.edit.setMinimumWidth(self.edit.fontMetrics().averageCharWidth() * 36)  # a path, a hint
        self.browse_button = QPushButton(translate("MemoryDialogs", "Browse…"))
        self.browse_button.clicked.connect(self._browse)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.edit, 1)
        layout.addWidget(self.browse_button)

    def text(self) -> str:
        return self.edit.text().strip()

    def setText(self, text: str) -> None:
        self.edit.setText(text)

    @Slot()
    def _browse(self) -> None:
        chosen = QFileDialog.getExistingDirectory(
            self, translate("MemoryDialogs", "Choose a folder"), self.text()
        )
        if chosen:
            self.edit.setText(chosen)


class _Form(QDialog):
    """A form over OK/Cancel; OK is enabled only while `valid()` holds."""

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.form = QFormLayout()
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.hide()
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(self.form)
        layout.addWidget(self.note)
        layout.addWidget(self.buttons)

    @property
    def ok_button(self) -> QPushButton:
        return self.buttons.button(QDialogButtonBox.StandardButton.Ok)

    def valid(self) -> bool:
        return True

    @Slot()
    def revalidate(self) -> None:
        self.ok_button.setEnabled(self.valid())


@dataclass(frozen=True)
class MemoryDraft:
    """What the record/edit dialog collected."""

    memory_type: str
    title: str
    body: str
    triggers: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    folder: str = ""


class MemoryDialog(_Form):
    """Record a new memory, or edit one (`existing` given: type and folder are then fixed)."""

    def __init__(self, parent: QWidget | None = None, *, existing: MemoryDraft | None = None) -> None:
        title = (
            translate("MemoryDialogs", "Edit memory")
            if existing
            else translate("MemoryDialogs", "Record a memory")
        )
        super().__init__(title, parent)
        self.editing = existing is not None
        self.type_combo = QComboBox()
        for name in RECORD_TYPES:
            self.type_combo.addItem(type_name(name), name)
        self.title_edit = QLineEdit()
        self.body_edit = QPlainTextEdit()
        self.body_edit.setMinimumHeight(160)
        self.triggers_edit = QLineEdit()
        self.triggers_edit.setPlaceholderText(translate("MemoryDialogs", "comma-separated phrases"))
        self.tags_edit = QLineEdit()
        self.tags_edit.setPlaceholderText(translate("MemoryDialogs", "comma-separated"))
        self.folder = FolderField()
        self.folder.edit.setPlaceholderText(translate("MemoryDialogs", "the project this memory belongs to"))
        self.form.addRow(translate("MemoryDialogs", "Type"), self.type_combo)
        self.form.addRow(translate("MemoryDialogs", "Title"), self.title_edit)
        self.form.addRow(translate("MemoryDialogs", "Body"), self.body_edit)
        self.form.addRow(translate("MemoryDialogs", "Triggers"), self.triggers_edit)
        self.form.addRow(translate("MemoryDialogs", "Tags"), self.tags_edit)
        self.form.addRow(translate("MemoryDialogs", "Project folder"), self.folder)
        if existing is not None:
            index = self.type_combo.findData(existing.memory_type)
            if index < 0:  # a session: editable, but not one of the types to record
                self.type_combo.addItem(type_name(existing.memory_type), existing.memory_type)
                index = self.type_combo.count() - 1
            self.type_combo.setCurrentIndex(index)
            self.type_combo.setEnabled(False)
            self.title_edit.setText(existing.title)
            self.body_edit.setPlainText(existing.body)
            self.triggers_edit.setText(", ".join(existing.triggers))
            self.tags_edit.setText(", ".join(existing.tags))
            self.form.setRowVisible(self.folder, False)
        self.shown = self.draft()  # what the form said when it opened: an edit sends only changes
        for edit in (self.title_edit, self.folder.edit):
            edit.textChanged.connect(self.revalidate)
        self.body_edit.textChanged.connect(self.revalidate)
        self.resize(520, 460)
        self.revalidate()

    def valid(self) -> bool:
        filled = bool(self.title_edit.text().strip() and self.body_edit.toPlainText().strip())
        return filled and (self.editing or bool(self.folder.text()))

    def draft(self) -> MemoryDraft:
        return MemoryDraft(
            memory_type=str(self.type_combo.currentData()),
            title=self.title_edit.text().strip(),
            body=self.body_edit.toPlainText(),
            triggers=split_list(self.triggers_edit.text()),
            tags=split_list(self.tags_edit.text()),
            folder=self.folder.text(),
        )

    def edits(self) -> dict[str, Any]:
        """The fields changed since the dialog opened, as `update()` keywords. Only these
        are sent, so what the CLI or an agent changed meanwhile in the others is kept."""
        before, after = vars(self.shown), vars(self.draft())
        fields = ("title", "body", "triggers", "tags")
        return {name: after[name] for name in fields if after[name] != before[name]}


class MergeDialog(_Form):
    """Pick which of the selected memories to keep; the others are folded into it and removed."""

    def __init__(self, rows: Sequence[Mapping[str, Any]], parent: QWidget | None = None) -> None:
        super().__init__(translate("MemoryDialogs", "Merge memories"), parent)
        self.slugs = [str(r["slug"]) for r in rows]
        self.keep_combo = QComboBox()
        for r in rows:
            label = translate("MemoryDialogs", "{title} ({slug})")
            title = clean(str(r.get("title", "")), one_line=True)
            self.keep_combo.addItem(label.format(title=title, slug=r["slug"]), str(r["slug"]))
        self.across_scopes = QCheckBox(translate("MemoryDialogs", "Merge across projects"))
        self.across_scopes.setVisible(len({r.get("scope_hash") for r in rows}) > 1)
        self.form.addRow(translate("MemoryDialogs", "Keep"), self.keep_combo)
        self.form.addRow(self.across_scopes)
        self.note.setText(
            translate(
                "MemoryDialogs",
                "The other memories are merged into the one kept (their triggers, tags and "
                "recalls) and then removed.",
            )
        )
        self.note.show()

    def keep(self) -> str:
        return str(self.keep_combo.currentData())

    def drop(self) -> list[str]:
        return [s for s in self.slugs if s != self.keep()]


@dataclass(frozen=True)
class ImportRequest:
    kind: str
    folder: str | None
    scope: str | None


class ImportDialog(_Form):
    """Which system to import from, its folder, and (for some kinds) the project to file into."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(translate("MemoryDialogs", "Import memories"), parent)
        labels = {
            "codex": translate("MemoryDialogs", "Codex sessions"),
            "openclaw": translate("MemoryDialogs", "OpenClaw workspace"),
            "memory-system": translate("MemoryDialogs", "memory-system store"),
            "agent-memory": translate("MemoryDialogs", "agent-memory store"),
        }
        self.kind_combo = QComboBox()
        for kind in IMPORT_KINDS:
            self.kind_combo.addItem(labels[kind], kind)
        self.folder = FolderField()
        self.scope = FolderField()
        self.form.addRow(translate("MemoryDialogs", "Import from"), self.kind_combo)
        self.form.addRow(translate("MemoryDialogs", "Folder"), self.folder)
        self.form.addRow(translate("MemoryDialogs", "Into project"), self.scope)
        self.kind_combo.currentIndexChanged.connect(self._kind_changed)
        self.folder.edit.textChanged.connect(self.revalidate)
        self.scope.edit.textChanged.connect(self.revalidate)
        self._kind_changed()

    def kind(self) -> str:
        return str(self.kind_combo.currentData())

    @Slot()
    def _kind_changed(self) -> None:
        if self.kind() == "codex":
            self.folder.edit.setPlaceholderText(translate("MemoryDialogs", "empty: ~/.codex"))
        else:
            self.folder.edit.setPlaceholderText("")
        if self.kind() in KINDS_NEEDING_SCOPE:
            self.scope.edit.setPlaceholderText(translate("MemoryDialogs", "required"))
        else:
            self.scope.edit.setPlaceholderText(translate("MemoryDialogs", "empty: as the source says"))
        self.revalidate()

    def valid(self) -> bool:
        if self.kind() != "codex" and not self.folder.text():
            return False
        return self.kind() not in KINDS_NEEDING_SCOPE or bool(self.scope.text())

    def request(self) -> ImportRequest:
        return ImportRequest(self.kind(), self.folder.text() or None, self.scope.text() or None)


class MarkSensitiveDialog(_Form):
    """A project, by its folder, to encrypt, and an optional passphrase (else the key goes to
    the OS keyring)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(translate("MemoryDialogs", "Mark a project sensitive"), parent)
        self.folder = FolderField()
        self.passphrase = QLineEdit()
        self.passphrase.setEchoMode(QLineEdit.EchoMode.Password)
        self.repeat = QLineEdit()
        self.repeat.setEchoMode(QLineEdit.EchoMode.Password)
        self.form.addRow(translate("MemoryDialogs", "Project folder"), self.folder)
        self.form.addRow(translate("MemoryDialogs", "Passphrase (optional)"), self.passphrase)
        self.form.addRow(translate("MemoryDialogs", "Repeat passphrase"), self.repeat)
        self.note.setText(
            translate(
                "MemoryDialogs",
                "Its memories are encrypted and need a grant to be read. Without a passphrase "
                "the key is kept in the OS keyring. A passphrase cannot be recovered.",
            )
        )
        self.note.show()
        for edit in (self.folder.edit, self.passphrase, self.repeat):
            edit.textChanged.connect(self.revalidate)
        self.revalidate()

    def valid(self) -> bool:
        return bool(self.folder.text()) and self.passphrase.text() == self.repeat.text()

    def chosen_passphrase(self) -> str | None:
        return self.passphrase.text() or None
