"""memoryd's version as the installed distribution states it.

`memoryd.__version__` is a constant in the source; what a host sees (MCP's serverInfo,
server.json) should be the version pip installed, so a wheel built from a later tag never
reports an old number. A source checkout that was never installed reads pyproject.toml.
"""

from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path

from memoryd import __version__


def current() -> str:
    """The installed distribution's version; else the checkout's pyproject.toml; else
    the package constant."""
    try:
        return metadata.version("memoryd")
    except metadata.PackageNotFoundError:
        pass
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    try:
        project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {})
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return __version__
    if project.get("name") == "memoryd" and isinstance(project.get("version"), str):
        return str(project["version"])
    return __version__
