"""The chat-completions wire format: what the fake server builds from a script entry, the provider reads
back as the same entry; and a body of the wrong shape is refused with the field at fault."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.players.common import model_response
from conformance.scenario.common import ScriptEntry
from reference.providers import wire
from reference.providers.model import ModelResponse, ProviderError


def _comparable(response: ModelResponse) -> dict[str, Any]:
    """Everything a wire round trip must keep (how the stop reason is spelled and chunking may differ)."""
    fields = dataclasses.asdict(response)
    del fields["stop_reason"], fields["chunks"]
    fields["tool_calls"] = list(fields["tool_calls"])
    return fields


def entry(**fields: Any) -> ModelResponse:
    return model_response(ScriptEntry.model_validate(fields))


def sse_lines(payload: bytes) -> list[str]:
    return payload.decode().splitlines()


# -- building responses -------------------------------------------------------------------------------


def test_a_text_answer_is_a_chat_completion_with_usage() -> None:
    body = wire.completion(
        entry(text="hello", usage={"input_tokens": 12, "output_tokens": 3}), call=2, model="m"
    )
    assert body["id"] == "chatcmpl-2"
    assert body["object"] == "chat.completion"
    assert body["model"] == "m"
    assert body["choices"] == [
        {"index": 0, "message": {"role": "assistant", "content": "hello"}, "finish_reason": "stop"}
    ]
    assert body["usage"] == {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}


@pytest.mark.parametrize(
    ("ours", "theirs"), [("stop", "stop"), ("tool_calls", "tool_calls"), ("max_tokens", "length")]
)
def test_stop_reasons_map_to_finish_reasons(ours: str, theirs: str) -> None:
    body = wire.completion(entry(text="x", stop_reason=ours), call=1, model="m")
    assert body["choices"][0]["finish_reason"] == theirs
    assert wire.entry_from_completion(body).stop_reason == ours


def test_run_javascript_code_travels_as_a_code_argument() -> None:
    body = wire.completion(entry(tool_calls=[{"code": "return exit('done')"}]), call=3, model="m")
    message = body["choices"][0]["message"]
    assert message["content"] is None
    assert body["choices"][0]["finish_reason"] == "tool_calls"
    (call,) = message["tool_calls"]
    assert call["id"] == "call_3_1"
    assert call["type"] == "function"
    assert call["function"]["name"] == "run_javascript"
    assert json.loads(call["function"]["arguments"]) == {"code": "return exit('done')"}


def test_other_tools_carry_their_arguments_and_keep_a_scripted_id() -> None:
    scripted = entry(tool_calls=[{"name": "readRow", "arguments": {"row": 2}, "id": "call_abc"}])
    (call,) = wire.completion(scripted, call=1, model="m")["choices"][0]["message"]["tool_calls"]
    assert call["id"] == "call_abc"
    assert json.loads(call["function"]["arguments"]) == {"row": 2}


def test_structured_output_is_json_text_in_the_content() -> None:
    body = wire.completion(entry(json={"flow": "refund", "score": 0.9}), call=1, model="m")
    assert json.loads(body["choices"][0]["message"]["content"]) == {"flow": "refund", "score": 0.9}
    assert wire.entry_from_completion(body, structured=True).json_data == {"flow": "refund", "score": 0.9}
    assert wire.entry_from_completion(body, structured=False).json_data is None


def test_the_same_entry_always_gives_the_same_bytes() -> None:
    scripted = entry(text="hi", tool_calls=[{"name": "t", "arguments": {}}])
    first = json.dumps(wire.completion(scripted, call=1, model="m"))
    assert first == json.dumps(wire.completion(scripted, call=1, model="m"))
    assert wire.completion(scripted, call=1, model="m")["created"] == wire.CREATED


# -- streams -----------------------------------------------------------------------------------------


def test_a_stream_sends_each_scripted_chunk_then_the_finish_reason_then_done() -> None:
    scripted = entry(text="Hello there", chunks=["Hel", "lo ", "there"])
    payload = b"".join(wire.sse_stream(wire.stream_chunks(scripted, call=1, model="m")))
    lines = sse_lines(payload)
    assert lines[-2:] == ["data: [DONE]", ""]
    items = list(wire.parse_sse(lines))
    assert all(item["object"] == "chat.completion.chunk" for item in items)
    assert items[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    deltas = [item["choices"][0]["delta"].get("content") for item in items[1:-1]]
    assert deltas == ["Hel", "lo ", "there"]
    assert items[-1]["choices"][0]["finish_reason"] == "stop"


def test_a_streamed_answer_reads_back_with_its_chunks() -> None:
    scripted = entry(text="Hello", chunks=["He", "llo"], usage={"input_tokens": 4, "output_tokens": 2})
    items = wire.stream_chunks(scripted, call=1, model="m", include_usage=True)
    assert items[-1]["choices"] == [] and items[-1]["usage"]["total_tokens"] == 6
    back = wire.entry_from_stream(items)
    assert (back.text, back.chunks, back.usage) == ("Hello", ("He", "llo"), scripted.usage)


def test_usage_is_streamed_only_when_asked_for() -> None:
    items = wire.stream_chunks(entry(text="x"), call=1, model="m")
    assert all("usage" not in item for item in items)


def test_streamed_tool_call_fragments_are_joined() -> None:
    def fragment(**call: Any) -> dict[str, Any]:
        return {"choices": [{"index": 0, "delta": {"tool_calls": [call]}, "finish_reason": None}]}

    items = [
        fragment(index=0, id="c1", type="function", function={"name": "run_javascript", "arguments": '{"co'}),
        fragment(index=0, function={"arguments": 'de": "return 1"}'}),
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]
    back = wire.entry_from_stream(items)
    assert [(c.name, c.code, c.id) for c in back.tool_calls] == [("run_javascript", "return 1", "c1")]
    assert back.stop_reason == "tool_calls"


@pytest.mark.parametrize(
    ("after", "calls_after", "arrived_calls"),
    [(0, None, 0), (1, None, 0), (2, 1, 1), (3, 3, 1), (3, 0, 1), (1, 2, 0)],
)
def test_a_broken_stream_reads_back_as_what_arrived_before_the_cut(
    after: int, calls_after: int | None, arrived_calls: int
) -> None:
    scripted = entry(
        text="abc",
        chunks=["a", "b", "c"],
        tool_calls=[{"id": "c1", "code": "return 1"}],
        stream_break={"after": after, "calls_after": calls_after, "message": "connection reset"},
    )
    assert scripted.stream_break is not None
    chunks = wire.stream_chunks(scripted, call=1, model="m")
    payload = b"".join(wire.sse_stream(chunks, scripted.stream_break))
    lines = sse_lines(payload)
    assert "data: [DONE]" not in lines
    assert json.loads(lines[-2][len("data: ") :])["error"]["message"] == "connection reset"
    before = [json.loads(line[len("data: ") :]) for line in lines[:-2] if line]
    assert all(item["choices"][0]["finish_reason"] is None for item in before)
    back = wire.entry_from_stream(wire.parse_sse(lines))
    assert back.chunks == ("a", "b", "c")[:after] and back.text == "abc"[:after]
    assert len(back.tool_calls) == arrived_calls
    assert back.stream_break is not None
    assert back.stream_break.message == "connection reset" and back.stream_break.after == after
    assert back.stream_break.calls_arrived() == scripted.stream_break.calls_arrived()
    if arrived_calls:
        assert back.stream_break.calls_after == calls_after


def test_a_stream_without_done_is_refused() -> None:
    with pytest.raises(wire.WireFormatError, match=r"\[DONE\]"):
        list(wire.parse_sse(['data: {"choices": []}', ""]))


def test_a_stream_without_a_finish_reason_is_refused() -> None:
    items = [{"choices": [{"index": 0, "delta": {"content": "x"}, "finish_reason": None}]}]
    with pytest.raises(wire.WireFormatError, match="finish_reason"):
        wire.entry_from_stream(items)


# -- failures -----------------------------------------------------------------------------------------


def test_a_rate_limit_failure_has_retry_after_headers_and_an_openai_error_body() -> None:
    failure = ProviderError(status=429, message="slow down", retry_after=1.5)
    assert wire.failure_headers(failure) == {"Retry-After": "2", "retry-after-ms": "1500"}
    assert wire.error_body(429, "slow down") == {
        "error": {
            "message": "slow down",
            "type": "rate_limit_error",
            "param": None,
            "code": "rate_limit_exceeded",
        }
    }


def test_a_server_failure_without_retry_after_sends_no_header() -> None:
    assert wire.failure_headers(ProviderError(status=503)) == {}
    assert wire.error_body(503, "down")["error"]["type"] == "server_error"


# -- reading malformed bodies -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ([], "(body)"),
        ({}, "choices"),
        ({"choices": []}, "choices[0]"),
        ({"choices": [{"finish_reason": "stop"}]}, "choices[0].message"),
        ({"choices": [{"message": {"content": 7}, "finish_reason": "stop"}]}, "choices[0].message.content"),
        ({"choices": [{"message": {"content": "x"}, "finish_reason": "cosmic"}]}, "choices[0].finish_reason"),
        (
            {
                "choices": [
                    {
                        "message": {"tool_calls": [{"function": {"name": "t", "arguments": "{"}}]},
                        "finish_reason": "tool_calls",
                    }
                ]
            },
            "choices[0].message.tool_calls[0].function.arguments",
        ),
        (
            {
                "choices": [{"message": {"content": "x"}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": "many", "completion_tokens": 1},
            },
            "usage.prompt_tokens",
        ),
    ],
)
def test_a_malformed_completion_names_the_field(body: Any, field: str) -> None:
    with pytest.raises(wire.WireFormatError) as caught:
        wire.entry_from_completion(body)
    assert caught.value.field == field
    assert f"response field {field}: expected" in str(caught.value)


def test_structured_output_that_is_not_an_object_is_refused() -> None:
    body = wire.completion(entry(text="not json"), call=1, model="m")
    with pytest.raises(wire.WireFormatError, match="structured output was requested"):
        wire.entry_from_completion(body, structured=True)


def test_missing_usage_reads_as_zero() -> None:
    body = {"choices": [{"message": {"content": "x"}, "finish_reason": "stop"}]}
    assert wire.entry_from_completion(body).usage.to_dict() == {"input_tokens": 0, "output_tokens": 0}


# -- round trip property ------------------------------------------------------------------------------

_text = st.text(max_size=30)
_calls = st.lists(
    st.one_of(
        st.builds(lambda code, i: {"code": code, "id": f"c{i}"}, _text, st.integers(0, 99)),
        st.builds(
            lambda name, args, i: {"name": name, "arguments": args, "id": f"c{i}"},
            st.sampled_from(["readRow", "lookup", "faq"]),
            st.dictionaries(st.sampled_from(["row", "q", "n"]), st.integers() | _text, max_size=3),
            st.integers(0, 99),
        ),
    ),
    max_size=3,
)


@given(
    text=_text,
    calls=_calls,
    stop=st.sampled_from([None, "stop", "tool_calls", "max_tokens"]),
    usage=st.tuples(st.integers(0, 10_000), st.integers(0, 10_000)),
)
def test_every_entry_survives_the_wire_both_ways(
    text: str, calls: list[dict[str, Any]], stop: str | None, usage: tuple[int, int]
) -> None:
    scripted = entry(
        text=text,
        tool_calls=calls,
        stop_reason=stop,
        usage={"input_tokens": usage[0], "output_tokens": usage[1]},
    )
    expected = _comparable(scripted)
    plain = wire.entry_from_completion(wire.completion(scripted, call=1, model="m"))
    assert _comparable(plain) == expected
    assert plain.stop_reason == scripted.effective_stop_reason()
    streamed = wire.entry_from_stream(wire.stream_chunks(scripted, call=1, model="m", include_usage=True))
    assert _comparable(streamed) == expected
    assert "".join(streamed.chunks or []) == text
