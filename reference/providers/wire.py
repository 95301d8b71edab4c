"""Our ``ModelResponse`` in the OpenAI chat-completions wire format, both ways, with no I/O.

Theory of operation. The fake server turns script entries into what an OpenAI-compatible endpoint
sends (a ``chat.completion`` body, a stream of ``chat.completion.chunk`` server-sent events, or an error
with its status and ``Retry-After``); the HTTP provider turns what an endpoint sends back into a
``ModelResponse``. Both directions live here so a round trip is one module's promise: what the server
builds from an entry, the provider reads back as the same entry.

Mapping decisions, kept in one place:

* stop reasons: ``stop`` and ``tool_calls`` keep their names; our ``max_tokens`` is the wire's ``length``.
* a ``run_javascript`` call carries its program as the arguments object ``{"code": ...}``; any other
  tool carries its ``arguments``. Arguments travel as JSON text, as the wire requires.
* structured output (``json``) travels as the message content, written as JSON text; the reader only
  turns content back into ``json`` when the request asked for structured output, because ordinary text
  may look like JSON by accident.
* ids are counters (``chatcmpl-<call>``, ``call_<call>_<n>``) and ``created`` is a fixed instant, so the
  same script always produces the same bytes.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any

from reference.clock import DEFAULT_START_MS
from reference.providers.model import ModelResponse, ProviderError, StopReason, ToolCall, Usage

#: Our stop reason -> the wire's ``finish_reason``.
FINISH_REASONS: dict[str, str] = {"stop": "stop", "tool_calls": "tool_calls", "max_tokens": "length"}
#: The wire's ``finish_reason`` -> ours. ``function_call`` is the legacy name for a tool call.
STOP_REASONS: dict[str, str] = {**{v: k for k, v in FINISH_REASONS.items()}, "function_call": "tool_calls"}
STOP_REASONS_TYPED: dict[str, StopReason] = {
    "stop": "stop", "tool_calls": "tool_calls", "max_tokens": "max_tokens"
}
#: A fixed ``created`` second (the virtual clock's epoch), so bodies never depend on the wall clock.
CREATED = DEFAULT_START_MS // 1000
JAVASCRIPT_TOOL = "run_javascript"
DONE = "[DONE]"

#: Error ``type`` an OpenAI-style body gives for a status; anything 5xx is a server error.
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
}


class WireFormatError(ValueError):
    """A body that does not have the chat-completions shape; names the field and what was expected."""

    def __init__(self, field: str, expected: str, got: Any) -> None:
        shown = json.dumps(got)[:120] if _is_jsonable(got) else type(got).__name__
        super().__init__(f"response field {field}: expected {expected}, got {shown}")
        self.field = field
        self.expected = expected


def _is_jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


# -- ModelResponse -> wire ------------------------------------------------------------------------------


def tool_arguments(call: ToolCall) -> dict[str, Any]:
    """The arguments object a call carries: ``code`` joins any explicit arguments under its own key."""
    arguments = dict(call.arguments or {})
    if call.code is not None:
        arguments["code"] = call.code
    return arguments


def wire_tool_call(call: ToolCall, *, call_number: int, index: int) -> dict[str, Any]:
    return {
        "id": call.id or f"call_{call_number}_{index + 1}",
        "type": "function",
        "function": {"name": call.name, "arguments": json.dumps(tool_arguments(call), ensure_ascii=False)},
    }


def message_content(entry: ModelResponse) -> str | None:
    """Structured output wins over text; an empty answer that only calls tools has no content (null)."""
    if entry.json_data is not None:
        return json.dumps(entry.json_data, ensure_ascii=False)
    text = entry.text or "".join(entry.chunks or [])
    if not text and entry.tool_calls:
        return None
    return text


def wire_usage(usage: Usage) -> dict[str, int]:
    return {
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.input_tokens + usage.output_tokens,
    }


def completion(entry: ModelResponse, *, call: int, model: str) -> dict[str, Any]:
    """The ``chat.completion`` body that answers call number ``call`` (1-based) with ``entry``."""
    message: dict[str, Any] = {"role": "assistant", "content": message_content(entry)}
    if entry.tool_calls:
        message["tool_calls"] = [
            wire_tool_call(c, call_number=call, index=i) for i, c in enumerate(entry.tool_calls)
        ]
    if entry.continuation is not None:
        message["continuation"] = entry.continuation  # opaque provider metadata (signed output)
    return {
        "id": f"chatcmpl-{call}",
        "object": "chat.completion",
        "created": CREATED,
        "model": model,
        "choices": [
            {"index": 0, "message": message, "finish_reason": FINISH_REASONS[entry.effective_stop_reason()]}
        ],
        "usage": wire_usage(entry.usage),
    }


def stream_deltas(entry: ModelResponse) -> list[str]:
    """The content deltas of a streamed answer: the scripted chunks, else the whole content at once."""
    if entry.chunks is not None:
        return list(entry.chunks)
    content = message_content(entry)
    return [content] if content else []


def stream_chunks(
    entry: ModelResponse, *, call: int, model: str, include_usage: bool = False
) -> list[dict[str, Any]]:
    """The ``chat.completion.chunk`` objects of a streamed answer, in order.

    The first delta names the role, each content delta follows, tool calls arrive whole in one delta
    (a client must still join argument fragments, but one fragment is a valid stream), and the last
    choice delta carries the finish reason. The usage chunk (empty ``choices``) comes only when the
    request asked for it with ``stream_options.include_usage``, as the wire does.
    """

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": f"chatcmpl-{call}",
            "object": "chat.completion.chunk",
            "created": CREATED,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks.extend(chunk({"content": delta}) for delta in stream_deltas(entry))
    if entry.tool_calls:
        calls = [
            {"index": i, **wire_tool_call(c, call_number=call, index=i)}
            for i, c in enumerate(entry.tool_calls)
        ]
        chunks.append(chunk({"tool_calls": calls}))
    chunks.append(chunk({}, FINISH_REASONS[entry.effective_stop_reason()]))
    if include_usage:
        chunks.append({**chunk({}), "choices": [], "usage": wire_usage(entry.usage)})
    return chunks


def sse_event(data: dict[str, Any] | str) -> bytes:
    """One server-sent event: a ``data:`` line and the blank line that ends it."""
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    return f"data: {text}\n\n".encode()


def sse_stream(chunks: Iterable[dict[str, Any]]) -> Iterator[bytes]:
    """The events of a stream, closed by ``data: [DONE]`` as OpenAI-compatible endpoints do."""
    for item in chunks:
        yield sse_event(item)
    yield sse_event(DONE)


def error_body(status: int, message: str) -> dict[str, Any]:
    """An OpenAI-style error body; ``code`` names the rate limit, since clients branch on it."""
    kind = _ERROR_TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    code = "rate_limit_exceeded" if status == 429 else None
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def failure_headers(failure: ProviderError) -> dict[str, str]:
    """``Retry-After`` in whole seconds (rounded up, as HTTP allows no fraction) plus the exact
    milliseconds in ``retry-after-ms``, the extension OpenAI's own endpoints send."""
    if failure.retry_after is None:
        return {}
    return {
        "Retry-After": str(math.ceil(failure.retry_after)),
        "retry-after-ms": str(round(failure.retry_after * 1000)),
    }


