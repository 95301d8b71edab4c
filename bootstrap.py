"""``python3 bootstrap.py -s <session> [-- args]``: a nox session from any Python 3.11+, nothing assumed.

``python3 bootstrap.py python ARGS...``: ``python ARGS...`` with the project's own interpreter (the sessions'
shared environment, ``.nox/shared``, made or brought up to date first), as if that environment were
activated: ``python3 bootstrap.py python -m conformance compare A B``, ``python3 bootstrap.py python
examples/llmz/order_refund.py``, ``python3 bootstrap.py python my_script.py`` for a script that imports
``reference``. Its exit status is the command's own. It is the one way the documents run the harness's
modules, because on a fresh machine no other interpreter has the project's dependencies: a distribution's
``python3 -m conformance`` ends in ``No module named 'pydantic'``, and installing into it is refused.

Why a script and not ``pip install nox``: a distribution's own python3 is often *externally managed*
(PEP 668) and refuses installs into it, and the user's may have no nox at all. A virtualenv is always
allowed, so on first use this creates ``.venv/`` next to itself with the standard ``venv`` module, installs
nox there (with uv, which makes the sessions' shared environment in seconds; plain nox where no uv wheel
exists), and hands over to ``.venv/bin/nox``. Later runs find both in place and cost nothing. The sessions
themselves then build ``.nox/shared`` (see noxfile.py). Only the standard library is used here.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
NOX = BIN / ("nox.exe" if os.name == "nt" else "nox")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")
UV = BIN / ("uv.exe" if os.name == "nt" else "uv")
#: The sessions' shared environment (noxfile.py builds it) and the stamp saying what it was built from.
SHARED = ROOT / ".nox" / "shared"
SHARED_BIN = SHARED / ("Scripts" if os.name == "nt" else "bin")
SHARED_STAMP = SHARED / ".installed"
#: What the shared environment's contents are derived from: change one and the next session reinstalls.
INSTALL_INPUTS = ("pyproject.toml", "setup.py")


def _say(message: str) -> None:
    print(f"bootstrap: {message}", file=sys.stderr, flush=True)


def ensure_nox() -> None:
    """Create ``.venv`` with nox in it unless it is already there.

    pip installs uv alone (one wheel, nothing to resolve) and uv then installs nox (its dozen dependencies
    resolved and unpacked in under a second). Asking pip for ``nox[uv]`` did the same in one step but
    spent 5 to 7 s of a fresh clone's set-up on resolving and unpacking those dependencies; the two steps
    take about 4 s."""
    if NOX.exists():
        return
    if sys.version_info < (3, 11):  # noqa: UP036 (this script must say so on an older Python)
        sys.exit(f"bootstrap: Python 3.11 or newer is needed, this is {sys.version.split()[0]}")
    wheel = _pip_wheel()
    if not PYTHON.exists():
        _say(f"creating {VENV} (a virtualenv: allowed even where the system Python is externally managed)")
        try:
            venv.EnvBuilder(with_pip=wheel is None).create(VENV)
        except (OSError, subprocess.CalledProcessError) as exc:
            sys.exit(
                f"bootstrap: could not create {VENV}: {exc}. On Debian and Ubuntu the venv module needs "
                "the python3-venv package (apt-get install python3-venv)."
            )
    _say("installing nox into .venv")
    installer = [str(wheel / "pip")] if wheel and not (BIN / "pip").exists() else ["-m", "pip"]
    pip = [str(PYTHON), *installer, "install", "--quiet", "--disable-pip-version-check"]
    if subprocess.run([*pip, "uv"], check=False).returncode != 0:
        _say("uv could not be installed; falling back to plain nox (sessions then use venv and pip)")
        subprocess.run([*pip, "nox"], check=True)
    elif not _uv_installs_nox():
        _say("uv could not install nox; installing it with pip")
        subprocess.run([*pip, "nox"], check=True)


def _uv_installs_nox() -> bool:
    """Install nox into ``.venv`` with the uv just put there; False when uv is missing or fails."""
    if not UV.exists():
        return False
    command = [str(UV), "pip", "install", "--quiet", "--python", str(PYTHON), "nox"]
    return subprocess.run(command, check=False).returncode == 0


def _pip_wheel() -> Path | None:
    """The pip wheel this Python ships for ``ensurepip``, or None.

    Why. ``venv`` with pip runs ``ensurepip``, which unpacks and installs pip into the new environment (3 to
    5 s, a fifth of a fresh clone's set-up) only for pip to install nox once. pip runs straight from its
    wheel (``python pip-X.whl/pip install ...``, as pip documents for bootstrapping) and installs into the
    interpreter that runs it, so ``.venv`` is made without pip and the same wheel installs nox into it.
    Where no wheel is found (a Python built without the bundled wheels) ``venv`` installs pip as before.
    The wheels are in ``ensurepip/_bundled`` or, on distributions that unbundle them (Debian), in the
    folder the ``WHEEL_PKG_DIR`` build setting names."""
    try:
        import ensurepip
    except ImportError:  # some distributions leave the module out entirely
        return None
    folders = [Path(ensurepip.__file__).parent / "_bundled"]
    if sysconfig.get_config_var("WHEEL_PKG_DIR"):
        folders.insert(0, Path(sysconfig.get_config_var("WHEEL_PKG_DIR")))
    wheels = sorted(wheel for folder in folders if folder.is_dir() for wheel in folder.glob("pip-*.whl"))
    return wheels[-1] if wheels else None


def shared_env_digest() -> str:
    """What the shared environment must have been built from: the interpreter and the install inputs.

    noxfile.py writes it into ``.nox/shared/.installed`` after an install and compares it before the next,
    so one function (this one) decides when the environment is current."""
    digest = hashlib.sha256(sys.version.encode())
    for name in INSTALL_INPUTS:
        digest.update(name.encode() + b"\0" + (ROOT / name).read_bytes())
    return digest.hexdigest()


def ensure_shared_env() -> None:
    """Build or refresh ``.nox/shared`` through nox unless its stamp says it is current (then: no cost)."""
    current = SHARED_STAMP.read_text(encoding="utf-8") if SHARED_STAMP.exists() else ""
    if current == shared_env_digest() and (SHARED_BIN / "python").exists():
        return
    ensure_nox()
    _say("bringing the shared environment .nox/shared up to date")
    done = subprocess.run([str(NOX), "-f", str(ROOT / "noxfile.py"), "-s", "shared-env"], check=False)
    if done.returncode != 0:
        sys.exit(f"bootstrap: could not build {SHARED} (nox -s shared-env failed, see above)")


def run_python(args: list[str]) -> int:
    """``python ARGS`` in the shared environment, its ``bin`` first on PATH as an activated one would be
    (so a ``stdio:python3 ...`` implementation started by the harness gets the same interpreter)."""
    ensure_shared_env()
    env = dict(os.environ, VIRTUAL_ENV=str(SHARED))
    env["PATH"] = os.pathsep.join([str(SHARED_BIN), env.get("PATH", "")])
    env.pop("PYTHONHOME", None)
    command = [str(SHARED_BIN / ("python.exe" if os.name == "nt" else "python")), *args]
    if os.name == "nt":
        return subprocess.run(command, env=env, check=False).returncode
    os.execve(command[0], command, env)


def usage_problem(argv: list[str]) -> str | None:
    """Why ``argv`` is neither ``python ARGS`` nor nox options: a first word that is not an option is a
    command this script does not have (``bootstrap.py pyhton x.py``), said in one line instead of nox's
    whole usage text."""
    if argv and argv[0] != "python" and not argv[0].startswith("-"):
        return (
            f"bootstrap: unknown command {argv[0]!r}: expected `python ARGS...` or nox options "
            "(`-s SESSION [-- ARGS]`, `-l` to list the sessions)"
        )
    return None


def main(argv: list[str]) -> int:
    if argv[:1] == ["python"]:
        return run_python(argv[1:])
    problem = usage_problem(argv)
    if problem:
        print(problem, file=sys.stderr)
        return 2
    ensure_nox()
    noxfile = [] if {"-f", "--noxfile"} & set(argv) else ["-f", str(ROOT / "noxfile.py")]
    command = [str(NOX), *noxfile, *argv]
    if os.name == "nt":
        return subprocess.run(command, check=False).returncode
    os.execv(command[0], command)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
