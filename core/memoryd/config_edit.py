"""Changing config.toml from the tray's settings without losing the user's comments and
layout (tomlkit round-trips a TOML document). A change is checked by the same loader the
CLI uses before the file is replaced, atomically: a bad value leaves the file as it was."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memoryd import atomic
from memoryd import config as config_mod
from memoryd.errors import UsageError


def apply(path: Path, changes: Mapping[str, Any]) -> config_mod.Config:
    """Set dotted keys ("llm.provider", "schedule.digest"); None removes a key (its
    default applies again). Returns the config as now loaded."""
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    try:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        doc = tomlkit.parse(text)
    except (OSError, UnicodeDecodeError, TOMLKitError) as exc:
        raise UsageError(f"{path}: cannot be read to change it ({exc})") from None
    for dotted, value in changes.items():
        parts = dotted.split(".")
        if len(parts) < 2 or not all(parts):
            raise UsageError(f"setting {dotted!r} must be section.key")
        table: Any = doc
        for name in parts[:-1]:
            if name not in table:
                if value is None:
                    break
                table[name] = tomlkit.table()
            table = table[name]
            if not isinstance(table, dict):
                raise UsageError(f"{path}: {'.'.join(parts[:-1])} is not a table")
        else:
            if value is None:
                table.pop(parts[-1], None)
            else:
                table[parts[-1]] = list(value) if isinstance(value, tuple) else value
    new_text = tomlkit.dumps(doc)
    loaded = config_mod.from_text(new_text, path)  # raises UsageError: nothing is written
    from memoryd import schedule

    schedule.jobs(loaded.raw)
    target = path.resolve()  # a symlinked config.toml (dotfiles) stays a link
    mode = target.stat().st_mode & 0o777 if target.exists() else None
    atomic.write_text(target, new_text)
    if mode is not None:
        target.chmod(mode)  # the user's permissions, not the temp file's 0600
    return loaded
