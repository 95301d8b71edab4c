"""``run --jobs N`` (issue 26): the same verdicts and the same reports as ``--jobs 1``, times aside.

The determinism test plays the whole suite twice per implementation, with ``--jobs 1`` (in this process)
and ``--jobs 3`` (three worker processes, each with its own adapter), and compares every report file
field by field once the durations and times are set aside. The implementations cover both kinds of
worker: the in-process reference (a fork of the harness per worker), the stdio reference (one server
process per worker), a permitted variant (passes everything) and a mutant (fails the cases pinning its
rule, so failure messages and checks are compared too).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import minimal_scenario

from conformance import argtypes
from conformance.cli import main

IMPLEMENTATIONS = [
    "reference",
    f"stdio:{sys.executable} -m conformance.players.server",
    "reference[akan-copy-confirms-with-a-note]",
    "reference[akan-accept-ignored]",
]
_TIMES = re.compile(r' time="[0-9.]+"')


def _timeless(value: Any) -> Any:
    """The report without what a clock decides (durations, start time)."""
    if isinstance(value, dict):
        return {
            k: _timeless(v) for k, v in value.items() if k not in ("duration_ms", "duration_s", "started_at")
        }
    if isinstance(value, list):
        return [_timeless(v) for v in value]
    return value


def _run(out: Path, impl: str, jobs: int, *extra: str) -> tuple[int, str]:
    status = main(["run", "--impl", impl, "--report-dir", str(out), "--jobs", str(jobs), *extra])
    return status, impl


def _reports(out: Path) -> tuple[Any, str, str]:
    report = _timeless(json.loads((out / "report.json").read_text(encoding="utf-8")))
    junit = _TIMES.sub("", (out / "junit.xml").read_text(encoding="utf-8"))
    markdown = (out / "report.md").read_text(encoding="utf-8")
    return report, junit, markdown


def _console(text: str) -> list[str]:
    """The console output without the per-system timings and the report folder (which differs)."""
    return [
        re.sub(r" \([0-9.]+s\)$", "", line)
        for line in text.splitlines()
        if not line.startswith("reports: ")
    ]


def _markdown_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if not re.search(r"\b(started|duration|took)\b", line, re.I)]


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_three_jobs_give_the_reports_one_job_gives(
    tmp_path: Path, impl: str, capsys: pytest.CaptureFixture[str]
) -> None:
    one, three = tmp_path / "one", tmp_path / "three"
    status_one, _ = _run(one, impl, 1)
    console_one = capsys.readouterr().out
    status_three, _ = _run(three, impl, 3)
    console_three = capsys.readouterr().out
    assert status_one == status_three
    report_one, junit_one, md_one = _reports(one)
    report_three, junit_three, md_three = _reports(three)
    assert report_one["summary"]["total"] > 600  # the whole suite, not a slice
    assert report_three["scenarios"] == report_one["scenarios"]  # in scenario order, field by field
    assert report_three == report_one
    assert junit_three == junit_one
    assert _markdown_lines(md_three) == _markdown_lines(md_one)
    assert _console(console_three) == _console(console_one)


def test_the_mutant_really_fails_so_the_comparison_covers_failures(tmp_path: Path) -> None:
    """Without failing cases the comparison above would never see a message or a check."""
    status, _ = _run(tmp_path, "reference[akan-accept-ignored]", 3, "--system", "akan")
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert status == 1 and report["summary"]["failed"] > 0


def test_more_jobs_than_cases_plays_each_case_once(
    tmp_path: Path, scenario_tree: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    root = scenario_tree({"area/a": minimal_scenario(), "area/b": minimal_scenario()})
    from conftest import fake_command

    status = main(
        ["run", "--impl", fake_command("fake_impl.py", "good"), "--scenarios", str(root),
         "--report-dir", str(tmp_path / "out"), "--jobs", "8"]
    )  # fmt: skip
    report = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    assert status == 0
    assert [case["id"] for case in report["scenarios"]] == ["akan/area/a", "akan/area/b"]


@pytest.mark.parametrize("bad", ["0", "-1", "two", "1.5", str(argtypes.MAX_JOBS + 1)])
def test_a_bad_jobs_count_is_refused_before_anything_runs(
    tmp_path: Path, bad: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["run", "--jobs", bad, "--report-dir", str(tmp_path / "out")])
    assert stop.value.code == 2
    assert "--jobs" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_the_default_is_the_usable_cores() -> None:
    import os

    from conformance.cli import _parser

    args = _parser().parse_args(["run"])
    assert args.jobs == min(len(os.sched_getaffinity(0)), argtypes.MAX_JOBS)


def test_a_run_whose_warm_up_plays_every_case_ends(tmp_path: Path, scenario_tree: Any) -> None:
    """One case per system, in-process: the harness plays each itself and no worker is ever needed
    (this hung once: the scheduler waited on workers that had nothing to play)."""
    root = scenario_tree(
        {"area/a": minimal_scenario(), "area/b": minimal_scenario(system="llmz")}
    )
    out = tmp_path / "out"
    status = main(
        ["run", "--impl", "python:fakes.pyimpl:make", "--scenarios", str(root), "--report-dir", str(out),
         "--jobs", "2"]
    )  # fmt: skip
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert [case["id"] for case in report["scenarios"]] == ["akan/area/a", "llmz/area/b"], status
