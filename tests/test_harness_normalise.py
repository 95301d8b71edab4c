"""Volatile values become numbered placeholders; everything else is left exactly as it was."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.judging.normalise import VOLATILE_KEYS, normalise


def test_ids_are_numbered_by_first_appearance_and_keep_cross_references() -> None:
    record = {
        "events": [
            {"type": "model_response", "tool_calls": [{"id": "call_x9", "name": "run"}]},
            {"type": "tool_result", "tool_call_id": "call_x9", "id": "res_77"},
        ],
        "final": {"session_id": "abc"},
    }
    result = normalise(record)
    assert result["events"][0]["tool_calls"][0] == {"id": "<id-1>", "name": "run"}
    assert result["events"][1] == {"type": "tool_result", "tool_call_id": "<id-1>", "id": "<id-2>"}
    assert result["final"] == {"session_id": "<id-3>"}


def test_times_and_durations_have_their_own_counters() -> None:
    record = {"events": [{"type": "t", "timestamp": 1700, "duration_ms": 12.5, "elapsed_ms": 3}], "final": {}}
    assert normalise(record)["events"][0] == {
        "type": "t",
        "timestamp": "<time-1>",
        "duration_ms": "<duration-1>",
        "elapsed_ms": "<duration-2>",
    }


def test_values_chosen_by_the_scenario_are_kept() -> None:
    scenario = {"script": [{"tool_calls": [{"id": "call_1", "code": "x"}]}]}
    record = {"events": [{"type": "tool_call", "id": "call_1"}, {"type": "tool_call", "id": "minted"}]}
    events = normalise(record, scenario)["events"]
    assert [e["id"] for e in events] == ["call_1", "<id-1>"]


def test_unlisted_keys_nulls_and_the_input_are_untouched() -> None:
    record = {
        "events": [{"type": "schedule", "at": 1767614400000, "id": None, "ok": True}],
        "final": {"n": 1},
    }
    snapshot = repr(record)
    assert normalise(record) == record
    assert repr(record) == snapshot


def test_the_documented_key_list_covers_ids_times_and_durations() -> None:
    assert {"id", "tool_call_id", "timestamp", "duration_ms"} <= set(VOLATILE_KEYS)
    assert set(VOLATILE_KEYS.values()) == {"id", "time", "duration"}


json_leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5))
keys = st.sampled_from(["id", "call_id", "timestamp", "name", "text", "duration_ms"])
json_value = st.recursive(
    json_leaf,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(["id", "call_id", "timestamp", "name", "text", "duration_ms"]), inner, max_size=4
        )
    ),
    max_leaves=20,
)


@given(st.dictionaries(st.sampled_from(["events", "final", "id"]), json_value, max_size=3))
def test_normalising_twice_changes_nothing_more(record: dict[str, object]) -> None:
    once = normalise(record)
    assert normalise(once) == once


@given(st.lists(st.text(min_size=1, max_size=3), min_size=1, max_size=8))
def test_equal_ids_get_equal_placeholders_and_different_ids_different_ones(ids: list[str]) -> None:
    record = {"events": [{"type": "t", "id": value} for value in ids]}
    placeholders = [event["id"] for event in normalise(record)["events"]]
    for i, a in enumerate(ids):
        for j, b in enumerate(ids):
            assert (a == b) == (placeholders[i] == placeholders[j])
