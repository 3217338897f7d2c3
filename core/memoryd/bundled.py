"""Files memoryd ships beside its code (the OpenClaw skill; the tray's icons and
translations), found whichever way it was installed: a PyInstaller bundle, a wheel (which
carries the repository's `resources/` as `memoryd/resources/`, see setup.py), or a source
checkout / editable install."""

from __future__ import annotations

import sys
from pathlib import Path

CORE = Path(__file__).resolve().parent


def candidates(package_dir: Path) -> list[Path]:
    out = []
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:  # PyInstaller unpacks data files here
        out.append(Path(frozen) / "resources")
    out.append(package_dir / "resources")
    out.append(CORE / "resources")  # a wheel: setup.py copies resources/ into memoryd/
    out.append(package_dir.parents[1] / "resources")  # source checkout / editable install
    return list(dict.fromkeys(out))


def find(relative: str | Path, package_dir: Path | None = None) -> Path:
    """The first `<resources>/relative` that exists; an error naming every place tried."""
    tried = [c / relative for c in candidates(package_dir or CORE)]
    for path in tried:
        if path.exists():
            return path
    raise FileNotFoundError(f"{relative} not found; looked in " + ", ".join(str(p) for p in tried))
