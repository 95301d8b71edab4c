"""Reliability: the hostile generated programs among the scenarios (``<system>/hostile/``).

Those scenarios pin what the documents say hostile code ends in (a timeout, the memory error, an ordinary
error); here they are played as a whole run through the command line, over stdio, so that a segfault,
a hang or a lost report shows up as what it is, and each is counted among the reliability cases
(``nox -s reliability``). Whether each one passes in-process is already checked by
``test_conformance_reference``.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.paths import SCENARIO_ROOT

pytestmark = pytest.mark.reliability

HOSTILE = sorted(path for path in SCENARIO_ROOT.glob("*/hostile/*.yaml"))
TIMEOUT = 30.0
GRACE = 5.0


def _id(path: Path) -> str:
    return path.relative_to(SCENARIO_ROOT).with_suffix("").as_posix()


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, dict[str, dict[str, object]], float]:
    """One run of every hostile scenario over stdio: exit code, scenarios by id, seconds taken."""
    if not HOSTILE:
        pytest.skip("no hostile scenarios in this checkout")
    out = tmp_path_factory.mktemp("hostile")
    impl = f"stdio:{sys.executable} -m conformance.players.server"
    started = time.monotonic()
    argv = ["run", "--impl", impl, "-k", "/hostile/", "--timeout", str(TIMEOUT), "--report-dir", str(out)]
    code = main(argv)
    seconds = time.monotonic() - started
    report = json.loads((out / "report.json").read_text())
    return code, {s["id"]: s for s in report["scenarios"]}, seconds


@pytest.mark.parametrize("path", HOSTILE, ids=_id)
def test_a_hostile_program_ends_in_its_documented_outcome_over_stdio(
    hostile_run: tuple[int, dict[str, dict[str, object]], float], path: Path
) -> None:
    _, scenarios, _ = hostile_run
    case = scenarios[_id(path)]
    assert case["verdict"] == "pass", case["message"]
    assert float(str(case["duration_ms"])) < (TIMEOUT + GRACE) * 1000


def test_the_hostile_run_completes_green_with_its_report(
    hostile_run: tuple[int, dict[str, dict[str, object]], float],
) -> None:
    code, scenarios, seconds = hostile_run
    assert code == 0 and len(scenarios) == len(HOSTILE)
    assert seconds < len(HOSTILE) * (TIMEOUT + GRACE)
