"""Only what pyproject.toml cannot say: the wheel carries the repository's top-level
resources/ (the OpenClaw skill, the tray's icons and translations) as memoryd/resources/,
where memoryd.bundled looks for them in an installed copy."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithResources(build_py):
    def run(self) -> None:
        super().run()
        src = Path(__file__).resolve().parent / "resources"
        if src.is_dir():
            shutil.copytree(src, Path(self.build_lib) / "memoryd" / "resources", dirs_exist_ok=True)


setup(cmdclass={"build_py": BuildWithResources})
