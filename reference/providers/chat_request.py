"""Our runtimes' request dicts as an OpenAI chat-completions request body, with no I/O.

Each reference runtime builds its model request as a plain dict in its own shape, so the scripted
provider can record it unchanged. To point a runtime at a real endpoint those dicts must become one
chat-completions body. The shapes in use:

* llmz: ``messages`` whose calls are ``toolCalls`` (``{id, name, input}``) and whose results are user
  messages carrying ``toolResultCallId``, ``tools`` with an ``input_schema``, ``tool_choice`` in its
  own form (``{type: auto}``, ``{type: required, name}``) and ``max_tokens``; ``instructions``, where a
  request has it, is the system prompt;
* the Akan agent: ``messages`` with ``tool_calls`` / ``tool_call_id``, plus ``provider_messages`` (the
  adaptor's own rendering, which is what reaches its provider, so it is preferred when present);
* anything without ``messages`` (falai's talk step): the whole request as JSON in one user message, so
  nothing the runtime decided is lost on the way.

Keys that only our records use (``source``, ``iteration``, ``summary``) never reach the wire. Only
``role``, ``content``, the tool-call fields and ``name`` do.
"""

from __future__ import annotations

import json
from typing import Any

#: Sampling options passed through unchanged when a request sets them.
PASS_THROUGH = ("temperature", "top_p", "stop", "seed", "presence_penalty", "frequency_penalty")
ROLES = ("system", "user", "assistant", "tool")
TOOL_CHOICES = ("auto", "none", "required", "any", "function")
EMPTY_PARAMETERS: dict[str, Any] = {"type": "object", "properties": {}}


class RequestShapeError(ValueError):
    """A runtime request that cannot become a chat-completions body; names the field and the expectation."""

    def __init__(self, field: str, expected: str, got: Any) -> None:
        super().__init__(f"request field {field}: expected {expected}, got {got!r}"[:300])
        self.field = field


def wire_tool(tool: Any, index: int) -> dict[str, Any]:
    """A tool declaration as a ``function`` tool; declarations already in wire form pass unchanged, and
    a bare name (falai's idle speaker lists tools by name) declares a tool with no parameters."""
    if isinstance(tool, str):
        tool = {"name": tool}
    if not isinstance(tool, dict):
        raise RequestShapeError(f"tools[{index}]", "an object", tool)
    if tool.get("type") == "function" and isinstance(tool.get("function"), dict):
        return tool
    name = tool.get("name")
    if not isinstance(name, str) or not name:
        raise RequestShapeError(f"tools[{index}].name", "a non-empty string", name)
    function: dict[str, Any] = {"name": name}
    if tool.get("description"):
        function["description"] = str(tool["description"])
    schema = tool.get("parameters") or tool.get("input_schema") or tool.get("inputSchema") or EMPTY_PARAMETERS
    function["parameters"] = schema
    return {"type": "function", "function": function}


def wire_call(call: Any, path: str) -> dict[str, Any]:
    """One call of an assistant message: ``code`` (llmz's JavaScript) travels as ``{"code": ...}``."""
    if not isinstance(call, dict):
        raise RequestShapeError(path, "an object", call)
    if call.get("type") == "function" and isinstance(call.get("function"), dict):
        return call
    name, call_id = call.get("name"), call.get("id")
    if not isinstance(name, str) or not name:
        raise RequestShapeError(f"{path}.name", "a non-empty string", name)
    if not isinstance(call_id, str) or not call_id:
        raise RequestShapeError(f"{path}.id", "a non-empty string, so a result can answer it", call_id)
    arguments = call.get("arguments", call.get("input")) or {}
    if isinstance(arguments, dict) and isinstance(call.get("code"), str):
        arguments = {**arguments, "code": call["code"]}
    text = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": text}}


def wire_content(content: Any) -> Any:
    """Text and content-part lists travel as they are; any other value as JSON text."""
    if content is None or isinstance(content, str | list):
        return content
    return json.dumps(content, ensure_ascii=False)


