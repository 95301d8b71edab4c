"""``Agent``: the public face of the falai reference, built from flows, triggers and fields in Python.

One ``turn`` plays one host turn: a customer :class:`Message`, an :class:`Event`, a host :class:`Start` or a
:class:`Wake`. Every decision with a rule behind it is delegated: routing to :mod:`reference.falai.routing`,
repeat to :mod:`reference.falai.repeat`, keys and times to :mod:`reference.falai.timers`, each read through
the agent's :class:`reference.falai.policies.Policies`; this module only sequences them.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from reference.clock import VirtualClock
from reference.falai import timers
from reference.falai.definitions import (
    Action,
    BusinessHours,
    Field,
    Flow,
    Idle,
    OnEvent,
    OnSilence,
    Setup,
    duration_ms,
)
from reference.falai.engine import Engine, Observer, trigger_policy
from reference.falai.inputs import Event, HostClaims, Message, Start, TurnInput, Wake
from reference.falai.messages import MessageTurn
from reference.falai.policies import DEFAULT_POLICIES, Policies
from reference.falai.results import Outcome, Scheduled, Skipped, TurnResult
from reference.falai.session import Session
from reference.providers.protocol import ModelProvider


def _fields_or_text(value: Any) -> Any:
    """``json.dumps`` fallback: a dataclass instance as the dict of its fields, anything else as text."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {item.name: getattr(value, item.name) for item in dataclasses.fields(value)}
    return str(value)


