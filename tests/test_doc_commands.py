"""Every shell command of README.md and docs/*.md runs as written in a fresh copy of the tree.

The documents promise that a newcomer can type what they show. So this takes every line of every
```sh block, in document order (README.md first, then docs/ by name), and runs it with bash in one fresh
copy of the tree (the tracked and unignored files, committed into a new repository as a clone has them:
no .venv, no .nox, no build), with ``python3`` being the distribution's own ``/usr/bin/python3`` where
there is one (Debian 12: 3.11.2, externally managed, none of the project's dependencies), else the first
one on PATH outside the project's environments. The README's first command therefore does the whole
set-up. The seed documents are found as ``conformance.originality.locate_seeds`` finds them and handed
on as SEEDS_DIR; a command naming ``../shared/seeds`` is skipped, saying so, where there are none.
A command that exits non-zero fails its test with its output, unless its comment says which status it
exits with (``# ...: exits 1``).

Long commands get a small selection appended (``QUICK``, each with its reason), and the few that another
test already runs the same way are left to it (``ELSEWHERE``: the packaging round trip, CI's gates;
``OWN_TEST``: a page whose own test runs its commands in order), so
the test command stays short; ``DOC_COMMANDS=all`` runs every one exactly as written (the mutation
session alone then takes about 25 minutes). Commands that need Node and npm (the llmz 1.0.1 bridge)
are skipped, saying so, where those are missing. Inline commands in the prose must be one of the block
commands or a template with a ``<placeholder>``, so every command a reader sees was run here.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import copy_of_the_tree

from conformance.originality import locate_seeds

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(?:sh|bash|shell)\n(.*?)^```", re.M | re.S)
INLINE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
#: What an inline code span starts with when it is a command a reader could type.
COMMAND_WORDS = ("python ", "python3 ", "nox ", "pytest ", "pip ", ".nox/", ".venv/", "venv/bin")
#: A template's placeholder: ``<name>``, a word in capitals (``ARGS``, ``OLD``) or ``...``.
PLACEHOLDER = re.compile(r"<[^>]+>|\b[A-Z]{2,}\b|\.\.\.")
#: The knob: ``all`` runs every command exactly as written.
EVERYTHING = os.environ.get("DOC_COMMANDS") == "all"
#: What runs the commands' ``python3`` where the machine has it.
DISTRIBUTION_PYTHON = "/usr/bin/python3"
#: Set for the commands this test starts, so a documented test command does not run this test again.
INSIDE = "DOC_COMMANDS_INSIDE"

#: Command prefix -> arguments appended in the default (quick) mode, and why.
QUICK: dict[str, tuple[str, str]] = {
    "python3 bootstrap.py -s tests": (
        "-- tests/test_simulator_docs.py::test_the_page_has_snippets",
        "the whole test command is what this test is part of",
    ),
    "python3 bootstrap.py -s conformance -- --impl 'stdio:": ("--system falai", "one system over stdio"),
    "python3 bootstrap.py -s conformance -- --impl llmz-node": ("-k think-signal", "a few llmz cases"),
    "python3 bootstrap.py python -m conformance run --impl llmz-node": ("-k think-signal", "a few cases"),
    "python3 bootstrap.py -s conformance-llmz": ("-- -k think-signal", "a few llmz cases"),
    "python3 bootstrap.py -s snapshots": ("-- -k falai/routing", "one area's goldens"),
    "python3 bootstrap.py -s mutants": ("-- --system falai", "one system's mutants"),
    "python3 bootstrap.py -s fuzz-llmz": ("-- --examples 3", "3 generated cases, not 200"),
    "python3 bootstrap.py -s fuzz": ("-- --system falai --examples 5", "5 generated cases of one system"),
    "python3 bootstrap.py -s reliability": (
        "-- tests/test_reliability_files.py -k 'bad_scenario_file or directory_named'",
        "a few tests of one module",
    ),
    "python3 bootstrap.py -s report": (
        "-- --llmz-report build/stdio/report.json",
        "an earlier report as the second column instead of the bridge's whole run",
    ),
    "python3 bootstrap.py -s mutation -- run": (
        "--per-module 1 --per-module-extended 0 --jobs 1",
        "one sampled mutant of the module",
    ),
    "python3 bootstrap.py -s bench": (
        "-- --repeat 1 --no-bridge --scenarios build/few-scenarios",
        "one round over three scenarios",
    ),
    "python3 bootstrap.py python -m pytest tests/test_llmz_node": ("-k vocabulary", "the quick ones"),
}
#: Command prefix -> why the default (quick) mode leaves it to another test; ``DOC_COMMANDS=all`` runs it.
ELSEWHERE: dict[str, str] = {
    "python3 bootstrap.py python -m pip wheel": "the wheel is built and checked by tests/test_packaging.py",
    "python3 -m venv venv && venv/bin/pip install": "tests/test_packaging.py installs the wheel in a venv",
    "venv/bin/agent-conformance": "tests/test_packaging.py runs the installed agent-conformance",
    "python3 bootstrap.py -s lint typecheck": "ruff, import-linter and mypy are CI's gates (.ci/run)",
}
#: Document -> why the default (quick) mode leaves its commands to that document's own test.
OWN_TEST: dict[str, str] = {
    "docs/spec-changes.md": "tests/test_spec_changes_doc.py runs this page's commands in order",
}
#: A report a documented command reads -> the documented command that writes it. A command run without the
#: rest of its page (``-k compare``, or another xdist worker's copy of the tree) finds no such report; its
#: writer is run first, so each test stands alone instead of depending on the order tests run in.
WRITTEN_BY: dict[str, str] = {
    "build/conformance/reference/report.json": "python3 bootstrap.py -s conformance",
    "build/stdio/report.json": (
        "python3 bootstrap.py -s conformance -- --impl 'stdio:python3 -m conformance.players.server' "
        "--report-dir build/stdio"
    ),
    "build/mine/report.json": (
        "python3 bootstrap.py -s conformance -- --impl 'stdio:python3 -m conformance.players.server' "
        "--report-dir build/mine"
    ),
}
#: Where the documents expect the seed documents (the project's layout); substituted with where they are.
SEEDS_AS_WRITTEN = "../shared/seeds"
SEEDS = locate_seeds()
NEEDS_NODE = (
    "llmz-node",
    "conformance-llmz",
    "conformance-blind",
    "fuzz-llmz",
    "stdio:node",
    "test_llmz_node",
)


def _logical_lines(block: str) -> Iterator[str]:
    """The block's commands: continuation lines joined, blank and comment-only lines left out."""
    joined = re.sub(r"\\\n\s*", " ", block)
    for line in joined.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            yield line.strip()


