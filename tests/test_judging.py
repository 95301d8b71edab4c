"""The record path language and the six matchers: what a scenario author can rely on."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.judging.judge import judge
from conformance.judging.matchers import check
from conformance.judging.path import PathError, select
from conformance.scenario.common import Expectation

RECORD: dict[str, Any] = {
    "events": [
        {
            "type": "model_request",
            "call": 1,
            "messages": [{"content": "hi"}, {"content": "a <forced_inspection>"}],
        },
        {"type": "tool_call", "name": "getStock", "input": {"sku": "coffee"}},
        {"type": "tool_call", "name": "noteOrder", "input": {}},
        {"type": "model_request", "call": 2, "messages": [], "tools": [{"description": "getStock(sku)"}]},
    ],
    "final": {"status": "idle", "count": 0},
}


def expect(**fields: Any) -> Expectation:
    return Expectation(rule="llmz.x", **fields)


@pytest.mark.parametrize(
    ("path", "values", "plural"),
    [
        ("final.status", ["idle"], False),
        ("events[type=model_request][1].call", [2], False),
        ("events[type=model_request][0].messages[-1].content", ["a <forced_inspection>"], False),
        ("events[type=tool_call][*].name", ["getStock", "noteOrder"], True),
        ("events[type!=tool_call][*].type", ["model_request", "model_request"], True),
        ("events[call=2][0].call", [2], False),
        ("events[type=exit]", [[]], False),
        ("final.missing", [], False),
        ("events[9]", [], False),
        (
            "events[1][**]",
            [{"type": "tool_call", "name": "getStock", "input": {"sku": "coffee"}}, {"sku": "coffee"}],
            True,
        ),
        ("final[**]", [{"status": "idle", "count": 0}], True),
    ],
)
def test_paths_select_what_their_docstring_promises(path: str, values: list[Any], plural: bool) -> None:
    selection = select(RECORD, path)
    assert (selection.values, selection.plural) == (values, plural)


@pytest.mark.parametrize("path", ["events[", "events[a b]", "final..status", ""])
def test_malformed_paths_are_errors_naming_the_path(path: str) -> None:
    with pytest.raises(PathError):
        select(RECORD, path)


@pytest.mark.parametrize(
    ("fields", "passes"),
    [
        ({"path": "final.status", "equals": "idle"}, True),
        ({"path": "final.status", "equals": "active"}, False),
        ({"path": "final.count", "equals": False}, False),  # 0 is not false
        ({"path": "final", "subset": {"status": "idle"}}, True),
        ({"path": "final", "subset": {"status": "idle", "extra": 1}}, False),
        ({"path": "events[type=tool_call][*].name", "contains": "noteOrder"}, True),
        ({"path": "events[type=tool_call]", "contains": {"input": {"sku": "coffee"}}}, True),
        ({"path": "events[type=model_request][0].messages[1].content", "contains": "<forced"}, True),
        ({"path": "events[type=model_request][0].messages[1].content", "regex": "^a <"}, True),
        ({"path": "events[type=model_request][0].messages[1].content", "regex": "^<"}, False),
        ({"path": "events[type=model_request][1]", "regex": "getStock\\(sku\\)"}, True),
        ({"path": "events[type=model_request][0]", "regex": "getStock"}, False),
        ({"path": "events[type=tool_call]", "count": 2}, True),
        ({"path": "events[type=tool_call][*]", "count": 3}, False),
        ({"path": "events[type=tool_call]", "between": [1, 2]}, True),
        ({"path": "events[type=tool_call]", "between": [3, 9]}, False),
        ({"path": "events[type=model_request]", "between": [0, 1]}, False),
        ({"path": "events[type=exit]", "absent": True}, True),
        ({"path": "events[type=tool_call]", "absent": True}, False),
        ({"path": "final.nothing", "equals": None}, False),  # a missing value never equals anything
    ],
)
def test_each_matcher_passes_and_fails(fields: dict[str, Any], passes: bool) -> None:
    problem = check(RECORD, expect(**fields))
    assert (problem is None) is passes, problem


def test_a_failure_names_matcher_path_expected_and_found() -> None:
    problem = check(RECORD, expect(path="final.status", equals="active"))
    assert problem is not None
    assert "equals at final.status" in problem and '"active"' in problem and '"idle"' in problem


def test_an_expectation_needs_exactly_one_matcher() -> None:
    with pytest.raises(ValueError, match="exactly one of"):
        expect(path="final", equals=1, count=1)
    with pytest.raises(ValueError, match="exactly one of"):
        expect(path="final")


def test_judge_reports_every_failed_expectation_with_its_rule() -> None:
    mismatches = judge([expect(path="final.status", equals="x"), expect(path="events[", count=1)], RECORD)
    assert [m.index for m in mismatches] == [0, 1]
    assert all(str(m).startswith("[llmz.x]") for m in mismatches)


def test_between_reads_a_single_number_as_itself() -> None:
    record = {"events": [{"type": "compaction", "retained": 12}], "final": {}}
    assert check(record, expect(path="events[type=compaction][0].retained", between=[10, 15])) is None
    problem = check(record, expect(path="events[type=compaction][0].retained", between=[13, 15]))
    assert problem is not None and "expected between 13 and 15, found 12" in problem


def test_between_needs_low_before_high() -> None:
    with pytest.raises(ValueError, match="low <= high"):
        expect(path="final", between=[3, 1])


def test_deep_fan_out_finds_an_object_at_any_depth() -> None:
    assert check(RECORD, expect(path="events[**]", contains={"sku": "coffee"})) is None
    assert check(RECORD, expect(path="events[**]", contains={"sku": "tea"})) is not None


TOKENS: dict[str, Any] = {
    "events": [
        {"type": "iteration", "tokens": {"context": {"total": 10, "prompt": 3, "tools": 2, "other": 5}}},
        {"type": "iteration", "tokens": {"context": {"total": 10, "prompt": 4, "tools": 1, "other": 4}}},
        {"type": "iteration", "tokens": {"context": {"total": 10}}},
        {"type": "iteration", "tokens": {"context": {"total": 10, "tools": "2", "messages": 8}}},
    ],
    "final": {},
}


@pytest.mark.parametrize(
    ("fields", "passes"),
    [
        ({"path": "events[type=model_request][*].messages", "lacks": "forbidden"}, True),
        ({"path": "events[type=model_request][*].messages", "lacks": "forced_inspection"}, False),
        ({"path": "events[type=model_request][0].messages", "lacks": "^a <"}, False),
        ({"path": "events[type=summary]", "lacks": "anything"}, False),  # nothing selected: not vacuous
        ({"path": "final.nothing", "lacks": "anything"}, False),
    ],
)
def test_lacks_passes_only_when_something_was_selected_and_nothing_matches(
    fields: dict[str, Any], passes: bool
) -> None:
    assert (check(RECORD, expect(**fields)) is None) is passes


@pytest.mark.parametrize(
    ("index", "passes", "says"),
    [
        (0, True, ""),
        (1, False, "add up to 9"),
        (2, False, "found none"),
        (3, False, "add up to 8"),  # a string is no part: extra fields are allowed anywhere
    ],
)
def test_parts_sum_to_needs_numeric_parts_adding_up_exactly(index: int, passes: bool, says: str) -> None:
    problem = check(TOKENS, expect(path=f"events[{index}].tokens.context", parts_sum_to="total"))
    assert (problem is None) is passes
    assert says in (problem or "")


def test_parts_sum_to_needs_the_named_number() -> None:
    problem = check(TOKENS, expect(path="events[0].tokens.context", parts_sum_to="grand_total"))
    assert problem is not None and "'grand_total'" in problem


WAITS = {"events": [
    {"type": "tool_run", "id": "n1", "phase": "start"},
    {"type": "settle", "phase": "start"},
    {"type": "settle", "phase": "end"},
    {"type": "tool_run", "id": "n1", "phase": "return"},
    {"type": "settle", "phase": "start"},
    {"type": "settle", "phase": "end"},
]}
_INSIDE = [{"type": "tool_run", "phase": "start"}, {"type": "settle", "phase": "end"},
           {"type": "tool_run", "phase": "return"}]


@pytest.mark.parametrize(
    ("events", "passes", "says"),
    [
        (WAITS["events"], True, ""),
        ([WAITS["events"][i] for i in (0, 3, 4, 5)], False, "item 2"),  # the only wait comes after the return
        ([WAITS["events"][i] for i in (3, 0, 1, 2)], False, "item 2"),  # a return before the start counts not
        ([], False, "item 0"),
    ],
)
def test_in_order_finds_each_item_after_the_one_before(
    events: list[dict[str, Any]], passes: bool, says: str
) -> None:
    problem = check({"events": events}, expect(path="events", in_order=_INSIDE))
    assert (problem is None) is passes
    assert says in (problem or "")


def test_in_order_needs_a_list() -> None:
    problem = check(WAITS, expect(path="events[0]", in_order=_INSIDE))
    assert problem is not None and "expected a list" in problem
