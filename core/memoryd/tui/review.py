"""What each review key asks core, and the plain rules the screens share: which fields an
edit changed, how a triggers line splits, how an error reads in one line.

Each action is a pair, like the tray's (memoryd_desktop.digest_actions): the facade call to
run off the UI thread, and the sentence the status line shows once it worked. No textual
here, so the rules are tested without a terminal.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from memoryd.app import Memoryd
from memoryd.errors import MemorydError
from memoryd.review import Edits as Edits
from memoryd.review import changed_fields as changed_fields
from memoryd.review import enum_text as enum_text
from memoryd.review import join_triggers as join_triggers
from memoryd.review import parse_triggers as parse_triggers

ACTOR = "tui"
# The long-term types a promotion may become, in the order the edit form lists them.
PROMOTE_TYPES = ("decision", "preference", "fact", "playbook", "warning")

Action = tuple[Callable[[], Any], Callable[[Any], str]]  # (call, message from its result)


def describe(exc: BaseException) -> str:
    """One line: our own errors already speak to the user; anything else names its type."""
    text = str(exc) if isinstance(exc, MemorydError) else f"{type(exc).__name__}: {exc}"
    return " ".join(text.split()) or type(exc).__name__


@dataclass(frozen=True)
class Group:
    """One duplicate group and which of its memories a merge keeps (default: the oldest,
    the digest's keep hint)."""

    fingerprint: str
    memories: tuple[Any, ...]  # memoryd.governance.digest.MemoryRef

    @property
    def same_scope(self) -> bool:
        return len({m.scope_hash for m in self.memories}) == 1


def groups(duplicates: Sequence[Any]) -> list[Group]:
    return [Group(g.fingerprint, tuple(g.memories)) for g in duplicates]


# -- the actions --------------------------------------------------------------------------
def approve(facade: Memoryd, p: Any, edits: dict[str, Any] | None = None) -> Action:
    """Write a proposal as long-term memory, with the fields the edit form changed."""
    return (
        lambda: facade.promote(p.id, **(edits or {}), actor=ACTOR),
        lambda res: f"Approved “{res[0].meta.title}” as {enum_text(res[0].meta.type)}.",
    )


def reject(facade: Memoryd, p: Any) -> Action:
    return (lambda: facade.reject(p.id, actor=ACTOR), lambda _: f"Rejected “{p.title}”.")


def merge(facade: Memoryd, group: Group, keep: int) -> Action:
    """Fold every other memory of the group into the one at index `keep`."""
    kept = group.memories[keep]
    dropped = [m for i, m in enumerate(group.memories) if i != keep]
    return (
        lambda: facade.merge(kept.slug, [m.slug for m in dropped], actor=ACTOR),
        lambda res: f"Merged {len(res[0].dropped)} into “{kept.title}”.",
    )


def not_duplicates(facade: Memoryd, group: Group) -> Action:
    """The group's memories differ: the digest stops proposing it (until undone)."""
    return (
        lambda: facade.not_duplicates([m.slug for m in group.memories], actor=ACTOR),
        lambda _: f"Marked {len(group.memories)} memories as not duplicates.",
    )


def undo(facade: Memoryd) -> Action:
    """Take back the latest review decision a person made (core's `memoryd undo`)."""
    return (lambda: facade.undo(actor=ACTOR), lambda res: f"Undone: {res[0].action.describe()}.")


def keep(facade: Memoryd, t: Any) -> Action:
    """Keep a fading memory: reading it is a recall, which resets its decay clock (the
    tray's Keep makes the same call)."""
    return (
        lambda: facade.get(t.slug, count_recall=True, actor=ACTOR),
        lambda _: f"Kept “{t.title}”.",
    )


def confirm(facade: Memoryd, s: Any) -> Action:
    return (
        lambda: facade.confirm_supersede(s.id, decided_by="digest", actor=ACTOR),
        lambda _: f"Confirmed: “{s.new_title}” replaces “{s.old_title}”.",
    )


def dismiss(facade: Memoryd, s: Any) -> Action:
    return (
        lambda: facade.dismiss_supersede(s.id, actor=ACTOR),
        lambda _: f"Dismissed: “{s.old_title}” stays current.",
    )


def clear_suspect(facade: Memoryd, m: Any) -> Action:
    """The person read a suspect memory and vouches for it (`memoryd suspect clear SLUG`)."""
    return (
        lambda: facade.clear_suspect(m.slug, actor=ACTOR),
        lambda _: f"“{m.title}” is no longer marked suspect.",
    )


def forget(facade: Memoryd, m: Any) -> Action:
    """Remove a suspect memory the person does not want kept (`memoryd forget SLUG`)."""
    return (lambda: facade.forget(m.slug, actor=ACTOR), lambda _: f"Forgot “{m.title}”.")


def read_text(facade: Memoryd, m: Any) -> str:
    """A suspect memory's text for the detail pane; reading is no recall."""
    return str(facade.get(m.slug, count_recall=False, actor=ACTOR).doc.body)


def read_bodies(facade: Memoryd, group: Group) -> list[Any]:
    """The group's memories for the side-by-side view; reading is no recall."""
    return [facade.get(m.slug, count_recall=False, actor=ACTOR) for m in group.memories]
