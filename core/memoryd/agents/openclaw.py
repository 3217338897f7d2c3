"""`memoryd setup openclaw`: the memoryd skill in OpenClaw's shared skills folder.

OpenClaw's hooks and native plugins are TypeScript inside its Gateway, so a Python tool
reaches its agents through a skill (a SKILL.md the agent reads and follows, calling the
memoryd CLI) and, for MCP, `openclaw mcp`. The skill goes to `<state dir>/skills/memoryd/`
(`~/.openclaw` unless OPENCLAW_STATE_DIR says otherwise), which every agent of that
OpenClaw loads. Its frontmatter declares the `memoryd` binary (metadata.openclaw.requires.bins),
so OpenClaw offers the skill only where `memoryd` is on PATH; setup warns when it is not.
Uninstall removes the file and the folders setup created (noted in the setup ledger), if
nothing else is in them.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path

from memoryd import bundled
from memoryd.agents import common

SKILL = Path("openclaw") / "memoryd" / "SKILL.md"
CREATED_DIRS = "created_dirs"  # the ledger's note of the folders an install made


def state_dir(home: Path) -> Path:
    env = os.environ.get("OPENCLAW_STATE_DIR")
    return Path(env).expanduser() if env else home / ".openclaw"


def skill_text() -> str:
    return bundled.find(SKILL).read_text(encoding="utf-8")


def _missing_dirs(path: Path) -> list[str]:
    """The folders above `path` that do not exist yet, deepest first: what an install makes."""
    out = []
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        out.append(str(folder))
        folder = folder.parent
    return out


def path_warning() -> str | None:
    """OpenClaw checks requires.bins on its own PATH; this shell's is the best guess here."""
    if shutil.which("memoryd"):
        return None
    argv = common.memoryd_argv()
    if len(argv) == 1 and Path(argv[0]).name.startswith("memoryd"):
        fix = f"link it there, e.g. `ln -s {argv[0]} ~/.local/bin/memoryd`"
    else:
        fix = "install memoryd with `pipx install` or `uv tool install` so that it is"
    return (
        f"`memoryd` is not on PATH, and OpenClaw loads the skill only when it finds `memoryd` on PATH: {fix}"
    )


def plan(home: Path, *, uninstall: bool, dry_run: bool) -> common.SetupReport:
    report = common.SetupReport("openclaw", "uninstall" if uninstall else "install", dry_run=dry_run)
    path = state_dir(home) / "skills" / "memoryd" / "SKILL.md"
    before = common.read_text(path)
    after = None if uninstall else skill_text()
    change = common.FileChange(path, before, after, keep_backup=False)
    if uninstall:  # read now: applying the uninstall drops the file's ledger entry
        change.found[CREATED_DIRS] = common.Ledger().get(path).get(CREATED_DIRS, [])
    else:
        change.found[CREATED_DIRS] = _missing_dirs(path)
        warning = path_warning()
        if warning:  # about this machine, not a change: said on a rerun and a dry run too
            report.warnings.append(warning)
        if change.changed and not dry_run:
            argv = " ".join([*common.memoryd_argv(), "mcp"])
            report.notes.append(f"for the MCP tools as well, register `{argv}` with `openclaw mcp` (stdio)")
    report.changes.append(change)
    return report


def tidy(report: common.SetupReport) -> None:
    """After an uninstall, the skill folder goes if nothing else is in it, and so does each
    folder the install created (deepest first); a folder that was there before stays."""
    if report.action != "uninstall" or report.dry_run:
        return
    for ch in report.changes:
        created = ch.found.get(CREATED_DIRS)
        folders = {ch.path.parent}
        if isinstance(created, list):
            folders.update(Path(p) for p in created if isinstance(p, str))
        for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
            with contextlib.suppress(OSError):
                folder.rmdir()
