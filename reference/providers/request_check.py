"""The checks an OpenAI-compatible endpoint makes on a request before answering it.

A real endpoint refuses, with HTTP 400, a conversation whose tool calls and tool results do not pair
up, and a fake that accepted such a request would hide the bug until the runtime met a real model. So
the fake server runs these checks first and answers 400 with the first problem found, naming the
message at fault. Only structure is checked, never content: the script decides the answer.

The pairing rule, as endpoints enforce it: an assistant message with ``tool_calls`` must be followed
directly by one ``tool`` message per call, each naming a call of that assistant message by
``tool_call_id``; a ``tool`` message anywhere else is refused.
"""

from __future__ import annotations

from typing import Any

ROLES = ("system", "developer", "user", "assistant", "tool")


def message_problem(message: Any, index: int) -> str | None:
    """What is wrong with one message on its own, if anything."""
    where = f"messages[{index}]"
    if not isinstance(message, dict):
        return f"{where}: expected an object"
    if message.get("role") not in ROLES:
        return f"{where}.role: expected one of {', '.join(ROLES)}, got {message.get('role')!r}"
    calls = message.get("tool_calls")
    if calls is not None and (message["role"] != "assistant" or not isinstance(calls, list)):
        return f"{where}.tool_calls: only an assistant message carries tool_calls, as a list"
    for k, call in enumerate(calls or []):
        if not isinstance(call, dict) or not isinstance(call.get("id"), str) or not call["id"]:
            return f"{where}.tool_calls[{k}].id: expected a non-empty string"
        function = call.get("function")
        if not isinstance(function, dict) or not isinstance(function.get("arguments"), str):
            return f"{where}.tool_calls[{k}].function.arguments: expected a JSON string"
    if message["role"] == "tool" and not isinstance(message.get("tool_call_id"), str):
        return f"{where}.tool_call_id: a tool message must name the call it answers"
    return None


def pairing_problem(messages: list[dict[str, Any]]) -> str | None:
    """The first break of the call/result pairing rule (see the module docstring), if any."""
    open_calls: set[str] = set()
    for index, message in enumerate(messages):
        if message["role"] == "tool":
            answered = message["tool_call_id"]
            if answered not in open_calls:
                return (
                    f"messages[{index}]: tool result for {answered!r} does not answer a call of the "
                    "assistant message just before it"
                )
            open_calls.discard(answered)
            continue
        if open_calls:
            return f"messages[{index}]: calls {sorted(open_calls)} were not answered before this message"
        open_calls = {call["id"] for call in message.get("tool_calls") or []}
    if open_calls:
        return f"messages: calls {sorted(open_calls)} of the last message were never answered"
    return None


def request_problem(body: dict[str, Any]) -> str | None:
    """The first reason an endpoint would refuse this chat-completions body, or None."""
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: expected a non-empty list"
    for index, message in enumerate(messages):
        problem = message_problem(message, index)
        if problem is not None:
            return problem
    return pairing_problem(messages)
