"""`memoryd setup claude-code`: hooks in Claude Code's settings.json and the MCP server.

Hooks (docs: code.claude.com/docs/en/hooks): SessionStart runs `memoryd inject --format
claude-hook`, whose JSON becomes context before the first prompt; Stop, PreCompact and
SessionEnd run `memoryd capture --source=claude-code`, which spools and returns in tens
of milliseconds. Each handler goes in a matcher group of its own, appended after the
user's, so nothing of theirs moves; a rerun replaces our handlers (say, with a new path)
and `--uninstall` removes exactly them, plus any group or event list left empty by that.

The MCP server goes where `claude mcp add` puts it: ~/.claude.json's top-level
mcpServers for --user, the project's .mcp.json for --project.

The files are edited, not rewritten (common.edit_json): the user's formatting, comments
and newlines stay, and an uninstall gives back the very bytes an install found. A
project's files are committed and run on teammates' machines, so they call the bare
`memoryd` (a warning when this machine has none on PATH); the user's own files call this
install by its absolute path, which works whatever PATH Claude Code was started with.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from memoryd.agents import common, jsonedit
from memoryd.errors import UsageError

SERVER = "memoryd"
# event -> (matcher or None, arguments after `memoryd`, timeout in seconds or None)
HOOKS: dict[str, tuple[str | None, tuple[str, ...], int | None]] = {
    # No matcher: every source, including `fork` (v2.1.214+) and any added later.
    "SessionStart": (None, ("inject", "--format", "claude-hook"), 10),
    "Stop": (None, ("capture", "--source=claude-code"), 10),
    "PreCompact": (None, ("capture", "--source=claude-code"), 10),
    # No timeout: SessionEnd hooks share a 1.5 s budget that a per-hook timeout would
    # raise for every other SessionEnd hook too; the capture hook needs well under that.
    "SessionEnd": (None, ("capture", "--source=claude-code"), None),
}


def settings_path(home: Path, project: Path | None) -> Path:
    if project is not None:
        return project / ".claude" / "settings.json"
    return home / ".claude" / "settings.json"


def mcp_path(home: Path, project: Path | None) -> Path:
    return project / ".mcp.json" if project is not None else home / ".claude.json"


def _handler(args: tuple[str, ...], timeout: int | None, portable: bool) -> dict[str, Any]:
    h: dict[str, Any] = {"type": "command", "command": common.shell_command(*args, portable=portable)}
    if timeout is not None:
        h["timeout"] = timeout
    return h


Spec = dict[str, tuple[str | None, tuple[str, ...], int | None]]


def strip_ours(settings: dict[str, Any]) -> dict[str, Any]:
    """settings without memoryd's hook handlers; groups, event lists and the hooks object
    that only held ours go too."""
    out = copy.deepcopy(settings)
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    emptied = False
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept_groups = []
        touched = False
        for group in groups:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(handlers, list):
                kept_groups.append(group)
                continue
            kept = [h for h in handlers if not (isinstance(h, dict) and common.is_ours(h.get("command")))]
            if len(kept) == len(handlers):
                kept_groups.append(group)
                continue
            touched = True
            if kept:
                kept_groups.append({**group, "hooks": kept})
        if touched and not kept_groups:
            del hooks[event]
            emptied = True
        else:
            hooks[event] = kept_groups
    if not hooks and emptied:
        del out["hooks"]
    return out


def with_ours(
    settings: dict[str, Any], spec: Spec = HOOKS, what: str = "settings.json", *, portable: bool = False
) -> dict[str, Any]:
    """settings with memoryd's handlers (those of `spec`) appended, each in a group of
    its own; handlers of an earlier setup are replaced, not doubled. `portable`: the bare
    `memoryd` (a project's committed files)."""
    out = strip_ours(settings)
    hooks = out.get("hooks")
    if hooks is None:
        hooks = out["hooks"] = {}
    if not isinstance(hooks, dict):
        raise UsageError(f'{what} has a "hooks" value that is not an object; nothing was changed')
    for event, (matcher, args, timeout) in spec.items():
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise UsageError(f"{what} hooks.{event} is not a list; nothing was changed")
        group: dict[str, Any] = {"matcher": matcher} if matcher else {}
        group["hooks"] = [_handler(args, timeout, portable)]
        groups.append(group)
    return out


def empties(settings: dict[str, Any]) -> dict[str, Any]:
    """The user's empty hooks object and empty event lists, which stripping ours would
    otherwise remove along with our handlers (kept in the setup ledger)."""
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return {}
    return {
        "empty_hooks": not hooks,
        "empty_events": sorted(e for e, groups in hooks.items() if groups == []),
    }


def restore_empties(settings: dict[str, Any], found: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(settings)
    events = [e for e in found.get("empty_events", []) if isinstance(e, str)]
    if found.get("empty_hooks") or events:
        hooks = out.setdefault("hooks", {})
        if isinstance(hooks, dict):
            for e in events:
                hooks.setdefault(e, [])
    return out


def hooks_change(path: Path, spec: Spec, *, uninstall: bool, portable: bool = False) -> common.FileChange:
    """settings.json (Claude Code) or hooks.json (Codex): our handlers in or out, the
    rest of the text untouched."""
    before = common.read_text(path)
    settings = common.load_json_object(path, before)
    if uninstall:
        new = restore_empties(strip_ours(settings), common.Ledger().get(path))
    else:
        new = with_ours(settings, spec, str(path), portable=portable)
    after = before if new == settings else common.edit_json(before, new)
    return common.FileChange(path, before, after, found=empties(settings))


def _server_entry(portable: bool) -> dict[str, Any]:
    """A project's entry names no path of this machine, not even the data directory:
    each teammate's memoryd finds its own."""
    if portable:
        return {"type": "stdio", "command": common.PORTABLE, "args": ["mcp"], "env": {}}
    argv = common.memoryd_argv()
    return {"type": "stdio", "command": argv[0], "args": [*argv[1:], "mcp"], "env": common.mcp_env()}


def _mcp_change(path: Path, install: bool, portable: bool) -> common.FileChange:
    before = common.read_text(path)
    data = common.load_json_object(path, before)
    servers = data.get("mcpServers")
    if servers is not None and not isinstance(servers, dict):
        raise UsageError(f"{path}: mcpServers is not an object; nothing was changed")
    new = copy.deepcopy(data)
    if install:
        new.setdefault("mcpServers", {})[SERVER] = _server_entry(portable)
    elif servers and SERVER in servers:
        del new["mcpServers"][SERVER]
        if not new["mcpServers"] and not common.Ledger().get(path).get("empty_servers"):
            del new["mcpServers"]  # ours alone made it; the user's own empty one stays
    if new == data:
        return common.FileChange(path, before, before)
    after = common.edit_json(before, new) if new or before is not None else None
    return common.FileChange(path, before, after, found={"empty_servers": servers == {}})


def plan(home: Path, project: Path | None, *, uninstall: bool, dry_run: bool) -> common.SetupReport:
    report = common.SetupReport("claude-code", "uninstall" if uninstall else "install", dry_run=dry_run)
    portable = project is not None
    settings = settings_path(home, project)
    report.changes.append(hooks_change(settings, HOOKS, uninstall=uninstall, portable=portable))
    report.changes.append(_mcp_change(mcp_path(home, project), install=not uninstall, portable=portable))
    for ch in report.changes:
        if ch.before and jsonedit.has_comments(ch.before):
            report.warnings.append(
                f"{ch.path} has comments, which Claude Code rejects as invalid JSON; setup keeps them"
            )
    if not uninstall:
        warning = common.portable_warning() if portable else None
        if warning:
            report.warnings.append(warning)
        report.notes.append("restart Claude Code (or run /hooks) to load the hooks")
        if project is not None:
            report.notes.append("Claude Code asks once to approve the project's .mcp.json server")
    return report
