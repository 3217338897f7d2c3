"""The Sensitive projects window over a real store: grants through the GrantDialog (a
passphrase scope with no OS keyring, a random-key scope in a real Secret Service), audited
as actor "tray"; a wrong passphrase grants nothing and asks again; revoke and unmark."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument
from pytestqt.qtbot import QtBot

from memoryd.app import Memoryd
from memoryd.sensitive import grants
from memoryd_desktop import live
from memoryd_desktop.grant_dialog import GrantDialog
from memoryd_desktop.ops import Ops
from memoryd_desktop.scopes_window import ScopesWindow
from memoryd_desktop.tray_state import Action
from memoryd_desktop.windows import Windows

PASSPHRASE = "correct horse battery staple"


@pytest.fixture
def errors() -> list[BaseException]:
    return []


@pytest.fixture
def ops(qtbot: QtBot, errors: list[BaseException]) -> Iterator[Ops]:
    ops = Ops(on_error=errors.append)
    yield ops
    qtbot.waitUntil(lambda: not ops.busy, timeout=10_000)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    p = tmp_path / "payroll"
    p.mkdir()
    return p


def _opened(qtbot: QtBot, facade: Memoryd, ops: Ops) -> ScopesWindow:
    window = ScopesWindow(facade, ops)
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.loaded, timeout=10_000):
        window.load()
    window.show()
    return window


def _row(window: ScopesWindow) -> list[str]:
    item = window.tree.topLevelItem(0)
    return [item.text(c) for c in range(window.tree.columnCount())]


def _dialog(window: ScopesWindow) -> GrantDialog:
    window.grant_button.click()
    dialog = window.grant_dialog
    assert dialog is not None and dialog.isVisible()
    return dialog


def test_a_passphrase_scope_is_granted_from_the_dialog(
    qtbot: QtBot, facade: Memoryd, ops: Ops, project: Path, errors: list[BaseException]
) -> None:
    facade.record("fact", "Salary bands", "Band C starts at 80k.", scope_path=project)
    facade.mark_sensitive(project, passphrase=PASSPHRASE)
    window = _opened(qtbot, facade, ops)
    root = str(project.resolve())
    assert _row(window)[:3] == [project.name, root, "Passphrase"] and _row(window)[4] == "Locked"
    assert window.tree.topLevelItem(0).toolTip(0) == root  # the project's folder on hover
    assert not window.revoke_button.isEnabled() and not window.unmark_button.isEnabled()

    dialog = _dialog(window)
    assert dialog.root_label.text() == root and dialog.asker_label.text() == "memoryd tray (you)"
    assert dialog.project == project.name  # the prompt names the project, beside its folder
    assert dialog.passphrase_edit.isVisible()
    assert not window.grant_button.isEnabled()  # one dialog at a time
    dialog.set_duration("session")
    assert not dialog.allow_button.isEnabled()  # no passphrase typed yet

    # A wrong passphrase: an error, nothing granted, the dialog asks again.
    dialog.passphrase_edit.setText("not the passphrase")
    with qtbot.waitSignal(window.failed, timeout=10_000) as failed:
        dialog.allow_button.click()
    assert failed.args == ["wrong passphrase for this scope"]
    assert window.notice.text() == "wrong passphrase for this scope"
    assert dialog.isVisible() and dialog.error_label.text() == "wrong passphrase for this scope"
    assert dialog.passphrase_edit.text() == "" and dialog.result_choice() is None
    assert facade.grants() == []
    (denied,) = facade.audit_events(event_type="access_denied")
    assert denied.actor == "tray" and denied.details_obj["why"] == "wrong passphrase"
    assert facade.audit_events(event_type="grant") == []

    # The right one.
    dialog.passphrase_edit.setText(PASSPHRASE)
    with (
        qtbot.waitSignal(window.loaded, timeout=10_000),
        qtbot.waitSignal(window.changed, timeout=10_000) as changed,
    ):
        dialog.allow_button.click()
    assert changed.args == ["grant", root]
    assert window.grant_dialog is None
    (grant,) = facade.grants()
    assert grant["duration"] == "session" and grant["root"] == root and grant["task"] is None
    (event,) = facade.audit_events(event_type="grant")
    assert event.actor == "tray" and event.details_obj["duration"] == "session"
    assert _row(window)[4].startswith("session, until ")
    assert window.notice.text().startswith(f"Access granted to {root}: session, until ")
    assert "no OS keyring" in window.notice.text()  # the test's keyring is the fail backend
    assert window.revoke_button.isEnabled() and window.unmark_button.isEnabled()

    with (
        qtbot.waitSignal(window.loaded, timeout=10_000),
        qtbot.waitSignal(window.changed, timeout=10_000) as changed,
    ):
        window.revoke_button.click()
    assert changed.args == ["revoke", root]
    assert facade.grants() == [] and _row(window)[4] == "Locked"
    assert window.notice.text() == f"Grants revoked for {root}: 1."
    (revoked,) = facade.audit_events(event_type="revoke")
    assert revoked.actor == "tray" and revoked.details_obj["revoked"] == 1
    assert errors == []


def test_denying_grants_nothing(
    qtbot: QtBot, facade: Memoryd, ops: Ops, project: Path, errors: list[BaseException]
) -> None:
    facade.mark_sensitive(project, passphrase=PASSPHRASE)
    window = _opened(qtbot, facade, ops)
    dialog = _dialog(window)
    dialog.passphrase_edit.setText(PASSPHRASE)
    dialog.deny_button.click()
    assert dialog.result_choice() is None and window.grant_dialog is None
    assert window.grant_button.isEnabled()
    assert facade.grants() == [] and facade.audit_events(event_type="grant") == []
    assert errors == []


def test_a_keyring_scope_gets_a_task_grant_and_is_unmarked(
    qtbot: QtBot,
    secret_service: str,
    facade: Memoryd,
    ops: Ops,
    project: Path,
    errors: list[BaseException],
) -> None:
    facade.record("fact", "Salary bands", "Band C starts at 80k.", scope_path=project)
    facade.mark_sensitive(project)
    window = _opened(qtbot, facade, ops)
    root = str(project.resolve())
    assert _row(window)[2] == "Key in the OS keyring"

    dialog = _dialog(window)
    assert not dialog.passphrase_edit.isVisible()
    dialog.set_duration("task")
    assert not dialog.allow_button.isEnabled()  # a task grant needs the task's name
    dialog.task_edit.setText("year-end")
    with qtbot.waitSignal(window.loaded, timeout=10_000):
        dialog.allow_button.click()
    (grant,) = facade.grants()
    assert (grant["duration"], grant["task"], grant["expires_at"]) == ("task", "year-end", None)
    assert _row(window)[4] == "task “year-end”, until revoked"

    # Unmark asks first: Cancel leaves the scope alone.
    box = window.unmark_selected()
    assert box is not None and box.isVisible()
    box.button(box.StandardButton.Cancel).click()
    assert window.confirm is None and len(facade.sensitive_scopes()) == 1

    box = window.unmark_selected()
    assert box is not None and window.unmark_yes is not None
    with (
        qtbot.waitSignal(window.loaded, timeout=20_000),
        qtbot.waitSignal(window.changed, timeout=20_000) as changed,
    ):
        window.unmark_yes.click()
    assert changed.args == ["unmark", root]
    assert facade.sensitive_scopes() == [] and facade.grants() == []
    assert window.tree.topLevelItemCount() == 0 and window.empty.isVisible()
    assert not window.grant_button.isEnabled()
    (event,) = facade.audit_events(event_type="unmark_sensitive")
    assert event.actor == "tray" and event.details_obj["decrypted"] == 1
    (row,) = facade.list(scopes=[facade.scope(project).hash])
    assert row["title"] == "Salary bands"  # plain again: no grant needed to read it
    assert "Band C" in facade.get(row["slug"]).doc.body
    assert errors == []


def test_unmark_without_a_grant_is_not_offered(
    qtbot: QtBot, facade: Memoryd, ops: Ops, project: Path, errors: list[BaseException]
) -> None:
    facade.mark_sensitive(project, passphrase=PASSPHRASE)
    window = _opened(qtbot, facade, ops)
    assert not window.unmark_button.isEnabled()
    assert window.unmark_button.toolTip().startswith("Grant access first")
    assert errors == []


def test_grant_dialog_on_its_own(qtbot: QtBot) -> None:
    """What the grant broker uses: who asks and what for, the answer, prompt mode."""
    dialog = GrantDialog("/srv/payroll", "0123456789ab", "mcp (claude-code)", False, what="search")
    qtbot.addWidget(dialog)
    assert dialog.as_prompt() is dialog
    assert dialog.windowFlags() & Qt.WindowType.WindowStaysOnTopHint
    dialog.show()
    assert dialog.asker_label.text() == "mcp (claude-code)" and dialog.what_label.text() == "search memories"
    assert dialog.duration() == "once" and dialog.allow_button.isEnabled()
    assert dialog.deny_button.isDefault()
    with qtbot.waitSignal(dialog.rejected, timeout=1000):
        qtbot.keyClick(dialog, Qt.Key.Key_Return)  # Enter alone denies
    assert dialog.result_choice() is None
    dialog.show()

    with qtbot.waitSignal(dialog.accepted, timeout=1000):
        dialog.allow_button.click()
    assert dialog.result_choice() == ("once", None, None)

    dialog.set_duration("task", "  audit  ")
    dialog.show()
    dialog.allow_button.click()
    assert dialog.result_choice() == ("task", "audit", None)

    dialog.show()
    with qtbot.waitSignal(dialog.rejected, timeout=1000):
        dialog.reject()  # Escape, the close button, or Deny
    assert dialog.result_choice() is None


def test_a_folder_named_like_html_reads_as_its_name_on_hover(
    qtbot: QtBot, facade: Memoryd, ops: Ops, tmp_path: Path
) -> None:
    """Qt renders a tooltip that looks like HTML as rich text; the folder's tooltip must
    show `<img src=x>` as written."""
    folder = tmp_path / "<img src=x>"
    folder.mkdir()
    facade.record("fact", "Odd", "Named like markup.", scope_path=folder)
    facade.mark_sensitive(folder, passphrase=PASSPHRASE)
    window = _opened(qtbot, facade, ops)
    tip = window.tree.topLevelItem(0).toolTip(0)
    assert "<img" not in tip, tip
    doc = QTextDocument()
    doc.setHtml(tip)
    assert doc.toPlainText() == str(folder.resolve())


# -- following the grants live (issue 22 item 8) ---------------------------------------


@pytest.fixture
def windows(qtbot: QtBot, facade: Memoryd, ops: Ops) -> Iterator[Windows]:
    made = Windows(facade, ops)
    yield made
    made.close_all()


def _open_scopes(qtbot: QtBot, windows: Windows) -> ScopesWindow:
    window = windows.get(Action.SCOPES)
    assert isinstance(window, ScopesWindow)
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.loaded, timeout=10_000):
        windows.open(Action.SCOPES)
    return window


def test_a_grant_given_elsewhere_shows_at_once_and_its_expiry_relocks(
    qtbot: QtBot,
    facade: Memoryd,
    ops: Ops,
    windows: Windows,
    project: Path,
    errors: list[BaseException],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A grant through core (as the command line gives one) appears without Refresh, and
    one that runs out while the window is open shows "Locked" again, by a timer armed to
    its end (not a poll)."""
    monkeypatch.setitem(grants.DURATIONS, "once", timedelta(seconds=3))
    facade.mark_sensitive(project, passphrase=PASSPHRASE)
    window = _open_scopes(qtbot, windows)
    assert _row(window)[4] == "Locked"
    assert not windows.grant_watch.expiry.isActive()  # nothing to run out

    facade.grant(project, duration="once", passphrase=PASSPHRASE, in_tray=True, actor="cli")
    qtbot.waitUntil(lambda: _row(window)[4].startswith("once, until "), timeout=5_000)
    assert window.revoke_button.isEnabled()
    qtbot.waitUntil(windows.grant_watch.expiry.isActive, timeout=5_000)
    timer = windows.grant_watch.expiry
    assert timer.isSingleShot() and 0 < timer.remainingTime() <= 3_000 + live.PAST_EXPIRY_MS

    qtbot.waitUntil(lambda: _row(window)[4] == "Locked", timeout=8_000)
    assert facade.grants() == [] and not window.revoke_button.isEnabled()
    assert not windows.grant_watch.expiry.isActive()
    assert errors == []


