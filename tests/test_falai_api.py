"""The falai public API (``reference.falai``): an agent in plain Python, typed turns, any model provider."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from typing import Any

import pytest

import reference.falai as falai
from reference.falai import (
    DEFAULT_POLICIES,
    Agent,
    Do,
    Event,
    Field,
    Flow,
    Message,
    OnEvent,
    OnMessage,
    OnSilence,
    Outcome,
    Say,
    Scheduled,
    Scope,
    Start,
    Talk,
    VirtualClock,
    Wake,
    WorkingHours,
)
from reference.providers import FunctionProvider, ModelResponse, ScriptedProvider

HOUR = 3_600_000


def _booking(**flow: Any) -> Flow:
    return Flow(
        "booking",
        "Book",
        on=[OnMessage(["book"])],
        steps=[Talk("ask", collect=["name"]), Say("done", "Booked for {{data.name}}.")],
        **flow,
    )


def test_public_names_are_exported() -> None:
    assert set(falai.__all__) <= set(dir(falai))
    assert {"Agent", "Message", "Event", "Start", "Wake", "TurnResult", "Policies", "VirtualClock"} <= set(
        falai.__all__
    )


def test_importing_the_library_loads_no_harness_module() -> None:
    code = (
        "import sys, reference.falai; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('conformance', 'variants')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_a_conversation_with_a_scripted_model() -> None:
    model = ScriptedProvider(
        [
            ModelResponse(json_data={"scores": {"booking": 90}}),
            ModelResponse(text="Your name?"),
            ModelResponse(json_data={"fields": {"name": "Rosa"}}),
        ]
    )
    agent = Agent([_booking()], model=model, fields={"name": Field(ask="the name")})
    first = agent.turn(Message("m1", "I want to book"))
    assert [(m.kind, m.text) for m in first.messages] == [("talk", "Your name?")]
    assert first.llm_calls == 2 and agent.session.floor == "booking#m1"
    assert "falai.routing.new-flow-min-score" in first.rules
    second = agent.turn(Message("m2", "Rosa"))
    assert [m.text for m in second.messages] == ["Booked for Rosa."]
    assert [e.reason for e in second.ended] == ["completed"]
    assert agent.state()["data"] == {"name": "Rosa"}


def test_a_model_that_is_a_python_function_and_a_python_predicate() -> None:
    def model(request: dict[str, Any], purpose: str) -> ModelResponse:
        if purpose == "understand":
            return ModelResponse(json_data={"scores": {c["flowId"]: 80 for c in request["candidates"]}})
        return ModelResponse(text=f"asking for {request['collect']}")

    vip = Flow(
        "vip",
        "VIP",
        on=[OnMessage(["book"], if_=lambda scope: scope.context.get("tier") == "gold")],
        steps=[Say("hi", "Welcome back!")],
    )
    agent = Agent([vip, _booking()], model=FunctionProvider(model), context={"tier": "silver"})
    result = agent.turn(Message("m1", "book please"))
    assert [s.flow_id for s in result.started] == ["booking"]
    assert [m.text for m in result.messages] == ["asking for ['name']"]


def test_an_unknown_turn_kind_is_a_type_error_not_a_wake() -> None:
    agent = Agent([_booking()], model=ScriptedProvider([]))
    with pytest.raises(TypeError, match="Message, Event, Start or Wake"):
        agent.turn({"kind": "message", "id": "m1"})  # type: ignore[arg-type]


def test_events_starts_actions_and_a_wait_over_the_virtual_clock() -> None:
    calls: list[dict[str, Any]] = []
    remind = Flow(
        "remind",
        "Remind",
        on=[OnEvent("booked", after="1h")],
        steps=[Do("send", "sms", {"to": "{{input.phone}}"}), Say("s", "See you {{input.day}}.")],
    )
    agent = Agent(
        [remind],
        model=ScriptedProvider([]),
        actions={"sms": lambda params: calls.append(params) or {"ok": True}},
    )
    parked = agent.turn(Event("booked", "b1", {"phone": "555", "day": "Monday"}))
    assert parked.outcomes == [Outcome("awaiting-trigger", "remind#b1")]
    (wake,) = parked.schedule
    agent.clock.advance("1h")
    fired = agent.turn(Wake(wake.key))
    assert calls == [{"to": "555"}]
    assert [m.text for m in fired.messages] == ["See you Monday."]
    gone = agent.turn(Start("nope", "k1"))
    assert [(s.flow_id, s.code) for s in gone.skipped] == [("nope", "flow-gone")]


def test_a_silence_wake_respects_business_hours() -> None:
    clock = VirtualClock(1_767_614_400_000 + 5 * HOUR)  # Monday 17:00 UTC
    nudge = Flow(
        "nudge", "Nudge", on=[OnSilence("2h", business_hours=True)], steps=[Say("s", "Still there?")]
    )
    hello = Flow("hello", "Hello", on=[OnEvent("open")], steps=[Say("s", "Hello!")])
    agent = Agent([hello, nudge], model=ScriptedProvider([]), clock=clock, business_hours=WorkingHours(9, 18))
    result = agent.turn(Event("open", "o1"))
    tuesday_nine = 1_767_614_400_000 + 21 * HOUR
    assert result.schedule == [Scheduled(f"silence:nudge:session-1:{clock.now_ms()}", tuesday_nine)]


def test_policies_are_handed_in_not_patched() -> None:
    """Another threshold is a Policies value given to the agent; the default one is left untouched."""
    other = Flow("other", "Other", on=[OnMessage(["else"])], steps=[Say("s", "other")])

    def play(policies: falai.Policies) -> falai.TurnResult:
        scores = ModelResponse(json_data={"scores": {"booking": 90}})
        model = ScriptedProvider([scores, ModelResponse(text="?")])
        agent = Agent([_booking(), other], model=model, idle="silent", policies=policies)
        return agent.turn(Message("m1", "book"))

    assert [s.flow_id for s in play(DEFAULT_POLICIES).started] == ["booking"]
    strict = play(dataclasses.replace(DEFAULT_POLICIES, new_flow_min_score=95))
    assert strict.started == [] and strict.messages == [] and "falai.routing.nobody" in strict.rules
    assert DEFAULT_POLICIES.new_flow_min_score == 40


def test_bad_definitions_say_what_is_wrong() -> None:
    with pytest.raises(ValueError, match="two flows have id 'booking'"):
        Agent([_booking(), _booking()], model=ScriptedProvider([]))
    with pytest.raises(ValueError, match="has no steps"):
        Flow("x", "X", steps=[])
    with pytest.raises(ValueError, match="working hours"):
        WorkingHours(18, 9)
    assert Scope(data={"a": {"b": 1}}).lookup("data.a.b") == 1


def test_every_rule_id_the_runtime_names_is_in_the_catalogue() -> None:
    """``TurnResult.rules`` and the policies' docstrings cite rule ids; each must exist (spec/ids.txt)."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    ledger = set((root / "spec" / "ids.txt").read_text(encoding="utf-8").split())
    cited = {
        rule
        for source in (root / "reference" / "falai").glob("*.py")
        for rule in re.findall(r'"(falai\.[a-z0-9.\-]+)"', source.read_text(encoding="utf-8"))
    }
    assert len(cited) > 15
    assert cited <= ledger, sorted(cited - ledger)
