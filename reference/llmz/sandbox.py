"""Running one generated program with the host API bridged in, contained.

Theory of operation. The program runs in a worker process (``containment``, ``jsworker``) under the
kernel (``kernel``): the model's code becomes the body of an async function, so top-level ``await`` and
``return`` work, and the host operations (tools, ``exit``, ``chat.<component>``, ``inspect``, object
assignments) are JavaScript functions that send the host one call each and decode its JSON answer: a
value, an error to throw (with the llmz ``code`` attached), or "never settles", which becomes a promise
that never resolves. Tools are ``async`` so generated code awaits them as it would in llmz. A program
whose promise is still unsettled once the worker's job queue is empty is waiting on something that will
never come, which the caller turns into a timeout; one that keeps running is stopped by the budget.

Every host call is answered through ``_dispatch``, which never raises: arguments that cannot be decoded
(too large, nested too deeply) are refused by the bridge as invalid input, and an unexpected failure of
the bridge becomes an INTERNAL_ERROR thrown to the program.

Each tool call passes ``new Error().stack`` so the host can tell which line of generated code called
it: the program body starts on line 2 of the evaluated source (the wrapper occupies line 1).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal, Protocol

from reference.llmz import containment, kernel, memory
from reference.llmz.preview import UNDEFINED

_LINE = re.compile(r":(\d+)\)?\s*$")


class PayloadError(ValueError):
    """A value from the program that the host will not take: too large or nested too deeply."""


class Bridge(Protocol):
    """The host side of the program's API. Every method answers with the JSON the prelude decodes."""

    def tool(self, name: str, input_json: str | None, line: int | None) -> str: ...
    def exit(self, name: str, payload_json: str | None) -> str: ...
    def component(self, name: str, props_json: str | None) -> str: ...
    def inspect(self, value_json: str | None) -> str | None: ...


@dataclass
class ProgramOutcome:
    settled: bool
    value: Any = UNDEFINED
    error: dict[str, Any] | None = None
    """``{code, name, message, host}`` when the program threw. ``host`` says the host made the error; only
    then is ``code`` kept (it is None for JavaScript errors, so a program cannot pass off its own)."""
    has_result: bool = False
    """Whether the program returned (``return undefined`` included) rather than running off its end."""
    result: Any = None
    """The returned value in memory's tagged encoding, or None when it cannot be kept."""
    result_problem: str | None = None
    """Why the returned value cannot be kept in memory, when it cannot."""
    result_too_large: bool = False
    """The returned value's encoding alone is longer than memory's byte limit: it can never be kept."""
    captured: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Variables at the end of the program: name -> ``{ok: tagged}``, ``{error: message}``, or
    ``{tooLarge: true}`` for a value longer than memory's byte limit."""
    unawaited: list[str] = field(default_factory=list)
    """Tools whose calls the program never awaited."""
    stopped: Literal["timeout", "died"] | None = None
    """Set when the program did not end by itself: its time was up, or its worker died or was stopped."""
    stop_reason: str = ""


def depth_of(value: Any) -> int:
    """Nesting depth of JSON data (a scalar is 0), without recursion."""
    deepest = 0
    todo: list[tuple[Any, int]] = [(value, 0)]
    while todo:
        item, depth = todo.pop()
        if isinstance(item, dict):
            todo.extend((child, depth + 1) for child in item.values())
            deepest = max(deepest, depth + 1)
        elif isinstance(item, list):
            todo.extend((child, depth + 1) for child in item)
            deepest = max(deepest, depth + 1)
    return deepest


_COUNTED_BRACKETS: Final = 64 * 1024
"""Texts up to this long have their brackets counted (``_shallow``); longer ones are walked, since a long
text is usually one long string, which the walk passes in one step."""


def _shallow(text: str, max_depth: int) -> bool:
    """Whether the JSON ``text`` certainly nests no deeper than ``max_depth``, known without decoding it:
    every level of nesting opens with a ``[`` or ``{`` of its own, so their number (those inside strings
    counted too) bounds the depth. Most values from the program have fewer brackets than ``max_depth``,
    and counting them is much cheaper than walking what they decode to (``depth_of``)."""
    return len(text) <= _COUNTED_BRACKETS and text.count("[") + text.count("{") <= max_depth


