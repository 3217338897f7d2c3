"""The Settings window: LLM, email, schedules, sync folder, start at login and language.

Everything goes through the facade, on the `Ops` thread: reading the settings touches the
OS keyring and the schedule ledger, and saving writes config.toml and the keyring, any of
which may block. Secrets (API key, SMTP password) go only to the OS keyring through the
facade; config.toml is written only by `update_config`, which checks a change before it
replaces the file and keeps the user's comments.

Only what the user changed is saved, in one background call, in an order that can be
undone: start-at-login, then config.toml (checked as a whole, so a bad cron line saves
nothing), then the keyring. If a later step fails, the earlier ones are put back, so a
failed save leaves things as they were and the dialog stays open with the reason.

The reading and the save order are in `settings_plan` (no widgets); the Schedules tab is
in `settings_schedules`; this module is the form and what it does.
"""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt, Signal, Slot
from PySide6.QtGui import QCloseEvent
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
    QPushButton,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from memoryd.app import Memoryd
from memoryd_desktop import window_keys
from memoryd_desktop.ops import Ops
from memoryd_desktop.settings_plan import (
    DEFAULT_PORT,
    KEYED_PROVIDERS,
    NEEDS_MODEL,
    PROVIDERS,
    SECURITY,
    CronError,
    Plan,
    Settings,
    apply_plan,
    one_line,
    read_settings,
    split_addresses,
)
from memoryd_desktop.settings_schedules import ERROR_STYLE, JobRow, ScheduleTab, note

log = logging.getLogger("memoryd.tray")
translate = QCoreApplication.translate  # the bare name lupdate recognises


def provider_label(name: str) -> str:
    labels = {
        "rules": translate("SettingsDialog", "Rules only (no LLM)"),
        "anthropic": translate("SettingsDialog", "Anthropic"),
        "openai": translate("SettingsDialog", "OpenAI"),
        "ollama": translate("SettingsDialog", "Ollama (local)"),
    }
    return labels.get(name, name)


