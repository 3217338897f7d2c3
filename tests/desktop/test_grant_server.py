"""The grant prompt end to end: the real `memoryd` CLI, in its own process, reads a
sensitive memory without a grant; it asks the tray's QLocalServer, the prompt opens, the
user answers, and the waiting CLI call succeeds (or is refused) within the same call."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import QLocale, Qt
from PySide6.QtWidgets import QAbstractButton, QApplication, QLabel
from pytestqt.qtbot import QtBot

from memoryd.app import Memoryd
from memoryd_desktop import i18n
from memoryd_desktop.grant_server import GrantServer, who
from memoryd_desktop.ops import Ops

PASSPHRASE = "correct horse battery staple"
SECRET_BODY = "The staging database password rotates every Friday."


def _sensitive_memory(facade: Memoryd, tmp_path: Path) -> tuple[Path, str]:
    project = tmp_path / "secret-project"
    project.mkdir()
    facade.record("fact", "Staging rotation", SECRET_BODY, scope_path=project)
    facade.mark_sensitive(project, passphrase=PASSPHRASE)
    rows = facade.list(scopes=[facade.scope(project).hash])
    assert len(rows) == 1 and not facade.grants()
    return project, rows[0]["slug"]


def _cli(*args: str, agent: str | None = None) -> subprocess.Popen[str]:
    env = {**os.environ, **({"MEMORYD_AGENT": agent} if agent else {})}
    return subprocess.Popen(
        [sys.executable, "-m", "memoryd.cli.main", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _server(qtbot: QtBot, facade: Memoryd) -> GrantServer:
    errors: list[BaseException] = []
    ops = Ops(on_error=errors.append)
    server = GrantServer(facade, ops)
    assert server.start(), "the tray could not listen"
    assert Path(server.address).exists()
    assert oct(Path(server.address).parent.stat().st_mode & 0o777) == "0o700"
    return server


def test_allow_from_the_prompt_lets_the_waiting_cli_call_through(
    qtbot: QtBot, facade: Memoryd, tmp_path: Path, secret_service: str
) -> None:
    """The passphrase's key reaches the CLI's process through the OS keyring (a real
    gnome-keyring here), where a grant keeps it for the grant's life."""
    project, slug = _sensitive_memory(facade, tmp_path)
    server = _server(qtbot, facade)
    with qtbot.waitSignal(server.asked, timeout=30_000) as asked:
        proc = _cli("get", slug, agent="claude-code")
    request = asked.args[0]
    assert request["root"] == str(project.resolve()) or request["root"] == str(project)
    assert request["actor"] == "cli" and request["agent"] == "claude-code" and request["what"] == "get"
    assert request["peer_pid"] == proc.pid  # from the kernel, not from what the caller says
    assert who(request) == f"the memoryd command (claude-code), process {proc.pid}"

    dialog = server.pending[0].dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.needs_passphrase
    # the project by its folder's name, the folder beside it and on hover; never its hash,
    # and one term: a sensitive project (issue 22 items 2 and 11)
    texts = [dialog.windowTitle(), *(label.text() for label in dialog.findChildren(QLabel))]
    assert "Allow access to the sensitive project \u201csecret-project\u201d?" in texts
    assert "secret-project" in texts and "Passphrase of this project:" in texts
    assert dialog.project_label.toolTip() == request["root"]
    assert not [t for t in texts if request["scope_hash"] in t or "scope" in t.lower()], texts
    dialog.set_duration("session")
    qtbot.keyClicks(dialog.passphrase_edit, PASSPHRASE)
    with qtbot.waitSignal(server.answered, timeout=30_000) as answered:
        qtbot.mouseClick(dialog.allow_button, Qt.MouseButton.LeftButton)
    assert answered.args[1] is True

    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert SECRET_BODY in out
    grants = facade.grants()
    assert [g["duration"] for g in grants] == ["session"]
    events = facade.audit_events(event_type="grant")
    assert events and events[-1].actor == "tray"
    server.stop()


def test_deny_refuses_the_waiting_cli_call_with_one_line(
    qtbot: QtBot, facade: Memoryd, tmp_path: Path
) -> None:
    _project, slug = _sensitive_memory(facade, tmp_path)
    server = _server(qtbot, facade)
    with qtbot.waitSignal(server.asked, timeout=30_000):
        proc = _cli("get", slug)
    dialog = server.pending[0].dialog
    assert dialog is not None
    with qtbot.waitSignal(server.answered, timeout=10_000) as answered:
        dialog.reject()
    assert answered.args[1] is False

    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 3
    assert out == "" and err.count("\n") == 1 and "refused" in err and "Traceback" not in err
    assert facade.grants() == []
    server.stop()


