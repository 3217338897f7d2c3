"""What every `memoryd setup <agent>` shares: how the agent should call memoryd, how a
config file is changed (parsed, merged, the JSON text edited only where our entries are,
the old file kept as a backup), and the report of what changed."""

from __future__ import annotations

import difflib
import json
import os
import shlex
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memoryd import atomic, clock
from memoryd.errors import UsageError

BACKUP_SUFFIX = ".memoryd-backup-"


PORTABLE = "memoryd"


def memoryd_argv() -> list[str]:
    """The command an agent runs to reach this memoryd, absolute so it works whatever the
    agent's PATH (a venv not activated, a GUI-launched app). For the user's own files on
    this machine only: files a team commits get the bare PORTABLE name instead."""
    beside = Path(sys.executable).parent / ("memoryd.exe" if os.name == "nt" else "memoryd")
    if beside.is_file():  # the console script of this very install (not a pyenv shim)
        return [str(beside)]
    found = shutil.which("memoryd")
    if found:
        return [os.path.abspath(found)]
    here = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if here is not None and here.name == "memoryd" and here.exists():
        return [str(here.resolve())]
    return [sys.executable, "-P", "-m", "memoryd"]  # memoryd/__main__.py; -P: not the cwd first


def hook_argv() -> list[str]:
    """How a hook runs memoryd: this interpreter with -S on memoryd/hookrun.py, which
    skips site-packages start-up (most of a bare interpreter's cost; see hookrun). In an
    installed bundle (PyInstaller) there is no interpreter to pass -S to: the bundle's own
    `memoryd`."""
    import memoryd

    if getattr(sys, "frozen", False):
        return memoryd_argv()
    return [sys.executable, "-S", str(Path(memoryd.__file__).resolve().parent / "hookrun.py")]


def shell_command(*args: str, portable: bool = False) -> str:
    """A hook's command line. `portable`: the bare `memoryd`, for a project's files, which
    teams commit and other machines run (no virtualenv path of this one)."""
    return shlex.join([*([PORTABLE] if portable else hook_argv()), *args])


def portable_warning() -> str | None:
    """The project's files call `memoryd` by name: say so when this machine would not
    find it (a virtualenv not activated)."""
    if shutil.which(PORTABLE):
        return None
    return (
        "`memoryd` is not on PATH here, and the project's hooks and MCP server call it by name: "
        "install it with pipx or uv tool, or activate its virtualenv before starting Claude Code"
    )


def is_ours(command: Any) -> bool:
    """A hook command memoryd wrote, running inject or capture: through memoryd/hookrun.py,
    the `memoryd` script (any path) or `python -m memoryd`. Used to replace and to remove
    only our own."""
    if not isinstance(command, str):
        return False
    try:
        argv = shlex.split(command)
    except ValueError:
        return False
    return _memoryd_args(argv) is not None


def _memoryd_args(argv: list[str]) -> list[str] | None:
    """The arguments after the program part, when the program is memoryd's."""
    for i, word in enumerate(argv[:4]):
        rest = argv[i + 1 :]
        base = os.path.basename(word)
        program = (
            base in ("memoryd", "memoryd.exe")
            or (base == "hookrun.py" and os.path.basename(os.path.dirname(word)) == "memoryd")
            or (word == "memoryd" and i > 0 and argv[i - 1] == "-m")
        )
        if program:
            return rest if rest and rest[0] in ("inject", "capture") else None
    return None


def mcp_env() -> dict[str, str]:
    """Agents pass MCP servers few environment variables (Codex only a whitelist), so a
    non-default data directory is written into the registration."""
    home = os.environ.get("MEMORYD_HOME")
    return {"MEMORYD_HOME": os.path.abspath(os.path.expanduser(home))} if home else {}


def unified_diff(before: str | None, after: str | None, name: str) -> str:
    """What a setup would change in one file (None: absent), for --dry-run."""
    a = (before or "").splitlines(keepends=True)
    b = (after or "").splitlines(keepends=True)
    return "".join(difflib.unified_diff(a, b, f"{name} (now)", f"{name} (after)"))


@dataclass
class FileChange:
    path: Path
    before: str | None  # None: the file did not exist
    after: str | None  # None: the file is to be removed
    backup: Path | None = None
    keep_backup: bool = True  # False for files that are wholly ours (the OpenClaw skill)
    found: dict[str, Any] = field(default_factory=dict)  # for the ledger: what the user had

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        return unified_diff(self.before, self.after, str(self.path))


