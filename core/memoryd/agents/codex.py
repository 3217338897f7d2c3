"""`memoryd setup codex`: capture through Codex's Stop hook and its legacy notify program,
start-up context through its SessionStart hook, and the MCP server in config.toml.

- hooks.json (on by default in current Codex; `[features] hooks = false` turns them off):
  SessionStart runs `memoryd inject --format claude-hook`, whose
  hookSpecificOutput.additionalContext Codex validates strictly; Stop runs `memoryd capture
  --source=codex` after every turn with the payload (session_id, transcript_path = the
  rollout file) on stdin, and prints nothing, which Codex takes as a completed run. Only
  documented fields are written (matcher, type, command, timeout). Codex runs a new or
  changed hook only after the user trusts it in /hooks.
- config.toml, top level: `notify = ["<memoryd>", "capture", "--source=codex"]`, for a Codex
  without hooks or before the hook is trusted. Codex runs it after every turn with the JSON
  payload as the last argument; the worker finds the rollout by the thread id. When both
  run, the two payloads name the same session and update one memory. Codex runs one notify
  program only, so another one already there is left alone unless --force.
- config.toml, `[mcp_servers.memoryd]`: command and args (and env when the data directory
  is not the default, since Codex passes MCP servers a whitelist of variables).

config.toml is edited as text, line by line: only memoryd's own lines are added or
removed, so comments, order and layout stay, and an uninstall restores the file exactly.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import tomllib
from pathlib import Path
from typing import Any

from memoryd.agents import claude_code, common
from memoryd.errors import UsageError

SERVER = "memoryd"
HEADER = f"[mcp_servers.{SERVER}]"
HOOKS: claude_code.Spec = {
    "SessionStart": (None, ("inject", "--format", "claude-hook"), 10),
    "Stop": (None, ("capture", "--source=codex"), 10),
}
TRUST_NOTE = (
    "Codex runs the new hooks only once you trust them: open /hooks in Codex and trust "
    "memoryd's SessionStart and Stop hooks (until then notify still captures, but no memory "
    "is given at start-up)"
)


def codex_home(home: Path) -> Path:
    env = os.environ.get("CODEX_HOME")
    return Path(env).expanduser() if env else home / ".codex"


def notify_argv() -> list[str]:
    return [*common.hook_argv(), "capture", "--source=codex"]


def _is_our_notify(value: Any) -> bool:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return False
    return common.is_ours(shlex.join(value))


def _toml(value: Any) -> str:
    """A TOML value for strings, lists of strings and flat string tables (JSON's string
    escapes are TOML's)."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }"


def _block() -> list[str]:
    argv = common.memoryd_argv()
    lines = [HEADER, f"command = {_toml(argv[0])}", f"args = {_toml([*argv[1:], 'mcp'])}"]
    env = common.mcp_env()
    if env:
        lines.append(f"env = {_toml(env)}")
    return [ln + "\n" for ln in lines]


def _parse(path: Path, text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path} is not valid TOML ({exc}); fix it first, nothing was changed") from None


_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'')


def _first_header(lines: list[str]) -> int:
    return next((i for i, ln in enumerate(lines) if ln.lstrip().startswith("[")), len(lines))


def _notify_span(lines: list[str]) -> tuple[int, int] | None:
    """Lines [start, end) of the top-level `notify = [...]`, which may span lines."""
    for i in range(_first_header(lines)):
        if re.match(r"\s*notify\s*=", lines[i]):
            depth, j = 0, i
            while j < len(lines):
                bare = _STRINGS.sub("", lines[j]).split("#", 1)[0]
                depth += bare.count("[") - bare.count("]")
                j += 1
                if depth <= 0:
                    break
            return i, j
    return None


def _block_span(lines: list[str]) -> tuple[int, int] | None:
    """Lines [start, end) of our [mcp_servers.memoryd] table: the header and the keys setup
    writes (a user's comment or key after them is not ours), with the blank line that setup
    put before it."""
    for i, ln in enumerate(lines):
        if ln.split("#", 1)[0].strip() == HEADER:
            j = i + 1
            while j < len(lines) and re.match(r"\s*(command|args|env)\s*=", lines[j]):
                j += 1
            start = i - 1 if i > 0 and not lines[i - 1].strip() else i
            return start, j
    return None


