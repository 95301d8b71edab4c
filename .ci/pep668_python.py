"""``PYTHON .ci/pep668_python.py DEST``: an *externally managed* ``python3`` alone in a folder; prints it.

CI puts that folder first on PATH before running the README's commands, so they are shown to work where
``pip install`` into the system interpreter is refused (PEP 668, as on a stock Debian 12).

Which interpreter. When PYTHON (the one running this script) is itself externally managed, as the
distribution's own ``/usr/bin/python3`` is, the folder gets a link to it: CI then runs the README's
commands with exactly the Python a user of that distribution has (Debian 12: 3.11.2), which a copy of
whatever interpreter started CI never showed. Otherwise (no distribution Python, or one that is not
managed) the folder gets a throwaway copy of PYTHON made externally managed: its executable, shared
library and standard library (not its site-packages), pip through ``ensurepip``, then the
``EXTERNALLY-MANAGED`` marker in its standard library folder.

Either way, before printing, it checks that ``python3 -m pip install`` really is refused there (or, for a
managed interpreter without pip, that the marker is in place); otherwise it exits 1.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

MARKER_TEXT = "[externally-managed]\nError=This throwaway interpreter is externally managed (CI check).\n"


def _marker(stdlib: Path) -> Path:
    return stdlib / "EXTERNALLY-MANAGED"


def managed_here() -> bool:
    """True when this interpreter is externally managed (PEP 668: the marker beside its stdlib, no venv)."""
    stdlib = Path(sysconfig.get_paths(vars={"installed_base": sys.base_prefix})["stdlib"])
    return sys.prefix == sys.base_prefix and _marker(stdlib).is_file()


def link(dest: Path) -> Path:
    """A folder holding only ``python3``, a link to this (externally managed) interpreter."""
    shutil.rmtree(dest, ignore_errors=True)
    (dest / "bin").mkdir(parents=True)
    python = dest / "bin" / "python3"
    python.symlink_to(Path(getattr(sys, "_base_executable", sys.executable)))
    return python


def make(dest: Path) -> Path:
    prefix = Path(sys.base_prefix)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    stdlib = Path(sysconfig.get_paths(vars={"installed_base": sys.base_prefix})["stdlib"])
    shutil.rmtree(dest, ignore_errors=True)
    (dest / "bin").mkdir(parents=True)
    (dest / "lib").mkdir()
    executable = Path(getattr(sys, "_base_executable", sys.executable)).resolve()
    shutil.copy2(executable, dest / "bin" / version)
    (dest / "bin" / "python3").symlink_to(version)
    for library in (prefix / "lib").glob("libpython*.so*"):
        shutil.copy2(library, dest / "lib" / library.name)
    shutil.copytree(
        stdlib,
        dest / "lib" / version,
        ignore=shutil.ignore_patterns("site-packages", "dist-packages", "__pycache__", "test", "EXTERNALLY*"),
        dirs_exist_ok=True,
    )
    python = dest / "bin" / "python3"
    subprocess.run([str(python), "-m", "ensurepip", "--default-pip"], check=True, capture_output=True)
    (dest / "lib" / version / "EXTERNALLY-MANAGED").write_text(MARKER_TEXT, encoding="utf-8")
    return python


def refused(python: Path) -> bool:
    """True when ``pip install`` into this interpreter fails with PEP 668's error (or, where it has no pip
    to ask, when it carries the marker pip would read)."""
    attempt = subprocess.run(
        [str(python), "-m", "pip", "install", "--dry-run", "nox"], capture_output=True, text=True, check=False
    )
    if "No module named pip" in attempt.stderr:
        check = (
            "import sys, sysconfig, pathlib; sys.exit(not pathlib.Path(sysconfig.get_path('stdlib'),"
            " 'EXTERNALLY-MANAGED').is_file())"
        )
        return subprocess.run([str(python), "-c", check], check=False).returncode == 0
    return attempt.returncode != 0 and "externally-managed-environment" in attempt.stdout + attempt.stderr


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    if managed_here():
        python, what = link(Path(argv[0]).resolve()), f"this machine's own {sys.executable}"
    else:
        python, what = make(Path(argv[0]).resolve()), f"a throwaway copy of {sys.executable}"
    if not refused(python):
        print(f"{python}: pip install was not refused; the PEP 668 check proves nothing", file=sys.stderr)
        return 1
    version = sys.version.split()[0]
    print(f"{python}: {what} (Python {version}), externally managed (pip install refused)", file=sys.stderr)
    print(python.parent)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
