"""memoryd_desktop: the tray app (`memoryd-tray`) that keeps memoryd reachable from the desktop.

It reaches core only through `memoryd.app.Memoryd`; it never opens SQLite or memory files.
Modules, bottom to top:

    assets        where icons and translations live (source tree, wheel, frozen bundle)
    i18n          the Qt translator for the chosen locale, compiled from the shipped .ts
    texts         how errors and times are worded for the user
    tray_state    a plain description of the menu, built from facade data
    ops           the one helper that runs facade calls off the GUI thread
    long_task     a cancellable long call (reindex, import, mark-sensitive) with progress
    notifier      notifications a click can answer (D-Bus, else Qt's tray message)
    scheduler     APScheduler on the qasync loop, with the catch-up check
    grant_server  the local socket the CLI and MCP server ask for grants through
    grant_dialog  the grant prompt (also used by the scopes window)
    side_by_side  a two-pane text diff
    digest_model, digest_window      the weekly review: promotions, duplicates, expiring
    browser_window, memory_dialogs   search, filters, detail, record/edit/forget/merge
    identity_window  the identity profile, its versions and diffs, monthly reports
    scopes_window    sensitive scopes: grant, revoke, unmark
    settings_dialog  LLM, email, schedules, sync folder, start at login, language
    tray          QSystemTrayIcon + QMenu rendered from a TrayState
    status_window the same facts and actions as a window, for desktops without a tray
    windows       the windows, made on first use
    controller    refresh timer, actions, jobs, notifications, which of tray/window shows
    main          the entry point: qasync loop, single instance, signals
"""

from __future__ import annotations

__all__: list[str] = []
