"""One build step beyond pyproject.toml: put the suite's data inside the package.

The repository keeps the catalogue in ``spec/`` and the scenarios in ``fixtures/scenarios/`` at the top level,
where they are edited and reviewed. A wheel can only carry files that live inside its packages, so this
``build_py`` copies both into ``conformance/_data/`` of the build tree (the sdist carries the folders
themselves, see MANIFEST.in). ``conformance.resources`` finds them there with ``importlib.resources``.
An editable install skips the copy: it runs from the clone, which reads its own folders.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

#: Folder inside ``conformance/_data/`` -> folder of the repository it is copied from.
PACKAGED = {"spec": "spec", "scenarios": "fixtures/scenarios"}


class BuildPyWithData(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        source_root = Path(__file__).resolve().parent
        target_root = Path(self.build_lib) / "conformance" / "_data"
        for name, source in PACKAGED.items():
            origin = source_root / source
            if not origin.is_dir():
                raise SystemExit(f"setup.py: {origin} is missing; the package cannot ship without it")
            shutil.rmtree(target_root / name, ignore_errors=True)
            shutil.copytree(origin, target_root / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


setup(cmdclass={"build_py": BuildPyWithData})
