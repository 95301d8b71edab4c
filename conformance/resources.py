"""Where the suite's data lives: a clone's own folders, or the copy an installed package carries.

Why two places. The repository keeps its catalogue in ``spec/`` and its scenarios in ``fixtures/scenarios/``
at the top level, where people edit them. A wheel can only carry files inside its packages, so the build
(``setup.py``'s ``build_py`` step) copies both into ``conformance/_data/``; the baselines already live in
``conformance/baselines/``. At run time a clone's files win, so editing a scenario and re-running just
works; anywhere else the package's copy is found through ``importlib.resources``. The current directory is
never consulted: an installed suite run from an empty folder finds exactly what it shipped with.
"""

from __future__ import annotations

import hashlib
import os
from functools import cache
from importlib import metadata, resources
from pathlib import Path

DISTRIBUTION = "agent-runtime-conformance"
PACKAGE_DIR = Path(__file__).resolve().parent
#: The folder a clone's ``spec/`` and ``fixtures/`` sit in (for an installed package: site-packages).
CHECKOUT_DIR = PACKAGE_DIR.parent
#: The folder inside the package that the build fills with copies of ``spec/`` and ``fixtures/scenarios/``.
PACKAGED_DATA = "_data"


def clone_root(package_dir: Path = PACKAGE_DIR) -> Path | None:
    """The repository this package was imported from, or None for an installed package.

    An installed package carries its own data (``_data``, put there by the build; ``setup.py`` refuses to
    build without it) and is never taken for a clone, whatever sits beside it: a ``spec/ids.txt`` and
    ``fixtures/scenarios/`` planted in site-packages once made an installed suite run a planted
    one-scenario tree green (issue 23). Without ``_data`` the package is running from source, and the
    tree around it is the clone."""
    if (package_dir / PACKAGED_DATA).is_dir():
        return None
    checkout = package_dir.parent
    layout = (checkout / "spec" / "ids.txt").is_file() and (checkout / "fixtures" / "scenarios").is_dir()
    return checkout if layout else None


def packaged(*parts: str) -> Path:
    """A folder of the package's own data copy. Raises when the package is not on a file system."""
    where = resources.files("conformance").joinpath(PACKAGED_DATA, *parts)
    if not isinstance(where, Path):
        raise RuntimeError(
            f"the conformance package is not installed as plain files ({where!r}); "
            "install it from the wheel with pip so its scenarios and catalogue can be read"
        )
    return where


def spec_root() -> Path:
    """The rule catalogue, id ledger, JSON Schemas and protocol schemas (``spec/`` of the repository)."""
    root = clone_root()
    return root / "spec" if root else packaged("spec")


def scenario_root() -> Path:
    """The scenarios (``fixtures/scenarios/`` of the repository)."""
    root = clone_root()
    return root / "fixtures" / "scenarios" if root else packaged("scenarios")


def baseline_dir() -> Path:
    """The shipped expected-failures baselines (part of the package in a clone and in a wheel alike)."""
    return PACKAGE_DIR / "baselines"


@cache
def suite_version() -> str:
    """The installed distribution's version, plus ``+clone`` when the data comes from a checkout."""
    try:
        version = metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        version = "0+unknown"
    return f"{version}+clone" if clone_root() else version


def files_under(root: Path, suffix: str = ".yaml") -> list[tuple[str, ...]]:
    """The relative parts of every file or folder under ``root`` whose name ends in ``suffix``, in the
    order of ``sorted(root.rglob("*" + suffix))`` (folder by folder, part by part; symlinked folders are
    not entered). Made with ``os.walk``: every run lists the catalogue and the scenarios, and pathlib's
    globbing and ``Path`` ordering cost several times more than the listing itself."""
    found: list[tuple[str, ...]] = []
    top = str(root)
    for folder, subfolders, files in os.walk(top):
        relative = os.path.relpath(folder, top)
        prefix = () if relative == os.curdir else tuple(relative.split(os.sep))
        found.extend((*prefix, name) for name in (*subfolders, *files) if name.endswith(suffix))
    found.sort()
    return found


def tree_digest(root: Path, suffix: str = ".yaml") -> str:
    """sha256 over the relative names and bytes of the files under ``root`` whose names end in ``suffix``.

    Two reports with the same catalogue digest judged against the same rules, wherever they were run.
    """
    digest = hashlib.sha256()
    for parts in files_under(root, suffix):
        path = os.path.join(root, *parts)
        if not os.path.isfile(path):
            continue
        digest.update("/".join(parts).encode() + b"\0")
        with open(path, "rb") as handle:
            digest.update(handle.read() + b"\0")
    return digest.hexdigest()
