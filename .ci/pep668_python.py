"""``python3 .ci/pep668_python.py DEST``: a throwaway *externally managed* Python; prints its bin folder.

CI puts that folder first on PATH before running the README's commands, so they are shown to work where
``pip install`` into the system interpreter is refused (PEP 668, as on a stock Debian 12). The copy holds
this interpreter's executable, shared library and standard library (not its site-packages), gets pip
through ``ensurepip`` and then the ``EXTERNALLY-MANAGED`` marker in its standard library folder. Before
printing, it checks that ``python3 -m pip install`` really is refused there; otherwise it exits 1.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

MARKER_TEXT = "[externally-managed]\nError=This throwaway interpreter is externally managed (CI check).\n"


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
    """True when ``pip install`` into this interpreter fails with PEP 668's error."""
    attempt = subprocess.run(
        [str(python), "-m", "pip", "install", "--dry-run", "nox"], capture_output=True, text=True, check=False
    )
    return attempt.returncode != 0 and "externally-managed-environment" in attempt.stdout + attempt.stderr


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    python = make(Path(argv[0]).resolve())
    if not refused(python):
        print(f"{python}: pip install was not refused; the PEP 668 check proves nothing", file=sys.stderr)
        return 1
    print(f"{python}: externally managed (pip install refused)", file=sys.stderr)
    print(python.parent)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
