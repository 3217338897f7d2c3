"""A small window with the tray's facts and actions, for desktops without a system tray.

Stock GNOME, Xvfb and offscreen sessions report no tray; without this window the app would
run invisibly with no way to reach it. It renders the same TrayState items as the menu:
facts as labels, actions as buttons, so both stay in step by construction.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtGui import QCloseEvent, QFont
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLayout, QPushButton, QVBoxLayout, QWidget

from memoryd_desktop import assets, window_keys
from memoryd_desktop.tray_state import Action, Kind, TrayState

INDENT_PX = 18
translate = QCoreApplication.translate  # the bare name lupdate recognises


class StatusWindow(QWidget):
    """Facts on top, a notice line, then one button per action."""

    triggered = Signal(object)  # Action

    def __init__(self) -> None:
        super().__init__()
        self.quit_on_close = True  # no tray: closing the only window must not leave a ghost
        self.setWindowTitle("memoryd")
        self.setWindowIcon(assets.icon())
        self.setMinimumWidth(380)

        self.logo = QLabel()
        self.logo.setPixmap(assets.icon().pixmap(48, 48))
        title = QLabel("memoryd")
        font = QFont(title.font())
        font.setPointSizeF(font.pointSizeF() * 1.5)
        font.setBold(True)
        title.setFont(font)
        self.home_label = QLabel()
        self.home_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.home_label.setStyleSheet("color: palette(placeholder-text);")
        heading = QVBoxLayout()
        heading.addWidget(title)
        heading.addWidget(self.home_label)
        top = QHBoxLayout()
        top.addWidget(self.logo)
        top.addLayout(heading, 1)

        self.facts = QVBoxLayout()
        self.facts.setSpacing(4)
        self.notice = QLabel()
        self.notice.setWordWrap(True)
        self.notice.hide()

        self.buttons: dict[Action, QPushButton] = {}
        windows = QHBoxLayout()  # every window the tray menu opens stays reachable here
        for action in (Action.DIGEST, Action.SEARCH, Action.SCOPES, Action.IDENTITY, Action.SETTINGS):
            windows.addWidget(self._button(action))
        windows.addStretch(1)
        row = QHBoxLayout()
        for action in (Action.CONSOLIDATE, Action.SYNC, Action.PAUSE, Action.DRAIN, Action.OPEN_FOLDER):
            row.addWidget(self._button(action))
        row.addStretch(1)
        row.addWidget(self._button(Action.QUIT))

        layout = QVBoxLayout(self)
        # never narrower than a row of buttons: the minimum width alone let them be cut
        layout.setSizeConstraint(QLayout.SizeConstraint.SetMinimumSize)
        layout.setContentsMargins(18, 18, 18, 18)
        layout.setSpacing(12)
        layout.addLayout(top)
        layout.addLayout(self.facts)
        layout.addWidget(self.notice)
        layout.addStretch(1)
        layout.addLayout(windows)
        layout.addLayout(row)
        window_keys.install(self, escape=lambda: not self.quit_on_close)  # Esc never quits the app

    def _button(self, action: Action) -> QPushButton:
        button = QPushButton()
        button.clicked.connect(lambda: self.triggered.emit(action))
        self.buttons[action] = button
        return button

    def show_state(self, state: TrayState) -> None:
        """Rebuild the fact labels and relabel the buttons (every minute at most)."""
        self.home_label.setText(translate("StatusWindow", "Data folder: {path}").format(path=state.home))
        icon = assets.icon(state.pending, state.paused)  # the tray icon's look, paused included
        self.setWindowIcon(icon)
        self.logo.setPixmap(icon.pixmap(48, 48))
        while self.facts.count():
            widget = self.facts.takeAt(0).widget()
            if widget is not None:
                widget.deleteLater()
        for item in state.facts():
            label = QLabel(item.text)
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setContentsMargins(INDENT_PX * item.level, 0, 0, 0)
            self.facts.addWidget(label)
        for item in state.actions():
            if item.kind is Kind.ACTION and item.action in self.buttons:
                button = self.buttons[item.action]
                button.setText(item.text)
                button.setEnabled(item.enabled)
                button.setToolTip(item.tooltip)

    def fact_texts(self) -> list[str]:
        """The fact lines as shown, for tests and accessibility checks."""
        out = []
        for i in range(self.facts.count()):
            widget = self.facts.itemAt(i).widget()
            if isinstance(widget, QLabel):
                out.append(widget.text())
        return out

    def notify(self, title: str, text: str, error: bool = False) -> None:
        """Show a result or an error in the window, where a tray would pop a balloon."""
        del title  # the window title already says memoryd
        self.notice.setText(text)
        self.notice.setStyleSheet("color: #b3261e;" if error else "")
        self.notice.show()

    def closeEvent(self, event: QCloseEvent) -> None:
        event.accept()
        if self.quit_on_close:
            self.triggered.emit(Action.QUIT)
