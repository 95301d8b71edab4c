"""The scripted provider plays untagged scripts in order and addresses tagged entries by call purpose."""

from __future__ import annotations

import pytest

from conformance.players.common import scripted_provider
from conformance.scenario.common import ScriptEntry
from reference.providers.scripted import ScriptedProvider, ScriptExhausted
from reference.record import Recorder


def _texts(provider: ScriptedProvider, purposes: list[str]) -> list[str]:
    return [provider.complete({}, purpose=purpose).text for purpose in purposes]


def test_an_untagged_script_is_played_in_order_whatever_the_purpose() -> None:
    script = [ScriptEntry(text="a"), ScriptEntry(text="b"), ScriptEntry(text="c")]
    assert _texts(scripted_provider(script, Recorder()), ["turn", "summary", "turn"]) == ["a", "b", "c"]


def test_summary_answers_go_to_summary_calls_however_many_there_are() -> None:
    script = [
        ScriptEntry(text="turn-1"),
        ScriptEntry(purpose="summary", text="part-1"),
        ScriptEntry(purpose="summary", text="part-2"),
        ScriptEntry(purpose="summary", text="spare"),
        ScriptEntry(text="turn-2"),
    ]
    played = _texts(scripted_provider(script, Recorder()), ["turn", "turn", "summary", "summary"])
    assert played == ["turn-1", "turn-2", "part-1", "part-2"]


def test_no_entry_for_the_purpose_exhausts_the_script_naming_the_call() -> None:
    provider = scripted_provider([ScriptEntry(purpose="summary", text="s")], Recorder())
    with pytest.raises(ScriptExhausted, match="no response for call 1"):
        provider.complete({}, purpose="turn")


def test_the_fake_server_addresses_entries_by_the_purpose_a_client_names_or_the_request_implies() -> None:
    from conformance.fake_server import ScriptState, call_purpose

    state = ScriptState([ScriptEntry(purpose="summary", text="s"), ScriptEntry(text="t")])
    turn = {"tools": [{"type": "function"}]}
    assert call_purpose({}, turn) == "turn" and call_purpose({}, {}) == "summary"
    assert call_purpose({"X-Scripted-Purpose": "summary"}, turn) == "summary"
    path = "/v1/chat/completions"
    first, second = state.take(path, turn)[1], state.take(path, {}, purpose="summary")[1]
    assert [first.text if first else None, second.text if second else None] == ["t", "s"]


def test_a_break_that_times_calls_needs_calls_to_time() -> None:
    """``calls_after`` says when the entry's tool calls arrive; without calls it would let a runtime treat
    a text-only answer as dispatched (reference.llmz.streaming.dispatched), which no wire can carry."""
    with pytest.raises(ValueError, match=r"calls_after needs tool_calls"):
        ScriptEntry(text="ab", chunks=["a", "b"], stream_break={"after": 1, "calls_after": 0})
    timed = ScriptEntry(
        text="ab",
        chunks=["a", "b"],
        tool_calls=[{"code": "return 1"}],
        stream_break={"after": 1, "calls_after": 0},
    )
    assert timed.stream_break is not None and timed.stream_break.calls_after == 0
