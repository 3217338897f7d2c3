"""The Settings dialog's Schedules tab: one cron line per job, with its next and last run,
and a note when installed timers (not the tray) run the jobs. A job without a timer of its
own (the identity rewrite) says that the nightly consolidation runs it once its time has
passed. Also the two label styles every tab uses (a muted note, a hidden error line).

Its rows are rebuilt on each load, since the jobs come from `facade.schedules()`; the
dialog reads the edited lines back through `plan()` and marks a refused one itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QCoreApplication, QDateTime, QLocale, Qt
from PySide6.QtWidgets import QGridLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from memoryd_desktop.settings_plan import Job, Settings

translate = QCoreApplication.translate  # the bare name lupdate recognises

ERROR_STYLE = "color: #b3261e;"
NOTE_STYLE = "color: palette(placeholder-text);"


def note(text: str = "") -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setStyleSheet(NOTE_STYLE)
    return label


def error_label() -> QLabel:
    label = QLabel()
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setStyleSheet(ERROR_STYLE)
    label.hide()
    return label


def local_time(iso: str | None) -> str:
    """A stored UTC time shown in the user's zone and locale."""
    if not iso:
        return translate("SettingsDialog", "never")
    when = QDateTime.fromString(iso, Qt.DateFormat.ISODate)
    if not when.isValid():
        return iso
    return QLocale().toString(when.toLocalTime(), QLocale.FormatType.ShortFormat)


def job_label(job_id: str) -> str:
    labels = {
        "consolidate": translate("SettingsDialog", "Nightly consolidation"),
        "digest": translate("SettingsDialog", "Weekly digest"),
        "identity": translate("SettingsDialog", "Identity rewrite"),
        "monthly-report": translate("SettingsDialog", "Monthly report"),
    }
    return labels.get(job_id, job_id)


@dataclass
class JobRow:
    """The widgets of one job on the Schedules tab."""

    job: Job
    edit: QLineEdit
    info: QLabel
    error: QLabel


class ScheduleTab(QWidget):
    """The jobs' cron lines; `fill()` rebuilds them from the loaded settings."""

    def __init__(self) -> None:
        super().__init__()
        self.timers_note = note()
        self.timers_note.hide()
        self.jobs_error = error_label()
        self.job_grid = QGridLayout()
        self.job_grid.setColumnStretch(1, 1)
        self.job_rows: dict[str, JobRow] = {}
        layout = QVBoxLayout(self)
        layout.addWidget(self.timers_note)
        layout.addWidget(self.jobs_error)
        layout.addLayout(self.job_grid)
        layout.addWidget(
            note(
                translate(
                    "SettingsDialog",
                    "Times are cron lines in local time: minute hour day month weekday. "
                    "Empty means the default time.",
                )
            )
        )
        layout.addStretch(1)

    def fill(self, settings: Settings) -> None:
        while self.job_grid.count():
            widget = self.job_grid.takeAt(0).widget()
            if widget is not None:
                widget.deleteLater()
        self.job_rows = {}
        for i, job in enumerate(settings.jobs):
            edit = QLineEdit(job.cron)
            edit.setPlaceholderText(translate("SettingsDialog", "minute hour day month weekday"))
            info = note(self.job_info(job))
            error = error_label()
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
    def job_info(job: Job) -> str:
        if job.timed:
            text = translate("SettingsDialog", "Next run: {when}").format(when=local_time(job.next_run))
        else:
            text = translate(
                "SettingsDialog", "Runs with the nightly consolidation when due (next due: {when})"
            ).format(when=local_time(job.next_run))
        if job.last_error:
            text += "\n" + translate("SettingsDialog", "Last run failed: {error}").format(
                error=job.last_error.splitlines()[0] if job.last_error.strip() else job.last_error
            )
        elif job.last_success:
            text += "\n" + translate("SettingsDialog", "Last run: {when}").format(
                when=local_time(job.last_success)
            )
        return text

    def plan(self) -> tuple[dict[str, Any], dict[str, tuple[str, str]]]:
        """The config changes the edited lines make, and each new line by job id (so a line
        the config check refuses can be marked on its field)."""
        changes: dict[str, Any] = {}
        crons: dict[str, tuple[str, str]] = {}
        for job_id, row in self.job_rows.items():
            cron = " ".join(row.edit.text().split())
            if cron != row.job.cron:
                changes[f"schedule.{row.job.key}"] = cron or None
                if cron:
                    crons[job_id] = (row.job.key, cron)
        return changes, crons
