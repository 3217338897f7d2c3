"""The first-run welcome: what memoryd does, the agents on this machine to connect (core's
`setup`), an optional API key for the OS keyring, and where the sensitive projects and the
weekly review are. Shown at the tray's start until it is finished or skipped; core keeps
that in config.toml ([tray] welcomed), so the desktop writes no file of its own.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from memoryd.app import Memoryd
from memoryd_desktop.ops import Ops
from memoryd_desktop.texts import describe

log = logging.getLogger("memoryd.tray")
translate = QCoreApplication.translate  # the bare name lupdate recognises

AGENT_NAMES = {"claude-code": "Claude Code", "codex": "Codex", "openclaw": "OpenClaw"}
KEY_PROVIDERS = {"anthropic": "Anthropic", "openai": "OpenAI"}


def _label(text: str = "") -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label


def _short(folder: str) -> str:
    """A folder in the home folder as ~/..., as people write it."""
    home = str(Path.home())
    return "~" + folder[len(home) :] if folder.startswith(home + os.sep) else folder


class WelcomeWindow(QWidget):
    """`loaded` once the agents are listed; `connected`, `key_saved` after each action;
    `finished` once core has noted the welcome as done."""

    loaded = Signal()
    connected = Signal()
    key_saved = Signal()
    finished = Signal()

    def __init__(self, facade: Memoryd, ops: Ops, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.facade = facade
        self.ops = ops
        self.done = False
        self.finish_after_key = False  # Done was pressed with a key typed: finish once it is saved
        self.setWindowTitle(translate("Welcome", "Welcome"))
        layout = QVBoxLayout(self)
        title = QLabel(translate("Welcome", "Welcome to memoryd"))
        font = title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.4)
        title.setFont(font)
        layout.addWidget(title)
        self.intro = _label(
            translate(
                "Welcome",
                "memoryd remembers what you work out with your coding agents: each session, and the "
                "decisions, preferences and warnings worth keeping. At the start of the next session "
                "it gives the agent what matters for that project. Everything stays on this computer, "
                "in a folder you can read, and sensitive projects are encrypted.",
            )
        )
        layout.addWidget(self.intro)

        agents = QGroupBox(translate("Welcome", "Connect your agents"))
        self.agents_layout = QVBoxLayout(agents)
        self.agents_note = _label(translate("Welcome", "Looking for agents on this computer…"))
        self.agents_layout.addWidget(self.agents_note)
        self.agent_boxes: dict[str, QCheckBox] = {}
        self.connect_button = QPushButton(translate("Welcome", "Connect the selected agents"))
        self.connect_button.setEnabled(False)
        self.connect_button.clicked.connect(self.connect_agents)
        self.connect_result = _label()
        self.agents_layout.addWidget(self.connect_button, alignment=Qt.AlignmentFlag.AlignLeft)
        self.agents_layout.addWidget(self.connect_result)
        layout.addWidget(agents)

        key = QGroupBox(translate("Welcome", "An API key (optional)"))
        key_layout = QVBoxLayout(key)
        key_layout.addWidget(
            _label(
                translate(
                    "Welcome",
                    "With a key, a language model judges what in a session is worth keeping; without "
                    "one, memoryd uses its own rules. The key goes into the OS keyring, never into a file.",
                )
            )
        )
        row = QHBoxLayout()
        self.key_label = QLabel()
        self.api_key = QLineEdit()
        self.api_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.save_key = QPushButton(translate("Welcome", "Save key"))
        self.save_key.clicked.connect(self.store_key)
        self.api_key.returnPressed.connect(self.store_key)
        row.addWidget(self.key_label)
        row.addWidget(self.api_key, 1)
        row.addWidget(self.save_key)
        key_layout.addLayout(row)
        self.key_status = _label()
        key_layout.addWidget(self.key_status)
        layout.addWidget(key)
        self._show_provider()

        where = QGroupBox(translate("Welcome", "Where to find things"))
        where_layout = QVBoxLayout(where)
        self.where = _label(
            translate(
                "Welcome",
                "Sensitive projects, in the tray menu: a project's memories kept encrypted, and an "
                "agent asks you before it reads them.",
            )
            + "\n"
            + translate(
                "Welcome",
                "The weekly review, in the tray menu: once a week, approve or reject what memoryd "
                "proposes to keep.",
            )
        )
        where_layout.addWidget(self.where)
        layout.addWidget(where)

        buttons = QHBoxLayout()
        self.skip_button = QPushButton(translate("Welcome", "Skip"))
        self.done_button = QPushButton(translate("Welcome", "Done"))
        self.done_button.setDefault(True)
        self.skip_button.clicked.connect(self.skip)
        self.done_button.clicked.connect(self.finish_done)
        buttons.addStretch(1)
        buttons.addWidget(self.skip_button)
        buttons.addWidget(self.done_button)
        layout.addLayout(buttons)
        self.resize(620, 560)

    # -- agents -------------------------------------------------------------------------
    def load(self) -> None:
        """Ask core which agents are here (off the GUI thread)."""
        self.ops.run(self.facade.agents_found, self._show_agents, self._agents_failed)

    def _show_agents(self, found: list[dict[str, Any]]) -> None:
        for box in self.agent_boxes.values():
            box.deleteLater()
        self.agent_boxes = {}
        present = [a for a in found if a["present"]]
        index = self.agents_layout.indexOf(self.agents_note) + 1
        for entry in present:
            name = AGENT_NAMES.get(entry["agent"], entry["agent"])
            if entry["connected"]:
                text = translate("Welcome", "{agent}: already connected").format(agent=name)
            elif entry["problem"]:
                text = translate("Welcome", "{agent}: its settings cannot be read: {problem}").format(
                    agent=name, problem=entry["problem"]
                )
            else:
                text = translate("Welcome", "{agent} (settings in {folder})").format(
                    agent=name, folder=_short(entry["folder"])
                )
            box = QCheckBox(text)
            box.setChecked(not entry["problem"])
            box.setEnabled(not entry["connected"] and not entry["problem"])
            self.agents_layout.insertWidget(index, box)
            index += 1
            self.agent_boxes[entry["agent"]] = box
        if present:
            self.agents_note.setText(
                translate("Welcome", "Found on this computer: memoryd adds its hooks to their settings.")
            )
        else:
            self.agents_note.setText(
                translate(
                    "Welcome",
                    "No agent found on this computer (Claude Code, Codex, OpenClaw). Once one is "
                    "installed, connect it with: memoryd setup claude-code",
                )
            )
        self.connect_button.setEnabled(any(b.isEnabled() for b in self.agent_boxes.values()))
        self.loaded.emit()

    def _agents_failed(self, exc: BaseException) -> None:
        self.agents_note.setText(describe(exc))
        self.loaded.emit()

    def connect_agents(self) -> None:
        """core's `setup` for each ticked agent, in one background call."""
        chosen = [a for a, box in self.agent_boxes.items() if box.isEnabled() and box.isChecked()]
        if not chosen:
            return
        self.connect_button.setEnabled(False)
        self.connect_result.setText(translate("Welcome", "Connecting…"))
        facade = self.facade

        def work() -> list[tuple[str, dict[str, Any] | None, str]]:
            out: list[tuple[str, dict[str, Any] | None, str]] = []
            for agent in chosen:
                try:
                    out.append((agent, facade.connect_agent(agent, actor="tray"), ""))
                except Exception as exc:  # one agent's broken file must not stop the others
                    out.append((agent, None, describe(exc)))
            return out

        self.ops.run(work, self._connected, self._connect_failed)

    def _connected(self, results: list[tuple[str, dict[str, Any] | None, str]]) -> None:
        lines = []
        for agent, report, error in results:
            name = AGENT_NAMES.get(agent, agent)
            if report is None:
                lines.append(
                    translate("Welcome", "{agent}: not connected: {error}").format(agent=name, error=error)
                )
            elif report["changed"]:
                lines.append(
                    translate(
                        "Welcome", "{agent}: connected ({count} settings files changed; backups kept)."
                    ).format(agent=name, count=len(report["changed"]))
                    + " "
                    + translate("Welcome", "Restart it to start using memoryd.")
                )
            else:
                lines.append(translate("Welcome", "{agent}: already connected").format(agent=name))
            box = self.agent_boxes.get(agent)
            if box is not None and report is not None:
                box.setEnabled(False)
        self.connect_result.setText("\n".join(lines))
        self.connect_button.setEnabled(any(b.isEnabled() for b in self.agent_boxes.values()))
        self.connected.emit()

    def _connect_failed(self, exc: BaseException) -> None:
        self.connect_result.setText(describe(exc))
        self.connect_button.setEnabled(True)
        self.connected.emit()

    # -- the API key --------------------------------------------------------------------
    def _show_provider(self) -> None:
        provider = self.facade.config.llm.provider
        takes_key = provider in KEY_PROVIDERS
        self.api_key.setEnabled(takes_key)
        self.save_key.setEnabled(takes_key)
        if takes_key:
            self.key_label.setText(
                translate("Welcome", "{provider} API key:").format(provider=KEY_PROVIDERS[provider])
            )
        else:
            self.key_label.setText("")
            self.key_status.setText(
                translate("Welcome", "The language model chosen in Settings takes no API key.")
            )

    def store_key(self) -> None:
        """Into the OS keyring through core; the field is cleared either way."""
        provider = self.facade.config.llm.provider
        key = self.api_key.text().strip()
        if provider not in KEY_PROVIDERS or not key:
            return
        self.api_key.clear()
        self.save_key.setEnabled(False)
        facade = self.facade
        self.ops.run(
            lambda: facade.set_api_key(provider, key, actor="tray"), self._key_stored, self._key_failed
        )

    def _key_stored(self, _result: object) -> None:
        self.key_status.setText(translate("Welcome", "The key is stored in the OS keyring."))
        self.save_key.setEnabled(True)
        self.key_saved.emit()
        if self.finish_after_key:
            self.finish_after_key = False
            self.finish()

    def _key_failed(self, exc: BaseException) -> None:
        self.key_status.setText(describe(exc))
        self.save_key.setEnabled(True)
        self.finish_after_key = False  # the error stays in sight; Done again finishes without it
        self.done_button.setEnabled(True)
        self.key_saved.emit()

    # -- done ---------------------------------------------------------------------------
    def finish_done(self) -> None:
        """Done with a key typed but not saved: save it first, and finish only if it is."""
        if self.api_key.isEnabled() and self.api_key.text().strip():
            self.finish_after_key = True
            self.done_button.setEnabled(False)
            self.store_key()
            return
        self.finish()

    def skip(self) -> None:
        """A skip is a skip: a key typed but not saved is dropped, not stored."""
        self.api_key.clear()
        self.finish()

    def finish(self) -> None:
        """Done or skipped: core notes it, and the welcome is not shown again."""
        if self.done:
            self.close()
            return
        self.done = True
        facade = self.facade
        self.ops.run(lambda: facade.finish_welcome(actor="tray"), self._finished, self._finish_failed)
        self.close()

    def _finished(self, _result: object) -> None:
        if isValid(self):  # closed at quit: core has noted it, nobody is left to tell
            self.finished.emit()

    def _finish_failed(self, exc: BaseException) -> None:
        log.warning("the welcome could not be noted as done: %s", describe(exc))
        if isValid(self):
            self.done = False  # shown again at the next start
            self.finished.emit()

    def closeEvent(self, event: QCloseEvent) -> None:
        """The user closing the window (its title bar's X: a spontaneous event) skips the
        welcome too; the app's quit also closes every window, and that decides nothing."""
        if not self.done and event.spontaneous():
            self.finish()
        super().closeEvent(event)


def show_if_new(facade: Memoryd, ops: Ops) -> WelcomeWindow | None:
    """At the tray's start: the welcome, unless core says it was finished or skipped."""
    if not facade.welcome_wanted():
        return None
    window = WelcomeWindow(facade, ops)
    window.load()
    window.show()
    window.raise_()
    return window
