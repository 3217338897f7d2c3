"""The Settings dialog's Schedules tab: each job's time in plain words (memoryd_desktop.
schedule_editor; cron is the advanced form), a next-run line that follows every edit, the
last run, and a note when installed timers (not the tray) run the jobs. A job without a
timer of its own (the identity rewrite) says that the nightly consolidation runs it once
its time has passed. Also the two label styles every tab uses (a muted note, a hidden
error line), both word-wrapped so no hint is cut in any language.

Its rows are rebuilt on each load, since the jobs come from `facade.schedules()`. A line
that is not valid is marked under its field as it is typed, and `invalid()` lets the
dialog refuse to save; `plan()` reads the edited lines back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QGridLayout, QLabel, QLineEdit, QSizePolicy, QVBoxLayout, QWidget

from memoryd_desktop import texts
from memoryd_desktop.schedule_editor import ScheduleEditor
from memoryd_desktop.settings_plan import Job, Settings

translate = QCoreApplication.translate  # the bare name lupdate recognises

ERROR_STYLE = "color: #b3261e;"
NOTE_STYLE = "color: palette(placeholder-text);"


def note(text: str = "") -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setStyleSheet(NOTE_STYLE)
    # wrapped text needs its height for the width it gets, not one line's
    label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
    return label


def error_label() -> QLabel:
    label = QLabel()
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setStyleSheet(ERROR_STYLE)
    label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
    label.hide()
    return label


def local_time(iso: str | None) -> str:
    """A stored UTC time in the user's zone, written as every window writes a time
    (texts.local_time): the system locale's short format may be neither the UI's
    language (an English "AM" in the Chinese UI) nor readable ("28 11 2026" in C)."""
    if not iso:
        return translate("SettingsDialog", "never")
    return texts.local_time(iso)


def job_label(job_id: str) -> str:
    labels = {
        "consolidate": translate("SettingsDialog", "Nightly consolidation"),
        "digest": translate("SettingsDialog", "Weekly digest"),
        "identity": translate("SettingsDialog", "Identity rewrite"),
        "monthly-report": translate("SettingsDialog", "Monthly report"),
    }
    return labels.get(job_id, job_id)


def iso(when: datetime | None) -> str | None:
    return None if when is None else when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def never_runs(cron: str, when: datetime | None, problem: str | None) -> bool:
    """A well-formed line no date matches ("0 0 31 2 *": 31 February): the job would never
    run, so it is refused like a line that is not valid."""
    return problem is None and bool(cron.strip()) and when is None


@dataclass
class JobRow:
    """The widgets of one job on the Schedules tab; `edit` is the cron line (its advanced form)."""

    job: Job
    editor: ScheduleEditor
    info: QLabel
    error: QLabel

    @property
    def edit(self) -> QLineEdit:
        return self.editor.cron_edit


class ScheduleTab(QWidget):
    """The jobs' times; `fill()` rebuilds them from the loaded settings. `trigger` is core's
    `Memoryd.cron_trigger`: the tray scheduler's own reading of a cron line."""

    def __init__(self, trigger: Callable[[str], Any]) -> None:
        super().__init__()
        self.trigger = trigger
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
        self.zone_note = note(
            translate(
                "SettingsDialog",
                "Times are in this computer's local time. For anything else, choose Advanced "
                "and write a cron line.",
            )
        )
        layout.addWidget(self.zone_note)
        layout.addStretch(1)

    def fill(self, settings: Settings) -> None:
        while self.job_grid.count():
            widget = self.job_grid.takeAt(0).widget()
            if widget is not None:
                widget.deleteLater()
        self.job_rows = {}
        for i, job in enumerate(settings.jobs):
            editor = ScheduleEditor(job.cron, self.trigger)
            row = JobRow(job, editor, note(), error_label())
            editor.edited.connect(lambda job_id=job.id: self.show_row(job_id))
            name = QLabel(job_label(job.id))
            name.setWordWrap(True)
            self.job_grid.addWidget(name, 3 * i, 0, Qt.AlignmentFlag.AlignTop)
            self.job_grid.addWidget(editor, 3 * i, 1)
            self.job_grid.addWidget(row.info, 3 * i + 1, 1)
            self.job_grid.addWidget(row.error, 3 * i + 2, 1)
            self.job_rows[job.id] = row
            self.show_row(job.id)
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

    def show_row(self, job_id: str) -> None:
        """The next run as the line now stands (or why it is not valid), and the last run."""
        row = self.job_rows[job_id]
        when, problem = row.editor.next_run()
        never = never_runs(row.editor.cron(), when, problem)
        lines = []
        if never:
            row.error.setText(translate("SettingsDialog", "This line never runs: no date matches it."))
            row.error.setToolTip("")
        elif problem is not None:
            row.error.setText(
                translate(
                    "SettingsDialog",
                    "Not a valid cron line. It needs five fields, minute hour day month weekday: "
                    "30 2 * * 1 is Mondays at 02:30.",
                )
            )
            row.error.setToolTip(problem)  # core's detail, for whoever wants it
        elif not row.editor.cron().strip():
            lines.append(translate("SettingsDialog", "Empty: the default time is used."))
        else:
            lines.append(self.next_text(row.job, iso(when)))
        row.error.setVisible(problem is not None or never)
        last = self.last_text(row.job)
        if last:
            lines.append(last)
        row.info.setText("\n".join(lines))
        row.info.setVisible(bool(lines))

    def invalid(self) -> list[str]:
        """The jobs whose line is not valid (the dialog refuses to save while any is)."""
        out = []
        for job_id, row in self.job_rows.items():
            when, problem = row.editor.next_run()
            if problem is not None or never_runs(row.editor.cron(), when, problem):
                out.append(job_id)
        return out

    @staticmethod
    def next_text(job: Job, when: str | None) -> str:
        if job.timed:
            return translate("SettingsDialog", "Next run: {when}").format(when=local_time(when))
        return translate(
            "SettingsDialog", "Runs with the nightly consolidation when due (next due: {when})"
        ).format(when=local_time(when))

    @staticmethod
    def last_text(job: Job) -> str:
        if job.last_error:
            return translate("SettingsDialog", "Last run failed: {error}").format(
                error=job.last_error.splitlines()[0] if job.last_error.strip() else job.last_error
            )
        if job.last_success:
            return translate("SettingsDialog", "Last run: {when}").format(when=local_time(job.last_success))
        return ""

    def plan(self) -> tuple[dict[str, Any], dict[str, tuple[str, str]]]:
        """The config changes the edited lines make, and each new line by job id (so a line
        the config check refuses can be marked on its field)."""
        changes: dict[str, Any] = {}
        crons: dict[str, tuple[str, str]] = {}
        for job_id, row in self.job_rows.items():
            cron = " ".join(row.editor.cron().split())
            if cron != row.job.cron:
                changes[f"schedule.{row.job.key}"] = cron or None
                if cron:
                    crons[job_id] = (row.job.key, cron)
        return changes, crons
