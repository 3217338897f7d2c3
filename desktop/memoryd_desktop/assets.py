"""Where the icons and translations live, whichever way the app was installed.

The files sit in the repository's top-level `resources/` folder, so an editable install
finds them beside the source tree; a wheel or a frozen bundle can carry them inside the
package or next to the executable instead. Looking in all three places keeps one code path.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QIcon

from memoryd import bundled

MARKER = Path("icons") / "memoryd.svg"


def resources_dir() -> Path:
    """The first resources folder that holds our icon; an error naming every place tried."""
    return bundled.find(MARKER, Path(__file__).resolve().parent).parents[1]


def translations_dir() -> Path:
    return resources_dir() / "translations"


def icon_path(pending: bool = False, paused: bool = False) -> Path:
    """The plain icon; with an orange badge when something waits (review, spool); greyed
    with a pause sign while capture is paused, so the state shows without opening the menu."""
    name = "memoryd" + ("-paused" if paused else "") + ("-pending" if pending else "")
    return resources_dir() / "icons" / f"{name}.svg"


def icon(pending: bool = False, paused: bool = False) -> QIcon:
    return QIcon(str(icon_path(pending, paused)))
