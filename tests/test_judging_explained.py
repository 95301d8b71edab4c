"""A failing check explains itself: the scenario's why, where the path ran dry, expected and actual values."""

from __future__ import annotations

from typing import Any

from conformance.judging.judge import judge
from conformance.judging.path import select
from conformance.report.markdown import to_markdown
from conformance.report.metadata import run_metadata
from conformance.report.model import ImplementationReport, Report, ScenarioReport, Summary
from conformance.scenario.common import Expectation

RECORD: dict[str, Any] = {
    "events": [
        {"type": "tool_call", "name": "getStock", "output": 20},
        {"type": "tool_call", "name": "getPrice", "output": 12},
    ],
    "final": {"status": "ok"},
}


def _expect(**fields: Any) -> Expectation:
    return Expectation.model_validate({"rule": "llmz.x.y", **fields})


def test_the_segment_that_selected_nothing_is_named_with_what_came_before() -> None:
    (mismatch,) = judge([_expect(path="events[type=tool_call][5].output", equals=20)], RECORD)
    assert "`events[type=tool_call]` matched 2 elements, then `[5]` selected nothing" in mismatch.message


def test_a_filter_that_kept_nothing_says_so_rather_than_one_value() -> None:
    """A filter yields one (here empty) list, so "selected 1 value" would mislead: the record has no turn."""
    (mismatch,) = judge([_expect(path="events[type=turn][0].text", equals="hi")], RECORD)
    assert "`events[type=turn]` matched no element, then `[0]` selected nothing" in mismatch.message
    assert "selected 1 value" not in mismatch.message


def test_plain_keys_still_count_values() -> None:
    assert select(RECORD, "final.missing").where_it_emptied() == (
        "`final` selected 1 value, then `.missing` selected nothing"
    )


def test_a_missing_key_at_the_top_is_named() -> None:
    selection = select(RECORD, "transcript[0]")
    assert selection.where_it_emptied() == "in the record, then `transcript` selected nothing"


def test_the_scenarios_why_is_shown_with_expected_and_actual() -> None:
    why = "a tool's output is exactly what its handler returned"
    (mismatch,) = judge([_expect(path="events[type=tool_call][0].output", equals=21, why=why)], RECORD)
    text = str(mismatch)
    assert "expected 21, found 20" in text
    assert text.endswith(f"why: {why}")


def test_a_passing_check_with_a_why_says_nothing() -> None:
    assert judge([_expect(path="final.status", equals="ok", why="irrelevant")], RECORD) == []


def _report(scenarios: list[ScenarioReport]) -> Report:
    return Report(
        run=run_metadata(),
        implementation=ImplementationReport(
            spec="x", name="impl", version="1", language="py", systems=["llmz"], capabilities=[]
        ),
        summary=Summary(passed=0, failed=1, errored=0, skipped=1, xfailed=0, total=2),
        ok=False,
        scenarios=scenarios,
        rules=[],
        baseline=[],
    )


def _scenario(sid: str, verdict: str, message: str) -> ScenarioReport:
    return ScenarioReport(
        id=sid, system="llmz", area="a", rules=["llmz.x.y"], verdict=verdict, message=message, duration_ms=1.0
    )


def test_the_markdown_report_lists_skip_reasons_and_marks_every_cut() -> None:
    long = "x" * 2000
    markdown = to_markdown(
        _report(
            [
                _scenario("llmz/a/fails", "fail", long),
                _scenario("llmz/a/skipped", "skip", "requires capability 'streaming'"),
            ]
        )
    )
    failure = next(line for line in markdown.splitlines() if "llmz/a/fails" in line)
    assert failure.endswith("…") and len(failure) < 600
    assert "## Skips" in markdown and "- `llmz/a/skipped`: requires capability 'streaming'" in markdown