def documented_commands() -> list[tuple[str, str]]:
    """(document name, command) for every line of every sh block, in reading order."""
    found = []
    for document in DOCUMENTS:
        for block in FENCE.findall(document.read_text(encoding="utf-8")):
            found.extend((document.relative_to(ROOT).as_posix(), line) for line in _logical_lines(block))
    return found


COMMANDS = documented_commands()


def expected_status(command: str) -> int:
    """0, or the status a trailing comment documents (``# raw results: exits 1``)."""
    said = re.search(r"\s#\s.*\bexits (\d+)\b", command)
    return int(said.group(1)) if said else 0


def _without_comment(command: str) -> str:
    return re.sub(r"\s+#\s.*$", "", command)


def as_run(command: str) -> tuple[str, str | None]:
    """The command this test runs for a documented one, and the reason when a selection was appended."""
    bare = _without_comment(command)
    if EVERYTHING:
        return bare, None
    for prefix, (extra, why) in QUICK.items():
        if bare.startswith(prefix):
            if extra.startswith("-- ") and " -- " in bare:  # the command makes its own selection
                return bare, None
            return f"{bare} {extra}", why
    return bare, None


def test_every_report_writer_is_a_documented_command() -> None:
    documented = {_without_comment(command) for _, command in COMMANDS}
    assert set(WRITTEN_BY.values()) <= documented, set(WRITTEN_BY.values()) - documented


def test_the_documents_have_commands_and_the_readme_starts_with_its_two() -> None:
    readme = [command for document, command in COMMANDS if document == "README.md"]
    assert readme[:2] == ["python3 bootstrap.py -s conformance", "python3 bootstrap.py -s tests"], readme[:2]
    assert len(COMMANDS) >= 20, COMMANDS


def test_every_inline_command_is_a_block_command_or_a_template() -> None:
    """A command in the prose escapes the run below unless it is also in a block (or has a placeholder)."""
    run = {_without_comment(command) for _, command in COMMANDS}
    loose = []
    for document in DOCUMENTS:
        prose = re.sub(r"^```.*?^```", "", document.read_text(encoding="utf-8"), flags=re.M | re.S)
        for span in INLINE.findall(prose):
            command = span.startswith(COMMAND_WORDS) and " " in span and not PLACEHOLDER.search(span)
            if command and span not in run:
                loose.append(f"{document.relative_to(ROOT)}: `{span}`")
    advice = "put them in a ```sh block, or write the runnable form"
    assert not loose, f"inline commands that no test runs ({advice}):\n" + "\n".join(loose)