def test_a_revoke_elsewhere_locks_the_open_window(
    qtbot: QtBot, facade: Memoryd, ops: Ops, windows: Windows, project: Path, errors: list[BaseException]
) -> None:
    facade.mark_sensitive(project, passphrase=PASSPHRASE)
    facade.grant(project, duration="session", passphrase=PASSPHRASE, in_tray=True)
    window = _open_scopes(qtbot, windows)
    assert _row(window)[4].startswith("session, until ")
    qtbot.waitUntil(windows.grant_watch.expiry.isActive, timeout=5_000)  # eight hours ahead
    assert windows.grant_watch.expiry.remainingTime() > 60_000

    assert facade.revoke(project, actor="cli") == 1
    qtbot.waitUntil(lambda: _row(window)[4] == "Locked", timeout=5_000)
    qtbot.waitUntil(lambda: not windows.grant_watch.expiry.isActive(), timeout=5_000)
    assert errors == []


def test_a_change_from_another_window_reloads_the_open_one(
    qtbot: QtBot, facade: Memoryd, ops: Ops, windows: Windows, project: Path, errors: list[BaseException]
) -> None:
    """Marked from the browser (its `changed`) or by a tray job (`store_changed`): the open
    window lists the new sensitive project; a hidden one is left to load when opened."""
    window = _open_scopes(qtbot, windows)
    assert window.tree.topLevelItemCount() == 0
    facade.mark_sensitive(project, passphrase=PASSPHRASE)
    with qtbot.waitSignal(window.loaded, timeout=10_000):
        windows.store_changed(Action.SEARCH)
    assert _row(window)[0] == project.name

    with qtbot.assertNotEmitted(window.loaded, wait=300):
        windows.store_changed(Action.SCOPES)  # its own change: it has read again already
    window.hide()
    with qtbot.assertNotEmitted(window.loaded, wait=300):
        windows.store_changed()
    assert errors == []


