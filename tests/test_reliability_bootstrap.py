"""Reliability: ``python3 bootstrap.py`` given a command that does not exist, or arguments with spaces.

``bootstrap.py python ARGS`` must hand every argument over verbatim (spaces, empty strings, quotes) and
pass the command's own exit status through; a script or module that does not exist is the interpreter's
one-line complaint, never a traceback of ours; a first word that is no command is one line, exit 2.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.reliability

ROOT = Path(__file__).resolve().parents[1]
SHARED_PYTHON = ROOT / ".nox" / "shared" / "bin" / "python"
needs_shared = pytest.mark.skipif(
    not SHARED_PYTHON.exists(), reason="no .nox/shared here: `python3 bootstrap.py -s conformance` makes it"
)


def _bootstrap(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "bootstrap.py"), *args],
        capture_output=True, text=True, timeout=120, cwd=cwd, stdin=subprocess.DEVNULL, check=False,
    )  # fmt: skip


@pytest.mark.parametrize("word", ["nosuchcommand", "pyhton", "run", "my script.py"])
def test_an_unknown_command_is_one_line_and_exit_2(word: str) -> None:
    """Before: nox printed its whole usage text and ``Unknown argument(s)``."""
    done = _bootstrap(word, "x")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"bootstrap: unknown command {word!r}: expected `python ARGS...` or nox options "
        "(`-s SESSION [-- ARGS]`, `-l` to list the sessions)"
    ]
    assert "Traceback" not in done.stderr and done.stdout == ""


@needs_shared
def test_arguments_with_spaces_quotes_and_empty_strings_arrive_verbatim() -> None:
    args = ["a b", "", "c  d", 'x"y', "it's", " lead", "tab\there", "ü ✓"]
    done = _bootstrap("python", "-c", "import json, sys; print(json.dumps(sys.argv[1:]))", *args)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == args


@needs_shared
def test_a_script_path_with_spaces_runs(tmp_path: Path) -> None:
    script = tmp_path / "my script.py"
    script.write_text("import sys, reference\nsys.exit(7)\n", encoding="utf-8")
    assert _bootstrap("python", str(script)).returncode == 7


@needs_shared
@pytest.mark.parametrize(
    ("args", "code", "words"),
    [
        (["no such script.py"], 2, "can't open file"),
        (["-m", "conformance.no_such_module"], 1, "No module named conformance.no_such_module"),
        (["-m", "conformance", "no-such-command"], 2, "invalid choice: 'no-such-command'"),
    ],
)
def test_a_command_that_does_not_exist_is_its_own_one_line_error(
    tmp_path: Path, args: list[str], code: int, words: str
) -> None:
    done = _bootstrap("python", *args, cwd=tmp_path)
    assert done.returncode == code, done.stderr
    assert words in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_options_and_the_python_command_are_not_unknown_commands() -> None:
    sys.path.insert(0, str(ROOT))
    try:
        import bootstrap
    finally:
        sys.path.remove(str(ROOT))
    for argv in ([], ["-s", "tests"], ["-l"], ["--list"], ["python"], ["python", "x y"]):
        assert bootstrap.usage_problem(argv) is None, argv
    assert bootstrap.usage_problem(["tests"]) is not None
