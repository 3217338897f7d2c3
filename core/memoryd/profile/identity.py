"""The identity profile (seed 001 section 6): `profile/identity.md`, a mirror in which the
future you sees the present you, rewritten weekly and kept as numbered versions.

Each rewrite reads the long-term memories (and the week's recall-hot ones) outside
sensitive scopes: the profile is plaintext and reaches every project's start-up snapshot,
so nothing of a sensitive scope may enter it. With an LLM configured (and within the day's
token budget) the `rewrite_identity` prompt rewrites the current profile; without one, or
when it fails, a structured rendering by rules: preferences, decisions, warnings, tools and
languages, activity. A rewrite that changes nothing makes no version; one that does is a
`profile_versions` row with the unified diff from the previous version, and an audit event.
"""

from __future__ import annotations

import difflib
import json
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Any

import httpx

from memoryd import atomic, clock, locale_text
from memoryd.config import Config
from memoryd.db.engine import read_session, write_session
from memoryd.errors import CorruptFile, KeyUnavailable, NotFound, UsageError
from memoryd.models import VISIBLE_STATES, MemoryType
from memoryd.store import Store
from memoryd.store import profile as sql

PROMPT = "rewrite_identity"
TRIGGERS = ("manual", "weekly_cron", "on_event")
WINDOW_DAYS = 7
MAX_LINES = {"preference": 12, "decision": 10, "warning": 8, "playbook": 6, "fact": 8}
RULES = "rules"


@dataclass(frozen=True)
class Rewrite:
    changed: bool
    version: int | None  # the new version, or the current one when nothing changed
    by: str  # "rules" or "<provider>:<model>"
    note: str
    change_summary: str
    diff: str
    sources: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def change(self) -> dict[str, Any]:
        """The change summary as values (change_of), for a window to word."""
        return change_of(self.change_summary)


def path(store: Store) -> str:
    return str(store.layout.profile / "identity.md")


def current_text(store: Store) -> str:
    try:
        with open(path(store), encoding="utf-8") as fh:
            return fh.read()
    except FileNotFoundError:
        return ""


