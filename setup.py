"""One build step beyond pyproject.toml: put the suite's data inside the package.

The repository keeps the catalogue in ``spec/`` and the scenarios in ``fixtures/scenarios/`` at the top level,
where they are edited and reviewed. A wheel can only carry files that live inside its packages, so this
``build_py`` copies both into ``conformance/_data/`` of the build tree (the sdist carries the folders
themselves, see MANIFEST.in). ``conformance.resources`` finds them there with ``importlib.resources``.
An editable install skips the copy: it runs from the clone, which reads its own folders.

A second step keeps the clone clean: ``pip wheel .`` (and any wheel build from the clone) would leave
``build/lib/``, ``build/bdist.*`` and an ``*.egg-info`` folder behind, and ``build/`` is where reports go.
The build commands put those under one temporary folder instead, removed when the build ends, unless a
folder is named on the command line (``--build-base``, ``--egg-base``). An sdist keeps setuptools' usual
egg-info, since it packs that folder by its path relative to the clone.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from functools import cache
from pathlib import Path

from setuptools import setup
from setuptools.command.build import build
from setuptools.command.build_py import build_py
from setuptools.command.egg_info import egg_info

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


@cache
def _scratch() -> str:
    """One temporary folder per build process, removed when it exits."""
    folder = tempfile.mkdtemp(prefix="agent-conformance-build-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


class BuildOutsideClone(build):
    def finalize_options(self) -> None:
        if self.build_base == "build":  # setuptools' default: nobody asked for this folder
            self.build_base = str(Path(_scratch()) / "build")
        super().finalize_options()


class EggInfoOutsideClone(egg_info):
    def finalize_options(self) -> None:
        if self.egg_base is None and "sdist" not in self.distribution.commands:
            self.egg_base = _scratch()
        super().finalize_options()


setup(cmdclass={"build": BuildOutsideClone, "build_py": BuildPyWithData, "egg_info": EggInfoOutsideClone})