def load_bounded(text: str | None, max_depth: int = kernel.MAX_DEPTH + 1) -> Any:
    """JSON from the program, refused (PayloadError) when too large or nested past ``max_depth`` (by
    default ``kernel.MAX_DEPTH`` inside the kernel's ``{value: ...}`` box)."""
    if text is None:
        raise PayloadError(f"the value is larger than {containment.MAX_PAYLOAD_CHARS} characters of JSON")
    try:
        data = json.loads(text)
    except RecursionError:
        data = None
        too_deep = True
    else:
        too_deep = not _shallow(text, max_depth) and depth_of(data) > max_depth
    if too_deep:
        raise PayloadError(f"the value is nested deeper than {kernel.MAX_DEPTH} levels")
    return data


def decode(text: str | None) -> Any:
    """A value the kernel encoded (``{value}`` or ``{undefined: true}``); PayloadError when refused."""
    data = load_bounded(text)
    if not isinstance(data, dict):
        raise PayloadError("the value is not in the kernel's encoding")
    return UNDEFINED if data.get("undefined") else data.get("value")


def encode_value(value: Any) -> str:
    return json.dumps({"undefined": True} if value is UNDEFINED else {"value": value})


def encode_error(code: str | None, name: str, message: str) -> str:
    return json.dumps({"error": {"code": code, "name": name, "message": message}})


def caller_line(stack: str) -> int | None:
    """Line of generated code that made the call: the second stack frame, minus the wrapper line."""
    frames = [line for line in stack.splitlines() if line.strip()]
    if len(frames) < 2:
        return None
    match = _LINE.search(frames[1])
    return int(match.group(1)) - 1 if match else None


def failure_line(stack: str) -> int | None:
    """Line of generated code where a thrown error started: the first stack frame, minus the wrapper
    line (None when the stack does not say)."""
    frames = [line for line in stack.splitlines() if line.strip()]
    match = _LINE.search(frames[0]) if frames else None
    return int(match.group(1)) - 1 if match else None


def _text(argument: str | None) -> str:
    """A string argument the kernel quoted as JSON (names, stacks)."""
    value = json.loads(argument) if argument is not None else None
    if not isinstance(value, str):
        raise PayloadError("expected a JSON string")
    return value


def _dispatch(bridge: Bridge, op: str, args: list[str | None]) -> str:
    """Answer one host call from the program. Never raises: see the module docstring."""
    try:
        if op == "tool":
            answer = bridge.tool(_text(args[0]), args[1], caller_line(_text(args[2])))
        elif op == "exit":
            answer = bridge.exit(_text(args[0]), args[1])
        elif op == "component":
            answer = bridge.component(_text(args[0]), args[1])
        elif op == "inspect":
            answer = bridge.inspect(args[0]) or encode_value(UNDEFINED)
        elif op == "object_set" and hasattr(bridge, "object_set"):
            answer = bridge.object_set(_text(args[0]), _text(args[1]), args[2])
        else:
            raise PayloadError(f"unknown host operation {op!r}")
        if not (isinstance(answer, str) and answer.isascii()):
            raise TypeError(f"the host answered {op} with something other than ASCII JSON text")
        return answer
    except Exception as exc:
        message = f"the host failed during {op}: {type(exc).__name__}: {exc}"
        internal = getattr(bridge, "internal_failure", None)
        if callable(internal):
            internal(message)
        return encode_error("INTERNAL_ERROR", "InternalError", message)


