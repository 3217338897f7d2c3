"""Words for the identity window (issue 22 items 6 and 7): a month's changes as core
counted them (`Memoryd.monthly_changes`: preferences added and dropped, what was
superseded, what else was written, entities that appeared or went quiet), and why the
window shows fewer versions or reports than were written (`Memoryd.profile_withheld`).

Core hands over values; the words are Qt's, in the user's language. Titles and names are
the user's own text: escaped, never read as markup.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import QCoreApplication

from memoryd_desktop.digest_model import type_label

translate = QCoreApplication.translate  # the bare name lupdate recognises


def _quoted(title: str) -> str:
    return translate("IdentityReport", "“{title}”").format(title=html.escape(title))


def _replacement(rep: Any) -> str:
    return translate("IdentityReport", "{old} → {new}").format(
        old=_quoted(rep.older.title), new=_quoted(rep.newer.title)
    )


def sections(changes: Any) -> list[tuple[str, list[str]]]:
    """(heading, items as HTML) of what the month changed, the empty ones left out."""
    superseded_new = {r.older.slug: r.newer for r in changes.superseded}

    def dropped(memo: Any) -> str:
        newer = superseded_new.get(memo.slug)
        if newer is None:
            return _quoted(memo.title)
        return translate("IdentityReport", "{old}, replaced by {new}").format(
            old=_quoted(memo.title), new=_quoted(newer.title)
        )

    others = [r for r in changes.superseded if r.older.type not in ("decision", "preference")]
    found = [
        (
            translate("IdentityReport", "Preferences added"),
            [_quoted(m.title) for m in changes.preferences_added],
        ),
        (
            translate("IdentityReport", "Preferences dropped"),
            [dropped(m) for m in changes.preferences_dropped],
        ),
        (
            translate("IdentityReport", "Decisions superseded"),
            [_replacement(r) for r in changes.superseded if r.older.type == "decision"],
        ),
        (
            translate("IdentityReport", "Also superseded"),
            [
                translate("IdentityReport", "{kind}: {change}").format(
                    kind=html.escape(type_label(r.older.type)), change=_replacement(r)
                )
                for r in others
            ],
        ),
        (
            translate("IdentityReport", "Decisions added"),
            [_quoted(m.title) for m in changes.added_of("decision")],
        ),
        (
            translate("IdentityReport", "Warnings added"),
            [_quoted(m.title) for m in changes.added_of("warning")],
        ),
        (translate("IdentityReport", "Facts added"), [_quoted(m.title) for m in changes.added_of("fact")]),
        (
            translate("IdentityReport", "Playbooks added"),
            [_quoted(m.title) for m in changes.added_of("playbook")],
        ),
        (
            translate("IdentityReport", "New in your memories"),
            [html.escape(e.name) for e in changes.entities_new],
        ),
        (
            translate("IdentityReport", "No longer mentioned"),
            [html.escape(e.name) for e in changes.entities_gone],
        ),
    ]
    return [(title, items) for title, items in found if items]


def changes_html(changes: Any) -> str:
    """The month in words, as rich text for a QTextBrowser."""
    count = len(changes.versions)
    if count:
        lead = translate("IdentityReport", "{count} new version(s) of your profile this month.").format(
            count=count
        )
    else:
        lead = translate("IdentityReport", "Your profile did not change this month.")
    parts = [f"<p>{html.escape(lead)}</p>"]
    shown = sections(changes)
    if not shown:
        parts.append(
            "<p>"
            + html.escape(translate("IdentityReport", "Nothing changed in your memories this month."))
            + "</p>"
        )
    for title, items in shown:
        parts.append(f"<h3>{html.escape(title)}</h3>")
        parts.append("<ul>" + "".join(f"<li>{item}</li>" for item in items) + "</ul>")
    return "\n".join(parts)


def withheld_text(withheld: Any, names: list[str]) -> str:
    """Why versions or reports are missing, and what a grant on which projects shows; ""
    when nothing is withheld."""
    versions, reports = int(withheld.versions), int(withheld.reports)
    if not versions and not reports:
        return ""
    projects = translate("IdentityReport", ", ").join(names)
    if versions and reports:
        text = translate(
            "IdentityReport",
            "{versions} version(s) and {reports} monthly report(s) draw on sensitive projects "
            "({projects}) and are hidden. Grant access to those projects to see them.",
        )
    elif versions:
        text = translate(
            "IdentityReport",
            "{versions} version(s) draw on sensitive projects ({projects}) and are hidden. "
            "Grant access to those projects to see them.",
        )
    else:
        text = translate(
            "IdentityReport",
            "{reports} monthly report(s) draw on sensitive projects ({projects}) and are hidden. "
            "Grant access to those projects to see them.",
        )
    return text.format(versions=versions, reports=reports, projects=projects)


def opened_note() -> str:
    """Beside a version or report shown only because a grant is live."""
    return translate("IdentityReport", "shown under a grant on a sensitive project")
