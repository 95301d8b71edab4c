"""The fake server refuses what a real endpoint refuses: tool calls and tool results that do not pair."""

from __future__ import annotations

from typing import Any

import pytest

from reference.providers.request_check import request_problem


def user(text: str = "hi") -> dict[str, Any]:
    return {"role": "user", "content": text}


def calls(*ids: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": i, "type": "function", "function": {"name": "t", "arguments": "{}"}} for i in ids
        ],
    }


def result(call_id: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": "ok"}


@pytest.mark.parametrize(
    "messages",
    [
        [user()],
        [{"role": "system", "content": "s"}, user(), calls("a", "b"), result("b"), result("a"), user("more")],
        [user(), calls("a"), result("a"), calls("b"), result("b")],
    ],
)
def test_well_paired_conversations_pass(messages: list[dict[str, Any]]) -> None:
    assert request_problem({"messages": messages}) is None


@pytest.mark.parametrize(
    ("messages", "problem"),
    [
        ([], "messages: expected a non-empty list"),
        (["hi"], "messages[0]: expected an object"),
        ([{"role": "robot"}], "messages[0].role: expected one of"),
        ([user(), result("a")], "messages[1]: tool result for 'a' does not answer a call"),
        ([user(), calls("a"), user()], "messages[2]: calls ['a'] were not answered"),
        (
            [user(), calls("a", "b"), result("a")],
            "messages: calls ['b'] of the last message were never answered",
        ),
        ([user(), calls("a"), result("a"), result("a")], "messages[3]: tool result for 'a'"),
        ([user(), {"role": "tool", "content": "x"}], "messages[1].tool_call_id: a tool message must name"),
        ([{"role": "user", "content": "x", "tool_calls": []}], "messages[0].tool_calls: only an assistant"),
        (
            [user(), {"role": "assistant", "tool_calls": [{"id": "a", "function": {"arguments": {}}}]}],
            "messages[1].tool_calls[0].function.arguments: expected a JSON string",
        ),
    ],
)
def test_a_broken_conversation_names_the_message_at_fault(messages: list[Any], problem: str) -> None:
    found = request_problem({"messages": messages})
    assert found is not None and found.startswith(problem), found
