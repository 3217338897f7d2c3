"""`memoryd-tray`: the composition root of the desktop app.

Start-up rituals, in order: log to stderr and the data folder's logs/, a QApplication that
keeps running with no window open (the tray is the app), SIGINT/SIGTERM handled so a
session logout or Ctrl+C quits cleanly, the system locale's translation, one instance per
data folder (a QLockFile in MEMORYD_HOME), then the controller.
"""

from __future__ import annotations

import asyncio
import contextlib
import faulthandler
import logging
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

import qasync
from PySide6.QtCore import QByteArray, QLocale, QLockFile, QTimer
from PySide6.QtGui import QIcon
from PySide6.QtNetwork import QLocalSocket
from PySide6.QtWidgets import QApplication, QMessageBox

from memoryd import paths
from memoryd.app import Memoryd
from memoryd.errors import MemorydError
from memoryd_desktop import assets, i18n
from memoryd_desktop.controller import Controller
from memoryd_desktop.texts import describe
from memoryd_desktop.welcome import show_if_new as welcome_if_new

log = logging.getLogger("memoryd.tray")

LOCK_NAME = "tray.lock"
SIGNAL_TICK_MS = 200  # Python runs signal handlers only between bytecodes, not inside Qt's loop


def _setup_logging(home: Path) -> None:
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    try:
        file = logging.FileHandler(paths.ensure_dir(home / "logs") / "tray.log", encoding="utf-8")
        handlers.append(file)
        # A crash inside Qt leaves the Python stack in the log the user sends us.
        faulthandler.enable(file=file.stream, all_threads=True)
    except OSError as exc:  # a read-only data folder must not stop the tray
        print(f"memoryd-tray: not logging to a file: {exc}", file=sys.stderr)
    fmt = logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s")
    logger = logging.getLogger("memoryd")
    for handler in handlers:
        handler.setFormatter(fmt)
        logger.addHandler(handler)
    logger.setLevel(logging.INFO)


def _handle_signals(app: QApplication) -> QTimer:
    """Quit on SIGINT/SIGTERM; the returned timer wakes Python so the handler can run."""

    def on_signal(signum: int, _frame: object) -> None:
        log.info("signal %s: quitting", signal.Signals(signum).name)
        app.quit()

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, on_signal)
    tick = QTimer(app)
    tick.timeout.connect(lambda: None)
    tick.start(SIGNAL_TICK_MS)
    return tick


def _single_instance(home: Path) -> QLockFile | None:
    """Hold the data folder's tray lock, or None if another live tray holds it."""
    lock = QLockFile(str(paths.ensure_dir(home) / LOCK_NAME))
    lock.setStaleLockTime(0)  # a lock is stale only when its process is gone, never by age
    if lock.tryLock(100):
        return lock
    pid, _host, _app = lock.getLockInfo()  # PySide6 returns the C++ out-params as a tuple
    print(f"memoryd-tray is already running for {home} (pid {pid})", file=sys.stderr)
    return None


def locale_for(language: object) -> QLocale:
    """Settings' language choice: "en", "zh_CN", or anything else = follow the system."""
    if language == "en":
        return QLocale(QLocale.Language.English, QLocale.Country.UnitedStates)
    if language == "zh_CN":
        return QLocale(QLocale.Language.Chinese, QLocale.Script.SimplifiedHanScript, QLocale.Country.China)
    return QLocale.system()


def _language(facade: Memoryd | None) -> object:
    if facade is None:
        return "system"
    table = facade.config.raw.get("tray")
    return table.get("language", "system") if isinstance(table, dict) else "system"


def _show_running() -> None:
    """A second launch (the app menu's launcher) brings up the running tray's window, so
    the windows stay reachable when the tray host never showed the icon."""
    try:
        facade = Memoryd()
        address, line = facade.grant_socket(), facade.show_request()
    except (MemorydError, OSError) as exc:
        log.info("could not reach the running tray: %s", exc)
        return
    sock = QLocalSocket()
    sock.connectToServer(address)
    if sock.waitForConnected(2_000):
        sock.write(QByteArray(line))
        sock.waitForBytesWritten(2_000)
        sock.waitForReadyRead(2_000)
        sock.disconnectFromServer()


def _app_icon() -> QIcon:
    """The app's icon, logged with the file it came from: tray.log then shows whether an
    install carried its resources and Qt could render the SVG."""
    path = assets.icon_path()
    icon = QIcon(str(path))
    if icon.pixmap(32, 32).isNull():
        log.warning("icon %s could not be rendered", path)
    else:
        log.info("icon loaded from %s", path)
    return icon


def main(argv: Sequence[str] | None = None) -> int:
    """Run the tray app until Quit, a signal, or (without a tray) closing the window."""
    args = list(sys.argv if argv is None else argv)
    home = paths.layout().home
    _setup_logging(home)

    app = QApplication(args)
    app.setApplicationName("memoryd")
    app.setApplicationDisplayName("memoryd")
    app.setDesktopFileName("memoryd-tray")
    app.setQuitOnLastWindowClosed(False)
    app.setWindowIcon(_app_icon())
    _tick = _handle_signals(app)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)

    lock = _single_instance(home)
    if lock is None:
        _show_running()
        return 1
    try:
        try:
            facade: Memoryd | None = Memoryd(warm=True)  # long-lived: warm keyword search
            error = None
        except MemorydError as exc:  # e.g. a broken config.toml: say so where the user looks
            facade, error = None, exc
        _translators = i18n.install(app, locale_for(_language(facade)))
        if facade is None:
            assert error is not None
            log.error("%s", describe(error))
            QMessageBox.critical(None, "memoryd", describe(error))
            return 2
        controller = Controller(facade, loop=loop)
        app.aboutToQuit.connect(controller.jobs.stop)  # while the loop still runs
        controller.start()
        _welcome = welcome_if_new(facade, controller.ops)  # the first run's welcome, until done
        mode = "tray" if controller.tray is not None else "window"
        QTimer.singleShot(0, lambda: log.info("memoryd-tray ready (%s) for %s", mode, home))
        with loop:
            loop.run_forever()
        if not controller.shutdown():
            # A long drain is still running. Waiting would keep a quit from quitting, and the
            # worker is built to be cut short (a spool file goes only after its memory is saved).
            log.warning("quitting while captures are being processed; the rest stay spooled")
        log.info("memoryd-tray quit")
        _exit_now(lock, 0)
    finally:
        lock.unlock()


def _exit_now(lock: QLockFile, code: int) -> NoReturn:
    """End the process without the interpreter's teardown. Everything worth keeping is
    already on disk (each write commits; the spool keeps what the worker did not reach),
    but the teardown frees Qt objects in whatever order the garbage collector meets them:
    a window or D-Bus object freed after the QApplication crashed a quit on CI with
    SIGSEGV, now and then, under load."""
    lock.unlock()
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # closed or gone: nothing to say there
            stream.flush()
    os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
