"""config.toml, read once per entry point and passed down (no module globals)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memoryd import paths
from memoryd.errors import UsageError


@dataclass(frozen=True)
class CaptureConfig:
    max_turn_chars: int = 8000
    max_turns: int = 5000
    max_line_bytes: int = 4 * 1024 * 1024
    extra_secret_patterns: tuple[str, ...] = ()


@dataclass(frozen=True)
class SearchConfig:
    default_limit: int = 10


@dataclass(frozen=True)
class Config:
    path: Path | None = None
    capture: CaptureConfig = field(default_factory=CaptureConfig)
    search: SearchConfig = field(default_factory=SearchConfig)
    raw: dict[str, Any] = field(default_factory=dict)


def _section(raw: dict[str, Any], name: str, cls: type, path: Path) -> Any:
    data = raw.get(name, {})
    if not isinstance(data, dict):
        raise UsageError(f"{path}: [{name}] must be a table")
    known = cls.__dataclass_fields__
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise UsageError(f"{path}: unknown key(s) in [{name}]: {', '.join(unknown)}")
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
    return cls(**values)


def load(path: Path | None = None) -> Config:
    """Read config.toml; a missing file means defaults, a broken one a clear error."""
    path = path or paths.config_file()
    if not path.exists():
        return Config(path=path)
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: not valid TOML ({exc})") from None
    return Config(
        path=path,
        capture=_section(raw, "capture", CaptureConfig, path),
        search=_section(raw, "search", SearchConfig, path),
        raw=raw,
    )
