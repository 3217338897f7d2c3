"""The size yardstick: a bare PySide6-Essentials tray app (an icon and a menu with Quit),
bundled by packaging/build.py exactly as memoryd's tray is. `--smoke` quits once the
event loop has started, so a build can be checked without a tray host."""

import sys

from PySide6.QtCore import QTimer
from PySide6.QtGui import QAction, QColor, QIcon, QPixmap
from PySide6.QtWidgets import QApplication, QMenu, QSystemTrayIcon


def main() -> int:
    app = QApplication(sys.argv)
    app.setQuitOnLastWindowClosed(False)
    pixmap = QPixmap(32, 32)
    pixmap.fill(QColor("#3b82f6"))
    tray = QSystemTrayIcon(QIcon(pixmap))
    menu = QMenu()
    quit_action = QAction("Quit", menu)
    quit_action.triggered.connect(app.quit)
    menu.addAction(quit_action)
    tray.setContextMenu(menu)
    tray.show()
    if "--smoke" in sys.argv[1:]:
        QTimer.singleShot(0, lambda: (print("bare tray: event loop running"), app.quit()))
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
