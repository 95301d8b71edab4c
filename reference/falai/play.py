"""Plays a falai scenario against the reference runtime and returns its record.

Each turn step becomes one ``turn`` event (the documented turn result, see spec/protocol/records/falai.md)
after the ``model_request``/``model_response`` events of its calls; ``final`` holds the session and the
virtual time at the end.
"""

from __future__ import annotations

from typing import Any

from conformance.players.common import ProviderFactory, scripted_provider
from conformance.scenario.falai import AdvanceStep, ContextStep, MessageStep, TurnExtras, WakeStep
from conformance.scenario.model import FalaiCase
from reference.clock import VirtualClock
from reference.falai.agent import Agent
from reference.providers.scripted import ScriptExhausted
from reference.record import Recorder

#: Capability flags this reference declares for falai (scenarios may `require` them).
#: ``falai.business-hours`` means the declarative ``setup.businessHours`` stand-in for the agent's function.
CAPABILITIES: tuple[str, ...] = (
    "falai.turn",
    "falai.wake",
    "falai.event",
    "falai.start",
    "falai.business-hours",
)


def _extras(agent: Agent, step: TurnExtras) -> None:
    """``turn({ claims, anchors })`` apply to the one turn they are passed with."""
    engine = agent.engine
    engine.host_held = dict(step.claims.held) if step.claims else {}
    engine.host_active = list(step.claims.active) if step.claims else []
    engine.anchors = {name: ref.key for name, ref in (step.anchors or {}).items()}


def play(scenario: FalaiCase, provider: ProviderFactory = scripted_provider) -> dict[str, Any]:
    recorder = Recorder()
    clock = VirtualClock(scenario.setup.clock_start_ms)
    model = provider(scenario.script, recorder)
    agent = Agent(scenario.setup, model, clock, recorder)
    last_schedule: list[dict[str, Any]] = []
    for index, step in enumerate(scenario.steps):
        if isinstance(step, AdvanceStep):
            clock.advance(step.by)
            continue
        if isinstance(step, ContextStep):
            agent.engine.context = dict(step.context)
            continue
        _extras(agent, step)
        request = step.model_dump(by_alias=True, exclude={"op", "claims", "anchors", "from_schedule"})
        if isinstance(step, WakeStep) and step.from_schedule is not None:
            if step.from_schedule >= len(last_schedule):
                raise ValueError(
                    f"steps[{index}].from_schedule: {step.from_schedule} is past the last schedule "
                    f"returned ({len(last_schedule)} entries)"
                )
            request["key"] = last_schedule[step.from_schedule]["key"]
        try:
            result = agent.turn("message" if isinstance(step, MessageStep) else step.op, **request)
        except ScriptExhausted as exc:
            recorder.emit("error", step=index, message=str(exc))
            break
        recorder.emit("turn", step=index, **result.to_record())
        if result.schedule:
            last_schedule = result.schedule
    steps = {flow.id: [s.id for s in flow.steps] for flow in scenario.setup.flows}
    recorder.final = {"session": agent.engine.session.to_record(steps), "now": clock.now_ms()}
    return recorder.to_dict()