def _newcomers_python3(path: str) -> str:
    """The distribution's own ``/usr/bin/python3`` where it is 3.11 or newer (what a newcomer has, without
    the project's dependencies and usually externally managed), else the first ``python3`` on PATH."""
    check = [DISTRIBUTION_PYTHON, "-c", "import sys; sys.exit(sys.version_info < (3, 11))"]
    if Path(DISTRIBUTION_PYTHON).exists() and subprocess.run(check, check=False).returncode == 0:
        return DISTRIBUTION_PYTHON
    found = shutil.which("python3", path=path)
    assert found, "no python3 on PATH outside the project's environments"
    return found


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str]]]:
    """A fresh copy of the tree and the environment a newcomer's shell would have."""
    if os.environ.get(INSIDE):
        pytest.skip("started by a documented command of this very test")
    tree = copy_of_the_tree(tmp_path_factory.mktemp("doc-commands") / "clone")
    git = ["git", "-c", "user.name=doc-commands", "-c", "user.email=doc-commands@localhost"]
    for step in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "a fresh clone"]):
        subprocess.run([*git, *step], cwd=tree, check=True, capture_output=True)
    few = tree / "build" / "few-scenarios"
    for scenario in sorted((tree / "fixtures" / "scenarios" / "falai" / "routing").glob("*.yaml"))[:3]:
        target = few / "falai" / "routing" / scenario.name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(scenario, target)
    ours = (str(ROOT), os.environ.get("VIRTUAL_ENV") or str(ROOT / ".nox"))
    path = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p and not p.startswith(ours)]
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    env.pop("LLMZ_NODE_REPORT_DIR", None)
    if SEEDS is not None:
        env["SEEDS_DIR"] = str(SEEDS)
    python3 = _newcomers_python3(os.pathsep.join(path))
    first = tree.parent / "bin"
    first.mkdir()
    (first / "python3").symlink_to(python3)
    env.update(PATH=os.pathsep.join([str(first), *path]), **{INSIDE: "1"})
    yield tree, env
    shutil.rmtree(tree, ignore_errors=True)


@pytest.mark.parametrize(("document", "command"), COMMANDS, ids=[f"{d}: {c}" for d, c in COMMANDS])
def test_documented_command_runs_in_a_fresh_copy(
    document: str, command: str, fresh: tuple[Path, dict[str, str]]
) -> None:
    tree, env = fresh
    if any(word in command for word in NEEDS_NODE) and not (shutil.which("node") and shutil.which("npm")):
        pytest.skip("needs Node and npm on PATH (the llmz 1.0.1 bridge); none here")
    elsewhere = next((why for prefix, why in ELSEWHERE.items() if command.startswith(prefix)), None)
    elsewhere = OWN_TEST.get(document, elsewhere)
    if elsewhere and not EVERYTHING:
        pytest.skip(f"quick mode: {elsewhere} (DOC_COMMANDS=all runs it here)")
    if SEEDS_AS_WRITTEN in command and SEEDS is None:
        pytest.skip("the seed documents are not here: set SEEDS_DIR or keep ../shared/seeds")
    line, why = as_run(command)
    line = line.replace(SEEDS_AS_WRITTEN, str(SEEDS))
    for report, writer in WRITTEN_BY.items():
        if report in line and writer not in command and not (tree / report).exists():
            wrote = subprocess.run(
                ["bash", "-c", as_run(writer)[0]], cwd=tree, env=env, capture_output=True, text=True,
                timeout=1800, check=False,
            )  # fmt: skip
            assert wrote.returncode == 0, f"`{writer}`, which writes {report}, exited {wrote.returncode}"
    done = subprocess.run(
        ["bash", "-c", line], cwd=tree, env=env, capture_output=True, text=True, timeout=1800, check=False
    )
    selection = f" (quick: {why})" if why else ""
    assert done.returncode == expected_status(command), (
        f"{document}: `{command}` exited {done.returncode}{selection}\nran: {line}\n"
        f"--- stdout ---\n{done.stdout[-3000:]}\n--- stderr ---\n{done.stderr[-3000:]}"
    )
