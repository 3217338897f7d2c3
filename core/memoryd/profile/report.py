"""The monthly change report (seed 001 section 6): `profile/change-reports/YYYY-MM.md` and a
`profile_change_reports` row, saying how the identity profile changed in a month.

The structure comes from the data (profile/changes.py): preferences and other long-term
memories added in the month, what was superseded (old -> new), the entities first seen in
the month or no longer mentioned since the month before, the month's versions with their
summaries, and last the raw diff from the version before the month to the last one in it.
With an LLM configured, the `profile_change_report` prompt adds a readable
account on top; without one the report is the structure alone.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

import httpx

from memoryd import atomic, clock, locale_text
from memoryd.config import Config
from memoryd.db.engine import read_session, write_session
from memoryd.errors import UsageError
from memoryd.profile import changes
from memoryd.store import Store
from memoryd.store import profile as psql

PROMPT = "profile_change_report"


@dataclass(frozen=True)
class Report:
    period: str
    path: str
    versions: int
    supersedes: int
    entities_added: int
    entities_dropped: int
    by: str
    note: str
    changes: changes.MonthChanges | None = None

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["changes"] = self.changes.as_dict() if self.changes else None
        return out


def bounds(month: str | None) -> tuple[str, datetime, datetime, datetime]:
    """(YYYY-MM, its first instant, the next month's, the previous month's first instant)."""
    now = clock.now()
    if month is None:
        start = datetime(now.year, now.month, 1, tzinfo=UTC)
    else:
        try:
            start = datetime.strptime(month, "%Y-%m").replace(tzinfo=UTC)
        except ValueError:
            raise UsageError(f"--month must look like 2026-11, not {month!r}") from None
        if not 1970 <= start.year <= 9998:
            raise UsageError(f"--month must be between 1970-01 and 9998-12, not {month!r}")
    end = datetime(start.year + (start.month == 12), start.month % 12 + 1, 1, tzinfo=UTC)
    prev = datetime(start.year - (start.month == 1), (start.month - 2) % 12 + 1, 1, tzinfo=UTC)
    return start.strftime("%Y-%m"), start, end, prev


def generate(
    store: Store,
    config: Config,
    month: str | None = None,
    *,
    actor: str = "cli",
    env: Mapping[str, str] | None = None,
    transport: httpx.BaseTransport | None = None,
) -> Report:
    period, start, end, prev = bounds(month)
    a, b = clock.iso(start), clock.iso(end)
    lang = locale_text.language(config.raw, env)
    found = changes.of_month(store, period, start, end, prev, lang)
    with read_session(store.engine) as s:
        versions = psql.versions_between(s, a, b)
        before = psql.last_before(s, a)
    old = before["content_md"] if before else ""
    new = versions[-1]["content_md"] if versions else old
    narrative, by, note = (
        _narrative(store, config, period, old, new, env, transport) if versions else ("", "rules", "")
    )
    content = words(found, versions, narrative, lang)

    folder = store.layout.profile / "change-reports"
    out = folder / f"{period}.md"
    atomic.write_text(out, content)
    row = {
        "period": period,
        "generated_at": clock.now_iso(),
        "content_md": content,
        "versions_count": len(versions),
        "supersedes_count": len(found.superseded),
        "entities_added": len(found.entities_new),
        "entities_dropped": len(found.entities_gone),
        "source_scopes": json.dumps(
            sorted({h for v in versions for h in json.loads(v.get("source_scopes") or "[]")})
        ),
    }
    with write_session(store.engine) as s:
        psql.save_report(s, row)
    store.audit.append(
        "profile_report",
        actor=actor,
        target_id=f"change-report:{period}",
        details={k: v for k, v in row.items() if k not in ("content_md", "generated_at", "source_scopes")},
    )
    return Report(
        period,
        str(out),
        len(versions),
        len(found.superseded),
        len(found.entities_new),
        len(found.entities_gone),
        by,
        note,
        found,
    )


def month_changes(store: Store, month: str | None = None) -> changes.MonthChanges:
    """The month's changes as values, without writing a report."""
    period, start, end, prev = bounds(month)
    return changes.of_month(store, period, start, end, prev)


def sections(found: changes.MonthChanges, lang: str = locale_text.EN) -> list[tuple[str, list[str]]]:
    """(heading, bullet lines) of what changed, for the file and the CLI: prose for people,
    in `lang` (the tray words MonthChanges itself, with Qt's translations)."""
    t = locale_text

    def names(memos: list[changes.Memo]) -> list[str]:
        return [f"- {m.title}" for m in memos]

    def replaced(r: changes.Replacement) -> str:
        change = t.text("report.replaced", lang, old=r.older.title, new=r.newer.title)
        return "- " + _of_kind(change, f"kind.{r.older.type}", lang)

    def entity(e: changes.Entity) -> str:
        return "- " + _of_kind(e.name, f"entity.{e.type}", lang)

    return [
        (t.text("report.preferences_added", lang), names(found.preferences_added)),
        (t.text("report.preferences_dropped", lang), names(found.preferences_dropped)),
        (t.text("report.superseded", lang), [replaced(r) for r in found.superseded]),
        (t.text("report.decisions_added", lang), names(found.added_of("decision"))),
        (t.text("report.warnings_added", lang), names(found.added_of("warning"))),
        (t.text("report.facts_added", lang), names(found.added_of("fact"))),
        (t.text("report.playbooks_added", lang), names(found.added_of("playbook"))),
        (t.text("report.entities_new", lang), [entity(e) for e in found.entities_new]),
        (t.text("report.entities_gone", lang), [entity(e) for e in found.entities_gone]),
    ]


