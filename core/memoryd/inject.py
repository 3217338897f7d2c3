"""The start-up snapshot's text and files: names, budgets, fitting to a budget, the
identity lines, and reading a prebuilt `scopes/<hash>/snapshot.md`.

Seed 003's "write complex, read simple": writers render the snapshot when a scope changes
(memoryd.snapshot), so the agent's SessionStart hook only finds the scope and prints a file
(memoryd.startup). Like the capture hook, this module imports only the standard library and
memoryd's stdlib-only modules, and nothing above it: the store and the renderer use it.
"""

from __future__ import annotations

import os

from memoryd import envpaths

DEFAULT_BUDGET = 2000
# Claude Code caps hook output strings at 10,000 characters; stay clear of the edge so a
# JSON wrapper or a host's own preamble never pushes it over.
MAX_CHARS = 9500
SNAPSHOT = "snapshot.md"
SNAPSHOT_ENC = "snapshot.md.enc"
STALE = envpaths.SNAPSHOT_STALE
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
# The profile's Summary heading in each language memoryd.locale_text writes it in (not
# imported: the hooks import this module, and only stdlib-only modules they already use).
_SUMMARY_HEADINGS = ("## summary", "## 概要")


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
    start = next((i + 1 for i, ln in enumerate(lines) if ln.strip().lower() in _SUMMARY_HEADINGS), 0)
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
def _stale(scope_dir: str) -> bool:
    """The marker, or one a refresher claimed (`.snapshot-stale.<pid>`) and never finished:
    a killed render must not leave an old snapshot looking fresh."""
    if os.path.exists(os.path.join(scope_dir, STALE)):
        return True
    with os.scandir(scope_dir) as entries:
        return any(e.name.startswith(STALE) for e in entries)


def read_plain(scope_dir: str, home: str) -> str | None:
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
