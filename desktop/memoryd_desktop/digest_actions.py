"""The digest window's review actions, each as a pair: the facade call to run off the GUI
thread, and the sentence the status line shows once it worked.

No widgets here: the window picks the selected row, reads the editor, and hands the pair
to its one action runner (busy state, refetch, errors), so every action is run alike.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QCoreApplication

from memoryd.app import Memoryd
from memoryd.errors import MemorydError
from memoryd_desktop import digest_model as dm
from memoryd_desktop.texts import local_time

translate = QCoreApplication.translate  # the bare name lupdate recognises
ACTOR = "tray"

Action = tuple[Callable[[], Any], Callable[[Any], str]]  # (call, message from its result)


def approve(facade: Memoryd, p: Any, edits: dict[str, Any]) -> Action:
    """Write a proposal as long-term memory with the fields the editor changed."""
    return (
        lambda: facade.promote(p.id, **edits, actor=ACTOR),
        lambda res: translate("DigestWindow", "Approved “{title}” as {type}.").format(
            title=res[0].meta.title, type=dm.type_label(dm.enum_text(res[0].meta.type))
        ),
    )


def reject(facade: Memoryd, p: Any) -> Action:
    return (
        lambda: facade.reject(p.id, actor=ACTOR),
        lambda _: translate("DigestWindow", "Rejected “{title}”.").format(title=p.title),
    )


def approve_all(facade: Memoryd, targets: Sequence[Any], edits: dict[int, dict[str, Any]]) -> Action:
    """Approve each target (with its edits, if any). One failure does not stop the others;
    they are counted in the message."""

    def run() -> tuple[int, list[str]]:
        approved, errors = 0, []
        for p in targets:
            try:
                facade.promote(p.id, **edits.get(p.id, {}), actor=ACTOR)
                approved += 1
            except MemorydError as exc:
                errors.append(f"#{p.id}: {exc}")
        return approved, errors

    def message(result: tuple[int, list[str]]) -> str:
        approved, errors = result
        text = translate("DigestWindow", "Approved {count} promotions.").format(count=approved)
        if errors:
            text += " " + translate("DigestWindow", "Not approved: {errors}").format(errors="; ".join(errors))
        return text

    return run, message


def merge(facade: Memoryd, kept: Any, dropped: Any) -> Action:
    """Fold one memory of a duplicate pair (`dropped`) into the other (`kept`)."""
    return (
        lambda: facade.merge(kept.slug, [dropped.slug], actor=ACTOR),
        lambda _: translate("DigestWindow", "Merged “{dropped}” into “{kept}”.").format(
            dropped=dropped.title, kept=kept.title
        ),
    )


def not_duplicates(facade: Memoryd, slugs: Sequence[str]) -> Action:
    """The person says a duplicate group's memories differ: the digest stops proposing it."""
    return (
        lambda: facade.not_duplicates(slugs, actor=ACTOR),
        lambda _: translate("DigestWindow", "Marked {count} memories as not duplicates.").format(
            count=len(slugs)
        ),
    )


def undo(facade: Memoryd, action: int, kind: str, title: str) -> Action:
    """Take back a review decision made in this window (core's `memoryd undo`)."""
    messages = {
        "reject": translate("DigestWindow", "Undone: “{title}” is no longer rejected and waits for review."),
        "approve": translate("DigestWindow", "Undone: “{title}” is no longer approved and waits for review."),
        "merge": translate("DigestWindow", "Undone: “{title}” is back, and the merge is taken back."),
        "not_duplicates": translate("DigestWindow", "Undone: the group is proposed as duplicates again."),
    }
    return (
        lambda: facade.undo(action, actor=ACTOR),
        lambda _: messages[kind].format(title=title),
    )


def keep(facade: Memoryd, t: Any) -> Action:
    """Keep a fading memory: reading it is a recall, which resets its decay clock."""
    return (
        lambda: facade.get(t.slug, count_recall=True, actor=ACTOR),
        lambda _: translate("DigestWindow", "Kept “{title}”.").format(title=t.title),
    )


def confirm(facade: Memoryd, s: Any) -> Action:
    return (
        lambda: facade.confirm_supersede(s.id, decided_by="digest", actor=ACTOR),
        lambda _: translate("DigestWindow", "Confirmed: “{new}” replaces “{old}”.").format(
            new=s.new_title, old=s.old_title
        ),
    )


def dismiss(facade: Memoryd, s: Any) -> Action:
    return (
        lambda: facade.dismiss_supersede(s.id, actor=ACTOR),
        lambda _: translate("DigestWindow", "Dismissed: “{old}” stays current.").format(old=s.old_title),
    )


def resolve(facade: Memoryd, c: Any, copy: Any = None) -> Action:
    """Settle a sync conflict: keep the version in use (`copy` None) or take one of its
    copies; every device drops the others at its next sync."""
    if copy is None:
        return (
            lambda: facade.sync_resolve(c.slug, take=None, actor=ACTOR),
            lambda _: translate(
                "DigestWindow", "Kept the version of “{title}” in use; its copies are dropped."
            ).format(title=dm.version_title(c.kept)),
        )
    return (
        lambda: facade.sync_resolve(c.slug, take=copy.rev, actor=ACTOR),
        lambda _: translate("DigestWindow", "“{title}” now uses the copy changed {time}.").format(
            title=dm.version_title(copy), time=local_time(copy.updated_at)
        ),
    )


def clear_suspect(facade: Memoryd, m: Any) -> Action:
    """The person read a suspect memory and vouches for it: agents may see it again."""
    return (
        lambda: facade.clear_suspect(m.slug, actor=ACTOR),
        lambda _: translate("DigestWindow", "“{title}” is no longer marked suspect.").format(title=m.title),
    )


def forget(facade: Memoryd, m: Any) -> Action:
    """Remove a memory (a suspect one the person does not want kept)."""
    return (
        lambda: facade.forget(m.slug, actor=ACTOR),
        lambda _: translate("DigestWindow", "Forgot “{title}”.").format(title=m.title),
    )