def _of_kind(what: str, key: str, lang: str) -> str:
    """`what (kind)`; a kind this module cannot word is left out in Chinese rather than
    shown in English, and shown as stored in English."""
    if locale_text.known(key):
        return locale_text.text("report.of_kind", lang, what=what, kind=locale_text.text(key, lang))
    kind = key.partition(".")[2]
    if lang == locale_text.ZH or not kind:
        return what
    return locale_text.text("report.of_kind", lang, what=what, kind=kind)


def _change(summary: str | None, lang: str) -> str:
    """A version's stored change summary in `lang`; an LLM's own summary as it wrote it."""
    from memoryd.profile import identity

    change = identity.change_of(summary)
    if change["kind"] == "first":
        return locale_text.text("change.first", lang)
    if change["kind"] == "withdrawn":
        return locale_text.text("change.withdrawn", lang)
    if change["kind"] == "lines":
        return locale_text.text("change.lines", lang, added=change["added"], removed=change["removed"])
    return str(change.get("text") or "")


def _trigger(trigger: str, lang: str) -> str:
    key = f"trigger.{trigger}"
    return locale_text.text(key, lang) if locale_text.known(key) else trigger


def words(
    found: changes.MonthChanges,
    versions: list[dict[str, Any]],
    narrative: str = "",
    lang: str = locale_text.EN,
) -> str:
    """The report file's Markdown, for people, in `lang` (the user's language); the titles
    and names in it are the user's own, the diff is the profile's lines as written."""
    t = locale_text
    lines = [f"# {t.text('report.title', lang, period=found.period)}", ""]
    if versions:
        first, last = versions[0]["version_num"], versions[-1]["version_num"]
        lines.append(t.text("report.versions", lang, count=len(versions), first=first, last=last))
    else:
        lines.append(t.text("report.unchanged", lang))
    if narrative:
        lines += ["", narrative.strip()]
    for title, items in sections(found, lang):
        if items:
            lines += ["", f"## {title}", *items]
    if versions:
        lines += ["", f"## {t.text('report.version_list', lang)}"]
        lines += [
            "- "
            + t.text(
                "report.version",
                lang,
                num=v["version_num"],
                day=v["written_at"][:10],
                trigger=_trigger(str(v["trigger"]), lang),
                change=_change(v["change_summary"], lang),
            ).rstrip(" ：:")
            for v in versions
        ]
    if found.diff:
        lines += ["", f"## {t.text('report.diff', lang)}", "", "```diff", found.diff.rstrip("\n"), "```"]
    return "\n".join(lines) + "\n"


def _narrative(
    store: Store,
    config: Config,
    period: str,
    old: str,
    new: str,
    env: Mapping[str, str] | None,
    transport: Any,
) -> tuple[str, str, str]:
    """(account, by, note): the LLM's readable account of the change, or none."""
    from memoryd.governance import spend
    from memoryd.llm import prompts, tokens
    from memoryd.llm.factory import choose
    from memoryd.llm.schemas import ChangeReport

    provider = choose(config.llm, env=env, transport=transport).provider
    if provider is None:
        return "", "rules", ""
    budget = max(config.llm.max_input_tokens, 300)
    prompt = prompts.render(
        PROMPT,
        since=period,
        before=tokens.trim(old or "(no profile)", budget),
        after=tokens.trim(new, budget),
        memories="(see the versions' summaries)",
    )
    reply = spend.ask(store, config.llm, provider, prompt, ChangeReport, PROMPT)
    if isinstance(reply, str):
        return "", "rules", reply
    return reply.data.content_md, f"{provider.name}:{provider.model}", ""


def listing(store: Store) -> list[dict[str, Any]]:
    """The reports written so far, newest first, with their Markdown: those withheld for a
    sensitive project only under live grants on it (profile/withheld.py)."""
    return _listing(store)[0]


def _listing(store: Store) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(reports shown, reports withheld for want of a grant)."""
    from memoryd.profile import withheld

    with read_session(store.engine) as s:
        rows = psql.reports(s)
    shown, hidden = [], []
    for row in rows:
        opened = withheld.readable(store, row, withheld.report_name(str(row["period"])))
        if opened is None:
            hidden.append(row)
        else:
            shown.append(opened)
    return shown, hidden


def withheld_counts(store: Store) -> Any:
    """How many versions and reports the listings leave out, and the sensitive projects
    whose grants would show them (the window says why it shows fewer)."""
    from memoryd.profile import identity, withheld

    _, versions_hidden = identity._listing(store)
    _, reports_hidden = _listing(store)
    scopes = sorted({h for row in [*versions_hidden, *reports_hidden] for h in withheld.needs(store, row)})
    return withheld.Withheld(len(versions_hidden), len(reports_hidden), scopes)
