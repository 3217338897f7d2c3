"""The tray app's behaviour: refresh the facts, run the actions, pick tray or window.

The tray and the status window only render a TrayState and report clicks; this object owns
the refresh timer, the calls into the facade (through `Ops`, never on the GUI thread) and
the one `show_error` path. If no tray host exists at start, the window keeps the app
reachable, and each tick looks again so a late tray host (an extension enabled after
login) still gets its icon.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from typing import Protocol

from PySide6.QtCore import QCoreApplication, QObject, QTimer, QUrl, Signal, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QSystemTrayIcon

from memoryd.app import Memoryd
from memoryd.errors import MemorydError
from memoryd_desktop import tray_state
from memoryd_desktop.ops import Ops
from memoryd_desktop.status_window import StatusWindow
from memoryd_desktop.tray import TrayIcon
from memoryd_desktop.tray_state import Action, TrayState

log = logging.getLogger("memoryd.tray")

REFRESH_MS = 60_000
translate = QCoreApplication.translate  # the bare name lupdate recognises


class DrainReport(Protocol):
    """What `Memoryd.drain_spool()` answers, as far as the tray reads it."""

    captured: list[str]
    rejected: list[str]
    busy: bool


def describe(exc: BaseException) -> str:
    """Our own errors already speak to the user; anything else also names its type."""
    return str(exc) if isinstance(exc, MemorydError) else f"{type(exc).__name__}: {exc}"


class Controller(QObject):
    """Owns the state; `changed` is emitted with every new TrayState."""

    changed = Signal(object)

    def __init__(
        self,
        facade: Memoryd,
        *,
        tray_available: Callable[[], bool] = QSystemTrayIcon.isSystemTrayAvailable,
        refresh_ms: int = REFRESH_MS,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.facade = facade
        self.state = TrayState(home=facade.layout.home)
        self.ops = Ops(on_error=self.show_error, parent=self)
        self.tray: TrayIcon | None = None
        self.window: StatusWindow | None = None
        self._tray_available = tray_available
        self._refreshing = False
        self.timer = QTimer(self)
        self.timer.setInterval(refresh_ms)
        self.timer.timeout.connect(self.tick)

    def start(self) -> None:
        """Show the tray icon, or the window when there is no tray; then read the facts."""
        if self._tray_available():
            self._make_tray()
        else:
            log.info("no system tray available: showing the status window")
            self.show_window()
        self.refresh()
        self.timer.start()

    def shutdown(self, wait_ms: int = 5_000) -> bool:
        """Stop the timer and give a running call `wait_ms` to end; False if it still runs."""
        self.timer.stop()
        if self.tray is not None:
            self.tray.hide()
        return self.ops.wait(wait_ms)

    # -- views ------------------------------------------------------------------------
    def _make_tray(self) -> None:
        self.tray = TrayIcon(self)
        self.tray.triggered.connect(self.dispatch)
        self.tray.opening.connect(self.refresh)
        self.tray.activated.connect(self.show_window)
        self.tray.show_state(self.state)
        self.tray.show()
        if self.window is not None:
            self.window.quit_on_close = False

    @Slot()
    def show_window(self) -> None:
        if self.window is None:
            self.window = StatusWindow()
            self.window.triggered.connect(self.dispatch)
            self.window.show_state(self.state)
        self.window.quit_on_close = self.tray is None
        self.window.show()
        self.window.raise_()
        self.window.activateWindow()

    def _set(self, state: TrayState) -> None:
        self.state = state
        for view in (self.tray, self.window):
            if view is not None:
                view.show_state(state)
        self.changed.emit(state)

    def notify(self, text: str, error: bool = False) -> None:
        for view in (self.tray, self.window):
            if view is not None:
                view.notify("memoryd", text, error)

    def show_error(self, exc: BaseException | str) -> None:
        """The one place errors reach the user."""
        text = exc if isinstance(exc, str) else describe(exc)
        log.error("%s", text)
        self.notify(text, error=True)

    # -- refresh ----------------------------------------------------------------------
    @Slot()
    def tick(self) -> None:
        if self.tray is None and self._tray_available():
            log.info("a system tray appeared: adding the icon")
            self._make_tray()
        self.refresh()

    @Slot()
    def refresh(self) -> None:
        """Ask the facade for fresh facts, unless a refresh is already on its way."""
        if self._refreshing:
            return
        self._refreshing = True
        facade = self.facade
        self.ops.run(lambda: tray_state.load(facade), self._loaded, self._load_failed)

    def _loaded(self, state: TrayState) -> None:
        self._refreshing = False
        self._set(replace(state, draining=self.state.draining))

    def _load_failed(self, exc: BaseException) -> None:
        self._refreshing = False
        self._set(replace(self.state, error=describe(exc)))

    # -- actions ----------------------------------------------------------------------
    @Slot(object)
    def dispatch(self, action: Action) -> None:
        if action is Action.DRAIN:
            self.drain()
        elif action is Action.OPEN_FOLDER:
            self.open_folder()
        elif action is Action.QUIT:
            QCoreApplication.quit()

    def drain(self) -> None:
        """Process spooled captures now, in the background."""
        if self.state.draining:
            return
        self._set(replace(self.state, draining=True))
        self.ops.run(self.facade.drain_spool, self._drained, self._drain_failed)

    def _drained(self, report: DrainReport) -> None:
        self._set(replace(self.state, draining=False))
        if report.busy:
            self.notify(translate("Controller", "Another memoryd process is already processing captures."))
        elif report.captured or report.rejected:
            text = translate("Controller", "Captures processed: {count}.").format(count=len(report.captured))
            if report.rejected:
                text += " " + translate("Controller", "Set aside as unusable: {count}.").format(
                    count=len(report.rejected)
                )
            self.notify(text, error=bool(report.rejected))
        else:
            self.notify(translate("Controller", "No captures were waiting."))
        self.refresh()

    def _drain_failed(self, exc: BaseException) -> None:
        self._set(replace(self.state, draining=False))
        self.show_error(exc)
        self.refresh()

    def open_folder(self) -> bool:
        home = self.state.home
        if QDesktopServices.openUrl(QUrl.fromLocalFile(str(home))):
            return True
        self.show_error(translate("Controller", "Could not open the data folder {path}.").format(path=home))
        return False
