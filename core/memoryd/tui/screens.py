"""The two screens opened over the review: the edit form (edit a promotion, then approve
it) and the key help. Both are modal: while one is open the review keys are not bound,
so letters typed into the form stay text.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Select, Static, TextArea

from memoryd.tui.review import PROMOTE_TYPES, Edits, join_triggers, parse_triggers

HELP = """\
memoryd weekly review: keys

Everywhere
  j / ↓, k / ↑      move in the list
  1 … 6, Tab        Promotions, Duplicates, Expiring, Supersedes, Suspect, Trends
  R or F5           refresh: fetch the digest again
  u                 undo the last review decision (memoryd undo)
  ?                 this help
  q                 quit

Promotions
  a                 approve as proposed (memoryd promote ID)
  r                 reject (memoryd reject ID)
  e                 edit type, title, triggers, body; Ctrl+S approves with the edits, Esc cancels

Duplicates (one row per group; the oldest memory is kept unless you choose another)
  h / l             choose which memory of the group is kept
  m                 merge the others into it (memoryd merge --keep KEPT --drop OTHERS)
  n                 not duplicates: stop proposing this group (memoryd not-duplicates SLUGS)

Expiring
  K or a            keep: read it as a recall, so its decay clock starts again

Supersedes to confirm
  c or a            confirm: the new memory replaces the old one
  d or r            dismiss: both stay current

Suspect (text that reads as aimed at an AI: kept from agents until you decide)
  c or a            not suspicious: agents may see it again (memoryd suspect clear SLUG)
  f or r, twice     forget it (memoryd forget SLUG)

After each action the digest is fetched again; what the screen shows is what core says
now. Errors are shown in the status line at the bottom.
"""


class EditForm(ModalScreen[Edits | None]):
    """Edit a pending promotion's type, title, triggers and body; Ctrl+S returns the edits
    (the review approves with them), Esc returns None."""

    DEFAULT_CSS = """
    EditForm { align: center middle; }
    EditForm > Vertical {
        width: 90%; height: 90%; border: round $accent; padding: 0 1; background: $surface;
    }
    EditForm Label { margin-top: 1; }
    EditForm #heading { text-style: bold; margin-top: 0; }
    EditForm TextArea { height: 1fr; min-height: 4; }
    EditForm #form-hint { color: $text-muted; height: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save and approve", priority=True),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(self, proposal: Any) -> None:
        super().__init__()
        self.proposal = proposal

    def compose(self) -> ComposeResult:
        p = self.proposal
        types = list(PROMOTE_TYPES)
        if p.proposed_type not in types:
            types.append(p.proposed_type)
        with Vertical():
            yield Label(Text(f"Edit, then approve promotion #{p.id}: {p.title}"), id="heading")
            yield Label("Type")
            yield Select([(t, t) for t in types], value=p.proposed_type, allow_blank=False, id="type")
            yield Label("Title")
            yield Input(p.title, id="title")
            yield Label("Triggers (comma separated: , or ，)")
            yield Input(join_triggers(p.triggers), id="triggers")
            yield Label("Body")
            yield TextArea(p.body, id="body")
            yield Static("Ctrl+S save and approve · Esc cancel · Tab next field", id="form-hint")

    def on_mount(self) -> None:
        self.query_one("#title", Input).focus()

    def edits(self) -> Edits:
        return Edits(
            memory_type=str(self.query_one("#type", Select).value),
            title=self.query_one("#title", Input).value,
            triggers=parse_triggers(self.query_one("#triggers", Input).value),
            body=self.query_one("#body", TextArea).text,
        )

    def action_save(self) -> None:
        self.dismiss(self.edits())

    def action_cancel(self) -> None:
        self.dismiss(None)


class HelpScreen(ModalScreen[None]):
    """The keys, one screen; Esc, q or ? closes it."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 96; max-width: 100%; height: 90%; border: round $accent; padding: 0 1;
        background: $surface;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark", "close", "Close"),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(Text(HELP), id="help-text")

    def action_close(self) -> None:
        self.dismiss(None)
