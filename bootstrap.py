"""``python3 bootstrap.py -s <session> [-- args]``: a nox session from any Python 3.11+, nothing assumed.

Why a script and not ``pip install nox``: a distribution's own python3 is often *externally managed*
(PEP 668) and refuses installs into it, and the user's may have no nox at all. A virtualenv is always
allowed, so on first use this creates ``.venv/`` next to itself with the standard ``venv`` module, installs
nox there (with uv, which makes the sessions' shared environment in seconds; plain nox where no uv wheel
exists), and hands over to ``.venv/bin/nox``. Later runs find both in place and cost nothing. The sessions
themselves then build ``.nox/shared`` (see noxfile.py). Only the standard library is used here.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
NOX = BIN / ("nox.exe" if os.name == "nt" else "nox")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")


def _say(message: str) -> None:
    print(f"bootstrap: {message}", file=sys.stderr, flush=True)


def ensure_nox() -> None:
    """Create ``.venv`` with nox in it unless it is already there."""
    if NOX.exists():
        return
    if sys.version_info < (3, 11):  # noqa: UP036 (this script must say so on an older Python)
        sys.exit(f"bootstrap: Python 3.11 or newer is needed, this is {sys.version.split()[0]}")
    if not PYTHON.exists():
        _say(f"creating {VENV} (a virtualenv: allowed even where the system Python is externally managed)")
        try:
            venv.EnvBuilder(with_pip=True).create(VENV)
        except (OSError, subprocess.CalledProcessError) as exc:
            sys.exit(
                f"bootstrap: could not create {VENV}: {exc}. On Debian and Ubuntu the venv module needs "
                "the python3-venv package (apt-get install python3-venv)."
            )
    _say("installing nox into .venv")
    pip = [str(PYTHON), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    if subprocess.run([*pip, "nox[uv]"], check=False).returncode != 0:
        _say("nox[uv] could not be installed; falling back to plain nox (sessions then use venv and pip)")
        subprocess.run([*pip, "nox"], check=True)


def main(argv: list[str]) -> int:
    ensure_nox()
    noxfile = [] if {"-f", "--noxfile"} & set(argv) else ["-f", str(ROOT / "noxfile.py")]
    command = [str(NOX), *noxfile, *argv]
    if os.name == "nt":
        return subprocess.run(command, check=False).returncode
    os.execv(command[0], command)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
