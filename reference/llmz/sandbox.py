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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import quickjs

from reference.llmz.preview import UNDEFINED

_LINE = re.compile(r":(\d+)\)?\s*$")

_PRELUDE = r"""
globalThis.__enc = (v) => v === undefined ? '{"undefined":true}' : JSON.stringify({ value: v });
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


def _tool_source(name: str) -> str:
    call = f"__host_tool({json.dumps(name)}, __enc(input), new Error().stack)"
    return f"globalThis.{name} = async (input) => __dec({call});"


def _install(
    context: Any, bridge: Bridge, tools: list[str], chat: bool, settle: Callable[[str], None]
) -> None:
    context.add_callable("__host_tool", lambda n, i, s: bridge.tool(n, i, caller_line(s)))
    context.add_callable("__host_exit", bridge.exit)
    context.add_callable("__host_component", bridge.component)
    context.add_callable("__host_inspect", bridge.inspect)
    context.add_callable("__host_settle", settle)
    context.eval(_PRELUDE)
    if chat:
        context.eval(_CHAT)
    for name in tools:
        context.eval(_tool_source(name))


def run_program(code: str, bridge: Bridge, tools: list[str], *, chat: bool) -> ProgramOutcome:
    """Evaluate ``code`` and drive its promise to completion. Raises SyntaxError for code that does not
    compile. (QuickJS cannot combine a CPU time limit with Python callbacks, so a busy loop in generated
    code is not interrupted here; the harness's per-case timeout catches it.)"""
    answers: list[str] = []
    context = quickjs.Context()
    _install(context, bridge, tools, chat, answers.append)
    source = (
        "(async function () {\n" + code + "\n})().then("
        "(v) => __host_settle(JSON.stringify({ ok: true, result: __enc(v) })),"
        "(e) => __host_settle(JSON.stringify({ ok: false, code: (e && e.code) || null,"
        " name: (e && e.name) || 'Error', message: String(e && e.message !== undefined ? e.message : e) })));"
    )
    try:
        context.eval(source)
        while context.execute_pending_job():
            pass
    except quickjs.JSException as exc:
        text = str(exc)
        if text.startswith("SyntaxError"):
            raise SyntaxError(text.splitlines()[0]) from exc
        raise
    if not answers:
        return ProgramOutcome(settled=False)
    answer = json.loads(answers[0])
    if answer["ok"]:
        return ProgramOutcome(settled=True, value=decode(answer["result"]))
    return ProgramOutcome(settled=True, error={k: answer[k] for k in ("code", "name", "message")})
