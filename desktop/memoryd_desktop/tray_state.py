"""What the tray shows, as plain data: built from facade answers, rendered by tray or window.

Keeping the menu as a list of `Item`s (text, action, enabled) lets tests check it without a
tray host, and lets the tray menu and the no-tray status window show exactly the same facts.
Only QtCore is used here (for translated text); no widgets.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication

from memoryd.app import Memoryd
from memoryd.errors import UsageError
from memoryd_desktop.i18n import memory_type_label

translate = QCoreApplication.translate  # the bare name lupdate recognises


class Action(StrEnum):
    """What a menu entry or button asks the controller to do."""

    DIGEST = "digest"
    SEARCH = "search"
    SCOPES = "scopes"
    IDENTITY = "identity"
    CONSOLIDATE = "consolidate"
    SYNC = "sync"
    PAUSE = "pause"
    DRAIN = "drain"
    SETTINGS = "settings"
    OPEN_FOLDER = "open-folder"
    QUIT = "quit"


class Kind(StrEnum):
    INFO = "info"
    ACTION = "action"
    SEPARATOR = "separator"


@dataclass(frozen=True)
class Item:
    """One menu line: a fact (INFO), a command (ACTION), or a SEPARATOR."""

    kind: Kind
    text: str = ""
    action: Action | None = None
    enabled: bool = True
    level: int = 0  # indentation, for per-type counts under the total
    tooltip: str = ""


SEPARATOR = Item(Kind.SEPARATOR)


@dataclass(frozen=True)
class TrayState:
    """The facts the tray knows; `loaded` is False until the first stats() answer arrives."""

    home: Path
    loaded: bool = False
    by_type: tuple[tuple[str, int], ...] = ()
    forgotten: int = 0
    spool_pending: int = 0
    promotions_pending: int = 0
    paused: bool = False
    draining: bool = False
    consolidating: bool = False
    consolidation_line: str = ""  # the last progress line of the consolidation under way
    sync_folder: str = ""  # `[sync] folder` of config.toml; empty: no sync folder is set
    syncing: bool = False
    error: str | None = None

    @property
    def total(self) -> int:
        return sum(n for _, n in self.by_type)

    @property
    def pending(self) -> bool:
        """Promotions wait for review, or captures in the spool: the icon gets its badge."""
        return self.promotions_pending > 0 or self.spool_pending > 0

    def facts(self) -> list[Item]:
        """The read-only lines: totals, per-type counts, the spool, and a read error if any."""

        def info(text: str, level: int = 0) -> Item:
            return Item(Kind.INFO, text, level=level)

        if not self.loaded:
            out = [info(translate("TrayState", "Reading memories…"))]
        else:
            out = [info(translate("TrayState", "Capture is paused"))] if self.paused else []
            waiting_review = translate("TrayState", "Promotions waiting: {count}")
            out.append(info(waiting_review.format(count=self.promotions_pending)))
            out.append(info(translate("TrayState", "Memories: {count}").format(count=self.total)))
            per_type = translate("TrayState", "{type}: {count}")
            for name, n in self.by_type:
                out.append(info(per_type.format(type=memory_type_label(name), count=n), 1))
            if self.forgotten:
                out.append(info(translate("TrayState", "Forgotten: {count}").format(count=self.forgotten), 1))
            waiting = translate("TrayState", "Captures waiting: {count}")
            out.append(info(waiting.format(count=self.spool_pending)))
        if self.consolidating and self.consolidation_line:
            step = translate("TrayState", "Consolidation: {step}")
            out.append(info(step.format(step=self.consolidation_line)))
        if self.syncing:
            out.append(info(translate("TrayState", "Syncing with {folder}…").format(folder=self.sync_folder)))
        if self.error:
            failed = translate("TrayState", "Could not read memoryd: {error}")
            out.append(info(failed.format(error=self.error)))
        return out

    def actions(self) -> list[Item]:
        """The commands; processing is offered only when captures wait and none is running."""
        if self.draining:
            text, enabled = translate("TrayState", "Processing captures…"), False
        else:
            text, enabled = translate("TrayState", "Process captures now"), self.spool_pending > 0
        if self.consolidating:
            consolidate, consolidate_on = translate("TrayState", "Consolidating…"), False
        else:
            consolidate, consolidate_on = translate("TrayState", "Consolidate now"), True
        sync = self.sync_item()
        pause = (
            translate("TrayState", "Resume capture")
            if self.paused
            else translate("TrayState", "Pause capture")
        )
        return [
            Item(Kind.ACTION, translate("TrayState", "Review digest..."), Action.DIGEST),
            Item(Kind.ACTION, translate("TrayState", "Search memories..."), Action.SEARCH),
            Item(Kind.ACTION, translate("TrayState", "Sensitive projects..."), Action.SCOPES),
            Item(Kind.ACTION, translate("TrayState", "Identity..."), Action.IDENTITY),
            SEPARATOR,
            Item(Kind.ACTION, consolidate, Action.CONSOLIDATE, enabled=consolidate_on),
            sync,
            Item(Kind.ACTION, pause, Action.PAUSE),
            Item(Kind.ACTION, text, Action.DRAIN, enabled=enabled),
            SEPARATOR,
            Item(Kind.ACTION, translate("TrayState", "Settings..."), Action.SETTINGS),
            Item(Kind.ACTION, translate("TrayState", "Open data folder"), Action.OPEN_FOLDER),
            SEPARATOR,
            Item(Kind.ACTION, translate("TrayState", "Quit"), Action.QUIT),
        ]

    def sync_item(self) -> Item:
        """The "Sync now" entry: offered once a sync folder is set (Settings → Sync), none running."""
        if not self.sync_folder:
            return Item(
                Kind.ACTION,
                translate("TrayState", "Sync now (no folder: Settings → Sync)"),
                Action.SYNC,
                enabled=False,
                tooltip=translate(
                    "TrayState", "Choose a sync folder in Settings → Sync to share memories across devices."
                ),
            )
        tooltip = translate("TrayState", "Sync with {folder}").format(folder=self.sync_folder)
        if self.syncing:
            text, enabled = translate("TrayState", "Syncing…"), False
        else:
            text, enabled = translate("TrayState", "Sync now"), True
        return Item(Kind.ACTION, text, Action.SYNC, enabled=enabled, tooltip=tooltip)

    def items(self) -> list[Item]:
        """The whole menu, top to bottom."""
        return [*self.facts(), SEPARATOR, *self.actions()]

    def tooltip(self) -> str:
        """The icon's hover text: the top-level facts, "Capture is paused" first when it is."""
        lines = ["memoryd"]
        lines += [item.text for item in self.facts() if item.level == 0]
        return "\n".join(lines)


def from_stats(stats: Mapping[str, Any]) -> TrayState:
    """Turn `Memoryd.stats()` into a state; types in a fixed order so the menu does not jump."""
    by_type = tuple(sorted((str(k), int(v)) for k, v in dict(stats.get("by_type", {})).items()))
    return TrayState(
        home=Path(str(stats["home"])),
        loaded=True,
        by_type=by_type,
        forgotten=int(stats.get("forgotten_archived", 0)),
        spool_pending=int(stats.get("spool_pending", 0)),
        promotions_pending=int(stats.get("promotions_pending", 0)),
        paused=bool(stats.get("capture_paused", False)),
    )


def sync_folder(facade: Memoryd) -> str:
    """The configured sync folder, or "" when none is set."""
    try:
        return str(facade.sync_folder())
    except UsageError:
        return ""


def load(facade: Memoryd) -> TrayState:
    """Ask the facade; called off the GUI thread because stats() reads the index and audit log."""
    return replace(from_stats(facade.stats()), sync_folder=sync_folder(facade))
