"""Running one generated program in QuickJS, with the host API bridged in.

Theory of operation. The model's code becomes the body of an async function, so top-level ``await`` and
``return`` work. Host operations (tools, ``exit``, ``chat.<component>``, ``inspect``) are JavaScript
functions that call one synchronous Python callable each and decode its JSON answer: a value, an error
to throw (with the llmz ``code`` attached), or "never settles", which becomes a promise that never
resolves. Tools are ``async`` so generated code awaits them as it would in llmz. After evaluation the
pending-job queue is drained; a program whose promise is still unsettled then is waiting on something
that will never come, which the caller turns into a timeout.

Each tool call passes ``new Error().stack`` so the host can tell which line of generated code called
it: the program body starts on line 2 of the evaluated source (the wrapper occupies line 1).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Protocol

import quickjs

from reference.llmz import memory, objects
from reference.llmz.preview import UNDEFINED

_LINE = re.compile(r":(\d+)\)?\s*$")

_PRELUDE = r"""
globalThis.__enc = (v) => {
  if (v === undefined) return '{"undefined":true}';
  try { return JSON.stringify({ value: v }); } catch (e) {
    const seen = new Set();
    return JSON.stringify({ value: v }, (key, x) => {
      if (typeof x === 'bigint') return String(x);
      if (x && typeof x === 'object') { if (seen.has(x)) return '[Circular]'; seen.add(x); }
      return x;
    });
  }
};
globalThis.__dec = (text) => {
  const answer = JSON.parse(text);
  if (answer.hang) return new Promise(() => {});
  if (answer.error) {
    const error = new Error(answer.error.message);
    error.name = answer.error.name || 'Error';
    if (answer.error.code) error.code = answer.error.code;
    throw error;
  }
  return answer.undefined ? undefined : answer.value;
};
globalThis.__pending = [];
globalThis.__track = (name, promise) => {
  const entry = { name, awaited: false };
  __pending.push(entry);
  promise.catch(() => {});
  const mark = () => { entry.awaited = true; };
  return {
    then(onValue, onError) { mark(); return promise.then(onValue, onError); },
    catch(onError) { mark(); return promise.catch(onError); },
    finally(onDone) { mark(); return promise.finally(onDone); },
  };
};
globalThis.__none = { none: true };
globalThis.inspect = (value) => { __host_inspect(__enc(value)); return value; };
globalThis.exit = (name, payload) => __dec(__host_exit(String(name), __enc(payload)));
"""

_CHAT = r"""
globalThis.chat = new Proxy({}, {
  get(_target, name) {
    if (typeof name !== 'string') return undefined;
    return (props) => __dec(__host_component(name, __enc(props)));
  },
});
"""


class Bridge(Protocol):
    """The host side of the program's API. Every method answers with the JSON the prelude decodes."""

    def tool(self, name: str, input_json: str, line: int | None) -> str: ...
    def exit(self, name: str, payload_json: str) -> str: ...
    def component(self, name: str, props_json: str) -> str: ...
    def inspect(self, value_json: str) -> None: ...