def test_the_person_sends_a_project_to_the_llm_and_keeps_it_here_again(
    qtbot: QtBot,
    secret_service: str,  # the consent is kept in the OS keyring
    facade: Memoryd,
    ops: Ops,
    project: Path,
    errors: list[BaseException],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The window's yes is the person's (no PIN, no passphrase, as for a grant in it): the
    question names the folder and where its sessions would go; Cancel sends nothing."""
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    facade.mark_sensitive(project, passphrase=PASSPHRASE)
    window = _opened(qtbot, facade, ops)
    root = str(project.resolve())
    assert _row(window)[5] == "Here (rules)" and window.llm_button.text() == "Score with the LLM…"

    box = window.llm_selected()
    assert box is not None and box.isVisible() and not window.llm_button.isEnabled()
    assert box.text() == f"Send the sessions of {root} to anthropic https://api.anthropic.com?"
    box.button(box.StandardButton.Cancel).click()
    assert window.llm_confirm is None and facade.llm_consent(project) is None

    box = window.llm_selected()
    assert box is not None and window.llm_yes is not None
    with (
        qtbot.waitSignal(window.loaded, timeout=20_000),
        qtbot.waitSignal(window.changed, timeout=20_000) as changed,
    ):
        window.llm_yes.click()
    assert changed.args == ["llm", root]
    assert _row(window)[5] == "anthropic https://api.anthropic.com"
    assert window.llm_button.text() == "Keep sessions here"
    (event,) = facade.audit_events(event_type="llm_allowed")
    assert event.actor == "tray" and event.details_obj["by"] == "tray"

    with qtbot.waitSignal(window.loaded, timeout=20_000):
        window.llm_button.click()
    assert facade.llm_consent(project) is None and _row(window)[5] == "Here (rules)"
    assert [e.actor for e in facade.audit_events(event_type="llm_withdrawn")] == ["tray"]
    assert errors == []