# -- the dialog -----------------------------------------------------------------------
class SettingsDialog(QDialog):
    """Load with `load()` (the constructor starts it), edit, `save()`; `saved` on success.
    Reopening calls `load_if_idle()`, which keeps what the user is typing in an open form.

    `loaded(Settings)` comes once the form holds the current values; `failed(str)` carries
    the one-line error of a load or save that did not work (also shown in the dialog).
    """

    loaded = Signal(object)  # Settings
    saved = Signal()
    failed = Signal(str)

    def __init__(self, facade: Memoryd, ops: Ops, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.facade = facade
        self.ops = ops
        self.settings: Settings | None = None
        self.busy = False
        self._filling = False
        self._model_edited = False
        self._remove_key = False
        self.setWindowTitle(translate("SettingsDialog", "Settings"))
        self.setMinimumWidth(540)

        self.tabs = QTabWidget()
        self.tabs.addTab(self._llm_tab(), translate("SettingsDialog", "LLM"))
        self.tabs.addTab(self._email_tab(), translate("SettingsDialog", "Email"))
        self.tabs.addTab(self._schedule_tab(), translate("SettingsDialog", "Schedules"))
        self.tabs.addTab(self._sync_tab(), translate("SettingsDialog", "Sync"))
        self.tabs.addTab(self._general_tab(), translate("SettingsDialog", "General"))

        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.buttons = QDialogButtonBox()
        self.save_button = self.buttons.addButton(
            translate("SettingsDialog", "Save"), QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.cancel_button = self.buttons.addButton(
            translate("SettingsDialog", "Cancel"), QDialogButtonBox.ButtonRole.RejectRole
        )
        self.save_button.setDefault(True)
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs)
        layout.addWidget(self.status)
        layout.addWidget(self.buttons)
        window_keys.install(self, escape=False)  # Esc is the dialog's own Cancel
        self.load()

    # -- tabs -------------------------------------------------------------------------
    def _llm_tab(self) -> QWidget:
        self.provider = QComboBox()
        for name in PROVIDERS:
            self.provider.addItem(provider_label(name), name)
        self.provider.currentIndexChanged.connect(self._provider_changed)
        self.model = QLineEdit()
        self.model.setPlaceholderText(translate("SettingsDialog", "The provider's model name"))
        self.model.textEdited.connect(self._model_typed)
        self.api_key = QLineEdit()
        self.api_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.api_key.setPlaceholderText(translate("SettingsDialog", "Paste a new key to store it"))
        self.api_key.textEdited.connect(self._key_typed)
        self.remove_key = QPushButton(translate("SettingsDialog", "Remove key"))
        self.remove_key.clicked.connect(self._remove_key_clicked)
        key_row = QHBoxLayout()
        key_row.addWidget(self.api_key, 1)
        key_row.addWidget(self.remove_key)
        self.key_status = note()

        tab = QWidget()
        form = QFormLayout(tab)
        form.addRow(translate("SettingsDialog", "Provider:"), self.provider)
        form.addRow(translate("SettingsDialog", "Model:"), self.model)
        form.addRow(translate("SettingsDialog", "API key:"), key_row)
        form.addRow("", self.key_status)
        form.addRow(
            "",
            note(translate("SettingsDialog", "API keys are kept in the OS keyring, never in config.toml.")),
        )
        return tab

    def _email_tab(self) -> QWidget:
        self.email_host = QLineEdit()
        self.email_host.setPlaceholderText("smtp.example.com")
        self.email_port = QSpinBox()
        self.email_port.setRange(1, 65535)
        self.email_port.setValue(DEFAULT_PORT)
        self.email_security = QComboBox()
        labels = {
            "starttls": translate("SettingsDialog", "STARTTLS"),
            "ssl": translate("SettingsDialog", "SSL/TLS"),
            "none": translate("SettingsDialog", "None (unencrypted)"),
        }
        for name in SECURITY:
            self.email_security.addItem(labels[name], name)
        self.email_user = QLineEdit()
        self.email_from = QLineEdit()
        self.email_to = QLineEdit()
        self.email_to.setPlaceholderText(translate("SettingsDialog", "Addresses, separated by commas"))
        self.smtp_password = QLineEdit()
        self.smtp_password.setEchoMode(QLineEdit.EchoMode.Password)
        self.smtp_password.setPlaceholderText(
            translate("SettingsDialog", "Leave empty to keep the stored password")
        )

        tab = QWidget()
        form = QFormLayout(tab)
        form.addRow(translate("SettingsDialog", "SMTP server:"), self.email_host)
        form.addRow(translate("SettingsDialog", "Port:"), self.email_port)
        form.addRow(translate("SettingsDialog", "Security:"), self.email_security)
        form.addRow(translate("SettingsDialog", "User:"), self.email_user)
        form.addRow(translate("SettingsDialog", "Password:"), self.smtp_password)
        form.addRow(translate("SettingsDialog", "From:"), self.email_from)
        form.addRow(translate("SettingsDialog", "To:"), self.email_to)
        form.addRow(
            "",
            note(
                translate(
                    "SettingsDialog",
                    "The weekly digest is mailed here. The password is kept in the OS keyring.",
                )
            ),
        )
        return tab

    def _schedule_tab(self) -> QWidget:
        self.schedules = ScheduleTab(self.facade.cron_trigger)
        self.timers_note, self.jobs_error = self.schedules.timers_note, self.schedules.jobs_error
        self.job_grid = self.schedules.job_grid
        return self.schedules

    @property
    def job_rows(self) -> dict[str, JobRow]:
        """The Schedules tab's rows by job id (rebuilt on each load)."""
        return self.schedules.job_rows

    def _sync_tab(self) -> QWidget:
        self.sync_folder = QLineEdit()
        self.sync_folder.setPlaceholderText(translate("SettingsDialog", "No sync folder"))
        choose = QPushButton(translate("SettingsDialog", "Choose…"))
        choose.clicked.connect(self._choose_folder)
        row = QHBoxLayout()
        row.addWidget(self.sync_folder, 1)
        row.addWidget(choose)
        tab = QWidget()
        form = QFormLayout(tab)
        form.addRow(translate("SettingsDialog", "Sync folder:"), row)
        form.addRow("", note(translate("SettingsDialog", "Leave it empty to stop syncing.")))
        return tab

    def _general_tab(self) -> QWidget:
        self.autostart = QCheckBox(translate("SettingsDialog", "Start memoryd when I log in"))
        self.autostart_note = note(
            translate("SettingsDialog", "Starting at login is not available in this installation.")
        )
        self.autostart_note.hide()
        self.language = QComboBox()
        self.language.addItem(translate("SettingsDialog", "Follow system"), "system")
        self.language.addItem("English", "en")  # language names show in their own language
        self.language.addItem("简体中文", "zh_CN")
        tab = QWidget()
        form = QFormLayout(tab)
        form.addRow(self.autostart)
        form.addRow(self.autostart_note)
        form.addRow(translate("SettingsDialog", "Language:"), self.language)
        form.addRow(
            "", note(translate("SettingsDialog", "A new language applies the next time memoryd starts."))
        )
        return tab

    # -- loading ----------------------------------------------------------------------
    def load(self) -> None:
        """Read the current values in the background; `loaded` follows."""
        self._set_busy(True, translate("SettingsDialog", "Reading settings…"))
        facade = self.facade
        self.ops.run(lambda: read_settings(facade), self._fill, self._load_failed)

    def load_if_idle(self) -> None:
        """What opening the window again asks for: fresh values, but not over the form while
        it is on screen (the user may be typing; reopening only raises it) nor while a load
        or save runs. A closed or cancelled form is read again."""
        if self.busy or self.isVisible():
            return
        self.load()

    def _fill(self, settings: Settings) -> None:
        self._filling = True
        try:
            self.settings = settings
            self._select(self.provider, settings.provider)
            self.model.setText(settings.model)
            self._model_edited = False
            self.api_key.clear()
            self._remove_key = False
            self.email_host.setText(settings.email_host)
            self.email_port.setValue(settings.email_port)
            self._select(self.email_security, settings.email_security)
            self.email_user.setText(settings.email_user)
            self.email_from.setText(settings.email_from)
            self.email_to.setText(", ".join(settings.email_to))
            self.smtp_password.clear()
            self.schedules.fill(settings)
            self.sync_folder.setText(settings.sync_folder)
            self.autostart.setEnabled(settings.autostart is not None)
            self.autostart.setChecked(bool(settings.autostart))
            self.autostart_note.setVisible(settings.autostart is None)
            self._select(self.language, settings.language)
        finally:
            self._filling = False
        self._provider_changed()
        self._set_busy(False)
        self.loaded.emit(settings)

    def _load_failed(self, exc: BaseException) -> None:
        self._set_busy(False)
        self.save_button.setEnabled(False)  # nothing to compare a save against
        self.show_error(
            translate("SettingsDialog", "Could not read the settings: {error}").format(error=one_line(exc))
        )

    # -- form behaviour ---------------------------------------------------------------
    @staticmethod
    def _select(combo: QComboBox, value: str) -> None:
        index = combo.findData(value)
        combo.setCurrentIndex(index if index >= 0 else 0)

    @Slot()
    def _provider_changed(self) -> None:
        """Keys and model belong to one provider: switching clears what was typed for another."""
        if self._filling:
            return
        provider = self.current_provider()
        settings = self.settings or Settings()
        if not self._model_edited:
            # A model name fits one API: switching to or from OpenAI or Ollama starts empty.
            crosses = provider != settings.provider and (
                provider in NEEDS_MODEL or settings.provider in NEEDS_MODEL
            )
            self.model.setText("" if crosses else settings.model)
        self.model.setEnabled(provider != "rules")
        self.api_key.clear()
        self._remove_key = False
        self._show_key_state()

    @Slot()
    def _model_typed(self) -> None:
        self._model_edited = True

    @Slot()
    def _key_typed(self) -> None:
        self._remove_key = False  # a new key replaces the old one instead
        self._show_key_state()

    @Slot()
    def _remove_key_clicked(self) -> None:
        self.api_key.clear()
        self._remove_key = True
        self._show_key_state()

    def _show_key_state(self) -> None:
        provider = self.current_provider()
        keyed = provider in KEYED_PROVIDERS
        stored = keyed and self.settings is not None and provider in self.settings.keys_stored
        self.api_key.setEnabled(keyed)
        self.remove_key.setEnabled(stored and not self._remove_key)
        if not keyed:
            text = translate("SettingsDialog", "{provider} takes no API key.").format(
                provider=provider_label(provider)
            )
        elif self._remove_key:
            text = translate("SettingsDialog", "The stored key will be removed when you save.")
        elif stored:
            text = translate("SettingsDialog", "A key is stored in the OS keyring.")
        else:
            text = translate("SettingsDialog", "No key stored yet.")
        self.key_status.setText(text)

    @Slot()
    def _choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self, translate("SettingsDialog", "Choose the sync folder"), self.sync_folder.text()
        )
        if folder:
            self.sync_folder.setText(folder)

    def current_provider(self) -> str:
        return str(self.provider.currentData())

    # -- saving -----------------------------------------------------------------------
    def plan(self) -> Plan | str:
        """The changes the form holds against what was loaded, or a message saying what to fix."""
        s = self.settings
        if s is None:
            return translate("SettingsDialog", "The settings have not been read yet.")
        changes: dict[str, Any] = {}

        provider = self.current_provider()
        model = self.model.text().strip()
        if provider in NEEDS_MODEL and not model:
            return translate("SettingsDialog", "Enter the model {provider} should use.").format(
                provider=provider_label(provider)
            )
        if provider != s.provider:
            changes["llm.provider"] = provider
        if provider != "rules" and (provider != s.provider or model != s.model):
            changes["llm.model"] = model or None
        api_key: tuple[str, str | None] | None = None
        if provider in KEYED_PROVIDERS:
            typed = self.api_key.text().strip()
            if typed:
                api_key = (provider, typed)
            elif self._remove_key:
                api_key = (provider, None)

        def text_change(key: str, widget: QLineEdit, before: str) -> None:
            value = widget.text().strip()
            if value != before:
                changes[key] = value or None

        text_change("email.host", self.email_host, s.email_host)
        if self.email_port.value() != s.email_port:
            changes["email.port"] = self.email_port.value()
        security = str(self.email_security.currentData())
        if security != s.email_security:
            changes["email.security"] = security
        text_change("email.user", self.email_user, s.email_user)
        text_change("email.from_addr", self.email_from, s.email_from)
        to = split_addresses(self.email_to.text())
        if to != s.email_to:
            changes["email.to"] = list(to) or None
        password = self.smtp_password.text()
        if password and not self.email_user.text().strip():
            return translate("SettingsDialog", "Enter the SMTP user first: the password is stored under it.")

        schedule, crons = self.schedules.plan()
        changes.update(schedule)

        text_change("sync.folder", self.sync_folder, s.sync_folder)
        language = str(self.language.currentData())
        if language != s.language:
            changes["tray.language"] = language
        autostart = None
        if self.autostart.isEnabled() and self.autostart.isChecked() != bool(s.autostart):
            autostart = self.autostart.isChecked()
        return Plan(
            config=changes,
            api_key=api_key,
            smtp_password=password or None,
            autostart=autostart,
            crons=crons,
        )

    @Slot()
    def save(self) -> None:
        """Apply the changes in one background call; close and emit `saved` when it worked."""
        if self.busy:
            return
        invalid = self.schedules.invalid()
        for job_id, row in self.job_rows.items():
            row.error.setVisible(job_id in invalid)
        if invalid:  # marked under its field as it was typed: not saved, not even tried
            self.tabs.setCurrentIndex(2)
            self.job_rows[invalid[0]].edit.setFocus()
            self.show_error(translate("SettingsDialog", "Nothing was saved: a schedule is not valid."))
            return
        plan = self.plan()
        if isinstance(plan, str):
            self.show_error(plan)
            return
        if not plan:
            self._saved(None)
            return
        self._set_busy(True, translate("SettingsDialog", "Saving…"))
        facade = self.facade
        self.ops.run(lambda: apply_plan(facade, plan), self._saved, self._save_failed)

    def _saved(self, _result: object) -> None:
        self._set_busy(False)
        self.api_key.clear()
        self.smtp_password.clear()
        self.saved.emit()
        self.accept()

    def _save_failed(self, exc: BaseException) -> None:
        self._set_busy(False)
        if isinstance(exc, CronError) and exc.job_id in self.job_rows:
            row = self.job_rows[exc.job_id]
            row.error.setText(one_line(exc))
            row.error.show()
            self.tabs.setCurrentIndex(2)
            row.edit.setFocus()
            self.show_error(translate("SettingsDialog", "Nothing was saved: a schedule is not valid."))
            return
        self.show_error(one_line(exc))

    def show_error(self, text: str) -> None:
        """The dialog's one error line; the dialog stays open."""
        log.error("settings: %s", text)
        self.status.setText(text)
        self.status.setStyleSheet(ERROR_STYLE)
        self.failed.emit(text)

    def _set_busy(self, busy: bool, text: str = "") -> None:
        self.busy = busy
        self.save_button.setEnabled(not busy)
        self.cancel_button.setEnabled(not busy)
        self.tabs.setEnabled(not busy)
        self.status.setStyleSheet("")
        self.status.setText(text)

    # -- closing ----------------------------------------------------------------------
    def reject(self) -> None:
        """Cancel; not while a save runs, whose outcome the user must still see."""
        if not self.busy:
            super().reject()

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.busy:
            event.ignore()
        else:
            super().closeEvent(event)
