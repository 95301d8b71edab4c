"""The llmz host's per-case shortcuts answer as the slow paths they replace, and carry nothing between cases.

Each shortcut is checked against the computation it skips: a record handed on without the JSON round trip
is one the round trip would give back unchanged, a value whose brackets bound its depth is one the depth
walk would have passed, the remembered declarations are those the scan finds (and a caller that changes
its list cannot change the next caller's), and a provider answer is recorded as ``dataclasses.asdict``
recorded it, as a copy.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.adapters.reference import _WIRE_DEPTH, ReferenceAdapter, _wire_exact
from conformance.paths import SCENARIO_ROOT
from conformance.players import play
from conformance.runner import Selection, select
from reference.llmz import memory
from reference.llmz.sandbox import PayloadError, _shallow, depth_of, load_bounded
from reference.providers.model import ModelResponse, ProviderError, ToolCall, Usage

# -- the record handed on as it is -----------------------------------------------------------------------


def _same(a: Any, b: Any) -> bool:
    """Equal with the same exact types throughout (NaN equal to NaN)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


def _round_trip(value: Any) -> Any:
    return json.loads(json.dumps(value, ensure_ascii=False))


class _Text(str):
    pass


class _Level(enum.IntEnum):
    HIGH = 3


def _nested(depth: int) -> Any:
    value: Any = "leaf"
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


def _cycle() -> dict[str, Any]:
    looped: dict[str, Any] = {"a": 1}
    looped["self"] = looped
    return looped


EXACT = [
    {"events": [{"type": "x", "n": 1, "f": -0.0, "b": True, "z": None}], "final": {}},
    {"nan": float("nan"), "inf": float("inf"), "big": 10**30, "lone": "\ud800", "é": "ü"},
    [],
    "text",
    _nested(_WIRE_DEPTH - 1),
]
CHANGED = [
    {"events": (1, 2)},
    {"final": {1: "int key"}},
    {"final": {True: "bool key"}},
    {"final": {"text": _Text("sub")}},
    {"final": {"level": _Level.HIGH}},
    {"final": [[{"deep": (1,)}]]},
]
REFUSED = [{"final": {"bytes": b"x"}}, {"final": {"set": {1}}}, {"final": _cycle()}]


@pytest.mark.parametrize("value", EXACT, ids=lambda v: type(v).__name__)
def test_a_plain_json_record_is_what_the_round_trip_gives_back(value: Any) -> None:
    assert _wire_exact(value)
    assert _same(_round_trip(value), value)


@pytest.mark.parametrize("value", CHANGED)
def test_a_record_json_would_change_takes_the_round_trip(value: Any) -> None:
    assert not _wire_exact(value)
    assert not _same(_round_trip(value), value)


@pytest.mark.parametrize("value", REFUSED, ids=["bytes", "set", "cycle"])
def test_a_record_json_refuses_takes_the_round_trip_and_its_error(value: Any) -> None:
    assert not _wire_exact(value)
    with pytest.raises((TypeError, ValueError)):
        _round_trip(value)


def test_past_the_depth_bound_the_round_trip_decides() -> None:
    assert not _wire_exact(_nested(_WIRE_DEPTH + 1))


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.dictionaries(st.text(max_size=3), inner, max_size=4)
            | st.tuples(inner)
        ),
        max_leaves=20,
    )
)
def test_exact_means_the_round_trip_changes_nothing(value: Any) -> None:
    if _wire_exact(value):
        assert _same(_round_trip(value), value)


def test_the_reference_records_are_handed_on_without_the_round_trip() -> None:
    items = [item for item in select(SCENARIO_ROOT, Selection({"llmz"})) if hasattr(item, "payload")]
    for item in items[:25]:
        record = play(item.payload)
        assert _wire_exact(record), item.id
        outcome = ReferenceAdapter().run(item.payload, 5.0)
        assert outcome.record is not None and _same(outcome.record, _round_trip(record)), item.id


# -- the depth of a value from the program -----------------------------------------------------------------


@pytest.mark.parametrize("depth", [0, 1, 63, 64, 65, 66, 200])
@pytest.mark.parametrize("brackets_in_text", [False, True])
def test_a_value_is_refused_for_depth_exactly_as_the_walk_decides(depth: int, brackets_in_text: bool) -> None:
    value: Any = "[[{{" * 20 if brackets_in_text else 1
    for _ in range(depth):
        value = [value]
    text = json.dumps({"value": value})
    deep = depth_of(json.loads(text)) > 65
    if deep:
        with pytest.raises(PayloadError):
            load_bounded(text)
    else:
        assert load_bounded(text) == {"value": value}


def test_a_long_text_is_walked_not_counted() -> None:
    long = json.dumps({"value": ["[" * 70_000]})
    assert not _shallow(long, 65)  # too long to count: the walk decides, and passes it
    assert load_bounded(long) == {"value": ["[" * 70_000]}


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.none() | st.integers() | st.text(alphabet='[]{}a"\\'),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner, max_size=3),
        max_leaves=30,
    ),
    st.integers(min_value=0, max_value=8),
)
def test_counted_brackets_never_pass_a_value_the_walk_would_refuse(value: Any, bound: int) -> None:
    if _shallow(json.dumps(value), bound):
        assert depth_of(value) <= bound


# -- declarations, remembered per program ------------------------------------------------------------------


def test_remembered_declarations_are_the_scan_and_each_caller_gets_its_own_list() -> None:
    code = "const a = 1\nlet { b, c: d } = x\nvar [e, f] = y\nconst a2 = 2"
    first = memory.declared_names(code)
    assert first == list(memory._declared.__wrapped__(code)) == ["a", "b", "d", "e", "f", "a2"]
    first.append("leaked")
    first.remove("a")
    second = memory.declared_names(code)
    assert second == ["a", "b", "d", "e", "f", "a2"] and second is not first
    assert memory.declared_names("let other = 1") == ["other"]


# -- provider answers as recorded --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "item",
    [
        ToolCall(code="return 1"),
        ToolCall(name="n", code=None, arguments={"a": [1, {"b": 2}]}, id="call_1"),
        Usage(3, 4),
        ProviderError(429, "slow down", 1.5),
    ],
)
def test_a_provider_answer_is_recorded_as_asdict_recorded_it_as_a_copy(item: Any) -> None:
    expected = dataclasses.asdict(item)
    recorded = item.to_dict()
    if isinstance(item, ToolCall):
        expected = {k: v for k, v in expected.items() if v is not None}
    assert recorded == expected and list(recorded) == list(expected)
    if isinstance(item, ToolCall) and item.arguments is not None:
        recorded["arguments"]["a"].append("changed")
        assert item.arguments == {"a": [1, {"b": 2}]}


def test_a_response_records_the_same_fields_twice_in_a_row() -> None:
    response = ModelResponse(tool_calls=(ToolCall(code="x", arguments={"k": [1]}),), usage=Usage(1, 2))
    first = response.record_fields()
    first["tool_calls"][0]["arguments"]["k"].append(2)
    assert response.record_fields()["tool_calls"][0]["arguments"] == {"k": [1]}
