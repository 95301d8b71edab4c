"""The llmz public API: a Python host writes tools, hooks and chat handlers as functions, and gets a result.

These drive ``reference.llmz`` the way a user of the library would, without any scenario: plain Python
functions as tools, a scripted or function-backed model, observers, and a policy object of its own.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from typing import Any

from reference.llmz import (
    DEFAULT_POLICIES,
    Chat,
    Component,
    Exit,
    Hooks,
    Session,
    ThinkSignal,
    Tool,
    execute,
    truncate,
)
from reference.providers import FunctionProvider, ModelResponse, ScriptedProvider, ToolCall
from reference.record import Recorder


def program(code: str) -> ModelResponse:
    return ModelResponse(tool_calls=[ToolCall(code=code)])


def test_a_python_function_is_a_tool_the_program_awaits() -> None:
    seen: list[Any] = []

    def add(numbers: dict[str, int]) -> int:
        seen.append(numbers)
        return numbers["a"] + numbers["b"]

    session = Session()
    session.append([{"role": "user", "content": "What is 2 + 3?"}])
    model = ScriptedProvider(
        [program('const sum = await add({a: 2, b: 3})\nreturn exit("done", {success: true, result: sum})')]
    )
    schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}
    result = execute(session, model, tools=[Tool("add", add, input=schema)])

    assert seen == [{"a": 2, "b": 3}]
    assert result.status == "success"
    assert result.exit is not None and result.exit.payload == {"success": True, "result": 5}
    assert result.memory == {"sum": 5}
    assert [(i.index, i.status) for i in result.iterations] == [(1, "exit_success")]


def test_a_conversation_recovers_from_a_raising_tool_and_reports_it_to_the_model() -> None:
    calls = {"n": 0}

    def flaky(_input: object) -> str:
        calls["n"] += 1
        if calls["n"] == 1:
            raise ConnectionError("warehouse offline")
        return "shipped"

    model = ScriptedProvider(
        [program("return await ship({})"), program('return exit("done", {success: true})')]
    )
    session = Session()
    session.append([{"role": "user", "content": "Ship it"}])
    result = execute(session, model, tools=[Tool("ship", flaky)])
    assert [i.status for i in result.iterations] == ["recoverable_error", "exit_success"]
    assert result.iterations[0].error_code == "TOOL_EXECUTION_FAILED"
    feedback = result.messages[2]["content"]  # the tool result the second request carried
    assert "warehouse offline" in feedback and "<recovery>" in feedback


def test_a_think_signal_forces_an_inspection_with_the_context_as_the_result() -> None:
    def policy(_input: object) -> ThinkSignal:
        return ThinkSignal("read the exception clause first", truncate({"clause": "7b"}, 50))

    events: list[str] = []
    model = ScriptedProvider(
        [program("const p = await policy({})"), program('return exit("done", {success: true})')]
    )
    session = Session()
    session.append([{"role": "user", "content": "Assess the claim"}])
    result = execute(
        session, model, tools=[Tool("policy", policy)], observers=[lambda kind, _fields: events.append(kind)]
    )
    assert [i.status for i in result.iterations] == ["thinking_requested", "exit_success"]
    assert result.memory == {"p": {"clause": "7b"}}
    assert "inspection" in events and events[-1] == "result"


def test_a_chat_turn_delivers_text_and_components_to_python_handlers() -> None:
    said: list[Any] = []
    model = ScriptedProvider(
        [
            ModelResponse(
                text="Your order ships today.",
                tool_calls=[ToolCall(code='chat.card({id: "O-1"})\nreturn exit("listen")')],
            )
        ]
    )
    session = Session()
    session.append([{"role": "user", "content": "Where is my order?"}])
    chat = Chat(handler=said.append, components=[Component("card", said.append)])
    result = execute(session, model, chat=chat)
    assert said == ["Your order ships today.", {"id": "O-1"}]
    assert result.exit is not None and result.exit.name == "listen"
    assert session.last_speaker == "assistant"


def test_hooks_are_python_functions() -> None:
    exits: list[str] = []
    model = ScriptedProvider([program('return exit("refund", {amount: await price({sku: "A"})})')])
    session = Session()
    session.append([{"role": "user", "content": "Refund A"}])
    hooks = Hooks(
        before_tool={"price": lambda _input: {"sku": "B"}},
        after_tool={"price": lambda _input, output: output * 2},
        on_exit=lambda name, payload: exits.append(f"{name}:{payload['amount']}"),
    )
    prices = {"A": 10, "B": 7}
    result = execute(
        session,
        model,
        tools=[Tool("price", lambda item: prices[item["sku"]])],
        exits=[Exit("refund")],
        hooks=hooks,
    )
    assert exits == ["refund:14"] and result.status == "success"


def test_a_model_can_be_a_python_function() -> None:
    def model(request: dict[str, Any], purpose: str) -> ModelResponse:
        asked = request["messages"][-1]["content"]
        return program(f'return exit("done", {{success: true, result: {len(asked)}}})')

    session = Session()
    session.append([{"role": "user", "content": "four"}])
    result = execute(session, FunctionProvider(model))
    assert result.exit is not None and result.exit.payload["result"] == 4


def test_a_session_runs_with_the_policies_it_was_given() -> None:
    recorder = Recorder()
    model = ScriptedProvider([program('return exit("done", {success: true})')], recorder)
    session = Session(policies=replace(DEFAULT_POLICIES, worker_guidance="Answer in JavaScript only."))
    session.append([{"role": "user", "content": "hi"}])
    execute(session, model)
    request = next(event for event in recorder.events if event["type"] == "model_request")
    assert request["messages"][0] == {"role": "system", "content": "Answer in JavaScript only."}


def test_importing_the_llmz_library_loads_nothing_of_the_harness() -> None:
    code = (
        "import sys, reference.llmz\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('conformance', 'variants')))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "[]"
