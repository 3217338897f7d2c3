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
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QCoreApplication, QDateTime, QLocale, Qt, Signal, Slot
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
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
from memoryd.errors import MemorydError, UsageError
from memoryd_desktop.ops import Ops

log = logging.getLogger("memoryd.tray")
translate = QCoreApplication.translate  # the bare name lupdate recognises

ACTOR = "tray"
PROVIDERS = ("rules", "anthropic", "openai", "ollama")
KEYED_PROVIDERS = ("anthropic", "openai")  # the others take no API key
NEEDS_MODEL = ("openai", "ollama")  # the default model is an Anthropic one
SECURITY = ("starttls", "ssl", "none")
LANGUAGES = ("system", "en", "zh_CN")
DEFAULT_PORT = 587
ERROR_STYLE = "color: #b3261e;"
NOTE_STYLE = "color: palette(placeholder-text);"


# -- what the dialog reads ------------------------------------------------------------
@dataclass(frozen=True)
class Job:
    """One scheduled job as `facade.schedules()` describes it."""

    id: str
    key: str
    cron: str
    next_run: str | None = None
    last_run: str | None = None
    last_success: str | None = None
    last_error: str | None = None


@dataclass(frozen=True)
class Settings:
    """The values the form starts from; a save writes only what differs from them."""

    provider: str = "anthropic"
    model: str = ""
    keys_stored: frozenset[str] = frozenset()
    email_host: str = ""
    email_port: int = DEFAULT_PORT
    email_security: str = "starttls"
    email_user: str = ""
    email_from: str = ""
    email_to: tuple[str, ...] = ()
    jobs: tuple[Job, ...] = ()
    jobs_error: str = ""  # config.toml's [schedule] cannot be read (edited by hand)
    timers: tuple[str, ...] = ()
    sync_folder: str = ""
    autostart: bool | None = None  # None: this install cannot start memoryd at login
    language: str = "system"


def _dotted(raw: Mapping[str, Any], key: str) -> Any:
    """The value at "section.key" in config.toml's parsed tables, or None."""
    node: Any = raw
    for part in key.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def read_settings(facade: Memoryd) -> Settings:
    """Everything the form shows; runs on the Ops thread (keyring and ledger reads)."""
    cfg = facade.config
    try:
        timers = tuple(facade.timers_installed())
    except ImportError:  # no `setup auto-install` in this install: the tray runs the jobs
        timers = ()
    try:
        autostart: bool | None = bool(facade.autostart_enabled())
    except ImportError:
        autostart = None
    jobs: tuple[Job, ...] = ()
    jobs_error = ""
    try:
        rows = facade.schedules()
    except UsageError as exc:  # the other tabs stay usable; the error says what to fix
        jobs_error = one_line(exc)
    else:
        jobs = tuple(Job(**{k: row.get(k) for k in Job.__dataclass_fields__ if k in row}) for row in rows)
    folder = _dotted(cfg.raw, "sync.folder")
    language = _dotted(cfg.raw, "tray.language")
    return Settings(
        provider=cfg.llm.provider,
        model=cfg.llm.model,
        keys_stored=frozenset(p for p in KEYED_PROVIDERS if facade.api_key_stored(p)),
        email_host=cfg.email.host or "",
        email_port=cfg.email.port,
        email_security=cfg.email.security,
        email_user=cfg.email.user or "",
        email_from=cfg.email.from_addr or "",
        email_to=tuple(cfg.email.to),
        jobs=jobs,
        jobs_error=jobs_error,
        timers=timers,
        sync_folder=folder if isinstance(folder, str) else "",
        autostart=autostart,
        language=language if isinstance(language, str) else "system",
    )


# -- what a save does -----------------------------------------------------------------
@dataclass(frozen=True)
class Plan:
    """The changes one Save makes, worked out on the GUI thread, applied on the Ops thread."""

    config: dict[str, Any] = field(default_factory=dict)
    api_key: tuple[str, str | None] | None = None  # (provider, key); key None deletes
    smtp_password: str | None = None
    autostart: bool | None = None
    crons: dict[str, tuple[str, str]] = field(default_factory=dict)  # job id -> (key, cron)

    def __bool__(self) -> bool:
        return bool(self.config or self.api_key or self.smtp_password or self.autostart is not None)