def _sources(store: Store, since: datetime) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(long-term rows outside sensitive scopes, the window's sessions there)."""
    rows = [r for r in store.list(states=list(VISIBLE_STATES)) if not r.get("scope_sensitive")]
    lt = [r for r in rows if r["type"] != MemoryType.session.value]
    cutoff = clock.iso(since)
    sessions = [r for r in rows if r["type"] == MemoryType.session.value and r["created_at"] >= cutoff]
    return lt, sessions


def _read(store: Store, row: dict[str, Any]) -> tuple[str, str, list[str]]:
    """Title, gist and tags, read by the path the listing already holds (no index lookup
    per memory: a weekly rewrite reads a couple of thousand)."""
    try:
        doc = store.files.read_clear(store.files.absolute(row["body_path"]))
    except (CorruptFile, KeyUnavailable, NotFound):
        return "", "", []
    from memoryd.snapshot import _gist

    return " ".join(doc.meta.title.split()), _gist(doc.body), doc.meta.tags


def by_rules(store: Store, now: datetime, lang: str = locale_text.EN) -> tuple[str, int, set[str]]:
    """The structured profile: who the memories say the user is, in a fixed shape, its
    headings in `lang` (memoryd.locale_text: the user's language)."""
    from memoryd.snapshot import score

    lt, sessions = _sources(store, now - timedelta(days=WINDOW_DAYS))
    ranked = sorted(lt, key=lambda r: (-score(r, now), r["slug"]))
    lines: dict[str, list[str]] = {k: [] for k in MAX_LINES}
    for r in ranked:
        kind = r["type"]
        if kind in lines and len(lines[kind]) < MAX_LINES[kind]:
            title, gist, _ = _read(store, r)
            if title:
                lines[kind].append(
                    f"- {title}" + (f": {gist}" if gist and gist.rstrip(".") != title.rstrip(".") else "")
                )
    tools: Counter[str] = Counter()
    for r in sessions:
        _, _, tags = _read(store, r)
        tools.update(t for t in tags if t not in _SOURCE_TAGS)
    projects = len({r["scope_hash"] for r in sessions})

    t = locale_text
    sep, join = t.separator(lang), t.list_separator(lang)
    summary = []
    if lines["preference"]:
        heads = join.join(ln[2:].split(": ")[0] for ln in lines["preference"][:3])
        summary.append(f"- {t.text('profile.prefers', lang)}{sep}{heads}")
    if lines["decision"]:
        heads = join.join(ln[2:].split(": ")[0] for ln in lines["decision"][:3])
        summary.append(f"- {t.text('profile.recent_decisions', lang)}{sep}{heads}")
    if tools:
        used = ", ".join(x for x, _ in tools.most_common(6))
        summary.append(f"- {t.text('profile.works_with', lang)}{sep}{used}")
    if sessions:
        key = "profile.this_week_one" if projects == 1 else "profile.this_week"
        summary.append("- " + t.text(key, lang, sessions=len(sessions), projects=projects))
    if not summary:
        summary.append("- " + t.text("profile.nothing_known", lang))
    out = [f"# {t.text('profile.title', lang)}", "", f"## {t.text('profile.summary', lang)}", *summary]
    for kind in ("preference", "decision", "warning", "playbook", "fact"):
        if lines[kind]:
            out += ["", f"## {t.text(f'profile.{kind}', lang)}", *lines[kind]]
    if tools:
        heading = t.text("profile.tools", lang)
        out += ["", f"## {heading}", *(f"- {x} ({n})" for x, n in tools.most_common(12))]
    return "\n".join(out) + "\n", len(lt) + len(sessions), {r["scope_hash"] for r in [*lt, *sessions]}


_SOURCE_TAGS = frozenset(
    {"claude-code", "codex", "codex-rollout", "openclaw", "openclaw-fs", "manual", "daily-log", "episode"}
)


def _by_llm(
    store: Store, config: Config, now: datetime, env: Mapping[str, str] | None, transport: Any
) -> tuple[str, str, str, int, set[str]] | str:
    """(content, change summary, by, sources, their scopes) from the LLM, or why not."""
    from memoryd.governance import spend
    from memoryd.llm import prompts, tokens
    from memoryd.llm.factory import choose
    from memoryd.llm.schemas import IdentityRewrite

    choice = choose(config.llm, env=env, transport=transport)
    provider = choice.provider
    if provider is None:
        return choice.reason
    since = now - timedelta(days=WINDOW_DAYS)
    lt, _ = _sources(store, since)
    cutoff = clock.iso(since)
    with read_session(store.engine) as s:
        from memoryd.store import governance as gsql

        hot = {r["slug"] for r in gsql.recall_hot(s, since.strftime("%Y-%m-%d"), None, 20)}
    fresh = [r for r in lt if (r.get("updated_at") or r["created_at"]) >= cutoff or r["slug"] in hot]
    if not fresh:
        return "no new or recall-hot long-term memories this week"
    items = []
    for r in fresh:
        title, gist, _ = _read(store, r)
        if title:
            items.append(f"- [{r['type']}] {title}" + (f": {gist}" if gist else ""))
    budget = max(config.llm.max_input_tokens, 300)
    prompt = prompts.render(
        PROMPT,
        current=tokens.trim(current_text(store) or "(no profile yet)", budget),
        memories=tokens.trim("\n".join(items), budget),
    )
    reply = spend.ask(store, config.llm, provider, prompt, IdentityRewrite, PROMPT)
    if isinstance(reply, str):
        return reply
    content = reply.data.content_md.strip()
    if not content:
        return "the LLM returned an empty profile"
    by = f"{provider.name}:{provider.model}"
    return content + "\n", reply.data.change_summary.strip(), by, len(fresh), {r["scope_hash"] for r in fresh}


def diff(old: str, new: str, a: str, b: str) -> str:
    return "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True), a, b))


# A version's change summary, as stored (English, what `memoryd profile` prints); the
# rules' summaries are read back by change_of() so a window can word them itself.
FIRST_VERSION = "first version"
WITHDRAWN = "rewritten by rules: a scope was marked sensitive"
_LINES = re.compile(r"^(\d+) line\(s\) added, (\d+) removed$")


def _summary(old: str, new: str) -> str:
    added = sum(1 for ln in difflib.ndiff(old.splitlines(), new.splitlines()) if ln.startswith("+ "))
    removed = sum(1 for ln in difflib.ndiff(old.splitlines(), new.splitlines()) if ln.startswith("- "))
    return FIRST_VERSION if not old else f"{added} line(s) added, {removed} removed"


def change_of(summary: str | None) -> dict[str, Any]:
    """A stored change summary as values: {"kind": "first" | "lines" | "withdrawn" |
    "text", "added", "removed", "text"}; "text" is an LLM's own words (shown as written)."""
    summary = (summary or "").strip()
    if summary == FIRST_VERSION:
        return {"kind": "first"}
    if summary == WITHDRAWN:
        return {"kind": "withdrawn"}
    m = _LINES.match(summary)
    if m:
        return {"kind": "lines", "added": int(m.group(1)), "removed": int(m.group(2))}
    return {"kind": "text", "text": summary}


def rewrite(
    store: Store,
    config: Config,
    *,
    trigger: str = "manual",
    actor: str = "cli",
    env: Mapping[str, str] | None = None,
    transport: httpx.BaseTransport | None = None,
    render: bool = True,
) -> Rewrite:
    """A new version when the profile changed. Every project's snapshot shows its summary:
    they are re-rendered now, or with `render=False` marked stale for a caller that renders
    them next (the consolidation's snapshots phase)."""
    if trigger not in TRIGGERS:
        raise UsageError(f"trigger must be one of {', '.join(TRIGGERS)}")
    now = clock.now()
    old = current_text(store)
    got = _by_llm(store, config, now, env, transport)
    if isinstance(got, str):
        note = f"rules: {got}"
        content, sources, scopes = by_rules(store, now, locale_text.language(config.raw, env))
        change, by = "", RULES
    else:
        content, change, by, sources, scopes = got
        note = ""
    with read_session(store.engine) as s:
        last = sql.latest(s, plain=True)  # a withheld version's words are sealed: not compared
        newest = sql.latest(s)
    if by != RULES and last is not None:  # an LLM rewrite keeps what the last version said
        scopes |= set(json.loads(last.get("source_scopes") or "[]"))
    if last is not None and content == last["content_md"] and content == old:
        return Rewrite(False, last["version_num"], by, note or "no change", "no change", "", sources)
    num = (newest["version_num"] if newest else 0) + 1
    prev = last["content_md"] if last else old
    patch = diff(prev, content, f"v{last['version_num']}" if last else "identity.md", f"v{num}")
    change = change or _summary(prev, content)
    # The event first, then the version: a rewrite killed in between writes the same
    # version again on the next run, and the event is not logged twice.
    store.audit.append(
        "profile_rewrite",
        actor=actor,
        target_id=f"identity:v{num}",
        details={"version": num, "trigger": trigger, "by": by, "sources": sources},
        dedupe=f"profile:v{num}",
    )
    _save(store, num, trigger, content, patch, change, sources, scopes, now)
    from memoryd import snapshot

    if render:
        snapshot.refresh_all(store)
    else:
        snapshot.mark_all_stale(store.layout)
    return Rewrite(True, num, by, note, change, patch, sources)


def _save(
    store: Store,
    num: int,
    trigger: str,
    content: str,
    patch: str | None,
    change: str,
    sources: int,
    scopes: set[str],
    now: datetime,
) -> None:
    """identity.md and its version row, with the scopes it drew on (see withdraw_scope)."""
    atomic.write_text(path(store), content)
    with write_session(store.engine) as s:
        sql.add_version(
            s,
            {
                "version_num": num,
                "written_at": clock.iso(now),
                "trigger": trigger,
                "content_md": content,
                "diff_from_prev": patch,
                "change_summary": change,
                "sources_count": sources,
                "sources_window_start": clock.iso(now - timedelta(days=WINDOW_DAYS)),
                "sources_window_end": clock.iso(now),
                "source_scopes": json.dumps(sorted(scopes)),
            },
        )


def versions(store: Store) -> list[dict[str, Any]]:
    """Every version the caller may see: those withheld for a sensitive project only under
    live grants on it (then with `withheld_by`, the projects they drew on); each one's
    change summary as values under "change"."""
    return [{**row, "change": change_of(row.get("change_summary"))} for row in _listing(store)[0]]


def _listing(store: Store) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(versions shown, versions withheld for want of a grant)."""
    from memoryd.profile import withheld

    with read_session(store.engine) as s:
        rows = sql.versions(s)
    shown, hidden = [], []
    for row in rows:
        opened = withheld.readable(store, row, withheld.version_name(int(row["version_num"])))
        if opened is None:
            hidden.append(row)
            continue
        shown.append({k: v for k, v in opened.items() if k not in ("content_md", "diff_from_prev")})
    return shown, hidden


def version(store: Store, num: int | None, *, actor: str = "cli") -> dict[str, Any]:
    """A version by number (default: the current one, never withheld). A withheld one opens
    only through the gate: a live grant on each sensitive project it drew on."""
    from memoryd.profile import withheld

    with read_session(store.engine) as s:
        row = sql.latest(s, plain=True) if num is None else sql.version(s, num)
    if row is None:
        raise NotFound(
            "no identity profile version yet: run `memoryd profile rewrite-identity`"
            if num is None
            else f"no identity profile version {num}"
        )
    row = withheld.check(store, row, withheld.version_name(int(row["version_num"])), actor=actor)
    return {**row, "change": change_of(row.get("change_summary"))}


def diff_versions(store: Store, a: int, b: int, *, actor: str = "cli") -> str:
    va, vb = version(store, a, actor=actor), version(store, b, actor=actor)
    return diff(va["content_md"], vb["content_md"], f"v{a}", f"v{b}")


def withdraw_scope(store: Store, config: Config, scope_hash: str, *, actor: str = "cli") -> int:
    """A scope just became sensitive: every identity version and monthly report that drew on
    it is withheld (its words sealed with the scope's key, its report file removed), and
    identity.md is written again by rules from what is left, so nothing of the scope stays
    in plaintext or reaches another project's snapshot. A live grant shows them again
    (profile/withheld.py). Returns how many versions and reports were withheld now (the
    caller compacts the database when any were: their clear words leave the free pages)."""
    from memoryd.profile import withheld

    with read_session(store.engine) as s:
        gone = sql.versions_drawing_on(s, scope_hash)
        reports = sql.reports_drawing_on(s, scope_hash)
    had_profile = bool(current_text(store))
    if not gone and not reports:
        return 0
    key = store.keys.get(scope_hash)
    with write_session(store.engine) as s:
        for row in gone:
            num = int(row["version_num"])
            sealed = withheld.seal(key, scope_hash, withheld.version_name(num), row, withheld.VERSION_FIELDS)
            sql.set_version_words(
                s, num, {"content_md": sealed, "diff_from_prev": None, "change_summary": None}
            )
        for row in reports:
            period = str(row["period"])
            name = withheld.report_name(period)
            sql.set_report_words(s, period, withheld.seal(key, scope_hash, name, row, withheld.REPORT_FIELDS))
    for row in reports:
        (store.layout.profile / "change-reports" / f"{row['period']}.md").unlink(missing_ok=True)
    if had_profile:
        content, sources, scopes = by_rules(store, clock.now(), locale_text.language(config.raw))
        with read_session(store.engine) as s:
            last = sql.latest(s)
        num = (last["version_num"] if last else 0) + 1
        _save(store, num, "on_event", content, None, WITHDRAWN, sources, scopes, clock.now())
    store.audit.append(
        "profile_withdraw",
        actor=actor,
        scope_hash=scope_hash,
        details={
            "versions": [int(r["version_num"]) for r in gone],
            "reports": [r["period"] for r in reports],
        },
    )
    return len(gone) + len(reports)


def unseal_scope(store: Store, scope_hash: str, old_key: bytes, new_key: bytes | None) -> None:
    """The scope's key changes (`new_key`) or goes with its sensitivity (None): what it
    withheld is sealed again with the new key, or, unmarked, handed to another sensitive
    project it drew on, or plain again when there is none (dropped when that project's key
    is not at hand: it must not come back as plaintext)."""
    from memoryd.errors import MemorydError
    from memoryd.profile import withheld

    with read_session(store.engine) as s:
        versions, reports = sql.sealed_by(s, scope_hash)

    def target(row: dict[str, Any]) -> tuple[str, bytes] | bool | None:
        if new_key is not None:
            return scope_hash, new_key
        others = [h for h in json.loads(row.get("source_scopes") or "[]") if h != scope_hash]
        for h in others:
            if store.keys.sensitive(h):
                try:
                    return h, store.keys.get(h)
                except MemorydError:
                    return False
        return None

    def opened(name: str, value: str) -> dict[str, Any] | None:
        """The words, or None when a rotation killed half-way already sealed them anew."""
        try:
            return withheld.open_words(old_key, name, value)
        except MemorydError:
            if new_key is None:
                raise
            withheld.open_words(new_key, name, value)  # raises if neither key opens it
            return None

    dropped_v: list[int] = []
    dropped_r: list[str] = []
    with write_session(store.engine) as s:
        for row in versions:
            num = int(row["version_num"])
            name = withheld.version_name(num)
            words = opened(name, row["content_md"])
            to = target(row)
            if words is None:
                continue
            if to is False:
                dropped_v.append(num)
                continue
            if to is not None:
                assert isinstance(to, tuple)
                sealed = withheld.seal(to[1], to[0], name, words, withheld.VERSION_FIELDS)
                words = {"content_md": sealed, "diff_from_prev": None, "change_summary": None}
            sql.set_version_words(s, num, words)
        for row in reports:
            period = str(row["period"])
            name = withheld.report_name(period)
            words = opened(name, row["content_md"])
            to = target(row)
            if words is None:
                continue
            if to is False:
                dropped_r.append(period)
                continue
            if to is not None:
                assert isinstance(to, tuple)
                words = {"content_md": withheld.seal(to[1], to[0], name, words, withheld.REPORT_FIELDS)}
            sql.set_report_words(s, period, str(words["content_md"]))
        sql.drop(s, dropped_v, dropped_r)