def wire_message(message: Any, index: int) -> dict[str, Any]:
    path = f"messages[{index}]"
    if not isinstance(message, dict):
        raise RequestShapeError(path, "an object", message)
    answered = message.get("toolResultCallId") or message.get("tool_call_id")
    # A result is a tool message on this wire, whatever role the runtime stores it under (llmz: user).
    role = "tool" if answered is not None else message.get("role")
    if role not in ROLES:
        raise RequestShapeError(f"{path}.role", f"one of {', '.join(ROLES)}", role)
    out: dict[str, Any] = {"role": role, "content": wire_content(message.get("content"))}
    calls = message.get("toolCalls") or message.get("tool_calls") or []
    if calls:
        out["tool_calls"] = [wire_call(c, f"{path}.toolCalls[{i}]") for i, c in enumerate(calls)]
    if role == "tool":
        if not isinstance(answered, str):
            raise RequestShapeError(f"{path}.toolResultCallId", "the id of the call it answers", answered)
        out["tool_call_id"] = answered
        out["content"] = out["content"] or ""
    if isinstance(message.get("name"), str):
        out["name"] = message["name"]
    return out


def source_messages(request: dict[str, Any]) -> list[Any]:
    """Which messages a request carries: the adaptor's rendering, then the plain history, else the
    whole request as one user message (runtimes like falai send structured prompts, not chats)."""
    for key in ("provider_messages", "messages"):
        if key in request:
            messages = request[key]
            if not isinstance(messages, list):
                raise RequestShapeError(key, "a list of messages", messages)
            return messages
    return [{"role": "user", "content": json.dumps(request, ensure_ascii=False, sort_keys=True)}]


def system_prompt(request: dict[str, Any]) -> str:
    """``instructions`` (or ``system``) as one system prompt; a list of lines is joined, one per line."""
    value = request.get("instructions", request.get("system"))
    if isinstance(value, list):
        return "\n".join(str(line) for line in value)
    return value if isinstance(value, str) else ""


def response_format(request: dict[str, Any]) -> dict[str, Any] | None:
    """Structured output: an explicit ``response_format`` wins; a bare ``json_schema`` is wrapped."""
    if isinstance(request.get("response_format"), dict):
        return dict(request["response_format"])
    schema = request.get("json_schema")
    if isinstance(schema, dict):
        return {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema}}
    return None


def wants_structured(request: dict[str, Any]) -> bool:
    """Whether the request asks for its answer's content as a JSON object (``ScriptEntry.json``)."""
    shape = response_format(request)
    return shape is not None and shape.get("type") in ("json_object", "json_schema")


def tool_choice(value: Any) -> Any:
    """A tool choice in wire form: ``{type: auto|none|required|any}`` become the wire's words, and
    ``{type: required, name}`` forces that one function."""
    if isinstance(value, str) or value is None:
        return value
    if not isinstance(value, dict) or value.get("type") not in TOOL_CHOICES:
        raise RequestShapeError("tool_choice", "auto, none, required, or an object naming one", value)
    if value["type"] == "function":
        return value
    if isinstance(value.get("name"), str):
        return {"type": "function", "function": {"name": value["name"]}}
    return "required" if value["type"] == "any" else value["type"]


def max_tokens(request: dict[str, Any]) -> int | None:
    value = request.get("max_tokens", request.get("maxTokens"))
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise RequestShapeError("max_tokens", "a positive whole number", value)
    return value


def chat_request(
    request: dict[str, Any], *, model: str, stream: bool = False, structured: bool = False
) -> dict[str, Any]:
    """The chat-completions body for one of our runtime requests; ``structured`` asks for a JSON object
    answer when the request itself does not say so (the caller knows a call's purpose, the dict may not)."""
    messages = [wire_message(m, i) for i, m in enumerate(source_messages(request))]
    instructions = system_prompt(request)
    if instructions:
        messages.insert(0, {"role": "system", "content": instructions})
    body: dict[str, Any] = {"model": model, "messages": messages}
    tools = request.get("tools") or []
    if not isinstance(tools, list):
        raise RequestShapeError("tools", "a list of tool declarations", tools)
    if tools:
        body["tools"] = [wire_tool(t, i) for i, t in enumerate(tools)]
    if tools and request.get("tool_choice") is not None:
        body["tool_choice"] = tool_choice(request["tool_choice"])
    limit = max_tokens(request)
    if limit is not None:
        body["max_tokens"] = limit
    shape = response_format(request)
    if shape is None and structured:
        shape = {"type": "json_object"}
    if shape is not None:
        body["response_format"] = shape
    body.update({key: request[key] for key in PASS_THROUGH if key in request})
    if stream:
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}
    return body