def test_a_wrong_passphrase_asks_again_and_the_caller_keeps_waiting(
    qtbot: QtBot, facade: Memoryd, tmp_path: Path, secret_service: str
) -> None:
    _project, slug = _sensitive_memory(facade, tmp_path)
    server = _server(qtbot, facade)
    with qtbot.waitSignal(server.asked, timeout=30_000):
        proc = _cli("get", slug)
    dialog = server.pending[0].dialog
    assert dialog is not None
    qtbot.keyClicks(dialog.passphrase_edit, "not the passphrase")
    qtbot.mouseClick(dialog.allow_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.error_label.isVisible(), timeout=30_000)
    assert dialog.error_label.text() == "This passphrase does not open the project. Type it again."
    assert proc.poll() is None  # still waiting for the answer
    assert facade.grants() == []

    qtbot.keyClicks(dialog.passphrase_edit, PASSPHRASE)
    with qtbot.waitSignal(server.answered, timeout=30_000):
        qtbot.mouseClick(dialog.allow_button, Qt.MouseButton.LeftButton)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert SECRET_BODY in out
    server.stop()


def test_a_caller_that_gives_up_closes_its_prompt(qtbot: QtBot, facade: Memoryd, tmp_path: Path) -> None:
    _project, slug = _sensitive_memory(facade, tmp_path)
    server = _server(qtbot, facade)
    with qtbot.waitSignal(server.asked, timeout=30_000):
        proc = _cli("get", slug)
    dialog = server.pending[0].dialog
    assert dialog is not None and dialog.isVisible()
    proc.kill()
    proc.communicate(timeout=30)
    qtbot.waitUntil(lambda: not dialog.isVisible() and not server.pending, timeout=10_000)
    server.stop()


def test_without_the_tray_the_error_names_the_grant_command(facade: Memoryd, tmp_path: Path) -> None:
    _project, slug = _sensitive_memory(facade, tmp_path)
    proc = _cli("get", slug)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 3
    assert "memoryd grant" in err and "--duration once" in err and err.count("\n") == 1


