"""What the review screen draws: each section's list columns and row cells, and the detail
text under the list for the selected row. Plain rich `Text`, never markup strings, so a
title like "[bold]" or "[/]" is shown as typed instead of being read as styling.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich.text import Text

from memoryd.app_upkeep import digest_counts
from memoryd.tui.review import Group, join_triggers

MUTED = "dim"
BOLD = "bold"
BODY_LINES = 12  # lines of each duplicate's body shown side by side


def day(timestamp: str) -> str:
    return timestamp[:10]


@dataclass(frozen=True)
class Section:
    id: str
    name: str
    columns: tuple[tuple[str, int | None], ...]  # (heading, width; None fits the content)
    empty: str
    hint: str


SECTIONS = (
    Section(
        "promotions",
        "Promotions",
        (("Mean", 5), ("Type", 10), ("Title", 56), ("From session", None)),
        "No promotions wait for review.",
        "a approve · r reject · e edit, then approve",
    ),
    Section(
        "duplicates",
        "Duplicates",
        (("Kept", 40), ("Others", 48), ("Type", None)),
        "No duplicates found.",
        "h/l choose which memory is kept · m merge the others into it",
    ),
    Section(
        "expiring",
        "Expiring",
        (("Title", 48), ("Type", 10), ("Change", 24), ("Due", 10), ("Idle days", None)),
        "Nothing is fading this week.",
        "K (or a) keep: counts as a recall, its clock starts again",
    ),
    Section(
        "supersedes",
        "Supersedes to confirm",
        (("New", 40), ("Replaces", 40), ("Confidence", None)),
        "No supersedes wait for confirmation.",
        "c (or a) confirm · d (or r) dismiss",
    ),
    Section(
        "suspect",
        "Suspect",
        (("Title", 40), ("Project", 12), ("Type", 10), ("Date", None)),
        "No suspect memories.",
        "c (or a) not suspicious · f (or r) forget, press twice",
    ),
    Section("trends", "Trends", (), "", ""),
)
BY_ID = {s.id: s for s in SECTIONS}


def _t(value: object, style: str = "") -> Text:
    return Text(str(value), style=style, no_wrap=True, overflow="ellipsis")


def promotion_cells(p: Any) -> tuple[Text, ...]:
    return (_t(f"{p.mean:.2f}"), _t(p.proposed_type), _t(p.title), _t(p.session_slug, MUTED))


def group_cells(g: Group, keep: int) -> tuple[Text, ...]:
    kept = g.memories[keep]
    others = [m.title for i, m in enumerate(g.memories) if i != keep]
    return (_t(kept.title), _t("; ".join(others)), _t(kept.type))


def reminder_cells(t: Any) -> tuple[Text, ...]:
    change = f"{t.state} → {t.next_state}"
    return (_t(t.title), _t(t.type), _t(change), _t(day(t.due_at)), _t(t.idle_days))


def supersede_cells(s: Any) -> tuple[Text, ...]:
    return (_t(s.new_title), _t(s.old_title), _t(f"{s.confidence:.2f}"))


def _join(lines: Sequence[Text | str]) -> Text:
    return Text("\n").join(line if isinstance(line, Text) else Text(line) for line in lines)


def promotion_detail(p: Any) -> Text:
    s = p.dura
    lines: list[Text | str] = [
        Text(f"#{p.id} {p.proposed_type}: {p.title}", style=BOLD),
        Text(f"From session {p.session_slug}, proposed {day(p.created_at)}", style=MUTED),
        Text(
            f"DURA  D {s.D:.2f}  U {s.U:.2f}  R {s.R:.2f}  A {s.A:.2f}   mean {p.mean:.2f}",
            style=BOLD,
        ),
        Text(f"Why: {p.reasoning or 'no reasoning given.'}", style=MUTED),
        f"Triggers: {join_triggers(p.triggers) or '–'}",
    ]
    if p.supersedes:
        lines.append(f"Replaces: {', '.join(p.supersedes)}")
    lines += ["", p.body]
    return _join(lines)


def group_detail(g: Group, keep: int, views: Sequence[Any] | None, read_error: str = "") -> Text:
    """The group's memories one under the other, the kept one marked; their bodies once
    read (`views`, from Memoryd.get), or why they could not be."""
    lines: list[Text | str] = []
    if not g.same_scope:
        lines.append(
            Text(
                "These belong to different projects. Merging across projects is left to the "
                "command line: memoryd merge --force.",
                style="bold red",
            )
        )
    for i, ref in enumerate(g.memories):
        mark = "▶ keep " if i == keep else "  merge"
        lines.append(Text(f"{mark}  {ref.title}", style=BOLD if i == keep else ""))
        lines.append(Text(f"         {ref.slug} · {ref.type} · created {day(ref.created_at)}", style=MUTED))
        if views is not None and i < len(views):
            meta = views[i].doc.meta
            lines.append(
                Text(
                    f"         recalled {meta.recall_count} times · triggers: "
                    f"{join_triggers(meta.triggers) or '–'}",
                    style=MUTED,
                )
            )
            body = views[i].doc.body.strip().splitlines()
            shown = body[:BODY_LINES] + (["…"] if len(body) > BODY_LINES else [])
            lines += [f"         {line}" for line in shown]
        elif read_error:
            lines.append(Text(f"         {read_error}", style="red"))
        lines.append("")
    return _join(lines)


def reminder_detail(t: Any) -> Text:
    return _join(
        [
            Text(
                f"{t.type} “{t.title}” turns {t.next_state} on {day(t.due_at)}, idle for {t.idle_days} days.",
                style=BOLD,
            ),
            Text(f"{t.slug}", style=MUTED),
            Text(
                "Keeping counts as a recall: the memory stays alive and its clock starts again.", style=MUTED
            ),
        ]
    )


def supersede_detail(s: Any) -> Text:
    return _join(
        [
            Text(
                f"Does “{s.new_title}” replace “{s.old_title}”? "
                f"Confidence {s.confidence:.2f} ({s.judged_by}).",
                style=BOLD,
            ),
            Text(f"{s.new_slug} → supersedes {s.old_slug}", style=MUTED),
            s.reason,
        ]
    )


def suspect_cells(m: Any) -> tuple[Text, ...]:
    return (_t(m.title), _t(m.scope_hash), _t(m.type), _t(day(m.created_at)))


def suspect_detail(m: Any, text: str | None, read_error: str = "") -> Text:
    """Why the memory was flagged, then its text (plain Text: attack text stays literal)."""
    lines: list[Text | str] = [
        Text(m.title, style=BOLD),
        Text(
            f"{m.slug} · project {m.scope_hash} · {m.type} · {m.source} · created {day(m.created_at)}",
            style=MUTED,
        ),
        Text(
            "Its text reads as if written for an AI. Until you decide, agents are not shown it at "
            "start-up, and it is not exported or promoted.",
            style=MUTED,
        ),
        Text("Why it was flagged", style=BOLD),
        *[Text(f"  • {r}") for r in m.reasons],
        "",
    ]
    if text is not None:
        lines.append(Text(text))
    elif read_error:
        lines.append(Text(read_error, style="red"))
    else:
        lines.append(Text("Loading…", style=MUTED))
    return _join(lines)


def _block(title: str, items: list[str]) -> list[Text | str]:
    return [Text(title, style=BOLD), *[f"  {x}" for x in items or ["none"]], ""]


def trends(d: Any) -> Text:
    t = d.trends
    sp = d.spend
    lines: list[Text | str] = [
        *_block("Top triggers", [f"{x.trigger}: {x.hits} hits" for x in t.top_triggers]),
        *_block("Rising entities", [f"{e.name}: {e.delta:+d} mentions" for e in t.rising_entities]),
        *_block(
            "Recent supersedes",
            [f"{s.old_title or s.old_slug} → {s.new_title or s.new_slug}" for s in t.recent_supersedes],
        ),
        *_block("Recalled most", [f"{r.title}: recalled {r.recalls} times" for r in t.recall_hot]),
        Text(
            f"LLM today: {sp.today.tokens:,} tokens in {sp.today.calls} calls; "
            f"{sp.left_today:,} of the daily budget left.",
            style=MUTED,
        ),
    ]
    return _join(lines)


def period(d: Any) -> str:
    scope = "" if d.scopes is None else f" · scope {', '.join(d.scopes)}"
    return f"{day(d.since)} to {day(d.until)}{scope}"


def counts(d: Any) -> dict[str, int]:
    # what the weekly notification counts, for the sections this view has (sync conflicts
    # are settled in the tray's digest window and by `memoryd sync`, not here)
    return {k: n for k, n in digest_counts(d).items() if k in BY_ID}
