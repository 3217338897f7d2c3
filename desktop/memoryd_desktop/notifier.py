"""Native notifications a click can answer: the weekly digest opens the digest window.

Every message the tray has for the user (digest, consolidation, pause, sync, errors)
comes through `Notifier.notify`, the one function that picks how it is shown, so they
all look the same on a desktop.

Why not plyer (the design card's pick): it has no click callback and swallows failures
(ECOSYSTEM-FACTS 6). desktop-notifier has actions, but on macOS it needs a signed bundle
and on Windows the pywinrt extension modules. So:

- Linux and the BSDs: the freedesktop notification protocol on the D-Bus session bus,
  spoken with jeepney's asyncio router on the qasync loop (jeepney is already installed
  there for keyring). The notification carries a "default" action; the daemon's
  ActionInvoked signal tells us which notification was clicked.
- macOS and Windows, or when no notification daemon answers: QSystemTrayIcon.showMessage,
  which is native on both (Notification Center, toast/balloon) and emits `messageClicked`.
  It does not say which message, so the last one shown decides what a click opens.
- No tray and no daemon: the status window shows the text.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import logging
import os
import sys
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QSystemTrayIcon

log = logging.getLogger("memoryd.tray")

APP_NAME = "memoryd"
BUS_NAME = "org.freedesktop.Notifications"
OBJECT_PATH = "/org/freedesktop/Notifications"
DEFAULT_ACTION = "default"

OnClick = Callable[[], None]


class Notifier(QObject):
    """Shows notifications; `shown(str channel, str title)` is emitted for each (tests,
    logs); a click on one runs the `on_click` given with it."""

    shown = Signal(str, str)

    def __init__(self, loop: asyncio.AbstractEventLoop | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.loop = loop
        self.tray: QSystemTrayIcon | None = None
        self.fallback: Callable[[str, str, bool], None] | None = None  # the status window
        self._router: Any = None
        self._router_cm: Any = None
        self._clicks: dict[int, OnClick] = {}
        self._tray_click: OnClick | None = None
        self._listener: asyncio.Task[None] | None = None
        self._dbus_broken = sys.platform in ("darwin", "win32")

    def attach_tray(self, tray: QSystemTrayIcon) -> None:
        """Qt's messages go through this icon; its `messageClicked` runs the last click."""
        self.tray = tray
        tray.messageClicked.connect(self._on_tray_click)

    def post(self, title: str, body: str, on_click: OnClick | None = None, error: bool = False) -> None:
        """Fire and forget: on the asyncio loop when one runs the app (qasync), else
        straight to the tray message or the window (tests without a loop)."""
        if self.loop is not None:
            self.loop.create_task(self.notify(title, body, on_click, error))
            return
        self._dbus_broken = True
        asyncio.run(self.notify(title, body, on_click, error))

    def _on_tray_click(self) -> None:
        if self._tray_click is not None:
            self._tray_click()

    async def notify(
        self, title: str, body: str, on_click: OnClick | None = None, error: bool = False
    ) -> str:
        """Show one notification; returns the channel used ("dbus", "tray", "window", "none")."""
        if not self._dbus_broken:
            try:
                nid = await self._notify_dbus(title, body, error, with_action=on_click is not None)
            except Exception as exc:  # no bus, no daemon, a protocol error: fall back, say why
                log.info("no D-Bus notification (%s: %s): using the tray message", type(exc).__name__, exc)
                await self.close()
                self._dbus_broken = True
            else:
                if on_click is not None:
                    self._clicks[nid] = on_click
                self.shown.emit("dbus", title)
                return "dbus"
        if self.tray is not None and self.tray.isVisible() and QSystemTrayIcon.supportsMessages():
            self._tray_click = on_click
            kind = QSystemTrayIcon.MessageIcon.Critical if error else QSystemTrayIcon.MessageIcon.Information
            self.tray.showMessage(title, body, kind, 15_000)
            self.shown.emit("tray", title)
            return "tray"
        if self.fallback is not None:
            self.fallback(title, body, error)
            self.shown.emit("window", title)
            return "window"
        log.warning("notification not shown (no daemon, tray or window): %s", title)
        return "none"

    async def _connect(self) -> Any:
        if self._router is None:
            from jeepney import MatchRule, message_bus
            from jeepney.io.asyncio import Proxy, open_dbus_router

            address = os.environ.get("DBUS_SESSION_BUS_ADDRESS") or "SESSION"
            self._router_cm = open_dbus_router(bus=address)
            router = await asyncio.wait_for(self._router_cm.__aenter__(), 5)
            rule = MatchRule(type="signal", interface=BUS_NAME, path=OBJECT_PATH)
            await asyncio.wait_for(Proxy(message_bus, router).AddMatch(rule), 5)
            self._router = router
            self._listener = asyncio.ensure_future(self._listen(router, rule))
        return self._router

    async def _notify_dbus(self, title: str, body: str, error: bool, *, with_action: bool) -> int:
        from jeepney import DBusAddress, new_method_call
        from jeepney.wrappers import unwrap_msg

        router = await self._connect()
        target = DBusAddress(OBJECT_PATH, bus_name=BUS_NAME, interface=BUS_NAME)
        reply = await asyncio.wait_for(
            router.send_and_get_reply(new_method_call(target, "GetCapabilities")), 5
        )
        (caps,) = unwrap_msg(reply)
        text = html.escape(body, quote=False) if "body-markup" in caps else body
        actions = [DEFAULT_ACTION, "Open"] if with_action and "actions" in caps else []
        hints = {"urgency": ("y", 2 if error else 1)}
        args = (APP_NAME, 0, "memoryd", title, text, actions, hints, -1)
        call = new_method_call(target, "Notify", "susssasa{sv}i", args)
        (nid,) = unwrap_msg(await asyncio.wait_for(router.send_and_get_reply(call), 5))
        return int(nid)

    async def _listen(self, router: Any, rule: Any) -> None:
        """ActionInvoked runs the notification's click; NotificationClosed forgets it."""
        from jeepney.low_level import HeaderFields

        with router.filter(rule, bufsize=64) as queue:
            while True:
                msg = await queue.get()
                member = msg.header.fields.get(HeaderFields.member)
                if member == "ActionInvoked":
                    nid, _key = msg.body
                    callback = self._clicks.pop(int(nid), None)
                    if callback is not None:
                        callback()
                elif member == "NotificationClosed":
                    self._clicks.pop(int(msg.body[0]), None)

    async def close(self) -> None:
        """Leave the bus (at quit, or when it failed)."""
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._listener
            self._listener = None
        if self._router_cm is not None:
            with contextlib.suppress(Exception):
                await self._router_cm.__aexit__(None, None, None)
        self._router = self._router_cm = None
