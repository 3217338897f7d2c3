"""What `memoryd inject` prints: the start-up context an agent gets, found for its working
directory. The fast path reads the prebuilt snapshot (memoryd.inject, stdlib only); only a
missing or stale file, or a sensitive scope under a live grant, loads the renderer
(memoryd.snapshot). This module sits above both, so neither imports it."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence

from memoryd import envpaths, inject
from memoryd.errors import AuthorizationRequired, UsageError


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


def snapshot_for(cwd: str, home: str | None = None) -> tuple[str, bool]:
    """The snapshot text for `cwd`, rendering it first when needed (slow path), and
    whether it is already cut to inject.DEFAULT_BUDGET (a rendered file is; composed text not)."""
    home = home or envpaths.data_home()
    scopes = os.path.join(home, "scopes")
    from memoryd.scope_links import canonical

    scope_hash = canonical(home, inject.quick_scope(cwd))
    scope_dir = os.path.join(scopes, scope_hash)
    if not os.path.isdir(scope_dir):
        from memoryd.scope import resolve  # git knows cases the walk does not

        try:
            scope_hash = canonical(home, resolve(cwd, must_exist=False).hash)
        except UsageError:
            return inject.empty_snapshot(home), False
        scope_dir = os.path.join(scopes, scope_hash)
        if not os.path.isdir(scope_dir):
            return inject.empty_snapshot(home), False
    if os.path.exists(os.path.join(scope_dir, inject.SENSITIVE_STATE)):
        if not _grant_live(home, scope_hash):
            return inject.sensitive_note(scope_hash), False
        envpaths.full_site()
        from memoryd import snapshot

        try:
            return snapshot.read_sensitive(scope_hash), True
        except AuthorizationRequired:  # the file's grant fails its check or ended: the gate audited it
            return inject.sensitive_note(scope_hash), False
    text = inject.read_plain(scope_dir, home)
    if text is not None:
        return text, True
    envpaths.full_site()
    from memoryd import snapshot

    return snapshot.render_now(scope_hash), True


_UNSAFE: dict[int, int | None] = {c: None for c in [*range(0x20), *range(0x7F, 0xA0)] if chr(c) not in "\n\t"}
_UNSAFE.update(dict.fromkeys(range(0xD800, 0xE000), 0xFFFD))


def clean(text: str) -> str:
    """The context as an agent may take it: control characters (terminal escapes, NUL)
    dropped, lone surrogates as U+FFFD, so the output is valid UTF-8 whatever a title holds.
    Only done when such a character is there: the common case costs one scan."""
    if text.replace("\n", "").replace("\t", "").isprintable():
        return text
    return text.translate(_UNSAFE)


def hook_json(text: str, event: str = "SessionStart") -> str:
    """Claude Code's (and Codex's) SessionStart output: the context as additionalContext,
    strict JSON (no NaN, control characters escaped), valid UTF-8, and never over the
    hosts' 10,000-character cap on hook output (inject.MAX_CHARS leaves room)."""
    text = clean(text)
    if len(text) > inject.MAX_CHARS:  # `run` fits it already; this is the last guard
        text = text[: inject.MAX_CHARS].rsplit("\n", 1)[0] + "\n"
    payload = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}
    return json.dumps(payload, ensure_ascii=False, allow_nan=False)


def _stdin_cwd() -> tuple[str | None, str | None]:
    """The hook's JSON on stdin carries the session's cwd; a terminal carries nothing.
    Returns (cwd, warning): an empty stdin that is not a terminal is worth one line."""
    try:
        if sys.stdin is None or sys.stdin.isatty():
            return None, None
        raw = sys.stdin.buffer.read(1024 * 1024)
    except (OSError, ValueError):
        return None, None
    if not raw.strip():
        return None, "no SessionStart payload on stdin"
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise UsageError("stdin is not the hook's JSON payload") from None
    except RecursionError:  # [[[[... : the C decoder gives up; never a traceback
        raise UsageError("stdin is not the hook's JSON payload: nested too deeply") from None
    cwd = data.get("cwd") if isinstance(data, dict) else None
    return (cwd if isinstance(cwd, str) and cwd else None), None


def parse_args(args: Sequence[str]) -> tuple[str | None, int, str] | None:
    """The fast path's own argument reading; None hands anything unusual (help, typos)
    to argparse, which explains itself."""
    cwd, budget, fmt = None, inject.DEFAULT_BUDGET, "text"
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
    return run_hook(cwd, budget, fmt)[0]


def run_hook(cwd: str | None, budget: int, fmt: str) -> tuple[str, str | None]:
    """What `memoryd inject` prints, and a warning for stderr (or None)."""
    if budget < MIN_BUDGET:
        raise UsageError(f"--budget must be at least {MIN_BUDGET} tokens")
    warning = None
    if fmt == "claude-hook" and not cwd:
        cwd, warning = _stdin_cwd()
        cwd = cwd or os.environ.get("CLAUDE_PROJECT_DIR")
    try:
        cwd = cwd or os.getcwd()
    except FileNotFoundError:
        raise UsageError("the current directory no longer exists; pass --cwd") from None
    if not os.path.isdir(cwd) and not os.path.isfile(cwd):
        raise UsageError(f"no such directory: {cwd}")
    text, fitted = snapshot_for(cwd)
    # Every token covers at least one byte, so a text of no more bytes than the budget
    # fits without loading the tokenizer (the empty snapshot, the sensitive note).
    small = len(text.encode("utf-8", "surrogatepass")) <= budget and len(text) <= inject.MAX_CHARS
    if not (small or (fitted and budget >= inject.DEFAULT_BUDGET and len(text) <= inject.MAX_CHARS)):
        text = inject.fit(text, budget)
    if warning:
        warning = f"{warning}; gave the context of {cwd}"
    return (hook_json(text) if fmt == "claude-hook" else clean(text)), warning