class CronError(Exception):
    """A schedule line the config check refused, tied to its job so the form marks the field."""

    def __init__(self, job_id: str, message: str) -> None:
        super().__init__(message)
        self.job_id = job_id


def _blame_cron(exc: UsageError, crons: Mapping[str, tuple[str, str]]) -> Exception:
    """The config check names a bad line by its text (or its key); find the field it came from."""
    text = str(exc)
    for job_id, (key, cron) in crons.items():
        if repr(cron) in text or f"[schedule] {key} " in text:
            return CronError(job_id, one_line(exc))
    return exc


def apply_plan(facade: Memoryd, plan: Plan) -> None:
    """Save in an order that can be put back: login start, config.toml, then the keyring
    (which cannot be read back, so it goes last). Runs on the Ops thread."""
    undo: list[Callable[[], Any]] = []
    try:
        if plan.autostart is not None:
            on = plan.autostart
            facade.set_autostart(on, actor=ACTOR)
            undo.append(lambda: facade.set_autostart(not on, actor=ACTOR))
        if plan.config:
            before = {key: _dotted(facade.config.raw, key) for key in plan.config}
            try:
                facade.update_config(plan.config)
            except UsageError as exc:
                raise _blame_cron(exc, plan.crons) from None
            undo.append(lambda: facade.update_config(before))
        if plan.api_key is not None:
            provider, key = plan.api_key
            facade.set_api_key(provider, key, actor=ACTOR)
        if plan.smtp_password:
            facade.set_smtp_password(plan.smtp_password, actor=ACTOR)
    except Exception:
        for step in reversed(undo):
            try:
                step()
            except Exception:  # the original error is the one to show
                log.exception("could not undo part of a failed settings save")
        raise


def one_line(exc: BaseException) -> str:
    """Our errors already speak to the user; others also name their type. First line only."""
    text = str(exc) if isinstance(exc, MemorydError | CronError) else f"{type(exc).__name__}: {exc}"
    return (text.strip().splitlines() or [type(exc).__name__])[0]


def split_addresses(text: str) -> tuple[str, ...]:
    """ "a@x, b@y" -> ("a@x", "b@y"); blanks dropped."""
    return tuple(part.strip() for part in text.split(",") if part.strip())


def local_time(iso: str | None) -> str:
    """A stored UTC time shown in the user's zone and locale."""
    if not iso:
        return translate("SettingsDialog", "never")
    when = QDateTime.fromString(iso, Qt.DateFormat.ISODate)
    if not when.isValid():
        return iso
    return QLocale().toString(when.toLocalTime(), QLocale.FormatType.ShortFormat)


def provider_label(name: str) -> str:
    labels = {
        "rules": translate("SettingsDialog", "Rules only (no LLM)"),
        "anthropic": translate("SettingsDialog", "Anthropic"),
        "openai": translate("SettingsDialog", "OpenAI"),
        "ollama": translate("SettingsDialog", "Ollama (local)"),
    }
    return labels.get(name, name)


def job_label(job_id: str) -> str:
    labels = {
        "decay-sweep": translate("SettingsDialog", "Decay sweep"),
        "digest": translate("SettingsDialog", "Weekly digest"),
        "identity": translate("SettingsDialog", "Identity rewrite"),
        "monthly-report": translate("SettingsDialog", "Monthly report"),
    }
    return labels.get(job_id, job_id)


def _note(text: str = "") -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setStyleSheet(NOTE_STYLE)
    return label


def _error_label() -> QLabel:
    label = QLabel()
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setStyleSheet(ERROR_STYLE)
    label.hide()
    return label


@dataclass
class JobRow:
    """The widgets of one job on the Schedules tab."""

    job: Job
    edit: QLineEdit
    info: QLabel
    error: QLabel