def test_a_random_key_grant_and_the_first_grant_pin_wait_for_the_persons_yes(
    qtbot: QtBot, facade: Memoryd, tmp_path: Path, secret_service: str
) -> None:
    """Issue 18: with the tray running, `memoryd grant` asks its dialog (no PIN, no terminal
    question), and the first grant PIN, once random-key scopes exist, needs the person's
    yes in the tray."""
    project = tmp_path / "secret-project"
    project.mkdir()
    facade.record("fact", "Staging rotation", SECRET_BODY, scope_path=project)
    facade.mark_sensitive(project)  # a random key, and no grant PIN yet
    server = _server(qtbot, facade)

    with qtbot.waitSignal(server.asked, timeout=30_000):
        proc = _cli("grant", str(project), "--duration", "session")
    dialog = server.pending[0].dialog
    assert dialog is not None and not dialog.needs_passphrase
    with qtbot.waitSignal(server.answered, timeout=30_000):
        qtbot.mouseClick(dialog.allow_button, Qt.MouseButton.LeftButton)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and "granted" in out, err
    assert [g["scope_hash"] for g in facade.grants()] == [facade.scope(project).hash]

    pin = subprocess.Popen(
        [sys.executable, "-m", "memoryd.cli.main", "grant-pin", "set"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    with qtbot.waitSignal(server.asked, timeout=30_000) as asked:
        assert pin.stdin is not None
        pin.stdin.write("plum-493817\n")
        pin.stdin.close()
    assert asked.args[0]["op"] == "pin"
    box = server.pending[0].box
    assert box is not None and box.isVisible()
    assert box.windowTitle() == "Set the grant PIN?" and box.textFormat() == Qt.TextFormat.PlainText
    assert "read your sensitive projects without this app" in box.text() and "scope" not in box.text()
    (allow,) = [b for b in box.buttons() if b.text() == "Allow"]
    with qtbot.waitSignal(server.answered, timeout=30_000) as answered:
        qtbot.mouseClick(allow, Qt.MouseButton.LeftButton)
    assert answered.args[1] is True
    assert pin.wait(60) == 0 and pin.stdout is not None and pin.stderr is not None
    out, err = pin.stdout.read(), pin.stderr.read()
    assert pin.returncode == 0 and "grant PIN set" in out, err
    assert facade.grant_pin_status() == {"set": True, "random_scopes": 1, "had_random_scopes": True}


def test_sending_a_sensitive_project_to_the_llm_waits_for_the_persons_yes(
    qtbot: QtBot, facade: Memoryd, tmp_path: Path, secret_service: str, monkeypatch
) -> None:
    """`memoryd allow-llm` with the tray running: the tray names the project and where its
    text would go (core's record and config, not the caller's words), and writes the
    consent itself on Allow; Deny allows nothing."""
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    project = tmp_path / "secret-project"
    project.mkdir()
    facade.record("fact", "Staging rotation", SECRET_BODY, scope_path=project)
    facade.mark_sensitive(project)
    server = _server(qtbot, facade)

    def ask() -> tuple[subprocess.Popen[str], QAbstractButton, QAbstractButton]:
        # an agent's name written as markup (a review, 2026-11-28: an unclosed comment hid
        # the URL, the project and the warning) is shown as the letters it is
        with qtbot.waitSignal(server.asked, timeout=30_000) as asked:
            proc = _cli("allow-llm", str(project), agent="claude-code<i></i>) saves its settings.<!--")
        assert asked.args[0]["op"] == "llm"
        box = server.pending[0].box
        assert box is not None and box.isVisible()
        assert box.windowTitle() == "Send a sensitive project to the LLM?"
        assert box.textFormat() == Qt.TextFormat.PlainText and "<!--" in box.text()
        assert "anthropic https://api.anthropic.com" in box.text() and str(project) in box.text()
        (allow,) = [b for b in box.buttons() if b.text() == "Allow"]
        (deny,) = [b for b in box.buttons() if b.text() == "Deny"]
        assert box.defaultButton() is deny
        return proc, allow, deny

    proc, _allow, deny = ask()
    with qtbot.waitSignal(server.answered, timeout=30_000):
        qtbot.mouseClick(deny, Qt.MouseButton.LeftButton)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 3 and "not allowed" in err and err.count("\n") == 1, err
    assert facade.llm_consent(project) is None

    proc, allow, _deny = ask()
    with qtbot.waitSignal(server.answered, timeout=30_000) as answered:
        qtbot.mouseClick(allow, Qt.MouseButton.LeftButton)
    assert answered.args[1] is True
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and "from now on" in out, err
    consent = facade.llm_consent(project)
    assert consent is not None and consent["endpoint"] == "anthropic https://api.anthropic.com"


def test_the_prompt_speaks_chinese_in_zh_cn(
    qtbot: QtBot, facade: Memoryd, tmp_path: Path, qapp: QApplication, secret_service: str
) -> None:
    """Issue 22 item 5: "用途: search", a "范围" row with a hash and core's English error in
    the Chinese prompt. Every text of it is Chinese now, but for the project's own name and
    folder and the caller's name."""
    installed = i18n.install(qapp, QLocale("zh_CN"))
    try:
        project, slug = _sensitive_memory(facade, tmp_path)
        server = _server(qtbot, facade)
        with qtbot.waitSignal(server.asked, timeout=30_000) as asked:
            proc = _cli("get", slug, agent="codex")
        dialog = server.pending[0].dialog
        assert dialog is not None
        qtbot.keyClicks(dialog.passphrase_edit, "not the passphrase")
        qtbot.mouseClick(dialog.allow_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: dialog.error_label.isVisible(), timeout=30_000)
        assert dialog.error_label.text() == "这个密码短语打不开该项目，请重新输入。"
        widgets = [*dialog.findChildren(QLabel), *dialog.findChildren(QAbstractButton)]
        texts = [dialog.windowTitle(), *(w.text() for w in widgets if w.text())]
        assert "允许访问敏感项目“secret-project”吗？" in texts and "此项目的密码短语：" in texts
        assert "读取一条记忆" in texts
        assert who(asked.args[0]) == f"memoryd 命令（codex），进程 {proc.pid}"
        mine = sorted({str(project), asked.args[0]["root"], "secret-project", "codex"}, key=len)
        english = []
        for text in texts:
            for name in reversed(mine):  # the longest first: the folder before its name
                text = text.replace(name, " ")
            english += [w for w in re.findall(r"[A-Za-z]{3,}", text) if w != "memoryd"]  # the app's name
        assert english == [], texts
        with qtbot.waitSignal(server.answered, timeout=10_000):
            dialog.reject()
        proc.communicate(timeout=60)
        server.stop()
    finally:
        for translator in installed:
            qapp.removeTranslator(translator)
