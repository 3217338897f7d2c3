"""`memoryd setup codex`: capture through Codex's notify hook, start-up context through
its SessionStart hook, and the MCP server in config.toml.

- config.toml, top level: `notify = ["<memoryd>", "capture", "--source=codex"]`. Codex
  runs it after every turn with the JSON payload as the last argument and no stdin or
  stdout; the worker finds the session's rollout file by its thread id. Codex runs one
  notify program only, so another one already there is left alone unless --force.
- config.toml, `[mcp_servers.memoryd]`: command and args (and env when the data directory
  is not the default, since Codex passes MCP servers a whitelist of variables).
- hooks.json: SessionStart runs `memoryd inject --format claude-hook` (Codex reads the
  same hookSpecificOutput.additionalContext as Claude Code). Only documented fields are
  written (matcher, type, command, timeout): Codex rejects unknown ones. Codex asks the
  user to trust a new hook once, in /hooks.

config.toml is edited with tomlkit, which keeps the user's comments, order and layout.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.exceptions import TOMLKitError

from memoryd.agents import claude_code, common
from memoryd.errors import UsageError

SERVER = "memoryd"
HOOKS: claude_code.Spec = {
    "SessionStart": ("startup|resume|clear|compact", ("inject", "--format", "claude-hook"), 10),
}


def codex_home(home: Path) -> Path:
    env = os.environ.get("CODEX_HOME")
    return Path(env).expanduser() if env else home / ".codex"


def notify_argv() -> list[str]:
    return [*common.memoryd_argv(), "capture", "--source=codex"]


def _is_our_notify(value: Any) -> bool:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return False
    import shlex

    return common.is_ours(shlex.join(value))


def _config_change(path: Path, *, uninstall: bool, force: bool) -> tuple[common.FileChange, list[str]]:
    before = common.read_text(path)
    try:
        doc = tomlkit.parse(before or "")
    except TOMLKitError as exc:
        raise UsageError(f"{path} is not valid TOML ({exc}); fix it first, nothing was changed") from None
    notes: list[str] = []
    current = doc.get("notify")
    plain = current.unwrap() if hasattr(current, "unwrap") else current
    if uninstall:
        if current is not None and _is_our_notify(plain):
            del doc["notify"]
        servers = doc.get("mcp_servers")
        if servers is not None and SERVER in servers:
            del servers[SERVER]
            if not servers:
                del doc["mcp_servers"]
    else:
        if current is not None and not _is_our_notify(plain) and not force:
            raise UsageError(
                f"{path} already runs notify = {plain!r}; Codex allows one notify program. "
                "Run `memoryd setup codex --force` to replace it, or capture with `memoryd import codex`"
            )
        doc["notify"] = notify_argv()
        servers = doc.get("mcp_servers")
        if servers is None:
            servers = tomlkit.table(is_super_table=True)
            doc["mcp_servers"] = servers
        entry = tomlkit.table()
        argv = common.memoryd_argv()
        entry["command"] = argv[0]
        entry["args"] = [*argv[1:], "mcp"]
        env = common.mcp_env()
        if env:
            entry["env"] = env
        entry.add(tomlkit.nl())
        servers[SERVER] = entry
        notes.append("Codex asks once to trust the new SessionStart hook: open /hooks in Codex")
    after = tomlkit.dumps(doc)
    if before is None and not after.strip():
        after = None
    return common.FileChange(path, before, after), notes


def _hooks_change(path: Path, *, uninstall: bool) -> common.FileChange:
    before = common.read_text(path)
    data = common.load_json_object(path, before)
    new = claude_code.strip_ours(data) if uninstall else claude_code.with_ours(data, HOOKS, str(path))
    if new == data:
        return common.FileChange(path, before, before)
    return common.FileChange(path, before, common.dump_json(new))


def plan(home: Path, *, uninstall: bool, dry_run: bool, force: bool = False) -> common.SetupReport:
    report = common.SetupReport("codex", "uninstall" if uninstall else "install", dry_run=dry_run)
    base = codex_home(home)
    change, notes = _config_change(base / "config.toml", uninstall=uninstall, force=force)
    report.changes.append(change)
    report.changes.append(_hooks_change(base / "hooks.json", uninstall=uninstall))
    report.notes += notes
    return report
