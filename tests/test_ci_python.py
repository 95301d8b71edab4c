""".ci/pep668_python.py: the python3 CI runs the README's commands with is externally managed, and is the
distribution's own where the machine has a managed one (Debian 12's /usr/bin/python3, 3.11.2)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / ".ci" / "pep668_python.py"
DISTRIBUTION = Path("/usr/bin/python3")


def _managed(python: Path) -> bool:
    check = "import sys, sysconfig, pathlib; sys.exit(not pathlib.Path(sysconfig.get_path('stdlib'), 'EXTERNALLY-MANAGED').is_file())"  # noqa: E501
    return python.exists() and subprocess.run([str(python), "-c", check], check=False).returncode == 0


def _make(python: str, dest: Path) -> tuple[Path, str]:
    done = subprocess.run([python, str(SCRIPT), str(dest)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return Path(done.stdout.strip()), done.stderr


@pytest.mark.skipif(not _managed(DISTRIBUTION), reason="no externally managed /usr/bin/python3 here")
def test_a_managed_distribution_python_is_linked_not_copied(tmp_path: Path) -> None:
    folder, said = _make(str(DISTRIBUTION), tmp_path / "python")
    python3 = folder / "python3"
    assert python3.is_symlink() and python3.resolve() == DISTRIBUTION.resolve()
    assert sorted(p.name for p in folder.iterdir()) == ["python3"]
    assert "this machine's own" in said and "pip install refused" in said
    version = subprocess.run([str(python3), "--version"], capture_output=True, text=True, check=True)
    expected = subprocess.run([str(DISTRIBUTION), "--version"], capture_output=True, text=True, check=True)
    assert version.stdout == expected.stdout


@pytest.mark.skipif(
    _managed(Path(getattr(sys, "_base_executable", sys.executable))),
    reason="this test's base interpreter is a managed distribution one: CI links it and never copies it "
    "(a copy of Debian's python3 has no ensurepip wheels)",
)
def test_an_unmanaged_python_is_copied_and_made_managed(tmp_path: Path) -> None:
    """This test's own interpreter lives in a virtualenv, which PEP 668 never marks: the script copies
    the base interpreter and marks the copy, then checks pip refuses to install into it."""
    folder, said = _make(sys.executable, tmp_path / "python")
    assert "a throwaway copy" in said and "pip install refused" in said
    copy = (folder / "python3").resolve()
    assert _managed(folder / "python3") and copy.is_relative_to(folder.parent.resolve()), copy
