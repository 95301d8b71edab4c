"""Plays a falai scenario case through the reference's public API (``reference.falai``); returns its record.

The translation is the whole job: the scenario's declarative setup becomes Python definitions (a
``Condition`` becomes a :class:`reference.falai.Where`, an action with canned ``returns`` becomes a
callable, ``businessHours`` becomes :class:`reference.falai.WorkingHours`), and each step becomes one
``Agent.turn`` or a move of the clock. The record: each turn step becomes one ``turn`` event (the
documented turn result, see spec/protocol/records/falai.md) after the ``model_request``/``model_response``
events of its calls; ``final`` holds the session and the virtual time at the end.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from conformance.players import capabilities
from conformance.players.common import ProviderFactory, scripted_provider
from conformance.players.common import given as only_set
from conformance.scenario import falai as scenario
from conformance.scenario.falai import FalaiCase
from reference import falai
from reference.falai.policies import DEFAULT_POLICIES, Policies
from reference.providers.scripted import ScriptExhausted
from reference.record import Recorder

if TYPE_CHECKING:
    from variants import PolicyChange

#: Capability flags this reference declares for falai (scenarios may `require` them).
CAPABILITIES: tuple[str, ...] = capabilities.FALAI


# -- setup -> definitions ---------------------------------------------------------------------------------


def condition(given: scenario.Condition | None) -> falai.Where | None:
    if given is None:
        return None
    tests = {name: getattr(given, name) for name in given.model_fields_set if name != "path"}
    if "one_of" in tests:
        tests["one_of"] = tuple(tests["one_of"] or ())
    return falai.Where(given.path, **tests)


def repeat(given: scenario.Repeat | None) -> falai.Repeat | None:
    return falai.Cooldown(given.cooldown) if isinstance(given, scenario.Cooldown) else given


def field(spec: scenario.FieldSpec) -> falai.Field:
    enum = tuple(spec.enum) if spec.enum is not None else None
    return falai.Field(ask=spec.ask, enum=enum, **only_set(type=spec.type))


def trigger(given: scenario.Trigger) -> falai.Trigger:
    when, again = condition(given.if_), repeat(given.repeat)
    if given.message is not None:
        return falai.OnMessage(tuple(given.message), if_=when, repeat=again)
    if given.mention is not None:
        extract = {name: field(spec) for name, spec in (given.extract or {}).items()}
        return falai.OnMention(tuple(given.mention), extract, if_=when, repeat=again)
    if given.silence is not None:
        return falai.OnSilence(given.silence, if_=when, repeat=again, business_hours=given.business_hours)
    assert given.event is not None, "validated to have one kind"
    return falai.OnEvent(
        given.event, after=given.after, if_=when, repeat=again, business_hours=given.business_hours
    )


def step(given: scenario.FlowStep) -> falai.Step:
    if given.wait is not None:
        return falai.Wait(given.id, given.wait, else_=given.else_, business_hours=given.business_hours)
    if given.say is not None:
        return falai.Say(given.id, given.say)
    if given.do is not None:
        return falai.Do(given.id, given.do, given.with_)
    return falai.Talk(given.id, given.prompt, tuple(given.collect or ()))


def flow(given: scenario.Flow) -> falai.Flow:
    return falai.Flow(
        id=given.id,
        name=given.name,
        steps=tuple(step(s) for s in given.steps),
        on=tuple(trigger(t) for t in given.on or ()),
        description=given.description,
        while_=condition(given.while_),
        **only_set(anchor=given.anchor),
    )


def action(declared: scenario.Action) -> falai.Action:
    """A declared action as a callable returning its canned result (``spoke`` included)."""
    result = {**declared.returns, "spoke": declared.spoke}

    def act(params: dict[str, Any]) -> Mapping[str, Any]:
        return result

    return act


def idle(given: scenario.IdleOptions | Literal["silent"] | None) -> falai.Idle | Literal["silent"] | None:
    if isinstance(given, scenario.IdleOptions):
        return falai.Idle(given.prompt, tuple(given.tools), tuple(given.instructions))
    return given


def business_hours(given: scenario.BusinessHours | None) -> falai.WorkingHours | None:
    return None if given is None else falai.WorkingHours(given.open_hour, given.close_hour)


# -- steps -> turns ---------------------------------------------------------------------------------------


def turn_input(step: scenario.Step, index: int, last_schedule: list[falai.Scheduled]) -> falai.TurnInput:
    if isinstance(step, scenario.MessageStep):
        return falai.Message(step.id, step.text)
    if isinstance(step, scenario.EventStep):
        return falai.Event(step.event, step.key, step.payload, step.direction)
    if isinstance(step, scenario.StartStep):
        return falai.Start(step.flow, step.key, step.input)
    assert isinstance(step, scenario.WakeStep)
    if step.from_schedule is None:
        assert step.key is not None, "validated to have a key or from_schedule"
        return falai.Wake(step.key)
    if step.from_schedule >= len(last_schedule):
        raise ValueError(
            f"steps[{index}].from_schedule: {step.from_schedule} is past the last schedule "
            f"returned ({len(last_schedule)} entries)"
        )
    return falai.Wake(last_schedule[step.from_schedule].key)


def host_claims(step: scenario.TurnExtras) -> falai.HostClaims | None:
    if step.claims is None:
        return None
    return falai.HostClaims(dict(step.claims.held), tuple(step.claims.active))


def play(
    case: FalaiCase, provider: ProviderFactory = scripted_provider, policies: PolicyChange | None = None
) -> dict[str, Any]:
    setup = case.setup
    recorder = Recorder()
    clock = falai.VirtualClock(setup.clock_start_ms)
    chosen: Policies = policies(DEFAULT_POLICIES) if policies is not None else DEFAULT_POLICIES
    agent = falai.Agent(
        [flow(f) for f in setup.flows],
        model=provider(case.script, recorder),
        clock=clock,
        name=setup.name,
        session_id=setup.session_id,
        fields={name: field(spec) for name, spec in setup.fields.items()},
        actions={name: action(declared) for name, declared in setup.actions.items()},
        idle=idle(setup.idle),
        business_hours=business_hours(setup.business_hours),
        context=setup.context,
        observer=lambda kind, fields: recorder.emit(kind, **fields),
        policies=chosen,
    )
    last_schedule: list[falai.Scheduled] = []
    for index, step in enumerate(case.steps):
        if isinstance(step, scenario.AdvanceStep):
            clock.advance(step.by)
            continue
        if isinstance(step, scenario.ContextStep):
            agent.context = step.context
            continue
        given = turn_input(step, index, last_schedule)
        anchors = {name: ref.key for name, ref in (step.anchors or {}).items()}
        try:
            result = agent.turn(given, claims=host_claims(step), anchors=anchors)
        except ScriptExhausted as exc:
            recorder.emit("error", step=index, message=str(exc))
            break
        recorder.emit("turn", step=index, **result.to_record())
        if result.schedule:
            last_schedule = result.schedule
    recorder.final = {"session": agent.state(), "now": clock.now_ms()}
    return recorder.to_dict()