@dataclass
class ProgramOutcome:
    settled: bool
    value: Any = UNDEFINED
    error: dict[str, Any] | None = None
    """``{code, name, message}`` when the program threw (code is None for plain JavaScript errors)."""
    has_result: bool = False
    """Whether the program returned (``return undefined`` included) rather than running off its end."""
    result: Any = None
    """The returned value in memory's tagged encoding, or None when it cannot be kept."""
    result_problem: str | None = None
    """Why the returned value cannot be kept in memory, when it cannot."""
    captured: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Variables at the end of the program: name -> ``{ok: tagged}`` or ``{error: message}``."""
    unawaited: list[str] = field(default_factory=list)
    """Tools whose calls the program never awaited."""


def decode(text: str) -> Any:
    data = json.loads(text)
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


def _tool_source(name: str) -> str:
    """A tool call starts at once (the handler runs even if nobody awaits it) and returns a tracked
    thenable, so the host can tell which calls were left unawaited (llmz.errors.host-operation-failed)."""
    quoted = json.dumps(name)
    call = f"__host_tool({quoted}, __enc(input), stack)"
    return (
        f"globalThis.{name} = (input) => {{ const stack = new Error().stack; "
        f"return __track({quoted}, (async () => __dec({call}))()); }};"
    )


def _install(
    context: Any,
    bridge: Bridge,
    tools: list[str],
    chat: bool,
    answers: list[str],
    memory_state: str,
    objects_state: str,
) -> None:
    context.add_callable("__host_tool", lambda n, i, s: bridge.tool(n, i, caller_line(s)))
    context.add_callable("__host_exit", bridge.exit)
    context.add_callable("__host_component", bridge.component)
    context.add_callable("__host_inspect", bridge.inspect)
    context.add_callable("__host_settle", answers.append)
    context.add_callable("__host_capture", lambda text: answers.append("capture:" + text))
    context.eval(_PRELUDE)
    context.eval(memory.GUEST_CODEC)
    context.eval(f"__mem_install({json.dumps(memory_state)})")
    object_set = getattr(bridge, "object_set", None)
    if object_set is not None:
        context.add_callable("__host_object_set", object_set)
        context.eval(objects.GUEST_OBJECTS)
        context.eval(f"__obj_install({json.dumps(objects_state)})")
    if chat:
        context.eval(_CHAT)
    for name in tools:
        context.eval(_tool_source(name))


_SETTLE = (
    "(v) => { const unawaited = __pending.filter((e) => !e.awaited).map((e) => e.name);"
    " if (v === __none) return __host_settle(JSON.stringify({ ok: true, none: true, unawaited }));"
    " let kept = null, problem = null;"
    " try { kept = __mem_encode(v); } catch (e) { problem = String(e.message); }"
    " __host_settle(JSON.stringify({ ok: true, result: __enc(v), kept, problem, unawaited })); },"
    "(e) => __host_settle(JSON.stringify({ ok: false, code: (e && e.code) || null,"
    " name: (e && e.name) || 'Error', message: String(e && e.message !== undefined ? e.message : e),"
    " stack: String((e && e.stack) || '') }))"
)


def program_source(code: str, known: list[str]) -> str:
    """The evaluated source: the program as an async function body (line 2 onwards), a sentinel return
    for running off the end (no result, llmz.memory.has-result), and the variable capture."""
    capture = memory.capture_source(memory.declared_names(code), known)
    return (
        "(async function () { try {\n"
        + memory.hoist_declarations(code)
        + "\n;return __none;\n} finally { __host_capture("
        + capture
        + ") } })().then("
        + _SETTLE
        + ");"
    )


def run_program(
    code: str,
    bridge: Bridge,
    tools: list[str],
    *,
    chat: bool,
    memory_state: str = "",
    known: list[str] | None = None,
    objects_state: str = "{}",
) -> ProgramOutcome:
    """Evaluate ``code`` and drive its promise to completion. Raises SyntaxError for code that does not
    compile. (QuickJS cannot combine a CPU time limit with Python callbacks, so a busy loop in generated
    code is not interrupted here; the harness's per-case timeout catches it.)"""
    answers: list[str] = []
    context = quickjs.Context()
    state = memory_state or json.dumps(
        {"variables": {}, "iterations": [], "hasReturn": False, "returned": None}
    )
    _install(context, bridge, tools, chat, answers, state, objects_state)
    try:
        context.eval(program_source(code, known or []))
        while context.execute_pending_job():
            pass
    except quickjs.JSException as exc:
        text = str(exc)
        if text.startswith("SyntaxError"):
            raise SyntaxError(text.splitlines()[0]) from exc
        raise
    return _outcome(answers)


def _outcome(answers: list[str]) -> ProgramOutcome:
    captured: dict[str, dict[str, Any]] = {}
    for text in answers:
        if text.startswith("capture:"):
            captured = json.loads(text[len("capture:") :])
    settled = [json.loads(text) for text in answers if not text.startswith("capture:")]
    if not settled:
        return ProgramOutcome(settled=False, captured=captured)
    answer = settled[0]
    if not answer["ok"]:
        error = {k: answer[k] for k in ("code", "name", "message")}
        if answer["code"] is None:  # a guest failure; host errors start in the prelude, not the program
            error["line"] = failure_line(answer.get("stack", ""))
        return ProgramOutcome(settled=True, error=error, captured=captured)
    if answer.get("none"):
        return ProgramOutcome(settled=True, captured=captured, unawaited=answer["unawaited"])
    return ProgramOutcome(
        settled=True,
        value=decode(answer["result"]),
        has_result=True,
        result=answer["kept"],
        result_problem=answer["problem"],
        captured=captured,
        unawaited=answer["unawaited"],
    )
