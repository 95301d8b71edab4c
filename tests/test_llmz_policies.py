"""Pure llmz policies added for the error catalogue, hooks and feedback, each pinned on its own."""

from __future__ import annotations

import pytest

from reference.llmz import DEFAULT_POLICIES, HostObject, Model, Property, feedback, objects, request_hook
from reference.llmz import failures as program
from reference.llmz.config import fallback_sequence
from reference.llmz.errors import LlmzError
from reference.llmz.failures import iteration_errors
from reference.llmz.host import deliver_status
from reference.llmz.settle import stops_run


def test_only_an_exit_or_a_critical_failure_ends_the_run() -> None:
    ends = {s: stops_run(s) for s in ("exit_success", "critical_error", "recoverable_error", "continued")}
    assert ends == {
        "exit_success": True,
        "critical_error": True,
        "recoverable_error": False,
        "continued": False,
    }


def test_fallback_tries_models_in_list_order() -> None:
    models = [Model(name, input_tokens=10, output_tokens=5) for name in ("a", "b", "c")]
    assert [[m.id for m in group] for group in fallback_sequence(models)] == [
        ["a", "b", "c"],
        ["b", "c"],
        ["c"],
    ]


def test_a_missing_function_call_is_an_unknown_tool_but_a_missing_value_is_not() -> None:
    missing = {"code": None, "name": "ReferenceError", "message": "'lookup' is not defined"}
    assert program.classify_failure(missing, "await lookup({})", ["getStock"]).code == "UNKNOWN_TOOL"
    assert program.classify_failure(missing, "return lookup + 1", ["getStock"]).code == "EXECUTION_FAILED"


def test_reserved_names_are_refused_only_when_declared() -> None:
    refused = program.reserved_declaration("const exit = 1")
    assert refused is not None and refused.details == {"identifier": "exit", "kind": "variable"}
    assert program.reserved_declaration('return exit("done")') is None


def test_unawaited_calls_are_named() -> None:
    problem = program.unawaited_problem(["reserve", "charge"])
    assert problem is not None and "reserve, charge" in problem.message
    assert program.unawaited_problem([]) is None


def test_a_delivery_is_acknowledged_failed_by_a_raising_handler_or_unhandled() -> None:
    def fail(_content: object) -> None:
        raise RuntimeError("down")

    assert [deliver_status(h, "hi") for h in (print, fail, None)] == ["delivered", "failed", "unhandled"]
    assert DEFAULT_POLICIES.skip_sends_after_failed_delivery


def test_caught_failures_are_listed_once_each() -> None:
    caught = LlmzError("TOOL_EXECUTION_FAILED", "x")
    assert iteration_errors([caught], LlmzError("TOOL_EXECUTION_FAILED", "x")) == ["TOOL_EXECUTION_FAILED"]
    assert iteration_errors([caught], LlmzError("INVALID_MEMORY_VALUE", "y")) == [
        "TOOL_EXECUTION_FAILED",
        "INVALID_MEMORY_VALUE",
    ]


def test_a_stack_trace_is_an_excerpt_with_the_failing_line_marked() -> None:
    source = "\n".join(f"line {n}" for n in range(1, 11))
    trace = feedback.stack_trace(source, 9)
    assert "line 7" in trace and "line 10" in trace and "line 6" not in trace
    assert ">   9 | line 9\n      | ^^^^^^" in trace


def test_a_replaced_request_that_does_not_fit_is_refused() -> None:
    small = [Model("m", input_tokens=300, output_tokens=50)]
    request_hook.check_fits("", [], [{"role": "user", "content": "hi"}], None, small, DEFAULT_POLICIES)
    with pytest.raises(LlmzError) as raised:
        long = [{"role": "user", "content": "word " * 2000}]
        request_hook.check_fits("", [], long, None, small, DEFAULT_POLICIES)
    assert raised.value.code == "TOKEN_OVERFLOW" and raised.value.details["phase"] == "input"


def test_objects_refuse_clashing_variables_and_repeated_properties() -> None:
    cart = HostObject("cart", [Property("qty", value=1)])
    clash = objects.name_clash("const cart = {}", [cart])
    assert clash is not None and clash.code == "INVALID_ASSIGNMENT"
    repeated = HostObject("cart", [Property("qty"), Property("qty")])
    problem = objects.definition_problem([repeated])
    assert problem is not None and problem.code == "INVALID_OBJECT"