# -- wire -> ModelResponse ------------------------------------------------------------------------------


def _field(container: Any, key: str | int, path: str, expected: type | tuple[type, ...], what: str) -> Any:
    """``container[key]`` checked against ``expected``; a ``WireFormatError`` naming ``path`` otherwise."""
    try:
        value = container[key]
    except (KeyError, IndexError, TypeError):
        raise WireFormatError(path, what, None) from None
    if not isinstance(value, expected) or (isinstance(value, bool) and bool not in _as_tuple(expected)):
        raise WireFormatError(path, what, value)
    return value


def _as_tuple(expected: type | tuple[type, ...]) -> tuple[type, ...]:
    return expected if isinstance(expected, tuple) else (expected,)


def read_tool_call(raw: Any, path: str) -> ToolCall:
    """A wire tool call as ours: a ``run_javascript`` call whose arguments are exactly ``{code}`` gets
    its program back in ``code``; every other call keeps its arguments object."""
    function = _field(raw, "function", f"{path}.function", dict, "an object")
    name = _field(function, "name", f"{path}.function.name", str, "a string")
    text = _field(function, "arguments", f"{path}.function.arguments", str, "a JSON string")
    try:
        arguments = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError:
        raise WireFormatError(f"{path}.function.arguments", "a JSON object as text", text) from None
    if not isinstance(arguments, dict):
        raise WireFormatError(f"{path}.function.arguments", "a JSON object as text", text)
    call_id = raw.get("id") if isinstance(raw.get("id"), str) else None
    if name == JAVASCRIPT_TOOL and set(arguments) == {"code"} and isinstance(arguments["code"], str):
        return ToolCall(name=name, code=arguments["code"], id=call_id)
    return ToolCall(name=name, arguments=arguments, id=call_id)


