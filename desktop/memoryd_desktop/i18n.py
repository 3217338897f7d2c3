"""Qt translations for the chosen locale: English (the source text) and Simplified Chinese shipped.

The catalogue is kept as hand-edited TS XML (`resources/translations/memoryd_<lang>.ts`).
A compiled .qm is never committed: a packaging step may put one beside the .ts
(`python -m memoryd_desktop.i18n DIR`), and otherwise the app compiles the .ts at start-up
with the `lrelease` that ships inside PySide6 (a few milliseconds for our catalogue).
"""

from __future__ import annotations

import logging
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import PySide6
from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from memoryd_desktop import assets

log = logging.getLogger("memoryd.tray")

PREFIX = "memoryd_"
translate = QCoreApplication.translate  # the bare name lupdate recognises


class Catalog(QTranslator):
    """A translator loaded from bytes; it keeps them alive because Qt does not copy them."""

    def __init__(self, data: bytes) -> None:
        super().__init__()
        self._data = data
        if not self.load(self._data):
            raise ValueError("not a Qt .qm catalogue")


def shipped() -> list[str]:
    """Locale names with a catalogue, e.g. ["zh_CN"]."""
    folder = assets.translations_dir()
    return sorted(p.stem.removeprefix(PREFIX) for p in folder.glob(f"{PREFIX}*.ts"))


def catalog_name(locale: QLocale) -> str | None:
    """Pick the shipped catalogue for a locale; Traditional Chinese must not get zh_CN."""
    available = shipped()
    wanted = [locale.name()]
    if locale.language() == QLocale.Language.Chinese:
        if locale.script() == QLocale.Script.SimplifiedHanScript:
            wanted.append("zh_CN")
    else:
        wanted.append(QLocale.languageToCode(locale.language()))
    return next((name for name in wanted if name in available), None)


def qt_tool(name: str) -> Path | None:
    """A Qt Linguist tool (lrelease, lupdate): PySide6 bundles them beside its modules."""
    exe = f"{name}.exe" if sys.platform == "win32" else name
    bundled = Path(PySide6.__file__).parent / exe
    if bundled.is_file():
        return bundled
    found = shutil.which(name) or shutil.which(f"pyside6-{name}")
    return Path(found) if found else None


def lrelease() -> Path | None:
    return qt_tool("lrelease")


def compile_qm(ts: Path, qm: Path) -> None:
    tool = lrelease()
    if tool is None:
        raise RuntimeError("lrelease not found; install PySide6 or ship compiled .qm files")
    proc = subprocess.run(
        [str(tool), "-silent", str(ts), "-qm", str(qm)], capture_output=True, text=True, check=False
    )
    if proc.returncode != 0 or not qm.is_file():
        raise RuntimeError(f"lrelease failed on {ts.name}: {proc.stderr.strip() or proc.stdout.strip()}")


def catalog_bytes(name: str) -> bytes:
    """A fresh prebuilt .qm if one is there, else the .ts compiled in a scratch folder."""
    ts = assets.translations_dir() / f"{PREFIX}{name}.ts"
    prebuilt = ts.with_suffix(".qm")
    if prebuilt.is_file() and (prebuilt.stat().st_mtime >= ts.stat().st_mtime or lrelease() is None):
        return prebuilt.read_bytes()
    with tempfile.TemporaryDirectory(prefix="memoryd-i18n-") as tmp:
        qm = Path(tmp) / prebuilt.name
        compile_qm(ts, qm)
        return qm.read_bytes()


def install(app: QCoreApplication, locale: QLocale) -> list[QTranslator]:
    """Install our catalogue and Qt's own (dialog buttons) for `locale`.

    Returns the translators so the caller can keep them referenced; an empty list means
    the source text (no catalogue for the locale). A broken catalogue is logged and
    skipped: the app still starts, in English.
    """
    name = catalog_name(locale)
    if name is None:
        return []
    try:
        ours: QTranslator = Catalog(catalog_bytes(name))
    except (OSError, RuntimeError, ValueError) as exc:
        log.warning("translation %s not loaded: %s", name, exc)
        return []
    installed = [ours]
    qt = QTranslator()
    if qt.load(locale, "qtbase", "_", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
        installed.append(qt)
    for translator in installed:
        app.installTranslator(translator)
    log.info("translation %s loaded for locale %s", name, locale.name())
    return installed


def memory_type_label(memory_type: str) -> str:
    """The plural display name of a memory type; unknown types show as stored."""
    labels = {
        "session": translate("MemoryType", "Sessions"),
        "decision": translate("MemoryType", "Decisions"),
        "preference": translate("MemoryType", "Preferences"),
        "fact": translate("MemoryType", "Facts"),
        "playbook": translate("MemoryType", "Playbooks"),
        "warning": translate("MemoryType", "Warnings"),
    }
    return labels.get(memory_type, memory_type)


def main(argv: list[str] | None = None) -> int:
    """Packaging helper: compile every shipped catalogue into a folder.

    Example: python -m memoryd_desktop.i18n build/translations
    """
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m memoryd_desktop.i18n OUT_DIR", file=sys.stderr)
        return 2
    out = Path(args[0])
    out.mkdir(parents=True, exist_ok=True)
    for name in shipped():
        compile_qm(assets.translations_dir() / f"{PREFIX}{name}.ts", out / f"{PREFIX}{name}.qm")
        print(out / f"{PREFIX}{name}.qm")
    return 0


if __name__ == "__main__":
    sys.exit(main())
