"""Each runtime's request dict becomes one chat-completions body, and a request that cannot is refused
with the field at fault."""

from __future__ import annotations

import json
from typing import Any

import pytest

from reference.providers.chat_request import RequestShapeError, chat_request


def test_llmz_calls_and_results_become_tool_calls_and_tool_messages() -> None:
    request = {
        "model": "ignored-here",
        "messages": [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "refund o-1", "iteration": "it-0"},
            {
                "role": "assistant",
                "content": "",
                "iteration": "it-1",
                "toolCalls": [{"id": "call_1", "name": "run_javascript", "input": {"code": "return 1"}}],
            },
            {
                "role": "user",
                "type": "tool_result",
                "toolResultCallId": "call_1",
                "content": "Completed.",
                "iteration": "it-1",
            },
        ],
        "tools": [
            {
                "name": "run_javascript",
                "description": "runs code",
                "input_schema": {"type": "object", "properties": {"code": {"type": "string"}}},
            }
        ],
        "tool_choice": {"type": "required", "name": "run_javascript"},
        "max_tokens": 512,
    }
    body = chat_request(request, model="gpt-test")
    assert body["model"] == "gpt-test"
    assert body["messages"] == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "refund o-1"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "run_javascript", "arguments": '{"code": "return 1"}'},
                }
            ],
        },
        {"role": "tool", "content": "Completed.", "tool_call_id": "call_1"},
    ]
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "run_javascript",
                "description": "runs code",
                "parameters": {"type": "object", "properties": {"code": {"type": "string"}}},
            },
        }
    ]
    assert body["tool_choice"] == {"type": "function", "function": {"name": "run_javascript"}}
    assert body["max_tokens"] == 512
    assert "stream" not in body


def test_akan_provider_messages_are_preferred_over_the_transcript() -> None:
    request = {
        "messages": [{"role": "user", "content": "summary text", "summary": True}],
        "provider_messages": [{"role": "system", "content": "summary text"}],
        "tools": [{"name": "readRow", "description": "reads a row"}],
        "screen": "<html/>",
    }
    body = chat_request(request, model="m")
    assert body["messages"] == [{"role": "system", "content": "summary text"}]
    assert body["tools"][0]["function"]["parameters"] == {"type": "object", "properties": {}}


def test_akan_tool_calls_use_snake_case_fields() -> None:
    request = {
        "messages": [
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": "call_1", "name": "t", "arguments": {"a": 1}}],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "{}"},
        ]
    }
    body = chat_request(request, model="m")
    assert json.loads(body["messages"][0]["tool_calls"][0]["function"]["arguments"]) == {"a": 1}
    assert body["messages"][1] == {"role": "tool", "content": "{}", "tool_call_id": "call_1"}


def test_a_request_without_messages_travels_whole_as_one_user_message() -> None:
    request = {
        "persona": "Ava",
        "prompt": "Ask for the date",
        "collect": ["date"],
        "instructions": ["a", "b"],
        "tools": ["faq"],
    }
    body = chat_request(request, model="m")
    system, user = body["messages"]
    assert system == {"role": "system", "content": "a\nb"}
    assert json.loads(user["content"]) == request
    assert body["tools"] == [
        {"type": "function", "function": {"name": "faq", "parameters": {"type": "object", "properties": {}}}}
    ]


def test_streaming_asks_for_usage_and_structured_output_asks_for_json() -> None:
    body = chat_request({"messages": []}, model="m", stream=True, structured=True)
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["response_format"] == {"type": "json_object"}


def test_a_bare_json_schema_is_wrapped_as_a_response_format() -> None:
    schema = {"type": "object", "properties": {"flow": {"type": "string"}}}
    body = chat_request({"messages": [], "json_schema": schema}, model="m")
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "answer", "schema": schema},
    }


@pytest.mark.parametrize(
    ("request_dict", "field"),
    [
        ({"messages": "hi"}, "messages"),
        ({"messages": ["hi"]}, "messages[0]"),
        ({"messages": [{"role": "robot", "content": "x"}]}, "messages[0].role"),
        ({"messages": [{"role": "assistant", "toolCalls": [{"name": "t"}]}]}, "messages[0].toolCalls[0].id"),
        ({"messages": [], "tools": [{"description": "no name"}]}, "tools[0].name"),
        ({"messages": [], "max_tokens": 0}, "max_tokens"),
        ({"messages": [], "tools": ["t"], "tool_choice": {"type": "sometimes"}}, "tool_choice"),
    ],
)
def test_a_request_of_the_wrong_shape_names_the_field(request_dict: dict[str, Any], field: str) -> None:
    with pytest.raises(RequestShapeError) as caught:
        chat_request(request_dict, model="m")
    assert caught.value.field == field
    assert str(caught.value).startswith(f"request field {field}: expected")