def read_stop_reason(finish: Any, path: str) -> str:
    if finish not in STOP_REASONS:
        raise WireFormatError(path, f"one of {', '.join(sorted(STOP_REASONS))}", finish)
    return STOP_REASONS[finish]


def read_usage(raw: Any) -> Usage:
    """Usage is optional on the wire (many compatible servers omit it); absent means zero."""
    if raw is None:
        return Usage()
    prompt = _field(raw, "prompt_tokens", "usage.prompt_tokens", int, "a whole number")
    completion_tokens = _field(raw, "completion_tokens", "usage.completion_tokens", int, "a whole number")
    if prompt < 0 or completion_tokens < 0:
        raise WireFormatError("usage", "token counts of zero or more", raw)
    return Usage(input_tokens=prompt, output_tokens=completion_tokens)


def read_structured(content: str | None, path: str) -> dict[str, Any]:
    expected = "a JSON object as text (structured output was requested)"
    try:
        value = json.loads(content or "")
    except json.JSONDecodeError:
        raise WireFormatError(path, expected, content) from None
    if not isinstance(value, dict):
        raise WireFormatError(path, expected, content)
    return value


def build_entry(
    content: str | None,
    calls: list[ToolCall],
    stop: str,
    usage: Usage,
    *,
    structured: bool,
    chunks: list[str] | None = None,
) -> ModelResponse:
    stop_reason: StopReason = STOP_REASONS_TYPED[stop]
    return ModelResponse(
        text="" if structured else content or "",
        tool_calls=tuple(calls),
        json_data=read_structured(content, "choices[0].message.content") if structured else None,
        stop_reason=stop_reason,
        usage=usage,
        chunks=tuple(chunks) if chunks is not None else None,
    )


def entry_from_completion(body: Any, *, structured: bool = False) -> ModelResponse:
    """Read a ``chat.completion`` body (first choice) as a ModelResponse; ``WireFormatError`` if malformed."""
    if not isinstance(body, dict):
        raise WireFormatError("(body)", "a JSON object", body)
    choices = _field(body, "choices", "choices", list, "a non-empty list")
    choice = _field(choices, 0, "choices[0]", dict, "an object")
    message = _field(choice, "message", "choices[0].message", dict, "an object")
    content = message.get("content")
    if content is not None and not isinstance(content, str):
        raise WireFormatError("choices[0].message.content", "a string or null", content)
    raw_calls = message.get("tool_calls") or []
    if not isinstance(raw_calls, list):
        raise WireFormatError("choices[0].message.tool_calls", "a list", raw_calls)
    calls = [read_tool_call(c, f"choices[0].message.tool_calls[{i}]") for i, c in enumerate(raw_calls)]
    stop = read_stop_reason(choice.get("finish_reason"), "choices[0].finish_reason")
    entry = build_entry(content, calls, stop, read_usage(body.get("usage")), structured=structured)
    continuation = message.get("continuation")
    return replace(entry, continuation=continuation) if continuation is not None else entry


