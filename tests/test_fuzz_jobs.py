"""``fuzz --jobs N`` (issue 26): the same findings as ``--jobs 1`` for the same seed, whatever N.

The comparisons are played ahead on worker processes and the search reads them from a cache
(``conformance.fuzz.ahead``); nothing about that may change what is found. So the command runs with
``--jobs 1`` and with more, against mutants that disagree over several rounds (an in-process one, whose
workers are forks of the harness, and the same mutant over stdio, one server per worker), and the files it
writes and what it prints must be the same, times and folders aside.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from conformance.adapters.registry import create
from conformance.cli import main
from conformance.fuzz import generator_for
from conformance.fuzz.ahead import CompareJob, Lookahead
from conformance.fuzz.engine import SearchResult, generated, search

#: (system, implementation, seed): each disagrees in more than one round, then finds nothing new.
DISAGREEING = [
    ("akan", "reference[akan-threshold-halved]", "5"),
    (
        "falai",
        f"stdio:{sys.executable} -m conformance.players.server --variant falai-takeover-margin-16",
        "6",
    ),
]


def fuzz(out: Path, system: str, impl: str, seed: str, jobs: int, *extra: str) -> int:
    argv = ["fuzz", "--impl", impl, "--system", system, "--examples", "30", "--seed", seed]
    return main([*argv, "--max-findings", "4", "--out", str(out), "--jobs", str(jobs), *extra])


def written(out: Path) -> dict[str, str]:
    return {
        str(path.relative_to(out)): path.read_text(encoding="utf-8") for path in sorted(out.rglob("*.yaml"))
    }


def console(text: str, out: Path) -> str:
    return re.sub(r", [0-9.]+ s$", "", text.replace(str(out), "OUT"), flags=re.M)


@pytest.mark.parametrize(("system", "impl", "seed"), DISAGREEING)
def test_more_jobs_write_the_findings_one_job_writes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], system: str, impl: str, seed: str
) -> None:
    runs = {}
    for jobs in (1, 2, 3):
        out = tmp_path / f"jobs-{jobs}"
        status = fuzz(out, system, impl, seed, jobs)
        runs[jobs] = (status, written(out), console(capsys.readouterr().out, out))
    assert runs[1][0] == 1 and runs[1][1], "the mutant must disagree, or the comparison shows nothing"
    assert runs[2] == runs[1]
    assert runs[3] == runs[1]


def _results(result: SearchResult) -> tuple[object, ...]:
    return (result.examples, result.compared, result.skipped, result.known, result.findings)


def test_the_search_sees_the_same_comparisons_ahead_as_played_here() -> None:
    """Every count and every finding (its comparison, the cases before it) of the search itself."""
    generator, impl = generator_for("akan"), "reference[akan-threshold-halved]"
    settings = {"examples": 30, "seed": 5, "max_findings": 4}
    here = search(generator, create("reference"), create(impl), **settings)  # type: ignore[arg-type]
    reference = create("reference")
    with Lookahead(CompareJob(impl, generator, 30.0, 30.0), 2, reference) as ahead:
        parallel = search(generator, reference, create(impl), ahead=ahead, **settings)  # type: ignore[arg-type]
    assert len(here.findings) == 3
    assert _results(parallel) == _results(here)


def test_a_search_without_disagreement_plays_only_the_listed_cases() -> None:
    """The listing is exact: until a round disagrees, it asks for exactly the cases ``generated`` listed,
    so no comparison waits to be played on demand (the wall time gained depends on it)."""
    generator = generator_for("falai")
    listed = generated(generator, 40, 3, 0)
    reference = create("reference")
    with Lookahead(CompareJob("reference", generator, 30.0, 30.0), 2, reference) as ahead:
        result = search(generator, reference, create("reference"), examples=40, seed=3, ahead=ahead)
        assert result.findings == [] and result.examples == len(listed) == 40
        assert ahead.unlisted == 0


def test_fuzz_jobs_is_checked_like_run_jobs(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["fuzz", "--impl", "reference", "--system", "akan", "--jobs", "0"])
    assert exit_.value.code == 2 and "--jobs" in capsys.readouterr().err
