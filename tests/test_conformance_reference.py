"""The whole suite against the reference, in-process and as a stdio server: everything passes, identically.

This is the project's main end-to-end test: the in-process adapter is what golden files and mutant tests
use; the stdio form exercises the protocol exactly as a foreign runtime would. Any difference between the
two is a bug in the harness or in the reference's stdio server.
"""

from __future__ import annotations

import json
import sys

import pytest
from conftest import every_scenario, in_process_result

from conformance.adapters.stdio import StdioAdapter
from conformance.runner import CaseResult, run_all
from conformance.scenario.load import LoadedScenario, LoadError

TIMEOUT = 60.0


@pytest.fixture(scope="module")
def items() -> list[LoadedScenario | LoadError]:
    return list(every_scenario())


@pytest.fixture(scope="module")
def in_process(items: list[LoadedScenario | LoadError]) -> list[CaseResult]:
    """Each scenario's in-process result, played once and shared with the golden transcripts' test (the
    in-process adapter enforces no timeout, so none is passed)."""
    return [in_process_result(item) for item in items]


@pytest.fixture(scope="module")
def over_stdio(items: list[LoadedScenario | LoadError]) -> list[CaseResult]:
    adapter = StdioAdapter([sys.executable, "-m", "conformance.players.server"])
    try:
        return run_all(adapter, items, TIMEOUT)[1]
    finally:
        adapter.close()


def _not_passing(cases: list[CaseResult]) -> str:
    return "\n".join(f"{c.verdict} {c.id}: {c.message}" for c in cases if c.verdict != "pass")


def test_every_scenario_passes_in_process(in_process: list[CaseResult]) -> None:
    if not in_process:
        pytest.skip("no scenarios yet")
    assert all(c.verdict == "pass" for c in in_process), _not_passing(in_process)


def test_every_scenario_passes_over_stdio(over_stdio: list[CaseResult]) -> None:
    if not over_stdio:
        pytest.skip("no scenarios yet")
    assert all(c.verdict == "pass" for c in over_stdio), _not_passing(over_stdio)


def test_both_forms_give_identical_verdicts_and_records(
    in_process: list[CaseResult], over_stdio: list[CaseResult]
) -> None:
    verdicts = [
        (a.id, a.verdict, a.message, b.verdict, b.message)
        for a, b in zip(in_process, over_stdio, strict=True)
    ]
    differing = [v for v in verdicts if v[1:3] != v[3:5]]
    assert not differing, f"verdicts differ between in-process and stdio: {differing[:3]}"
    records = [
        (a.id, a.record, b.record)
        for a, b in zip(in_process, over_stdio, strict=True)
        if a.record != b.record
    ]
    detail = [
        (cid, json.dumps(x, sort_keys=True)[:600], json.dumps(y, sort_keys=True)[:600])
        for cid, x, y in records
    ]
    assert not records, f"records differ between in-process and stdio: {detail[:2]}"