@dataclass
class SetupReport:
    agent: str
    action: str  # "install" or "uninstall"
    changes: list[FileChange] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    dry_run: bool = False
    warnings: list[str] = field(default_factory=list)  # printed always, dry run or not

    @property
    def due_notes(self) -> list[str]:
        """Notes tell what to do after a change (restart the agent, trust a hook): none on
        a dry run, none when nothing changed."""
        if self.dry_run or not any(c.changed for c in self.changes):
            return []
        return self.notes

    def as_dict(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "action": self.action,
            "dry_run": self.dry_run,
            "changed": [str(c.path) for c in self.changes if c.changed],
            "unchanged": [str(c.path) for c in self.changes if not c.changed],
            "backups": [str(c.backup) for c in self.changes if c.backup],
            "notes": self.due_notes,
            "warnings": self.warnings,
        }


def read_text(path: Path) -> str | None:
    """The file's text with its newlines as they are (CRLF stays CRLF)."""
    try:
        with path.open(encoding="utf-8", newline="") as f:
            return f.read()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {exc.__class__.__name__}: {exc}") from None


def load_json_object(path: Path, text: str | None) -> dict[str, Any]:
    """The file as a JSON object ({} when absent); comments and a BOM are read past (see
    jsonedit). Anything else is the user's to fix: we never overwrite a file we could not
    understand."""
    from memoryd.agents import jsonedit

    if text is None or not text.strip():
        return {}
    try:
        data = jsonedit.loads(text)
    except ValueError as exc:
        raise UsageError(f"{path} is not valid JSON ({exc}); fix it first, nothing was changed") from None
    if not isinstance(data, dict):
        raise UsageError(f"{path} does not hold a JSON object; nothing was changed")
    return data


def dump_json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def edit_json(before: str | None, data: dict[str, Any]) -> str:
    """`before` changed to hold `data`, every byte outside the changed entries kept; a new
    file is written in two-space JSON."""
    from memoryd.agents import jsonedit

    if before is None or not before.strip():
        return dump_json(data)
    return jsonedit.update(before, data)


def _free(path: Path) -> Path:
    """`path`, or `path-2`, `path-3`...: two runs in one second keep both backups."""
    n, candidate = 1, path
    while candidate.exists():
        n += 1
        candidate = path.with_name(f"{path.name}-{n}")
    return candidate


LEDGER = "setup-ledger.json"


def ledger_key(path: Path) -> str:
    """A symlinked file (a dotfile manager's) is kept under its target, the file `apply`
    writes, so the uninstall that reads the link finds what the install noted."""
    return os.path.realpath(path) if path.is_symlink() else str(path)


class Ledger:
    """What setup found before it changed a file, kept in the data directory
    (setup-ledger.json): whether setup created the file, and shapes of the user's that our
    removal would otherwise take along (an empty hooks object, an empty event list). An
    uninstall reads it to give the file back as it was."""

    def __init__(self) -> None:
        from memoryd import paths

        self.path = paths.layout().home / LEDGER
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            files = data.get("files", {})
            self.files: dict[str, dict[str, Any]] = files if isinstance(files, dict) else {}
        except (OSError, ValueError, AttributeError):
            self.files = {}

    def get(self, path: Path) -> dict[str, Any]:
        entry = self.files.get(ledger_key(path))
        return entry if isinstance(entry, dict) else {}

    def save(self) -> None:
        atomic.write_text(self.path, json.dumps({"files": self.files}, indent=2, sort_keys=True) + "\n")


def apply(report: SetupReport) -> SetupReport:
    """Write every changed file whole (atomic rename), each after a timestamped backup of
    what was there. A dry run writes nothing. An install notes in the ledger what it found
    (FileChange.found); an uninstall that leaves a file setup created empty removes it, and
    makes no backup of a file that was only ever ours."""
    ledger = Ledger()
    for ch in report.changes:
        created = bool(ledger.get(ch.path).get("created"))
        if (
            report.action == "uninstall"
            and created
            and ch.after is not None
            and ch.after.strip() in ("", "{}")
        ):
            ch.after, ch.keep_backup = None, False
    if report.dry_run:
        return report
    stamp = clock.now().strftime("%Y%m%dT%H%M%S")
    for ch in report.changes:
        key = ledger_key(ch.path)
        if ch.path.is_symlink():  # a dotfile manager's link: change its target, keep the link
            ch.path = Path(key)
        if report.action == "install" and ch.changed:
            entry = ledger.files.setdefault(key, {"created": ch.before is None})
            entry.update({k: v for k, v in ch.found.items() if k not in entry})
        elif report.action == "uninstall" and ch.changed:
            ledger.files.pop(key, None)
        if not ch.changed:
            continue
        if ch.before is not None and ch.keep_backup:
            ch.backup = _free(ch.path.with_name(f"{ch.path.name}{BACKUP_SUFFIX}{stamp}"))
            shutil.copy2(ch.path, ch.backup)
        if ch.after is None:
            ch.path.unlink(missing_ok=True)
            continue
        ch.path.parent.mkdir(parents=True, exist_ok=True)
        mode = ch.path.stat().st_mode & 0o777 if ch.path.exists() else 0o600
        atomic.write_text(ch.path, ch.after)
        os.chmod(ch.path, mode)
    ledger.save()
    return report
