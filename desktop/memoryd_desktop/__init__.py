"""memoryd_desktop: the tray app (`memoryd-tray`) that keeps memoryd reachable from the desktop.

It reaches core only through `memoryd.app.Memoryd`; it never opens SQLite or memory files.
Modules, bottom to top:

    assets       where icons and translations live (source tree, wheel, frozen bundle)
    i18n         the Qt translator for the system locale, compiled from the shipped .ts
    tray_state   a plain description of the menu, built from facade data
    ops          the one helper that runs facade calls off the GUI thread
    tray         QSystemTrayIcon + QMenu rendered from a TrayState
    status_window  the same facts and actions as a window, for desktops without a tray
    controller   refresh timer, actions, and which of tray/window is showing
    main         the entry point: QApplication, single instance, signals
"""

from __future__ import annotations

__all__: list[str] = []
