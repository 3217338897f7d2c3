"""The Settings window over a real facade and config.toml: secrets reach only the OS keyring
(a real Secret Service where it matters), bad values save nothing, comments survive."""

from __future__ import annotations

import contextlib
import re
import tomllib
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import keyring
import pytest
import pytestqt.exceptions
from PySide6.QtCore import QLocale, Qt, QTime
from PySide6.QtWidgets import QApplication, QComboBox, QLabel, QLineEdit, QWidget
from pytestqt.qtbot import QtBot

from memoryd.app import Memoryd
from memoryd_desktop import texts
from memoryd_desktop.ops import Ops
from memoryd_desktop.schedule_editor import CRON, DAILY, MONTHLY, WEEKLY, Choice
from memoryd_desktop.settings_dialog import SettingsDialog
from memoryd_desktop.settings_plan import Plan
from memoryd_desktop.settings_schedules import local_time
from memoryd_desktop.tray_state import Action
from memoryd_desktop.windows import Windows

KEY = "sk-ant-test-XYZ0123456789abcdefSECRET"
SMTP_PASSWORD = "smtp-pass-Q7w8e9r0-SECRET"
WAIT_MS = 15_000


@pytest.fixture(autouse=True)
def no_os_integration(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads the machine's timers or login items, nor changes them, unless it says so
    (those modules ask systemctl, crontab and launchctl; the dialog only needs the facade)."""

    def untouched(self: Memoryd, on: bool, *, actor: str = "cli") -> None:
        raise AssertionError("set_autostart called by a test that did not expect it")

    monkeypatch.setattr(Memoryd, "timers_installed", lambda self: [])
    monkeypatch.setattr(Memoryd, "autostart_enabled", lambda self: False)
    monkeypatch.setattr(Memoryd, "set_autostart", untouched)


@pytest.fixture
def ops() -> Iterator[Ops]:
    def unexpected(exc: BaseException) -> None:
        raise AssertionError(f"a call without its own error path failed: {exc!r}")

    ops = Ops(on_error=unexpected)
    yield ops
    assert ops.wait(WAIT_MS)


@pytest.fixture
def config(tmp_path: Path) -> Path:
    return tmp_path / "config.toml"  # where the desktop conftest points MEMORYD_CONFIG


def _open(qtbot: QtBot, facade: Memoryd, ops: Ops) -> SettingsDialog:
    dialog = SettingsDialog(facade, ops)
    qtbot.addWidget(dialog)
    dialog.show()
    with qtbot.waitSignal(dialog.loaded, timeout=WAIT_MS):
        pass  # the answer is queued: it can only arrive once the event loop runs
    assert dialog.save_button.isEnabled()
    return dialog


def _save(qtbot: QtBot, dialog: SettingsDialog) -> str | None:
    """Click Save; None once `saved` came, else the error line `failed` carried."""
    outcome: list[str | None] = []
    dialog.saved.connect(lambda: outcome.append(None))
    dialog.failed.connect(outcome.append)
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(outcome), timeout=WAIT_MS)
    return outcome[0]


def _type(qtbot: QtBot, edit: QLineEdit, text: str) -> None:
    """Replace a field's text the way a user does (textEdited fires)."""
    edit.selectAll()
    qtbot.keyClick(edit, Qt.Key.Key_Delete)
    qtbot.keyClicks(edit, text)


def _choose(combo: QComboBox, value: object) -> None:
    index = combo.findData(value)
    assert index >= 0, value
    combo.setCurrentIndex(index)


def _files_containing(root: Path, secret: str) -> list[Path]:
    needle = secret.encode()
    return [p for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


def _toml(path: Path) -> dict[str, Any]:
    return tomllib.loads(path.read_text(encoding="utf-8"))


def test_settings_save_the_key_to_the_keyring_and_not_to_disk(
    qtbot: QtBot, secret_service: str, ops: Ops, config: Path, tmp_path: Path, home: Path
) -> None:
    config.write_text('# chosen by hand\n[llm]\nprovider = "rules"\n', encoding="utf-8")
    facade = Memoryd()
    dialog = _open(qtbot, facade, ops)
    assert not dialog.api_key.isEnabled()  # the rules take no key
    assert dialog.key_status.text() == "Rules only (no LLM) takes no API key."

    _choose(dialog.provider, "anthropic")
    assert dialog.api_key.isEnabled() and not dialog.remove_key.isEnabled()
    assert dialog.api_key.echoMode() is QLineEdit.EchoMode.Password
    assert dialog.key_status.text() == "No key stored yet."
    _type(qtbot, dialog.api_key, KEY)
    assert _save(qtbot, dialog) is None
    assert not dialog.isVisible()

    assert keyring.get_password("memoryd-llm", "anthropic") == KEY
    assert home.is_dir()  # the audit line went into the data folder...
    assert _files_containing(tmp_path, KEY) == []  # ...and the key to no file at all
    text = config.read_text(encoding="utf-8")
    assert text.startswith("# chosen by hand\n")
    assert _toml(config)["llm"]["provider"] == "anthropic"
    assert facade.config.llm.provider == "anthropic"

    # Opened again: the key shows as stored; "Remove key" with an empty field deletes it.
    again = _open(qtbot, facade, ops)
    assert again.key_status.text() == "A key is stored in the OS keyring."
    assert again.api_key.text() == ""
    qtbot.mouseClick(again.remove_key, Qt.MouseButton.LeftButton)
    assert again.key_status.text() == "The stored key will be removed when you save."
    assert _save(qtbot, again) is None
    assert keyring.get_password("memoryd-llm", "anthropic") is None
    assert _toml(config)["llm"]["provider"] == "anthropic"


def test_without_a_keyring_saving_a_key_shows_the_error_and_writes_nothing(
    qtbot: QtBot, ops: Ops, facade: Memoryd, config: Path, tmp_path: Path
) -> None:
    dialog = _open(qtbot, facade, ops)
    _type(qtbot, dialog.api_key, KEY)

    error = _save(qtbot, dialog)

    assert error is not None and error.startswith("no OS keyring to hold the anthropic API key")
    assert "\n" not in error and dialog.status.text() == error
    assert dialog.isVisible() and dialog.save_button.isEnabled()
    assert not config.exists()
    assert _files_containing(tmp_path, KEY) == []


def test_a_failed_key_puts_the_config_back(
    qtbot: QtBot, ops: Ops, config: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Provider, model and login start changed with a key; the keyring step fails: all undone."""
    before = '# mine\n[llm]\nprovider = "rules"  # no LLM for now\n'
    config.write_text(before, encoding="utf-8")
    facade = Memoryd()
    calls: list[tuple[bool, str]] = []
    monkeypatch.setattr(facade, "autostart_enabled", lambda: False)
    monkeypatch.setattr(facade, "set_autostart", lambda on, actor: calls.append((on, actor)))
    dialog = _open(qtbot, facade, ops)
    _choose(dialog.provider, "openai")
    assert dialog.model.text() == ""  # an Anthropic model name would not fit
    assert _save(qtbot, dialog) == "Enter the model OpenAI should use."
    _type(qtbot, dialog.model, "gpt-4o-mini")
    _type(qtbot, dialog.api_key, "sk-openai-test-123")
    dialog.autostart.setChecked(True)

    error = _save(qtbot, dialog)

    assert error is not None and error.startswith("no OS keyring to hold the openai API key")
    assert config.read_text(encoding="utf-8") == before
    assert facade.config.llm.provider == "rules"
    assert calls == [(True, "tray"), (False, "tray")]


def test_a_bad_cron_line_is_refused_next_to_its_field_and_a_good_one_is_saved(
    qtbot: QtBot, ops: Ops, config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config.write_text('# when things run\n[schedule]\ndigest = "0 9 * * 1"  # Monday\n', encoding="utf-8")
    facade = Memoryd()

    def no_timers() -> list[str]:
        raise ModuleNotFoundError("No module named 'memoryd.agents.timers'")

    monkeypatch.setattr(facade, "timers_installed", no_timers)
    dialog = _open(qtbot, facade, ops)
    assert list(dialog.job_rows) == ["consolidate", "digest", "identity", "monthly-report"]
    assert dialog.timers_note.isHidden()
    dialog.tabs.setCurrentIndex(2)
    row = dialog.job_rows["digest"]
    assert row.editor.choice() == Choice(WEEKLY, 9, 0, weekday=1)  # opens in the plain form
    assert row.edit.isHidden() and row.info.text().startswith("Next run: ")

    _choose(row.editor.kind, CRON)  # Advanced: the line, to edit from
    assert row.edit.isVisible() and row.edit.text() == "0 9 * * 1" and row.editor.weekday.isHidden()
    _type(qtbot, row.edit, "0 25 * * 1")
    qtbot.waitUntil(row.error.isVisible, timeout=WAIT_MS)  # said as it is typed
    assert row.error.text().startswith("Not a valid cron line.") and "\n" not in row.error.text()
    assert "schedule '0 25 * * 1' is not a valid cron line" in row.error.toolTip()
    assert "Next run" not in row.info.text()
    _type(qtbot, dialog.email_host, "smtp.example.com")  # saved only with a good schedule
    before = config.read_bytes()
    error = _save(qtbot, dialog)

    assert error == "Nothing was saved: a schedule is not valid."
    assert not row.error.isHidden()
    assert dialog.job_rows["identity"].error.isHidden()
    assert dialog.tabs.currentIndex() == 2 and dialog.isVisible()
    assert config.read_bytes() == before

    _type(qtbot, row.edit, "30  8 * * mon-fri")
    qtbot.waitUntil(row.error.isHidden, timeout=WAIT_MS)
    assert row.info.text().startswith("Next run: ")
    assert _save(qtbot, dialog) is None

    digest = next(j for j in facade.schedules() if j["id"] == "digest")
    assert digest["cron"] == "30 8 * * mon-fri"
    text = config.read_text(encoding="utf-8")
    assert text.startswith("# when things run\n")
    assert _toml(config)["email"]["host"] == "smtp.example.com"
    assert _toml(config)["schedule"] == {"digest": "30 8 * * mon-fri"}

    again = _open(qtbot, facade, ops)
    assert again.job_rows["digest"].editor.advanced()  # not a plain choice: opens as cron
    assert again.job_rows["digest"].edit.text() == "30 8 * * mon-fri"


def test_a_cron_line_that_never_runs_is_refused(
    qtbot: QtBot, ops: Ops, config: Path, facade: Memoryd
) -> None:
    """31 February: a well-formed line that no date matches would leave the job never run."""
    dialog = _open(qtbot, facade, ops)
    dialog.tabs.setCurrentIndex(2)
    row = dialog.job_rows["digest"]
    _choose(row.editor.kind, CRON)
    _type(qtbot, row.edit, "0 0 31 2 *")
    qtbot.waitUntil(row.error.isVisible, timeout=WAIT_MS)
    assert row.error.text() == "This line never runs: no date matches it."
    assert "Next run" not in row.info.text()
    assert dialog.schedules.invalid() == ["digest"]
    error = _save(qtbot, dialog)
    assert error == "Nothing was saved: a schedule is not valid."
    assert not config.exists() or "31 2" not in config.read_text(encoding="utf-8")


def test_the_jobs_come_from_core_and_identity_runs_with_the_consolidation(
    qtbot: QtBot, ops: Ops, config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rows are core's jobs, labelled; the identity rewrite has no timer of its own, so
    its row says the nightly consolidation runs it, and its time can still be changed."""
    monkeypatch.setenv("TZ", "UTC")
    monkeypatch.setenv("LANG", "C")
    facade = Memoryd()
    dialog = _open(qtbot, facade, ops)
    assert [r["id"] for r in facade.schedules()] == list(dialog.job_rows)
    labels = {
        dialog.job_grid.itemAtPosition(3 * i, 1).widget(): dialog.job_grid.itemAtPosition(3 * i, 0).widget()
        for i in range(len(dialog.job_rows))
    }
    assert {job_id: labels[row.editor].text() for job_id, row in dialog.job_rows.items()} == {
        "consolidate": "Nightly consolidation",
        "digest": "Weekly digest",
        "identity": "Identity rewrite",
        "monthly-report": "Monthly report",
    }
    identity = dialog.job_rows["identity"]
    assert not identity.job.timed and identity.editor.isEnabled()
    assert identity.info.text().startswith("Runs with the nightly consolidation when due (next due: ")
    for job_id in ("consolidate", "digest", "monthly-report"):
        assert dialog.job_rows[job_id].job.timed
        assert dialog.job_rows[job_id].info.text().startswith("Next run: ")

    assert identity.editor.choice() == Choice(WEEKLY, 2, 0, weekday=0)  # Sundays at 02:00
    _choose(identity.editor.weekday, 6)
    identity.editor.time.setTime(QTime(5, 0))
    assert _save(qtbot, dialog) is None
    assert _toml(config)["schedule"] == {"identity": "0 5 * * 6"}
    assert next(j for j in facade.schedules() if j["id"] == "identity")["cron"] == "0 5 * * 6"


def test_the_old_decay_sweep_key_sets_the_consolidation_until_it_is_changed_here(
    qtbot: QtBot, ops: Ops, config: Path
) -> None:
    """config.toml of an earlier version names the nightly time `decay_sweep`: the row shows
    it, and a line saved here replaces the old key (else clearing the field would keep it)."""
    config.write_text('[schedule]\ndecay_sweep = "30 1 * * *"\n', encoding="utf-8")
    facade = Memoryd()
    dialog = _open(qtbot, facade, ops)
    row = dialog.job_rows["consolidate"]
    assert row.editor.choice() == Choice(DAILY, 1, 30)

    row.editor.time.setTime(QTime(2, 45))
    assert _save(qtbot, dialog) is None
    assert _toml(config)["schedule"] == {"consolidate": "45 2 * * *"}

    again = _open(qtbot, facade, ops)
    row = again.job_rows["consolidate"]
    _choose(row.editor.kind, CRON)
    _type(qtbot, row.edit, "")
    qtbot.waitUntil(lambda: row.info.text() == "Empty: the default time is used.", timeout=WAIT_MS)
    assert _save(qtbot, again) is None
    assert _toml(config).get("schedule", {}) == {}
    assert next(j for j in facade.schedules() if j["id"] == "consolidate")["cron"] == "0 3 * * *"


def test_plain_choices_round_trip_and_an_unchanged_form_saves_nothing(
    qtbot: QtBot, ops: Ops, config: Path
) -> None:
    """Lines that say a plain thing open in its form (however they spell it) and, left
    alone, are not rewritten; any other line opens as cron."""
    config.write_text(
        "[schedule]\n"
        'consolidate = "05 03 * * *"\n'
        'digest = "0 9 * * MON"\n'
        'identity = "*/30 2 * * 0"\n'
        'monthly_report = "0 4 15 * *"\n',
        encoding="utf-8",
    )
    before = config.read_bytes()
    facade = Memoryd()
    dialog = _open(qtbot, facade, ops)
    rows = dialog.job_rows
    assert rows["consolidate"].editor.choice() == Choice(DAILY, 3, 5)
    assert rows["digest"].editor.choice() == Choice(WEEKLY, 9, 0, weekday=1)
    assert rows["digest"].editor.weekday.currentText() == "Monday"
    assert rows["monthly-report"].editor.choice() == Choice(MONTHLY, 4, 0, day=15)
    assert rows["monthly-report"].editor.day.text() == "day 15"
    assert rows["identity"].editor.advanced() and rows["identity"].edit.text() == "*/30 2 * * 0"
    assert dialog.plan() == Plan()
    assert _save(qtbot, dialog) is None
    assert config.read_bytes() == before  # nothing was changed, nothing written

    # a plain choice made from the cron form, and the cron form of a plain one
    again = _open(qtbot, facade, ops)
    identity, digest = again.job_rows["identity"], again.job_rows["digest"]
    _choose(identity.editor.kind, DAILY)
    assert identity.editor.time.time() == QTime(0, 0) and identity.editor.cron() == "0 0 * * *"
    identity.editor.time.setTime(QTime(2, 30))
    _choose(digest.editor.kind, CRON)
    assert digest.edit.text() == "0 9 * * 1" and digest.editor.cron() == "0 9 * * MON"  # same meaning
    assert _save(qtbot, again) is None
    assert _toml(config)["schedule"]["identity"] == "30 2 * * *"
    assert _toml(config)["schedule"]["digest"] == "0 9 * * MON"


def test_the_next_run_follows_each_edit_and_is_the_schedulers_own(
    qtbot: QtBot, ops: Ops, config: Path, facade: Memoryd, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The line under a job moves as the user edits, to the time APScheduler's trigger for
    that line fires (the trigger the tray's scheduler gets after the save)."""
    monkeypatch.setenv("TZ", "UTC")
    dialog = _open(qtbot, facade, ops)
    row = dialog.job_rows["digest"]

    def shown_for(cron: str) -> str:
        nxt = facade.cron_trigger(cron).get_next_fire_time(None, datetime.now(UTC))
        return "Next run: " + local_time(nxt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))

    assert row.info.text().splitlines()[0] == shown_for("0 9 * * 1")
    _choose(row.editor.weekday, 5)
    assert row.info.text().splitlines()[0] == shown_for("0 9 * * 5")
    row.editor.time.setTime(QTime(18, 15))
    assert row.info.text().splitlines()[0] == shown_for("15 18 * * 5")
    _choose(row.editor.kind, MONTHLY)
    row.editor.day.setValue(28)
    assert row.editor.cron() == "15 18 28 * *"
    assert row.info.text().splitlines()[0] == shown_for("15 18 28 * *")
    _choose(row.editor.kind, CRON)
    _type(qtbot, row.edit, "0 */6 * * *")
    qtbot.waitUntil(lambda: row.info.text().splitlines()[0] == shown_for("0 */6 * * *"), timeout=WAIT_MS)
    shown = row.info.text().splitlines()[0]

    assert _save(qtbot, dialog) is None
    trigger = facade.job_triggers()["digest"]  # what JobScheduler schedules
    fires = trigger.get_next_fire_time(None, datetime.now(UTC)).astimezone(UTC)
    assert shown == "Next run: " + local_time(fires.strftime("%Y-%m-%dT%H:%M:%SZ"))


def _clipped(tab: QWidget) -> list[str]:
    """Labels on the tab that show less than their text needs: a one-line label narrower
    than its text, or a wrapped one shorter than its height for its width."""
    out = []
    for label in tab.findChildren(QLabel):
        if not label.isVisible() or not label.text():
            continue
        if label.wordWrap():
            if label.height() < label.heightForWidth(label.width()):
                out.append(f"{label.text()!r}: {label.height()} < {label.heightForWidth(label.width())}")
        elif label.width() < label.sizeHint().width():
            out.append(f"{label.text()!r}: {label.width()} < {label.sizeHint().width()}")
    return out


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_schedule_hints_are_not_cut(
    qtbot: QtBot, qapp: QApplication, ops: Ops, config: Path, facade: Memoryd, language: str
) -> None:
    """Each job's hint is two lines (next run, last run): wrapped and given their height,
    in English and in Chinese, at the dialog's narrowest."""
    from memoryd_desktop import i18n

    # a last run, so the digest's hint has two lines
    facade.run_job("digest", runner="tray", force=True, notification=False)
    installed = i18n.install(qapp, QLocale(language))
    try:
        dialog = _open(qtbot, facade, ops)
        dialog.tabs.setCurrentIndex(2)
        dialog.resize(dialog.minimumSizeHint())
        qtbot.waitUntil(lambda: dialog.job_rows["digest"].info.isVisible(), timeout=WAIT_MS)
        assert len(dialog.job_rows["digest"].info.text().splitlines()) == 2
        # the grid settles its wrapped labels' heights over a few passes of the event loop
        with contextlib.suppress(pytestqt.exceptions.TimeoutError):  # the assert says what is cut
            qtbot.waitUntil(lambda: _clipped(dialog.schedules) == [], timeout=WAIT_MS)
        assert _clipped(dialog.schedules) == []
    finally:
        for translator in installed:
            qapp.removeTranslator(translator)


def test_installed_timers_are_named_as_running_the_jobs(
    qtbot: QtBot, ops: Ops, facade: Memoryd, monkeypatch: pytest.MonkeyPatch
) -> None:
    timers = ["memoryd-digest.timer", "memoryd-identity.timer"]
    monkeypatch.setattr(facade, "timers_installed", lambda: timers)
    dialog = _open(qtbot, facade, ops)
    assert not dialog.timers_note.isHidden()
    assert dialog.timers_note.text() == (
        "These jobs are run by the timers `memoryd setup auto-install` installed "
        "(memoryd-digest.timer, memoryd-identity.timer), not by the tray."
    )


def test_smtp_fields_go_to_config_and_the_password_to_the_keyring(
    qtbot: QtBot, secret_service: str, ops: Ops, facade: Memoryd, config: Path, tmp_path: Path
) -> None:
    dialog = _open(qtbot, facade, ops)
    _type(qtbot, dialog.smtp_password, SMTP_PASSWORD)
    assert _save(qtbot, dialog) == "Enter the SMTP user first: the password is stored under it."
    assert not config.exists()

    _type(qtbot, dialog.email_host, "smtp.example.com")
    dialog.email_port.setValue(465)
    _choose(dialog.email_security, "ssl")
    _type(qtbot, dialog.email_user, "ana@example.com")
    _type(qtbot, dialog.email_from, "memoryd <ana@example.com>")
    _type(qtbot, dialog.email_to, "ana@example.com,  bo@example.com, ")
    assert _save(qtbot, dialog) is None

    assert _toml(config)["email"] == {
        "host": "smtp.example.com",
        "port": 465,
        "security": "ssl",
        "user": "ana@example.com",
        "from_addr": "memoryd <ana@example.com>",
        "to": ["ana@example.com", "bo@example.com"],
    }
    assert facade.config.email.configured
    assert keyring.get_password("memoryd-smtp", "ana@example.com") == SMTP_PASSWORD
    assert _files_containing(tmp_path, SMTP_PASSWORD) == []

    again = _open(qtbot, facade, ops)
    assert again.email_to.text() == "ana@example.com, bo@example.com"
    assert again.email_security.currentData() == "ssl" and again.email_port.value() == 465
    assert again.smtp_password.text() == ""


def test_language_and_sync_folder_are_saved_and_comments_survive(
    qtbot: QtBot, ops: Ops, config: Path, tmp_path: Path
) -> None:
    before = "# my memoryd settings\n[search]\ndefault_limit = 5  # five is plenty\n"
    config.write_text(before, encoding="utf-8")
    facade = Memoryd()
    dialog = _open(qtbot, facade, ops)
    assert [dialog.language.itemText(i) for i in range(dialog.language.count())] == [
        "Follow system",
        "English",
        "简体中文",
    ]
    assert dialog.language.currentData() == "system"
    folder = tmp_path / "Sync" / "memoryd"

    _choose(dialog.language, "zh_CN")
    _type(qtbot, dialog.sync_folder, str(folder))
    assert _save(qtbot, dialog) is None

    text = config.read_text(encoding="utf-8")
    assert text.startswith(before)  # the user's lines, comments included, untouched
    saved = _toml(config)
    assert saved["tray"] == {"language": "zh_CN"}
    assert saved["sync"] == {"folder": str(folder)}
    assert saved["search"] == {"default_limit": 5}

    again = _open(qtbot, facade, ops)
    assert again.language.currentData() == "zh_CN"
    assert again.sync_folder.text() == str(folder)
    _type(qtbot, again.sync_folder, "")
    assert _save(qtbot, again) is None
    assert "folder" not in _toml(config).get("sync", {})
    assert "# five is plenty" in config.read_text(encoding="utf-8")


def test_start_at_login_is_disabled_with_a_note_when_unavailable(
    qtbot: QtBot, ops: Ops, facade: Memoryd, monkeypatch: pytest.MonkeyPatch
) -> None:
    def missing() -> bool:
        raise ModuleNotFoundError("No module named 'memoryd.agents.autostart'")

    monkeypatch.setattr(facade, "autostart_enabled", missing)
    dialog = _open(qtbot, facade, ops)
    assert not dialog.autostart.isEnabled() and not dialog.autostart.isChecked()
    assert not dialog.autostart_note.isHidden()
    assert dialog.autostart_note.text() == "Starting at login is not available in this installation."


def test_start_at_login_is_saved_through_the_facade(
    qtbot: QtBot, ops: Ops, facade: Memoryd, config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[bool, str]] = []
    monkeypatch.setattr(facade, "autostart_enabled", lambda: True)
    monkeypatch.setattr(facade, "set_autostart", lambda on, actor: calls.append((on, actor)))
    dialog = _open(qtbot, facade, ops)
    assert dialog.autostart.isEnabled() and dialog.autostart.isChecked()
    assert dialog.autostart_note.isHidden()

    dialog.autostart.setChecked(False)
    assert _save(qtbot, dialog) is None
    assert calls == [(False, "tray")]
    assert not config.exists()  # nothing else changed, so config.toml was left alone


def test_cancel_saves_nothing(qtbot: QtBot, ops: Ops, facade: Memoryd, config: Path) -> None:
    dialog = _open(qtbot, facade, ops)
    _type(qtbot, dialog.email_host, "smtp.example.com")
    with qtbot.assertNotEmitted(dialog.saved):
        qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible()
    assert not config.exists()


def test_opening_settings_again_keeps_what_was_typed(
    qtbot: QtBot, ops: Ops, facade: Memoryd, config: Path
) -> None:
    """Choosing Settings… while the form is open only raises it; closed, it reads again."""
    windows = Windows(facade, ops)
    dialog = windows.get(Action.SETTINGS)
    assert isinstance(dialog, SettingsDialog)
    qtbot.addWidget(dialog)
    loads: list[object] = []
    dialog.loaded.connect(loads.append)
    with qtbot.waitSignal(dialog.loaded, timeout=WAIT_MS):
        windows.open(Action.SETTINGS)
    _type(qtbot, dialog.email_host, "smtp.example.org")
    dialog.sync_folder.setText("/srv/sync")

    assert windows.open(Action.SETTINGS) is dialog
    assert not dialog.busy  # no read was started over the form
    assert ops.wait(WAIT_MS)
    qtbot.wait(50)
    assert dialog.email_host.text() == "smtp.example.org" and dialog.sync_folder.text() == "/srv/sync"
    assert len(loads) == 1  # one read at the first opening, not two

    qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible()
    with qtbot.waitSignal(dialog.loaded, timeout=WAIT_MS):
        windows.open(Action.SETTINGS)  # cancelled: opened again, it shows what is saved
    assert dialog.email_host.text() == "" and dialog.sync_folder.text() == ""
    assert not config.exists()


def test_a_run_time_is_written_as_every_window_writes_a_time(qapp: QApplication) -> None:
    """Not in the system locale's short form: an English "AM" in the Chinese UI, or
    "28 11 2026" under the C locale."""
    before = QLocale()
    QLocale.setDefault(QLocale("en_US"))
    try:
        shown = local_time("2026-11-28T15:00:00Z")
    finally:
        QLocale.setDefault(before)
    assert shown == texts.local_time("2026-11-28T15:00:00Z")
    assert re.fullmatch(r"2026-11-2[89] \d\d:00", shown), shown