def _config_change(path: Path, *, uninstall: bool, force: bool) -> tuple[common.FileChange, list[str]]:
    """Edit config.toml as text, touching only our lines: the top-level notify line (put
    first in the file) and our table (appended at the end), so an uninstall gives back
    the file byte for byte. The result is parsed again before anything is written."""
    before = common.read_text(path)
    text = before or ""
    data = _parse(path, text)
    lines = text.splitlines(keepends=True)
    notes: list[str] = []
    found: dict[str, Any] = {}
    current = data.get("notify")
    servers = data.get("mcp_servers", {})
    if uninstall:
        span = _notify_span(lines) if _is_our_notify(current) else None
        if span:
            del lines[span[0] : span[1]]
            found_then = common.Ledger().get(path)
            replaced, at = found_then.get("replaced_notify"), found_then.get("replaced_notify_at")
            if isinstance(replaced, str) and replaced:  # --force took the user's: give it back
                lines.insert(at if isinstance(at, int) and 0 <= at <= len(lines) else 0, replaced)
        block = _block_span(lines)
        if block:
            del lines[block[0] : block[1]]
        after = "".join(lines)
        if common.Ledger().get(path).get("no_final_newline") and after.endswith("\n"):
            after = after[:-1]
    else:
        if current is not None and not _is_our_notify(current) and not force:
            raise UsageError(
                f"{path} already runs notify = {current!r}; Codex allows one notify program. "
                "Run `memoryd setup codex --force` to replace it, or capture with `memoryd import codex`"
            )
        if isinstance(servers, dict) and SERVER in servers and _block_span(lines) is None:
            raise UsageError(
                f"{path} defines mcp_servers.{SERVER} in a form setup does not edit; "
                f"remove it, or write it as a [mcp_servers.{SERVER}] table"
            )
        span = _notify_span(lines)
        if span:
            if not _is_our_notify(current):
                found["replaced_notify"] = "".join(lines[span[0] : span[1]])
                found["replaced_notify_at"] = span[0]
            del lines[span[0] : span[1]]
        block = _block_span(lines)
        if block:
            del lines[block[0] : block[1]]
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
            found["no_final_newline"] = True
        lines = [f"notify = {_toml(notify_argv())}\n", *lines, *(["\n"] if lines else []), *_block()]
        after = "".join(lines)
        parsed = _parse(path, after)
        entry = parsed.get("mcp_servers", {}).get(SERVER, {})
        if not _is_our_notify(parsed.get("notify")) or entry.get("command") != common.memoryd_argv()[0]:
            raise UsageError(f"{path}: could not add memoryd's settings safely; nothing was changed")
        notes += _hooks_off(data)
    if uninstall:
        _parse(path, after)
    if before is None and not after.strip():
        after = None
    return common.FileChange(path, before, after, found=found), notes


def _hooks_off(data: dict[str, Any]) -> list[str]:
    """`[features] hooks = false` (or the deprecated `codex_hooks = false`) keeps hooks.json
    from running: say what still works."""
    features = data.get("features")
    if not isinstance(features, dict):
        return []
    off = [k for k in ("hooks", "codex_hooks") if features.get(k) is False]
    if not off:
        return []
    return [
        f"config.toml turns Codex hooks off ([features] {off[0]} = false): notify still captures "
        "each turn, but no memory is given at start-up until hooks are on"
    ]


def _hooks_change(path: Path, *, uninstall: bool) -> common.FileChange:
    return claude_code.hooks_change(path, HOOKS, uninstall=uninstall)


def plan(home: Path, *, uninstall: bool, dry_run: bool, force: bool = False) -> common.SetupReport:
    report = common.SetupReport("codex", "uninstall" if uninstall else "install", dry_run=dry_run)
    base = codex_home(home)
    change, notes = _config_change(base / "config.toml", uninstall=uninstall, force=force)
    report.changes.append(change)
    hooks = _hooks_change(base / "hooks.json", uninstall=uninstall)
    report.changes.append(hooks)
    if hooks.changed and not uninstall and not dry_run:  # trust follows the hook's content
        report.notes.append(TRUST_NOTE)
    report.warnings += notes  # about the user's config, not a change: said on every run
    return report
