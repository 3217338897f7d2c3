"""The review's view: one tab per digest section, a list and the selected row's details in
each, a one-line status at the bottom, the keys in the footer; and how it is filled. The
digest is fetched in a worker thread; `ReviewScreen` (memoryd.tui.review_screen) adds the
keys and the actions.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import DataTable, Footer, Header, Static, TabbedContent, TabPane

from memoryd.app import Memoryd
from memoryd.tui import panes, review

LISTED = tuple(s.id for s in panes.SECTIONS if s.columns)


class ReviewView(Screen[None]):
    DEFAULT_CSS = """
    ReviewView #sections { height: 1fr; }
    ReviewView TabPane { height: 1fr; }
    ReviewView DataTable { height: 1fr; }
    ReviewView .detail { height: 1fr; border-top: solid $primary; padding: 0 1; }
    ReviewView .hint { height: 1; color: $text-muted; padding: 0 1; }
    ReviewView #status { height: 1; padding: 0 1; background: $boost; }
    ReviewView #status.error { color: $error; text-style: bold; }
    """

    def __init__(
        self, facade: Memoryd, *, since: str | None, scopes: list[str] | None, digest: Any = None
    ) -> None:
        super().__init__()
        self.facade = facade
        self.since = since
        self.scopes = scopes
        self.digest: Any = digest  # memoryd.governance.digest.Digest once loaded
        self.busy = False
        self.status_text = ""
        self.status_error = False
        self.rows: dict[str, list[Any]] = {sid: [] for sid in LISTED}
        self.keep_choice: dict[str, int] = {}  # duplicate group fingerprint -> index kept
        self._bodies: dict[str, tuple[list[Any] | None, str]] = {}  # fingerprint -> (views, error)
        self._reading: str | None = None
        self._texts: dict[str, tuple[str | None, str]] = {}  # suspect slug -> (text, error)
        self._reading_text: str | None = None

    # -- building -----------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Header()
        with TabbedContent(id="sections", initial="promotions"):
            for s in panes.SECTIONS:
                with TabPane(s.name, id=s.id):
                    if not s.columns:
                        with VerticalScroll(id="trends-scroll", classes="detail"):
                            yield Static(id="trends-detail")
                        continue
                    yield DataTable(id=f"{s.id}-list", cursor_type="row", zebra_stripes=True)
                    with VerticalScroll(classes="detail"):
                        yield Static(id=f"{s.id}-detail")
                    yield Static(Text(s.hint), classes="hint")
        yield Static(id="status")
        yield Footer()

    def on_mount(self) -> None:
        for sid in LISTED:
            for heading, width in panes.BY_ID[sid].columns:
                self.table(sid).add_column(heading, width=width)
        self.table("promotions").focus()
        if self.digest is not None:
            self.fill(self.digest)
        else:
            self.say("Reading the digest…")
            self.load(announce="")

    def table(self, sid: str) -> DataTable[Any]:
        return self.query_one(f"#{sid}-list", DataTable)

    @property
    def active(self) -> str:
        return self.query_one("#sections", TabbedContent).active

    # -- status -------------------------------------------------------------------------
    def say(self, text: str, error: bool = False) -> None:
        """The one-line status bar (an error in red)."""
        self.status_text, self.status_error = " ".join(text.split()), error
        status = self.query_one("#status", Static)
        status.update(Text(self.status_text, no_wrap=True, overflow="ellipsis"))
        status.set_class(error, "error")

    def _post(self, fn: Callable[..., None], *args: Any) -> None:
        """From a worker thread back to the UI (dropped once the app has quit)."""
        with contextlib.suppress(RuntimeError):
            self.app.call_from_thread(fn, *args)

    # -- loading ------------------------------------------------------------------------
    def load(self, announce: str = "Refreshed.") -> None:
        if self.busy:
            return
        self.busy = True
        self.run_worker(
            lambda: self._fetch_then(announce, False), thread=True, group="core", exit_on_error=False
        )

    def _fetch_then(self, text: str, error: bool) -> None:
        """In a worker: fetch the digest, then show it and `text` on the UI thread."""
        try:
            digest, failed = self.facade.digest(since=self.since, scopes=self.scopes), ""
        except Exception as exc:
            digest, failed = None, review.describe(exc)
        self._post(self._finish, digest, text, error, failed)

    def _finish(self, digest: Any, text: str, error: bool, failed: str) -> None:
        self.busy = False
        if digest is not None:
            self.fill(digest)
        if failed and not error:
            self.say(failed, error=True)
        else:
            self.say(text, error)

    def fill(self, digest: Any) -> None:
        """Show a digest: the selection stays on the same item, or on the row that took its
        place when the item is gone (approving moves on to the next)."""
        self.digest = digest
        self._bodies.clear()
        self._texts.clear()
        lists = {
            "promotions": digest.pending_promotions,
            "duplicates": review.groups(digest.duplicates),
            "expiring": digest.ttl_reminders,
            "supersedes": digest.pending_supersedes,
            "suspect": digest.suspect,
        }
        for sid, items in lists.items():
            table, old = self.table(sid), self.rows[sid]
            row = table.cursor_row if old else None
            key = self._key(sid, old[row]) if row is not None and 0 <= row < len(old) else None
            table.clear()
            self.rows[sid] = list(items)
            for item in items:
                table.add_row(*self._cells(sid, item), key=self._key(sid, item))
            if items:
                keys = [self._key(sid, i) for i in items]
                table.move_cursor(row=keys.index(key) if key in keys else min(row or 0, len(items) - 1))
            self.show_current(sid)
        tabs = self.query_one("#sections", TabbedContent)
        for sid, count in panes.counts(digest).items():
            tabs.get_tab(sid).label = Text(f"{panes.BY_ID[sid].name} ({count})")
        self.query_one("#trends-detail", Static).update(panes.trends(digest))
        self.app.sub_title = panes.period(digest)

    def _key(self, sid: str, item: Any) -> str:
        if sid == "duplicates":
            return str(item.fingerprint)
        return str(item.slug if sid in ("expiring", "suspect") else item.id)

    def _cells(self, sid: str, item: Any) -> tuple[Text, ...]:
        if sid == "promotions":
            return panes.promotion_cells(item)
        if sid == "duplicates":
            return panes.group_cells(item, self._kept(item))
        if sid == "expiring":
            return panes.reminder_cells(item)
        if sid == "suspect":
            return panes.suspect_cells(item)
        return panes.supersede_cells(item)

    # -- selection ----------------------------------------------------------------------
    def current(self, sid: str) -> Any:
        items = self.rows[sid]
        row = self.table(sid).cursor_row
        return items[row] if items and 0 <= row < len(items) else None

    def _kept(self, group: review.Group) -> int:
        return min(self.keep_choice.get(group.fingerprint, 0), len(group.memories) - 1)

    def show_current(self, sid: str) -> None:
        item = self.current(sid)
        detail = self.query_one(f"#{sid}-detail", Static)
        if item is None:
            detail.update(Text(panes.BY_ID[sid].empty, style="dim"))
        elif sid == "promotions":
            detail.update(panes.promotion_detail(item))
        elif sid == "duplicates":
            views, failed = self._bodies.get(item.fingerprint, (None, ""))
            detail.update(panes.group_detail(item, self._kept(item), views, failed))
            if views is None and not failed and self.active == "duplicates":
                self._read_group(item)
        elif sid == "expiring":
            detail.update(panes.reminder_detail(item))
        elif sid == "suspect":
            text, failed = self._texts.get(item.slug, (None, ""))
            detail.update(panes.suspect_detail(item, text, failed))
            if text is None and not failed and self.active == "suspect":
                self._read_text(item)
        else:
            detail.update(panes.supersede_detail(item))

    def _read_group(self, group: review.Group) -> None:
        """Read the group's bodies (no recall) once its tab shows it; a missing grant is
        shown, never asked for with another window."""
        if self._reading == group.fingerprint:
            return
        self._reading = group.fingerprint

        def read() -> None:
            try:
                views, failed = review.read_bodies(self.facade, group), ""
            except Exception as exc:
                views, failed = None, review.describe(exc)
            self._post(self._group_read, group.fingerprint, views, failed)

        self.run_worker(read, thread=True, group="read", exit_on_error=False)

    def _group_read(self, fingerprint: str, views: list[Any] | None, failed: str) -> None:
        self._reading = None
        self._bodies[fingerprint] = (views, failed)
        if failed:
            self.say(failed, error=True)
        current = self.current("duplicates")
        if current is not None and current.fingerprint == fingerprint:
            self.show_current("duplicates")

    def _read_text(self, m: Any) -> None:
        """Read a suspect memory's text (no recall) once its tab shows it."""
        if self._reading_text == m.slug:
            return
        self._reading_text = m.slug

        def read() -> None:
            try:
                text, failed = review.read_text(self.facade, m), ""
            except Exception as exc:
                text, failed = None, review.describe(exc)
            self._post(self._text_read, m.slug, text, failed)

        self.run_worker(read, thread=True, group="read", exit_on_error=False)

    def _text_read(self, slug: str, text: str | None, failed: str) -> None:
        self._reading_text = None
        self._texts[slug] = (text, failed)
        if failed:
            self.say(failed, error=True)
        current = self.current("suspect")
        if current is not None and current.slug == slug:
            self.show_current("suspect")

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        sid = (event.data_table.id or "").removesuffix("-list")
        if sid in self.rows:
            self.show_current(sid)

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        self.refresh_bindings()
        self._focus_target(self.active).focus()
        if self.active in LISTED:
            self.show_current(self.active)

    def _focus_target(self, sid: str) -> Widget:
        return self.table(sid) if sid in LISTED else self.query_one("#trends-scroll", VerticalScroll)
