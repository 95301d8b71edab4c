"""The llmz Session: validated appends, turns, and JSON persistence including delivery tracking."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.llmz.errors import LlmzError
from reference.llmz.session import Session


def _roundtrip(session: Session) -> Session:
    return Session.from_json(json.loads(json.dumps(session.to_json())))


def test_an_invalid_message_rejects_the_whole_batch() -> None:
    session = Session()
    with pytest.raises(LlmzError) as caught:
        session.append([{"role": "user", "content": "ok"}, {"role": "user", "content": 3}])
    assert caught.value.code == "INVALID_MESSAGE"
    assert caught.value.critical
    assert session.transcript == []


@pytest.mark.parametrize(
    "bad", [{"role": "event", "name": "", "payload": 1}, {"role": "event", "payload": 1}]
)
def test_an_invalid_event_is_rejected(bad: dict[str, Any]) -> None:
    with pytest.raises(LlmzError) as caught:
        Session().append([bad])
    assert caught.value.code == "INVALID_EVENT"


def test_a_non_json_payload_is_rejected() -> None:
    with pytest.raises(LlmzError) as caught:
        Session().append([{"role": "event", "name": "x", "payload": float("nan")}])
    assert caught.value.code == "INVALID_EVENT"


def test_status_follows_the_queue_and_the_lock() -> None:
    session = Session()
    assert session.status == "idle"
    session.append([{"role": "user", "content": "hi"}])
    assert session.status == "pending"
    session.begin_turn()
    assert session.status == "active"
    with pytest.raises(LlmzError) as caught:
        session.to_json()
    assert caught.value.code == "SESSION_STATE"
    session.end_execution(completed=True)
    assert session.status == "idle"
    assert session.last_speaker == "user"


def test_a_failed_turn_keeps_newer_input_queued_for_the_next_turn() -> None:
    session = Session()
    session.append([{"role": "user", "content": "first"}])
    session.begin_turn()
    session.end_execution(completed=False)
    session.append([{"role": "user", "content": "second"}])
    session.last_speaker = "assistant"
    session.begin_turn()  # the retry continues the open turn
    assert session.last_speaker == "assistant"
    assert [m["content"] for m in session.messages] == ["first"]
    session.end_execution(completed=True)
    assert session.status == "pending"


def test_a_restored_session_keeps_its_last_speaker_and_counters() -> None:
    session = Session()
    session.last_speaker = "assistant"
    session.mint_call_id()
    restored = _roundtrip(session)
    assert restored.last_speaker == "assistant"
    assert restored.mint_call_id() == "call_2"


def test_a_snapshot_without_delivery_tracking_has_an_unknown_speaker() -> None:
    state = Session().to_json()
    del state["delivery"]
    assert Session.from_json(state).last_speaker == "unknown"


def test_unknown_versions_and_orphan_results_are_rejected() -> None:
    state = Session().to_json()
    with pytest.raises(LlmzError, match="version"):
        Session.from_json({**state, "version": 99})
    orphan = {
        **state,
        "history": [{"role": "user", "type": "tool_result", "toolResultCallId": "x", "content": ""}],
    }
    with pytest.raises(LlmzError) as caught:
        Session.from_json(orphan)
    assert caught.value.code == "INVALID_SESSION"


json_data = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
inputs = st.one_of(
    st.builds(lambda c: {"role": "user", "content": c}, st.text(max_size=20)),
    st.builds(lambda c: {"role": "assistant", "content": c}, st.text(max_size=20)),
    st.builds(lambda c: {"role": "summary", "content": c}, st.text(max_size=20)),
    st.builds(
        lambda n, p: {"role": "event", "name": n, "payload": p},
        st.text(min_size=1, max_size=8).filter(str.strip),
        json_data,
    ),
)


@settings(deadline=None)  # the first preview loads the tokenizer
@given(
    st.lists(inputs, max_size=6),
    st.integers(min_value=0, max_value=6),
    st.sampled_from(["user", "assistant", "none"]),
)
def test_a_session_survives_to_json_and_from_json_unchanged(
    items: list[dict[str, Any]], claimed: int, speaker: str
) -> None:
    session = Session()
    session.append(items[:claimed])
    session.begin_turn()
    session.end_execution(completed=True)
    session.append(items[claimed:])
    session.last_speaker = speaker  # type: ignore[assignment]
    restored = _roundtrip(session)
    assert restored.transcript == session.transcript
    assert restored.messages == session.messages
    assert restored.status == session.status
    assert restored.last_speaker == session.last_speaker
    assert restored.to_json() == session.to_json()


def test_a_large_event_payload_is_previewed_for_the_model_but_kept_whole() -> None:
    payload = {"log": " ".join(f"entry-{n}" for n in range(4000)) + " LAST-ENTRY"}
    session = Session()
    session.append([{"role": "event", "name": "log.dump", "payload": payload}])
    assert session.transcript == [{"role": "event", "name": "log.dump", "payload": payload}]
    session.begin_turn()
    [native] = session.messages
    assert native["role"] == "user"
    assert "log.dump" in native["content"] and "LAST-ENTRY" not in native["content"]
