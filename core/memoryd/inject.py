"""`memoryd inject`: the start-up context an agent gets, read from a prebuilt file.

Seed 003's "write complex, read simple": writers render `scopes/<hash>/snapshot.md` when a
scope changes (memoryd.snapshot), so the agent's SessionStart hook only finds the scope
and prints a file. Like the capture hook this path imports only the standard library and
memoryd's stdlib-only modules; the full renderer loads only when the file is missing or
stale, or when a sensitive scope holds a live grant and the file must be decrypted.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence

from memoryd import envpaths
from memoryd.errors import AuthorizationRequired, UsageError

DEFAULT_BUDGET = 2000
# Claude Code caps hook output strings at 10,000 characters; stay clear of the edge so a
# JSON wrapper or a host's own preamble never pushes it over.
MAX_CHARS = 9500
SNAPSHOT = "snapshot.md"
SNAPSHOT_ENC = "snapshot.md.enc"
STALE = ".snapshot-stale"
SENSITIVE_STATE = "sensitive.json"

# Section headings in the order they appear. Trimming to a budget drops lines from the
# end of the first section listed here that still has more than its floor, so what goes
# first is what matters least: old sessions, then the tail of the memories.
TRIM_ORDER: tuple[tuple[str, int], ...] = (
    ("## Recent sessions", 1),
    ("## Key memories", 3),
    ("## Constraints", 3),
    ("## About the user", 2),
    ("## Recent sessions", 0),
    ("## Key memories", 0),
    ("## Constraints", 0),
    ("## About the user", 0),
)
MORE = (
    "Everything else is searchable: the MCP tools mem_search (memories by keywords), mem_get (one "
    "memory in full) and mem_traces (raw conversation turns), or `memoryd search QUERY` in a shell."
)


def _sections(text: str) -> tuple[list[str], list[tuple[str, list[str]]]]:
    head: list[str] = []
    sections: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("## "):
            sections.append((line, []))
        elif sections:
            sections[-1][1].append(line)
        else:
            head.append(line)
    return head, sections


def _join(head: list[str], sections: list[tuple[str, list[str]]]) -> str:
    out = list(head)
    for title, lines in sections:
        body = [ln for ln in lines if ln.strip()]
        if not body:
            continue
        if out and out[-1].strip():
            out.append("")
        out += [title, *body]
    return "\n".join(out).strip() + "\n"


def fits(text: str, budget: int, max_chars: int = MAX_CHARS) -> bool:
    """Within `budget` real tokens (memoryd.tokencount) and `max_chars` characters."""
    if len(text) > max_chars:
        return False
    envpaths.full_site()
    from memoryd import tokencount

    return tokencount.count(text) <= budget


def fit(text: str, budget: int, max_chars: int = MAX_CHARS) -> str:
    """`text` (a rendered snapshot) cut to `budget` tokens and `max_chars`
    characters by dropping whole lines, least important first (TRIM_ORDER). Never returns
    more than the budget: in the worst case only the header and the closing line remain,
    and if even those do not fit, nothing."""
    if fits(text, budget, max_chars):
        return text
    head, sections = _sections(text)
    for title, floor in TRIM_ORDER:
        for name, lines in sections:
            if name != title:
                continue
            while sum(1 for ln in lines if ln.strip()) > floor:
                while lines and not lines[-1].strip():
                    lines.pop()
                lines.pop()
                out = _join(head, sections)
                if fits(out, budget, max_chars):
                    return out
    out = _join(head, sections)
    if fits(out, budget, max_chars):
        return out
    lines = out.splitlines()
    while lines and not fits("\n".join(lines) + "\n", budget, max_chars):
        lines.pop(0)
    return "\n".join(lines) + "\n" if lines else ""


# -- the identity profile (issue: knowledge graph and identity), read as text -----------------
def identity_lines(home: str, limit: int = 12) -> list[str]:
    """The gist of profile/identity.md: its Summary section when it has one, else its first
    lines, without frontmatter or headings. Empty when there is no profile yet."""
    path = os.path.join(home, "profile", "identity.md")
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read(64 * 1024)
    except OSError:
        return []
    if text.startswith("---\n"):
        end = text.find("\n---", 4)
        text = text[end + 4 :] if end != -1 else ""
    lines = text.splitlines()
    start = next((i + 1 for i, ln in enumerate(lines) if ln.strip().lower() == "## summary"), 0)
    out = []
    for ln in lines[start:]:
        if ln.startswith("#"):
            if out and start:
                break
            continue
        if ln.strip():
            item = ln.strip()
            out.append(item if item.startswith(("- ", "* ")) else f"- {item}")
        if len(out) >= limit:
            break
    return [("- " + ln[2:])[:300] for ln in out]


def identity_mtime(home: str) -> float:
    try:
        return os.stat(os.path.join(home, "profile", "identity.md")).st_mtime
    except OSError:
        return 0.0


# -- finding the scope without spawning git ---------------------------------------------
def quick_scope(cwd: str) -> str:
    """The scope hash of `cwd` by the rules of memoryd.scope.resolve, minus the git call."""
    try:
        from _sha256 import sha256  # the built-in: hashlib would load OpenSSL first
    except ImportError:
        from hashlib import sha256

    path = os.path.realpath(cwd)
    if os.path.isfile(path):
        path = os.path.dirname(path)
    root = envpaths.git_root_by_walk(path) or envpaths.marker_above(path) or path
    return sha256(root.encode("utf-8")).hexdigest()[:12]


# -- the fast read ----------------------------------------------------------------------
def _grant_live(home: str, scope_hash: str) -> bool:
    """A grant for the scope that looks live (a damaged file grants nothing): only the fast
    path's guess; the gate then checks each record's MAC and the real clock."""
    from datetime import UTC, datetime

    try:
        with open(os.path.join(home, "grants", f"{scope_hash}.json"), encoding="utf-8") as fh:
            grants = json.load(fh).get("grants", [])
        now = datetime.now(UTC)
        for g in grants:
            exp = g.get("expires_at")
            if exp is None or datetime.fromisoformat(exp.replace("Z", "+00:00")) > now:
                return True
    except (OSError, ValueError, AttributeError, TypeError):
        return False
    return False


def _stale(scope_dir: str) -> bool:
    """The marker, or one a refresher claimed (`.snapshot-stale.<pid>`) and never finished:
    a killed render must not leave an old snapshot looking fresh."""
    if os.path.exists(os.path.join(scope_dir, STALE)):
        return True
    with os.scandir(scope_dir) as entries:
        return any(e.name.startswith(STALE) for e in entries)


def _read_plain(scope_dir: str, home: str) -> str | None:
    """The rendered snapshot when it is there and fresh; None sends the caller to the
    renderer."""
    path = os.path.join(scope_dir, SNAPSHOT)
    try:
        st = os.stat(path)
    except OSError:
        return None
    who = identity_mtime(home)
    if who > st.st_mtime or _stale(scope_dir):
        return None
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except (OSError, UnicodeDecodeError):
        return None
    if not who and "\n## About the user\n" in text:  # the profile was deleted since
        return None
    return text


def sensitive_note(scope_hash: str) -> str:
    """What an agent sees of a sensitive scope without a grant: that it exists, and how the
    user unlocks it; none of its content."""
    return (
        "# Memory for this project\n\n"
        f"This project's memories are sensitive (scope {scope_hash}) and no grant is live, "
        "so none are shown here. The user can make them available with "
        "`memoryd grant . --duration session`.\n"
    )


def empty_snapshot(home: str) -> str:
    """A scope with no memories yet: who the user is (when known) and how to search."""
    lines = ["# Memory for this project", "", "No memories are stored for this project yet."]
    who = identity_lines(home)
    if who:
        lines += ["", "## About the user", *who]
    lines += ["", "## More", MORE]
    return "\n".join(lines) + "\n"


def snapshot_for(cwd: str, home: str | None = None) -> tuple[str, bool]:
    """The snapshot text for `cwd`, rendering it first when needed (slow path), and
    whether it is already cut to DEFAULT_BUDGET (a rendered file is; composed text not)."""
    home = home or envpaths.data_home()
    scopes = os.path.join(home, "scopes")
    from memoryd.scope_links import canonical

    scope_hash = canonical(home, quick_scope(cwd))
    scope_dir = os.path.join(scopes, scope_hash)
    if not os.path.isdir(scope_dir):
        from memoryd.scope import resolve  # git knows cases the walk does not

        try:
            scope_hash = canonical(home, resolve(cwd, must_exist=False).hash)
        except UsageError:
            return empty_snapshot(home), False
        scope_dir = os.path.join(scopes, scope_hash)
        if not os.path.isdir(scope_dir):
            return empty_snapshot(home), False
    if os.path.exists(os.path.join(scope_dir, SENSITIVE_STATE)):
        if not _grant_live(home, scope_hash):
            return sensitive_note(scope_hash), False
        envpaths.full_site()
        from memoryd import snapshot

        try:
            return snapshot.read_sensitive(scope_hash), True
        except AuthorizationRequired:  # the file's grant fails its check or ended: the gate audited it
            return sensitive_note(scope_hash), False
    text = _read_plain(scope_dir, home)
    if text is not None:
        return text, True
    envpaths.full_site()
    from memoryd import snapshot

    return snapshot.render_now(scope_hash), True


def hook_json(text: str, event: str = "SessionStart") -> str:
    """Claude Code's (and Codex's) SessionStart output: the context as additionalContext."""
    payload = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}
    return json.dumps(payload, ensure_ascii=False)


def _stdin_cwd() -> str | None:
    """The hook's JSON on stdin carries the session's cwd; a terminal carries nothing."""
    try:
        if sys.stdin is None or sys.stdin.isatty():
            return None
        raw = sys.stdin.buffer.read(1024 * 1024)
    except (OSError, ValueError):
        return None
    if not raw.strip():
        return None
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise UsageError("stdin is not the hook's JSON payload") from None
    cwd = data.get("cwd") if isinstance(data, dict) else None
    return cwd if isinstance(cwd, str) and cwd else None


def parse_args(args: Sequence[str]) -> tuple[str | None, int, str] | None:
    """The fast path's own argument reading; None hands anything unusual (help, typos)
    to argparse, which explains itself."""
    cwd, budget, fmt = None, DEFAULT_BUDGET, "text"
    it = iter(args)
    for a in it:
        key, eq, value = a.partition("=")
        if key not in ("--cwd", "--budget", "--format"):
            return None
        if not eq:
            nxt = next(it, None)
            if nxt is None:
                return None
            value = nxt
        if key == "--cwd":
            cwd = value
        elif key == "--budget":
            if not value.isdigit():
                return None
            budget = int(value)
        else:
            if value not in ("text", "claude-hook"):
                return None
            fmt = value
    return cwd, budget, fmt


MIN_BUDGET = 50


def run(cwd: str | None, budget: int, fmt: str) -> str:
    """What `memoryd inject` prints."""
    if budget < MIN_BUDGET:
        raise UsageError(f"--budget must be at least {MIN_BUDGET} tokens")
    if fmt == "claude-hook":
        cwd = cwd or _stdin_cwd() or os.environ.get("CLAUDE_PROJECT_DIR")
    try:
        cwd = cwd or os.getcwd()
    except FileNotFoundError:
        raise UsageError("the current directory no longer exists; pass --cwd") from None
    if not os.path.isdir(cwd) and not os.path.isfile(cwd):
        raise UsageError(f"no such directory: {cwd}")
    text, fitted = snapshot_for(cwd)
    # Every token covers at least one byte, so a text of no more bytes than the budget
    # fits without loading the tokenizer (the empty snapshot, the sensitive note).
    small = len(text.encode("utf-8")) <= budget and len(text) <= MAX_CHARS
    if not (small or (fitted and budget >= DEFAULT_BUDGET and len(text) <= MAX_CHARS)):
        text = fit(text, budget)
    return hook_json(text) if fmt == "claude-hook" else text