class Agent:
    """A falai agent over a virtual clock: give it turns, read what each did and where the session stands.

    ``model`` is any :class:`reference.providers.ModelProvider` (scripted, a Python function, or an
    OpenAI-compatible endpoint). ``clock`` defaults to a fresh :class:`VirtualClock`; the host moves it
    and fires the wake keys turns schedule. ``observer`` receives the runtime's own events (``action``).
    ``policies`` carries every rule decision; leave it at the default for the documented behaviour.
    """

    def __init__(
        self,
        flows: Sequence[Flow],
        *,
        model: ModelProvider,
        clock: VirtualClock | None = None,
        name: str = "Assistant",
        session_id: str = "session-1",
        fields: Mapping[str, Field] | None = None,
        actions: Mapping[str, Action] | None = None,
        idle: Literal["silent"] | Idle | None = None,
        business_hours: BusinessHours | None = None,
        context: Mapping[str, Any] | None = None,
        observer: Observer | None = None,
        policies: Policies = DEFAULT_POLICIES,
    ) -> None:
        self.setup = Setup(
            flows=tuple(flows),
            name=name,
            session_id=session_id,
            fields=dict(fields or {}),
            actions=dict(actions or {}),
            idle=idle,
            business_hours=business_hours,
        )
        self.clock = clock if clock is not None else VirtualClock()
        self.engine = Engine(self.setup, model, self.clock, context or {}, policies, observer)

    @property
    def session(self) -> Session:
        """The live session: runs, the floor, claims, collected data, the transcript."""
        return self.engine.session

    @property
    def context(self) -> dict[str, Any]:
        """The host context later turns see (``context.*`` in conditions and templates)."""
        return self.engine.context

    @context.setter
    def context(self, value: Mapping[str, Any]) -> None:
        self.engine.context = dict(value)

    def state(self) -> dict[str, Any]:
        """The session in its record form (``final.session`` of spec/protocol/records/falai.md)."""
        steps = {flow.id: [step.id for step in flow.steps] for flow in self.setup.flows}
        return self.session.to_record(steps)

    def turn(
        self,
        input: TurnInput,
        *,
        claims: HostClaims | None = None,
        anchors: Mapping[str, str] | None = None,
    ) -> TurnResult:
        """Play one turn. ``claims`` and ``anchors`` are ``turn({ claims, anchors })``: they apply to this
        turn only. ``changed`` compares the session before and after (falai.triggers.duplicate-input): a
        replay or a broken silence must report no change, and a snapshot comparison cannot miss a field.
        """
        engine = self.engine
        engine.host = engine.policies.host_view(claims, anchors)
        before = self._snapshot()
        calls_before = engine.provider.calls
        if isinstance(input, Message):
            result = MessageTurn(engine, input).play()
        elif isinstance(input, Event):
            result = self._event(input)
        elif isinstance(input, Start):
            result = self._start(input)
        elif isinstance(input, Wake):
            result = self._wake(input)
        else:
            raise TypeError(
                f"Agent.turn takes a Message, Event, Start or Wake, got {type(input).__name__}: {input!r}"
            )
        if result.spoke:
            self._arm_silence(result)
        result.llm_calls = engine.provider.calls - calls_before
        if result.changed:
            result.changed = self._snapshot() != before
        return result

    def _snapshot(self) -> str:
        """The session as canonical JSON, for comparing before and after a turn: the text
        ``json.dumps(dataclasses.asdict(session), sort_keys=True, default=str)`` gives, made without
        ``asdict``'s deep copy of every value (the text is all that is kept)."""
        return json.dumps(self.engine.session, sort_keys=True, default=_fields_or_text)

    # -- event, start ---------------------------------------------------------------------------------
    def _event(self, event: Event) -> TurnResult:
        """falai.event.*: the payload is the input; ``after`` parks the run before its first step."""
        engine = self.engine
        turn = TurnResult(input=event)
        if event.direction is not None:
            engine.policies.stamp_direction(engine.session, event.direction, engine.clock.now_ms())
            turn.spoke = event.direction == "assistant"
        for flow in self.setup.flows:
            for index, trigger in enumerate(flow.on):
                if not isinstance(trigger, OnEvent):
                    continue
                if not engine.policies.names_event(trigger.name, event.name):
                    continue
                if not engine.holds(trigger.if_, event.payload):
                    continue  # falai.if.failed-silent
                run = engine.start(flow, index, "event", event.payload, event.key, turn)
                if run is None:
                    continue
                if trigger.after is not None:
                    computed = engine.clock.now_ms() + duration_ms(trigger.after)
                    at = engine.policies.adjust(computed, self.setup.business_hours, trigger.business_hours)
                    run.status = "parked"
                    run.wake_key = engine.policies.start_key(run.run_id, at)
                    turn.schedule.append(Scheduled(run.wake_key, at))
                    turn.outcomes.append(Outcome("awaiting-trigger", run.run_id))
                else:
                    engine.advance(run, turn, new_message=False)
        return turn

    def _start(self, start: Start) -> TurnResult:
        """falai.start.*"""
        turn = TurnResult(input=start)
        flow = self.engine.flows.get(start.flow)
        if flow is None:
            turn.skipped.append(Skipped(start.flow, self.engine.policies.flow_gone))
            return turn
        run = self.engine.start(flow, None, "start", start.input, start.key, turn)
        if run is not None:
            self.engine.advance(run, turn, new_message=False)
        return turn

    # -- wakes ----------------------------------------------------------------------------------------
    def _wake(self, wake: Wake) -> TurnResult:
        turn = TurnResult(input=wake)
        silence = self.engine.policies.parse_silence_key(wake.key)
        if silence is not None:
            self._silence_wake(wake.key, silence, turn)
            return turn
        engine = self.engine
        run = next((r for r in engine.session.runs if r.live and r.wake_key == wake.key), None)
        if run is None:
            turn.changed = False  # a stale wake is harmless (falai.silence.replaces)
            return turn
        run.wake_key = None
        if run.status == "waiting":
            if (
                engine.session.last_customer_at is not None
                and engine.session.last_customer_at > run.started_at
            ):
                turn.outcomes.append(Outcome("customer-replied", run.run_id))
                turn.rules.append("falai.silence.customer-replied")
                engine.end(run, "customer-replied", turn)
                return turn
            run.step += 1
        run.status = "active"
        engine.advance(run, turn, new_message=False)
        return turn

    def _silence_wake(self, key: str, silence: timers.SilenceKey, turn: TurnResult) -> None:
        """falai.silence.honoured-only-while, falai.silence.if-twice, falai.silence.speaks-first"""
        engine = self.engine
        session = engine.session
        if not engine.policies.silence_still_holds(
            silence.last_assistant_at_ms, session.last_assistant_at, session.last_customer_at
        ):
            turn.outcomes.append(Outcome("silence-broken"))
            turn.rules.append("falai.silence.honoured-only-while")
            turn.changed = False
            return
        flow = engine.flows.get(silence.flow_id)
        index = _silence_trigger(flow)
        if flow is None or index is None:
            turn.skipped.append(Skipped(silence.flow_id, engine.policies.flow_gone))
            return
        if not engine.holds(flow.on[index].if_):
            return
        run = engine.start(flow, index, "silence", {}, key, turn)
        if run is not None:
            turn.rules.append("falai.silence.speaks-first")
            engine.take_floor(run)
            engine.advance(run, turn, new_message=False)

    def _arm_silence(self, turn: TurnResult) -> None:
        """falai.silence.arm, falai.silence.replaces: one wake per silence flow whose if and repeat allow."""
        engine = self.engine
        stamped = engine.session.last_assistant_at
        assert stamped is not None
        for flow in self.setup.flows:
            index = _silence_trigger(flow)
            if index is None:
                continue
            trigger = flow.on[index]
            assert isinstance(trigger, OnSilence)
            key = engine.policies.silence_key(flow.id, engine.session.session_id, stamped)
            policy = trigger_policy("silence", trigger)
            if not engine.holds(trigger.if_) or engine.gate(flow, policy, key) is not None:
                continue
            computed = stamped + duration_ms(trigger.after)
            at = engine.policies.adjust(computed, self.setup.business_hours, trigger.business_hours)
            previous = engine.session.silence_keys.get(flow.id)
            replaces = previous if previous is not None and previous != key else None
            engine.session.silence_keys[flow.id] = key
            turn.schedule.append(Scheduled(key, at, replaces))


def _silence_trigger(flow: Flow | None) -> int | None:
    if flow is None:
        return None
    return next((i for i, t in enumerate(flow.on) if isinstance(t, OnSilence)), None)
