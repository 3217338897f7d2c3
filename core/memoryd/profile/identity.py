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
        doc = store.files.read(store.files.absolute(row["body_path"]))
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
        last = sql.latest(s)
    if by != RULES and last is not None:  # an LLM rewrite keeps what the last version said
        scopes |= set(json.loads(last.get("source_scopes") or "[]"))
    if last is not None and content == last["content_md"] and content == old:
        return Rewrite(False, last["version_num"], by, note or "no change", "no change", "", sources)
    num = (last["version_num"] if last else 0) + 1
    prev = last["content_md"] if last else old
    patch = diff(prev, content, f"v{num - 1}" if last else "identity.md", f"v{num}")
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
    """Every version's row, with its change summary as values under "change"."""
    with read_session(store.engine) as s:
        return [{**row, "change": change_of(row.get("change_summary"))} for row in sql.versions(s)]


def version(store: Store, num: int | None) -> dict[str, Any]:
    with read_session(store.engine) as s:
        row = sql.latest(s) if num is None else sql.version(s, num)
    if row is None:
        raise NotFound(
            "no identity profile version yet: run `memoryd profile rewrite-identity`"
            if num is None
            else f"no identity profile version {num}"
        )
    return {**row, "change": change_of(row.get("change_summary"))}


def diff_versions(store: Store, a: int, b: int) -> str:
    va, vb = version(store, a), version(store, b)
    return diff(va["content_md"], vb["content_md"], f"v{a}", f"v{b}")


def withdraw_scope(store: Store, config: Config, scope_hash: str, *, actor: str = "cli") -> int:
    """A scope just became sensitive: every identity version and monthly report that drew on
    it goes (rows and report files), and identity.md is written again by rules from what is
    left, so nothing of the scope stays in plaintext or reaches another project's snapshot.
    Returns how many versions went."""
    from memoryd.store import profile as psql

    with read_session(store.engine) as s:
        gone = psql.versions_drawing_on(s, scope_hash)
        periods = psql.reports_drawing_on(s, scope_hash)
    had_profile = bool(current_text(store))
    if not gone and not periods:
        return 0
    with write_session(store.engine) as s:
        psql.withdraw(s, gone, periods)
    for period in periods:
        (store.layout.profile / "change-reports" / f"{period}.md").unlink(missing_ok=True)
    if had_profile:
        content, sources, scopes = by_rules(store, clock.now(), locale_text.language(config.raw))
        with read_session(store.engine) as s:
            last = sql.latest(s)
        # never reuse a withdrawn number: an audit event already names that version
        num = max(last["version_num"] if last else 0, max(gone, default=0)) + 1
        _save(store, num, "on_event", content, None, WITHDRAWN, sources, scopes, clock.now())
    store.audit.append(
        "profile_withdraw",
        actor=actor,
        scope_hash=scope_hash,
        details={"versions": gone, "reports": periods},
    )
    return len(gone)
