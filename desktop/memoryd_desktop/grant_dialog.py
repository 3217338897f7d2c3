"""The one question the tray asks before anything reads a sensitive project: allow, for how
long, and (for a project under a passphrase) the passphrase.

The project is named by its folder's name, from the root core hands over with the request
(Memoryd.grant_request, or the sensitive projects listing), the folder itself beside it;
never by its hash. It decides nothing and calls no facade method: the sensitive projects
window opens it for the user's own "Grant…", and the grant broker opens it (`as_prompt()`)
when the CLI or the MCP server needs a grant; either caller does the grant with
`result_choice()`. A failed grant (a wrong passphrase) comes back through `show_error`,
which asks again instead of making the user start over.
"""

from __future__ import annotations

from pathlib import PurePath

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QFont, QShowEvent
from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from memoryd_desktop import assets
from memoryd_desktop.project_text import plain_tip, withheld

translate = QCoreApplication.translate  # the bare name lupdate recognises

DURATIONS = ("once", "session", "task")  # the order core's `grant --duration` knows them in

Choice = tuple[str, str | None, str | None]  # (duration, task name, passphrase)


def project_name(root: str) -> str:
    """A project's name as core gives it (memoryd.projects.folder_name): its folder's."""
    return PurePath(root).name or root


def sealed_folder() -> str:
    """In place of a folder core keeps sealed with a passphrase (memoryd.sensitive.state)."""
    return translate("GrantDialog", "(sealed with the passphrase until access is granted)")


def purpose_text(what: str) -> str:
    """What the caller wants to do, from the command core names (`what` of the request);
    one this app does not know is shown as the command itself."""
    purposes = {
        "get": translate("GrantDialog", "read a memory"),
        "search": translate("GrantDialog", "search memories"),
        "traces": translate("GrantDialog", "read where memories were recalled"),
        "history": translate("GrantDialog", "read a memory's history"),
        "snapshot": translate("GrantDialog", "write the project's start-up snapshot"),
        "update": translate("GrantDialog", "change a memory"),
        "forget": translate("GrantDialog", "forget a memory"),
        "merge": translate("GrantDialog", "merge memories"),
        "promote": translate("GrantDialog", "approve a proposed memory"),
        "supersede": translate("GrantDialog", "mark a memory as replaced"),
        "undo": translate("GrantDialog", "undo a review decision"),
        "clear-suspect": translate("GrantDialog", "clear a memory flagged as suspect"),
    }
    return purposes.get(what, what)