def run_program(
    code: str,
    bridge: Bridge,
    tools: list[str],
    *,
    chat: bool,
    memory_state: str = "",
    memory_texts: Sequence[str] = (),
    variables: Mapping[str, Any] | None = None,
    known: list[str] | None = None,
    objects_state: str = "{}",
    limits: containment.Limits | None = None,
    max_bytes: int = memory.DEFAULT_MAX_BYTES,
    kernel_definition: str = kernel.DEFINITION,
) -> ProgramOutcome:
    """Run ``code`` in a worker and drive its promise to completion. Raises SyntaxError for code that does
    not compile. ``limits`` default to those of a run without ``options.timeout``; ``kernel_definition``
    is the guest-side kernel the program runs under. ``memory_texts`` are the long texts
    ``memory_state`` refers to (``Memory.guest_state``). ``variables`` are the tagged variables in
    ``memory_state``: the kernel reports a variable that still holds the text it was loaded with as
    unchanged rather than sending the text back, and its captured value is taken from here."""
    state = memory_state or json.dumps(
        {"variables": {}, "iterations": [], "hasReturn": False, "returned": None}
    )
    setup = kernel.kernel_source(
        tools=tools,
        chat=chat,
        objects_state=objects_state,
        declared=memory.declared_names(code),
        known=known or [],
        max_chars=max(max_bytes, containment.HEAP_BYTES),
        texts=len(memory_texts),
    )
    result = containment.run(
        kernel_definition,
        setup,
        kernel.program_source(code),
        lambda op, args: _dispatch(bridge, op, args),
        limits or containment.limits_for(None),
        memory=state,
        texts=memory_texts,
    )
    if result.syntax is not None:
        raise SyntaxError(result.syntax)
    if result.stopped is not None:
        return ProgramOutcome(settled=False, stopped=result.stopped, stop_reason=result.reason)
    if result.failure is not None:
        error = {"code": None, "name": "InternalError", "message": result.failure, "host": False}
        return ProgramOutcome(settled=True, error=error)
    return _outcome(result.answers, variables or {})


_REPORT_DEPTH = 2 * kernel.MAX_DEPTH + 4
"""The kernel's own reports hold memory's tagged form, which takes two levels per guest level."""


def _loads(text: str) -> Any:
    try:
        return load_bounded(text, _REPORT_DEPTH)
    except (PayloadError, ValueError):
        return None


def _unchanged(captured: dict[str, Any], variables: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The capture with each ``{same: true}`` (a variable that still holds the text it was loaded with)
    replaced by that text, as the kernel would have encoded it."""
    resolved = {}
    for name, answer in captured.items():
        if isinstance(answer, dict) and answer.get("same") is True:
            kept = variables.get(name)
            answer = {"ok": kept} if isinstance(kept, str) else {"error": "the value could not be read back"}
        resolved[name] = answer
    return resolved


def _outcome(answers: list[str], variables: Mapping[str, Any]) -> ProgramOutcome:
    captured: dict[str, dict[str, Any]] = {}
    for text in answers:
        if text.startswith("capture:"):
            found = _loads(text[len("capture:") :])
            captured = _unchanged(found, variables) if isinstance(found, dict) else {}
    settled = [text for text in answers if not text.startswith("capture:")]
    if not settled:
        return ProgramOutcome(settled=False, captured=captured)
    answer = _loads(settled[0])
    if not isinstance(answer, dict):
        unreadable = "the settlement could not be read"
        failed = {"code": None, "name": "InternalError", "message": unreadable, "host": False}
        return ProgramOutcome(settled=True, error=failed, captured=captured)
    if not answer["ok"]:
        host = answer.get("host") is True
        error: dict[str, Any] = {
            "code": answer["code"] if host else None,
            "name": answer["name"],
            "message": answer["message"],
            "host": host,
        }
        if error["code"] is None:  # a guest failure; host errors start in the kernel, not the program
            error["line"] = failure_line(answer.get("stack", ""))
        return ProgramOutcome(settled=True, error=error, captured=captured)
    if answer.get("none"):
        return ProgramOutcome(settled=True, captured=captured, unawaited=answer["unawaited"])
    problem = answer["problem"]
    try:
        value = decode(answer["result"]) if answer["result"] is not None else UNDEFINED
    except PayloadError as exc:
        value, problem = UNDEFINED, problem or str(exc)
    return ProgramOutcome(
        settled=True,
        value=value,
        has_result=True,
        result=answer["kept"],
        result_problem=problem,
        result_too_large=answer.get("tooLarge") is True,
        captured=captured,
        unawaited=answer["unawaited"],
    )
