"""Reliability: what a generated program does to values cannot crash the worker or grow the host without
bound (issue 23, item 2).

A value nested 30,000 deep used to crash the QuickJS worker (its JSON.stringify recurses in C without a
stack check), ending the execution as a critical INTERNAL_ERROR. Such a value is one the runtime cannot
keep: the documented answer is the recoverable INVALID_MEMORY_VALUE (llmz-1.0.1-ERRORS.md, catalogue),
and the execution goes on to its next iteration.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from reference.llmz import Session, execute
from reference.llmz.containment import Limits
from reference.llmz.sandbox import run_program
from reference.providers import ModelResponse, ScriptedProvider, ToolCall

sys.path.insert(0, str(Path(__file__).parent))
from test_llmz_containment import Recording

pytestmark = pytest.mark.reliability

DEEP = "let v = []; for (let i = 0; i < 30000; i++) v = [v];\n"
LIMITS = Limits(budget=20, backstop=40, heap=256 * 1024 * 1024)


def _program(code: str) -> ModelResponse:
    return ModelResponse(tool_calls=[ToolCall(code=code)])


@pytest.mark.parametrize("use", ["return v", "return inspect(v)", "const x = v; return 1"])
def test_a_value_nested_30000_deep_is_the_recoverable_memory_error(use: str) -> None:
    session = Session()
    session.append([{"role": "user", "content": "go"}])
    model = ScriptedProvider([_program(DEEP + use), _program('return exit("done", {success: true})')])
    result = execute(session, model)
    first = result.iterations[0]
    codes = [getattr(e, "code", None) for e in first.errors] + [getattr(first.exception, "code", None)]
    assert "INTERNAL_ERROR" not in codes
    assert "INVALID_MEMORY_VALUE" in codes, (first.status, first.errors, first.exception)
    assert result.status == "success", "the execution went on to the next iteration"


@pytest.mark.parametrize(
    "use",
    ["return inspect(v)", "await t(v); return 1", "return exit('done', v)", "JSON.stringify(v); return 1",
     "JSON.stringify(v, null, 2); return 1", "JSON.stringify(v, ['a']); return 1",
     "JSON.stringify(v, (k, x) => x); return 1"],
)  # fmt: skip
def test_no_deep_value_crashes_the_worker(use: str) -> None:
    outcome = run_program(DEEP + use, Recording(), ["t"], chat=False, limits=LIMITS)
    assert outcome.stopped is None, outcome.stop_reason


def test_the_guest_stringify_still_gives_the_engines_answer() -> None:
    code = (
        "return JSON.stringify({b: [1, {c: 'x'}], a: undefined}, null, 1) + '|' + "
        "JSON.stringify({a: 1, b: 2, c: 3}, ['c', 'a']) + '|' + "
        "JSON.stringify([1, 2], (k, x) => typeof x === 'number' ? x * 10 : x)"
    )
    outcome = run_program(code, Recording(), [], chat=False, limits=LIMITS)
    assert outcome.value == '{\n "b": [\n  1,\n  {\n   "c": "x"\n  }\n ]\n}|{"c":3,"a":1}|[10,20]'
