"""memoryd_desktop: the tray app (`memoryd-tray`) that keeps memoryd reachable from the desktop.

It reaches core only through `memoryd.app.Memoryd`; it never opens SQLite or memory files.
Modules, bottom to top:

    assets        where icons and translations live (source tree, wheel, frozen bundle)
    i18n          the Qt translator for the chosen locale, compiled from the shipped .ts
    texts         how errors and times are worded for the user
    window_keys   the keys every window answers: Esc and Ctrl+W close, Ctrl+F finds
    highlight     search terms marked in a table cell and in a rendered document
    tray_state    a plain description of the menu, built from facade data
    ops           the one helper that runs facade calls off the GUI thread
    long_task     a cancellable long call (reindex, import, mark-sensitive) with progress
    notifier      notifications a click can answer (D-Bus, else Qt's tray message)
    scheduler     APScheduler on the qasync loop, with the catch-up check
    grant_server  the local socket the CLI and MCP server ask for grants through
    grant_dialog  the grant prompt (also used by the scopes window)
    side_by_side  a two-pane text diff
    digest_model     the weekly review's table models and pure rules (no widgets)
    digest_actions   each review action: the facade call, and the sentence that reports it
    digest_list      the review list the j/k/a/r keys drive
    digest_panes     the review's detail panes, one per tab (editor, pair, reminder, conflict,
                     ...), and a conflict's versions side by side
    trends_chart     the review's trends: activity per week and top triggers as charts
    digest_window    the weekly review: promotions, duplicates, expiring, supersedes, sync
                     conflicts, trends
    memory_dialogs   the browser's dialogs: record/edit, merge, import, mark sensitive
    browser_model    the browser's query, fetch, table model and supersedes text (no widgets)
    memory_detail    one memory as a person reads it: facts, Markdown body, raw fields folded
    browser_edits    the browser's write side: record/edit/forget/merge, the long jobs
    browser_window   the browser's read side: search, filters, listing, detail
    identity_window  the identity profile, its versions and diffs, monthly reports
    scopes_window    Sensitive projects: grant, revoke, unmark
    settings_plan    what Settings reads, and a save applied in an order it can undo
    schedule_editor  one job's time in plain words (daily/weekly/monthly at), cron as advanced
    settings_schedules  the Settings Schedules tab: each job's time, a live next run, last run
    settings_dialog  LLM, email, schedules, sync folder, start at login, language
    tray          QSystemTrayIcon + QMenu rendered from a TrayState
    status_window the same facts and actions as a window, for desktops without a tray
    live          when open windows read again: the grants folder watched, the next expiry
    windows       the windows, made on first use; the open ones follow grants and changes
    controller    refresh timer, actions, jobs, sync (by hand and every 15 minutes),
                  notifications, which of tray/window shows
    main          the entry point: qasync loop, single instance, signals
"""

from __future__ import annotations

__all__: list[str] = []
