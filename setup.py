"""Only what pyproject.toml cannot say: the wheel carries the repository's top-level
resources/ (the OpenClaw skill, the tray's icons and translations) as memoryd/resources/,
where memoryd.bundled looks for them in an installed copy. MANIFEST.in puts resources/ in
the sdist, so a wheel built from the sdist carries them too; a build without them fails
rather than give a tray without its icon."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithResources(build_py):
    def run(self) -> None:
        super().run()
        src = Path(__file__).resolve().parent / "resources"
        if not (src / "icons" / "memoryd.svg").is_file():
            raise SystemExit(f"{src} is missing: the wheel would lack the tray's icons and translations")
        # A .qm compiled beside the .ts in a checkout may be stale: the tray compiles the .ts.
        # A copy left in build/ by an earlier build (a removed icon, a .qm) goes first.
        dest = Path(self.build_lib) / "memoryd" / "resources"
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(src, dest, ignore=shutil.ignore_patterns("*.qm"))


setup(cmdclass={"build_py": BuildWithResources})
