"""Every command of docs/spec-changes.md runs, in the page's order, from the root of the clone.

The page is the maintainer's workflow for a new document version; a command in it that no longer runs is
a broken workflow. The commands read the seed documents at ``../shared/seeds``; where the seeds live
elsewhere ($SEEDS_DIR) that path is substituted, and without seeds the test is skipped with the reason.

Quick mode (the default, as in tests/test_doc_commands.py): the page's check of every llmz mutant and
permitted variant gets ``-k chat-guard`` appended, the rule the page's example changes, since the test
command checks every mutant and variant elsewhere (the per-system mutant tests, which
tests/test_harness_mutation.py holds to every registered mutant, and tests/test_permitted_variants.py)
and this one step was most of the test command's longest test. ``DOC_COMMANDS=all`` runs it as written.
"""

from __future__ import annotations

import os
import re
import subprocess

import pytest

from conformance.originality import locate_seeds
from conformance.paths import REPO_ROOT

PAGE = REPO_ROOT / "docs" / "spec-changes.md"
BLOCKS = re.findall(r"^```sh\n(.*?)^```", PAGE.read_text(encoding="utf-8"), re.M | re.S)
COMMANDS = [line for block in BLOCKS for line in block.splitlines() if line.strip()]
SEEDS = locate_seeds()
EVERYTHING = os.environ.get("DOC_COMMANDS") == "all"
QUICK = {"python3 bootstrap.py -s mutants -- --system llmz": " -k chat-guard"}
"""A command of the page -> what quick mode appends to it."""


def as_run(command: str) -> str:
    return command if EVERYTHING else command + QUICK.get(command, "")


def test_quick_mode_shortens_a_command_the_page_has() -> None:
    """A QUICK key the page no longer has would silently run the long command again."""
    assert set(QUICK) <= set(COMMANDS), set(QUICK) - set(COMMANDS)


def test_the_page_walks_the_whole_workflow() -> None:
    steps = ["bootstrap.py -s spec", "spec drift", "spec anchors", "-s snapshots", "-s mutants"]
    positions = [next(i for i, c in enumerate(COMMANDS) if step in c) for step in steps]
    assert positions == sorted(positions), COMMANDS


@pytest.mark.skipif(
    SEEDS is None, reason="the seed documents are not here: set SEEDS_DIR or keep ../shared/seeds"
)
@pytest.mark.timeout(1800)  # the page runs nox -s spec, snapshots and mutants: minutes on a loaded machine
def test_every_command_on_the_page_runs_as_written() -> None:
    assert SEEDS is not None
    for command in COMMANDS:
        line = as_run(command).replace("../shared/seeds", str(SEEDS))
        done = subprocess.run(
            ["bash", "-c", line], cwd=REPO_ROOT, capture_output=True, text=True, timeout=900, check=False
        )
        assert done.returncode == 0, (
            f"{command}\n--- stdout ---\n{done.stdout[-3000:]}\n--- stderr ---\n{done.stderr[-3000:]}"
        )