class GrantDialog(QDialog):
    """Allow / Deny for one sensitive project; `result_choice()` is the answer once the
    dialog closes. `scope_hash` is kept for the caller's grant, never shown."""

    def __init__(
        self,
        root: str | None,
        scope_hash: str,
        asker: str,
        needs_passphrase: bool,
        what: str | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.root = root
        self.scope_hash = scope_hash
        self.asker = asker
        self.needs_passphrase = needs_passphrase
        self.setWindowTitle(translate("GrantDialog", "Allow access to a sensitive project"))
        self.setWindowIcon(assets.icon())
        self.setMinimumWidth(440)

        # The project by its folder's name, so the person knows which one asks; the request
        # names the folder already (the prompt is the person's own screen). A passphrase
        # project's folder is sealed with its key (memoryd.sensitive.state): until a grant,
        # it is "sensitive project" and its hash.
        self.project = project_name(root) if root else withheld(scope_hash)
        heading = QLabel(
            translate("GrantDialog", "Allow access to the sensitive project \u201c{project}\u201d?").format(
                project=self.project
            )
        )
        heading.setWordWrap(True)
        heading.setTextFormat(Qt.TextFormat.PlainText)
        font = QFont(heading.font())
        font.setBold(True)
        heading.setFont(font)

        self.root_label = self._plain(root or sealed_folder())
        self.root_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.asker_label = self._plain(asker)
        facts = QFormLayout()
        self.project_label = self._plain(self.project)
        self.project_label.setToolTip(plain_tip(root or scope_hash))
        facts.addRow(translate("GrantDialog", "Project:"), self.project_label)
        facts.addRow(translate("GrantDialog", "Folder:"), self.root_label)
        facts.addRow(translate("GrantDialog", "Asked by:"), self.asker_label)
        self.what_label = self._plain(purpose_text(what) if what else "")
        if what:
            facts.addRow(translate("GrantDialog", "To:"), self.what_label)

        self.radios: dict[str, QRadioButton] = {
            "once": QRadioButton(translate("GrantDialog", "Once (90 seconds)")),
            "session": QRadioButton(translate("GrantDialog", "For this session (8 hours)")),
            "task": QRadioButton(translate("GrantDialog", "For a task, until revoked:")),
        }
        self.group = QButtonGroup(self)
        for radio in self.radios.values():
            self.group.addButton(radio)
        self.radios["once"].setChecked(True)  # the least access is the default
        self.task_edit = QLineEdit()
        self.task_edit.setPlaceholderText(translate("GrantDialog", "task name, e.g. year-end"))
        self.task_edit.setEnabled(False)
        task_row = QHBoxLayout()
        task_row.addWidget(self.radios["task"])
        task_row.addWidget(self.task_edit, 1)
        durations = QVBoxLayout()
        durations.addWidget(QLabel(translate("GrantDialog", "Allow for how long?")))
        durations.addWidget(self.radios["once"])
        durations.addWidget(self.radios["session"])
        durations.addLayout(task_row)

        self.passphrase_edit = QLineEdit()
        self.passphrase_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.passphrase_label = QLabel(translate("GrantDialog", "Passphrase of this project:"))
        passphrase = QFormLayout()
        passphrase.addRow(self.passphrase_label, self.passphrase_edit)
        self.passphrase_edit.setVisible(needs_passphrase)
        self.passphrase_label.setVisible(needs_passphrase)

        self.error_label = QLabel()
        self.error_label.setWordWrap(True)
        self.error_label.setTextFormat(Qt.TextFormat.PlainText)
        self.error_label.setStyleSheet("color: #b3261e;")
        self.error_label.hide()

        self.buttons = QDialogButtonBox()
        self.allow_button: QPushButton = self.buttons.addButton(
            translate("GrantDialog", "Allow"), QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.deny_button: QPushButton = self.buttons.addButton(
            translate("GrantDialog", "Deny"), QDialogButtonBox.ButtonRole.RejectRole
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addLayout(facts)
        layout.addLayout(durations)
        layout.addLayout(passphrase)
        layout.addWidget(self.error_label)
        layout.addWidget(self.buttons)

        self.group.buttonToggled.connect(self._update)
        self.task_edit.textChanged.connect(self._update)
        self.passphrase_edit.textChanged.connect(self._update)
        self._update()

    @staticmethod
    def _plain(text: str) -> QLabel:
        label = QLabel(text)
        label.setTextFormat(Qt.TextFormat.PlainText)  # a folder name is never markup
        label.setWordWrap(True)
        return label

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        # Enter alone never opens a sensitive project (the button box makes Allow the
        # default as the dialog shows, so this comes after it).
        self.deny_button.setDefault(True)

    def as_prompt(self) -> GrantDialog:
        """Keep the dialog above other windows: it answers a program that is waiting."""
        self.setWindowFlag(Qt.WindowType.WindowStaysOnTopHint, True)
        return self

    def duration(self) -> str:
        return next(name for name, radio in self.radios.items() if radio.isChecked())

    def set_duration(self, duration: str, task: str | None = None) -> None:
        """Pick a duration (and a task name), as a caller or a test would by clicking."""
        self.radios[duration].setChecked(True)
        if task is not None:
            self.task_edit.setText(task)

    def _update(self) -> None:
        task = self.duration() == "task"
        self.task_edit.setEnabled(task)
        ready = (not task or bool(self.task_edit.text().strip())) and (
            not self.needs_passphrase or bool(self.passphrase_edit.text())
        )
        self.allow_button.setEnabled(ready)

    def result_choice(self) -> Choice | None:
        """(duration, task, passphrase) when allowed, None when denied or closed."""
        if self.result() != QDialog.DialogCode.Accepted:
            return None
        duration = self.duration()
        task = self.task_edit.text().strip() if duration == "task" else None
        passphrase = self.passphrase_edit.text() if self.needs_passphrase else None
        return duration, task, passphrase

    def show_error(self, text: str) -> None:
        """The grant failed (say, a wrong passphrase): say why and ask again."""
        self.error_label.setText(text)
        self.error_label.show()
        self.setResult(QDialog.DialogCode.Rejected)  # no answer until the user decides again
        if self.needs_passphrase:
            self.passphrase_edit.clear()
            self.passphrase_edit.setFocus()
        if not self.isVisible():
            self.open()

    def forget_passphrase(self) -> None:
        """Drop the typed passphrase once the caller has used it."""
        self.passphrase_edit.clear()
