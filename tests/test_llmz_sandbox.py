"""Running generated JavaScript in QuickJS with host functions bridged in."""

from __future__ import annotations

import json

import pytest

from reference.llmz.preview import UNDEFINED
from reference.llmz.sandbox import caller_line, encode_value, run_program


class Recording:
    def __init__(self, answers: dict[str, str] | None = None) -> None:
        self.calls: list[tuple[str, object, int | None]] = []
        self.answers = answers or {}

    def tool(self, name: str, input_json: str, line: int | None) -> str:
        self.calls.append((name, json.loads(input_json).get("value"), line))
        return self.answers.get(name, encode_value({"tool": name}))

    def exit(self, name: str, payload_json: str) -> str:
        self.calls.append(("exit:" + name, json.loads(payload_json).get("value"), None))
        return encode_value(UNDEFINED)

    def component(self, name: str, props_json: str) -> str:
        return encode_value(UNDEFINED)

    def inspect(self, value_json: str) -> None:
        self.calls.append(("inspect", json.loads(value_json).get("value"), None))


def test_tools_are_awaitable_and_report_the_calling_line() -> None:
    host = Recording()
    code = "\n".join(
        [
            "const a = await first({ n: 1 })",
            "",
            "const [b, c] = await Promise.all([second({}), first({})])",
            "return b",
        ]
    )
    outcome = run_program(code, host, ["first", "second"], chat=False)
    assert outcome.settled and outcome.error is None
    assert outcome.value == {"tool": "second"}
    assert [(name, line) for name, _, line in host.calls] == [("first", 1), ("second", 3), ("first", 3)]


def test_a_host_error_is_thrown_with_its_code() -> None:
    host = Recording(
        {"boom": json.dumps({"error": {"code": "TOOL_EXECUTION_FAILED", "name": "X", "message": "no"}})}
    )
    outcome = run_program("await boom({})", host, ["boom"], chat=False)
    assert outcome.error == {"code": "TOOL_EXECUTION_FAILED", "name": "X", "message": "no", "host": True}


def test_a_caught_host_error_lets_the_program_finish() -> None:
    host = Recording(
        {"boom": json.dumps({"error": {"code": "TOOL_EXECUTION_FAILED", "name": "X", "message": "no"}})}
    )
    outcome = run_program("try { await boom({}) } catch (e) { return e.code }", host, ["boom"], chat=False)
    assert outcome.value == "TOOL_EXECUTION_FAILED"


def test_a_call_that_never_settles_leaves_the_program_unsettled() -> None:
    host = Recording({"wait": json.dumps({"hang": True})})
    assert not run_program("await wait({}); return 1", host, ["wait"], chat=False).settled


def test_syntax_errors_are_raised() -> None:
    with pytest.raises(SyntaxError):
        run_program("return (", Recording(), [], chat=False)


def test_undefined_is_kept_apart_from_null() -> None:
    assert run_program("return undefined", Recording(), [], chat=False).value is UNDEFINED
    assert run_program("return null", Recording(), [], chat=False).value is None


def test_chat_is_only_defined_in_chat_mode() -> None:
    outcome = run_program("chat.card({})", Recording(), [], chat=False)
    assert outcome.error is not None and outcome.error["name"] == "ReferenceError"
    assert run_program("chat.card({})", Recording(), [], chat=True).error is None


def test_caller_line_reads_the_second_frame() -> None:
    assert caller_line("    at tool (<input>)\n    at <anonymous> (<input>:5)\n") == 4
    assert caller_line("    at tool (<input>)\n") is None


def test_a_guest_failure_reports_the_program_line_it_started_on() -> None:
    outcome = run_program("const a = 1\nconst b = null\nreturn b.total", Recording({}), [], chat=False)
    assert outcome.error is not None and outcome.error["line"] == 3


def test_an_unawaited_tool_call_runs_and_is_reported() -> None:
    host = Recording({"mark": json.dumps({"value": 1})})
    outcome = run_program("mark({})\nreturn 2", host, ["mark"], chat=False)
    assert outcome.unawaited == ["mark"] and outcome.value == 2


def test_variables_declared_at_the_top_level_are_captured_with_their_values() -> None:
    outcome = run_program("const kept = { n: -0 }\nlet gone\n", Recording({}), [], chat=False)
    assert outcome.captured["kept"] == {"ok": {"$": "object", "v": {"n": {"$": "-0"}}}}
    assert outcome.captured["gone"] == {"ok": {"$": "undefined"}}
    assert outcome.has_result is False