# -- the dialog -----------------------------------------------------------------------
class SettingsDialog(QDialog):
    """Load with `load()` (the constructor starts it), edit, `save()`; `saved` on success.

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
        self.key_status = _note()

        tab = QWidget()
        form = QFormLayout(tab)
        form.addRow(translate("SettingsDialog", "Provider:"), self.provider)
        form.addRow(translate("SettingsDialog", "Model:"), self.model)
        form.addRow(translate("SettingsDialog", "API key:"), key_row)
        form.addRow("", self.key_status)
        form.addRow(
            "",
            _note(translate("SettingsDialog", "API keys are kept in the OS keyring, never in config.toml.")),
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
            _note(
                translate(
                    "SettingsDialog",
                    "The weekly digest is mailed here. The password is kept in the OS keyring.",
                )
            ),
        )
        return tab

    def _schedule_tab(self) -> QWidget:
        self.timers_note = _note()
        self.timers_note.hide()
        self.jobs_error = _error_label()
        self.job_grid = QGridLayout()
        self.job_grid.setColumnStretch(1, 1)
        self.job_rows: dict[str, JobRow] = {}
        tab = QWidget()
        layout = QVBoxLayout(tab)
        layout.addWidget(self.timers_note)
        layout.addWidget(self.jobs_error)
        layout.addLayout(self.job_grid)
        layout.addWidget(
            _note(
                translate(
                    "SettingsDialog",
                    "Times are cron lines in local time: minute hour day month weekday. "
                    "Empty means the default time.",
                )
            )
        )
        layout.addStretch(1)
        return tab

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
        form.addRow("", _note(translate("SettingsDialog", "Leave it empty to stop syncing.")))
        return tab

    def _general_tab(self) -> QWidget:
        self.autostart = QCheckBox(translate("SettingsDialog", "Start memoryd when I log in"))
        self.autostart_note = _note(
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
            "", _note(translate("SettingsDialog", "A new language applies the next time memoryd starts."))
        )
        return tab

    # -- loading ----------------------------------------------------------------------
    def load(self) -> None:
        """Read the current values in the background; `loaded` follows."""
        self._set_busy(True, translate("SettingsDialog", "Reading settings…"))
        facade = self.facade
        self.ops.run(lambda: read_settings(facade), self._fill, self._load_failed)

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
            self._fill_jobs(settings)
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

    def _fill_jobs(self, settings: Settings) -> None:
        while self.job_grid.count():
            widget = self.job_grid.takeAt(0).widget()
            if widget is not None:
                widget.deleteLater()
        self.job_rows = {}
        for i, job in enumerate(settings.jobs):
            edit = QLineEdit(job.cron)
            edit.setPlaceholderText(translate("SettingsDialog", "minute hour day month weekday"))
            info = _note(self._job_info(job))
            error = _error_label()
            edit.textEdited.connect(error.hide)
            self.job_grid.addWidget(QLabel(job_label(job.id)), 3 * i, 0)
            self.job_grid.addWidget(edit, 3 * i, 1)
            self.job_grid.addWidget(info, 3 * i + 1, 1)
            self.job_grid.addWidget(error, 3 * i + 2, 1)
            self.job_rows[job.id] = JobRow(job, edit, info, error)
        if settings.timers:
            self.timers_note.setText(
                translate(
                    "SettingsDialog",
                    "These jobs are run by the timers `memoryd setup auto-install` installed "
                    "({timers}), not by the tray.",
                ).format(timers=", ".join(settings.timers))
            )
        self.timers_note.setVisible(bool(settings.timers))
        self.jobs_error.setText(settings.jobs_error)
        self.jobs_error.setVisible(bool(settings.jobs_error))

    @staticmethod
    def _job_info(job: Job) -> str:
        text = translate("SettingsDialog", "Next run: {when}").format(when=local_time(job.next_run))
        if job.last_error:
            text += "\n" + translate("SettingsDialog", "Last run failed: {error}").format(
                error=job.last_error.splitlines()[0] if job.last_error.strip() else job.last_error
            )
        elif job.last_success:
            text += "\n" + translate("SettingsDialog", "Last run: {when}").format(
                when=local_time(job.last_success)
            )
        return text

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

        crons: dict[str, tuple[str, str]] = {}
        for job_id, row in self.job_rows.items():
            cron = " ".join(row.edit.text().split())
            if cron != row.job.cron:
                changes[f"schedule.{row.job.key}"] = cron or None
                if cron:
                    crons[job_id] = (row.job.key, cron)

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
        for row in self.job_rows.values():
            row.error.hide()
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
