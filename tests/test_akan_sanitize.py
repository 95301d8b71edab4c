"""Transcript.sanitize (reference.akan.sanitize): examples from the rules, properties over any transcript."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.akan.model import Message
from reference.akan.sanitize import STOPPED_RESULT, cap, sanitize


def _user(text: str = "q") -> Message:
    return {"role": "user", "content": text}


def _calls(*ids: str) -> Message:
    calls = [{"id": i, "name": "t", "arguments": {}} for i in ids]
    return {"role": "assistant", "content": "", "tool_calls": calls}


def _answer(text: str) -> Message:
    return {"role": "assistant", "content": text}


def _result(call_id: str, content: str = "{}") -> Message:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def test_a_sound_transcript_is_left_exactly_as_it_was() -> None:
    transcript = [_user(), _calls("a", "b"), _result("a"), _result("b"), _answer("ok")]
    assert sanitize(transcript) == transcript


def test_unreached_calls_are_answered_as_stopped_not_erased() -> None:
    # akan.sanitize.stopped-calls-answered-not-erased
    out = sanitize([_user(), _calls("a", "b", "c"), _result("a")])
    assert out[1] == _calls("a", "b", "c")
    assert out[2:] == [_result("a"), _result("b", STOPPED_RESULT), _result("c", STOPPED_RESULT)]
    assert "stopped" in STOPPED_RESULT


def test_a_note_inside_a_call_block_stays_and_the_gap_is_answered_after_it() -> None:
    note = {"role": "local", "content": "Commands: ..."}
    out = sanitize([_calls("a"), note, _user("next")])
    assert out == [_calls("a"), note, _result("a", STOPPED_RESULT), _user("next")]


def test_results_whose_call_is_not_right_above_them_are_dropped() -> None:
    # akan.sanitize.runs-on-capped-store: a window opening mid-pair starts with orphans
    out = sanitize([_result("a"), _result("b"), {"role": "assistant", "content": "done"}, _user()])
    assert out == [{"role": "assistant", "content": "done"}, _user()]
    late = sanitize([_calls("a"), _user(), _result("a")])
    assert late == [_calls("a"), _result("a", STOPPED_RESULT), _user()]


def test_a_second_result_for_the_same_call_is_dropped() -> None:
    out = sanitize([_calls("a"), _result("a", "1"), _result("a", "2")])
    assert out == [_calls("a"), _result("a", "1")]


def test_cap_keeps_the_newest_messages_and_repairs_the_window() -> None:
    # akan.sanitize.runs-on-capped-store
    transcript = [_user(), _calls("a", "b"), _result("a"), _result("b"), _answer("ok")]
    assert cap(transcript, 2) == [{"role": "assistant", "content": "ok"}]
    assert cap(transcript, 10) == transcript
    assert cap(transcript, 0) == []
    with pytest.raises(ValueError, match="cap"):
        cap(transcript, -1)


# -- properties ------------------------------------------------------------------------------------------

IDS = st.sampled_from(["a", "b", "c", "d"])
MESSAGES: st.SearchStrategy[Message] = st.one_of(
    st.builds(_user),
    st.just({"role": "assistant", "content": "text"}),
    st.lists(IDS, min_size=1, max_size=3, unique=True).map(lambda ids: _calls(*ids)),
    st.builds(_result, IDS),
    st.just({"role": "local", "content": "note"}),
)
TRANSCRIPTS = st.lists(MESSAGES, max_size=30)


def _problems(transcript: list[Message]) -> list[str]:
    """What a provider would refuse, judged on the wire (locals left out)."""
    wire = [m for m in transcript if m["role"] != "local"]
    problems: list[str] = []
    for index, message in enumerate(wire):
        if message["role"] == "tool":
            run_start = index
            while run_start > 0 and wire[run_start - 1]["role"] == "tool":
                run_start -= 1
            owner = wire[run_start - 1] if run_start > 0 else {}
            ids = [c["id"] for c in owner.get("tool_calls") or []]
            if message["tool_call_id"] not in ids:
                problems.append(f"result {index} has no call right above it")
        for call in message.get("tool_calls") or []:
            following = []
            for later in wire[index + 1 :]:
                if later["role"] != "tool":
                    break
                following.append(later["tool_call_id"])
            if call["id"] not in following:
                problems.append(f"call {call['id']} at {index} has no result")
    return problems


@settings(max_examples=400)
@given(transcript=TRANSCRIPTS)
def test_no_call_without_result_and_no_result_without_call(transcript: list[Message]) -> None:
    # akan.sanitize.no-unanswered-tool-calls-on-wire
    assert _problems(sanitize(transcript)) == []


@settings(max_examples=400)
@given(transcript=TRANSCRIPTS)
def test_sanitize_erases_nothing_but_orphaned_results(transcript: list[Message]) -> None:
    # akan.sanitize.stopped-calls-answered-not-erased: every non-tool message survives, in order
    def non_tool(messages: list[Message]) -> list[Any]:
        return [m for m in messages if m["role"] != "tool"]

    once = sanitize(transcript)
    assert non_tool(once) == non_tool(transcript)
    assert sanitize(once) == once


@settings(max_examples=200)
@given(transcript=TRANSCRIPTS, newest=st.integers(min_value=0, max_value=35))
def test_a_capped_store_is_always_sendable(transcript: list[Message], newest: int) -> None:
    # akan.sanitize.runs-on-capped-store
    assert _problems(cap(transcript, newest)) == []
