"""The review screen's keys: each one a facade call (memoryd.tui.review) run in a worker
thread, one at a time. After it the digest is fetched again, so what the screen shows is
what core says now; an error becomes one line in the status bar and the screen keeps
running.
"""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.coordinate import Coordinate
from textual.widgets import DataTable, TabbedContent

from memoryd.tui import panes, review
from memoryd.tui.review_view import LISTED, ReviewView
from memoryd.tui.screens import EditForm, HelpScreen

# The actions that only mean something in one section (check_action hides the others, and
# lets one key do each section's own thing: `a` approves, keeps or confirms).
SECTION_OF = {
    "approve": "promotions",
    "reject": "promotions",
    "edit": "promotions",
    "keep_side": "duplicates",
    "merge": "duplicates",
    "not_duplicates": "duplicates",
    "keep": "expiring",
    "confirm": "supersedes",
    "dismiss": "supersedes",
    "clear_suspect": "suspect",
    "forget": "suspect",
}


class ReviewScreen(ReviewView):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j,down", "move(1)", "Down", show=False),
        Binding("k,up", "move(-1)", "Up", show=False),
        Binding("a", "approve", "Approve"),
        Binding("r", "reject", "Reject"),
        Binding("e", "edit", "Edit+approve"),
        Binding("h", "keep_side(-1)", "Keep ◀"),
        Binding("l", "keep_side(1)", "Keep ▶"),
        Binding("m", "merge", "Merge"),
        Binding("n", "not_duplicates", "Not duplicates"),
        Binding("K", "keep", "Keep"),
        Binding("a", "keep", "Keep", show=False),
        Binding("c", "confirm", "Confirm"),
        Binding("a", "confirm", "Confirm", show=False),
        Binding("d", "dismiss", "Dismiss"),
        Binding("r", "dismiss", "Dismiss", show=False),
        Binding("c", "clear_suspect", "Not suspicious"),
        Binding("a", "clear_suspect", "Not suspicious", show=False),
        Binding("f", "forget", "Forget"),
        Binding("r", "forget", "Forget", show=False),
        Binding("R,f5", "refresh", "Refresh"),
        Binding("u", "undo", "Undo"),
        Binding("question_mark", "help", "Help"),
        Binding("q", "quit", "Quit"),
        Binding("tab", "next_section(1)", "Next section", show=False, priority=True),
        Binding("shift+tab", "next_section(-1)", "Previous section", show=False, priority=True),
        *[
            Binding(str(i), f"section('{s.id}')", s.name, show=False)
            for i, s in enumerate(panes.SECTIONS, start=1)
        ],
    ]

    _forget_armed: str | None = None  # the suspect memory the first f asked about

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        section = SECTION_OF.get(action)
        return section is None or section == self.active

    # -- keys ---------------------------------------------------------------------------
    def action_move(self, delta: int) -> None:
        if self.active not in LISTED:
            scroll = self.query_one("#trends-scroll", VerticalScroll)
            scroll.scroll_relative(y=delta, animate=False)
            return
        table = self.table(self.active)
        if table.row_count:
            table.move_cursor(row=max(0, min(table.row_count - 1, table.cursor_row + delta)))

    def action_section(self, sid: str) -> None:
        # Focus first: a pane whose widget has focus is the one TabbedContent shows.
        self._focus_target(sid).focus()
        self.query_one("#sections", TabbedContent).active = sid

    def action_next_section(self, delta: int) -> None:
        ids = [s.id for s in panes.SECTIONS]
        self.action_section(ids[(ids.index(self.active) + delta) % len(ids)])

    def action_refresh(self) -> None:
        if self.busy:
            self.say("Busy: the last action is still running.", error=True)
            return
        self.say("Reading the digest…")
        self.load()

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())

    def action_quit(self) -> None:
        self.app.exit()

    def _act(self, action: review.Action) -> None:
        """Run one facade action in a worker, say what it did, then fetch the digest again
        (after a failure too: a failed action may still have changed something)."""
        if self.busy:
            self.say("Busy: the last action is still running.", error=True)
            return
        self.busy = True
        self.say("Working…")
        call, message = action
        self._forget_armed = None

        def job() -> None:
            try:
                text, error = message(call()), False
            except Exception as exc:
                text, error = review.describe(exc), True
            self._fetch_then(text, error)

        self.run_worker(job, thread=True, group="core", exit_on_error=False)

    def action_approve(self) -> None:
        if (p := self.current("promotions")) is not None:
            self._act(review.approve(self.facade, p))

    def action_reject(self) -> None:
        if (p := self.current("promotions")) is not None:
            self._act(review.reject(self.facade, p))

    def action_edit(self) -> None:
        p = self.current("promotions")
        if p is None:
            return
        if self.busy:  # the edits could not be saved until it ends
            self.say("Busy: the last action is still running.", error=True)
            return

        def edited(edits: review.Edits | None) -> None:
            if edits is None:
                self.say("Edit cancelled; nothing approved.")
            else:
                self._act(review.approve(self.facade, p, review.changed_fields(p, edits)))

        self.app.push_screen(EditForm(p), edited)

    def action_keep_side(self, delta: int) -> None:
        group = self.current("duplicates")
        if group is None:
            return
        keep = max(0, min(len(group.memories) - 1, self._kept(group) + delta))
        self.keep_choice[group.fingerprint] = keep
        table = self.table("duplicates")
        for column, cell in enumerate(panes.group_cells(group, keep)):
            table.update_cell_at(Coordinate(table.cursor_row, column), cell)
        self.show_current("duplicates")

    def action_merge(self) -> None:
        group = self.current("duplicates")
        if group is None:
            return
        if not group.same_scope:
            self.say("These belong to different projects: use memoryd merge --force.", error=True)
            return
        self._act(review.merge(self.facade, group, self._kept(group)))

    def action_not_duplicates(self) -> None:
        if (group := self.current("duplicates")) is not None:
            self._act(review.not_duplicates(self.facade, group))

    def action_undo(self) -> None:
        self._act(review.undo(self.facade))

    def action_keep(self) -> None:
        if (t := self.current("expiring")) is not None:
            self._act(review.keep(self.facade, t))

    def action_confirm(self) -> None:
        if (s := self.current("supersedes")) is not None:
            self._act(review.confirm(self.facade, s))

    def action_dismiss(self) -> None:
        if (s := self.current("supersedes")) is not None:
            self._act(review.dismiss(self.facade, s))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._forget_armed = None  # the question was about the row that was selected
        super().on_data_table_row_highlighted(event)

    def action_clear_suspect(self) -> None:
        if (m := self.current("suspect")) is not None:
            self._act(review.clear_suspect(self.facade, m))

    def action_forget(self) -> None:
        """Forgetting asks first: the first press names the memory, the second forgets it."""
        m = self.current("suspect")
        if m is None:
            return
        if self._forget_armed != m.slug:
            self._forget_armed = m.slug
            self.say(f"Forget “{m.title}”? Agents will no longer recall it. Press f (or r) again to forget.")
            return
        self._act(review.forget(self.facade, m))