def parse_sse(lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    """The JSON objects of a server-sent event stream, up to ``[DONE]``; comments and blanks skipped."""
    for number, line in enumerate(lines, start=1):
        if not line.startswith("data:"):
            continue
        data = line[len("data:") :].strip()
        if data == DONE:
            return
        try:
            item = json.loads(data)
        except json.JSONDecodeError:
            raise WireFormatError(f"stream line {number}", "a JSON object after 'data:'", data) from None
        if not isinstance(item, dict):
            raise WireFormatError(f"stream line {number}", "a JSON object after 'data:'", item)
        yield item
    raise WireFormatError("stream", "a closing 'data: [DONE]' event", "the end of the stream")


def _merge_call_fragment(slots: dict[int, dict[str, Any]], raw: Any, path: str) -> None:
    """Join one streamed tool-call fragment into its slot: the id and name come once, the arguments
    text arrives in pieces that only parse once joined."""
    index = _field(raw, "index", f"{path}.index", int, "a whole number")
    slot = slots.setdefault(index, {"id": None, "name": "", "arguments": ""})
    if isinstance(raw.get("id"), str):
        slot["id"] = raw["id"]
    function = raw.get("function") or {}
    if not isinstance(function, dict):
        raise WireFormatError(f"{path}.function", "an object", function)
    if isinstance(function.get("name"), str):
        slot["name"] += function["name"]
    if isinstance(function.get("arguments"), str):
        slot["arguments"] += function["arguments"]


def _read_delta(delta: Any, path: str, deltas: list[str], slots: dict[int, dict[str, Any]]) -> None:
    if not isinstance(delta, dict):
        raise WireFormatError(path, "an object", delta)
    content = delta.get("content")
    if content is not None and not isinstance(content, str):
        raise WireFormatError(f"{path}.content", "a string or null", content)
    if content:
        deltas.append(content)
    fragments = delta.get("tool_calls") or []
    if not isinstance(fragments, list):
        raise WireFormatError(f"{path}.tool_calls", "a list", fragments)
    for i, fragment in enumerate(fragments):
        _merge_call_fragment(slots, fragment, f"{path}.tool_calls[{i}]")


def entry_from_stream(items: Iterable[dict[str, Any]], *, structured: bool = False) -> ModelResponse:
    """Assemble streamed ``chat.completion.chunk`` objects (first choice) into one ModelResponse.

    The content deltas are kept as ``chunks`` so a caller can see how the answer arrived."""
    deltas: list[str] = []
    slots: dict[int, dict[str, Any]] = {}
    finish: Any = None
    usage: Any = None
    for n, item in enumerate(items):
        usage = item.get("usage") or usage
        choices = _field(item, "choices", f"chunk {n}.choices", list, "a list")
        for choice in choices:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            _read_delta(choice.get("delta"), f"chunk {n}.choices[0].delta", deltas, slots)
            finish = choice.get("finish_reason") or finish
    if finish is None:
        raise WireFormatError("stream", "a chunk with a finish_reason", None)
    calls = [
        read_tool_call(
            {"id": s["id"], "function": {"name": s["name"], "arguments": s["arguments"]}},
            f"stream tool_calls[{index}]",
        )
        for index, s in sorted(slots.items())
    ]
    stop = read_stop_reason(finish, "stream finish_reason")
    content = "".join(deltas)
    return build_entry(content, calls, stop, read_usage(usage), structured=structured, chunks=deltas or None)
