"""``Agent.turn``: the reference shell around routing, the claim ledger and the run engine.

One call plays one host turn: a customer ``message``, an ``event``, a host ``start`` or a ``wake``. Every
decision with a rule behind it is delegated: routing to :mod:`reference.falai.routing`, repeat to
:mod:`reference.falai.repeat`, keys and times to :mod:`reference.falai.timers`; this module only sequences
them and records what happened.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from conformance.scenario.falai import Flow, Setup
from reference.clock import VirtualClock, parse_duration_ms
from reference.falai import timers
from reference.falai.conditions import holds
from reference.falai.engine import Engine, trigger_policy
from reference.falai.messages import MessageTurn
from reference.falai.session import TurnResult
from reference.providers.protocol import ModelProvider
from reference.record import Recorder

#: falai.start.flow-gone: the skip code for a start (or a wake) naming a flow the agent does not have.
FLOW_GONE = "flow-gone"


class Agent:
    def __init__(
        self, setup: Setup, provider: ModelProvider, clock: VirtualClock, recorder: Recorder
    ) -> None:
        self.engine = Engine(setup, provider, clock, recorder)

    @property
    def setup(self) -> Setup:
        return self.engine.setup

    def turn(self, kind: str, **request: Any) -> TurnResult:
        """Play one turn; ``changed`` compares the session before and after (falai.triggers.duplicate-input).

        A replay or a broken silence must report no change, and a snapshot comparison cannot miss a field.
        """
        engine = self.engine
        before = self._snapshot()
        calls_before = engine.provider.calls
        if kind == "message":
            result = MessageTurn(engine, request["id"], request["text"]).play()
        elif kind == "event":
            result = self._event(request["event"], request["payload"], request["key"])
        elif kind == "start":
            result = self._start(request["flow"], request["input"], request["key"])
        else:
            result = self._wake(request["key"])
        if result.spoke:
            self._arm_silence(result)
        result.llm_calls = engine.provider.calls - calls_before
        if result.changed:
            result.changed = self._snapshot() != before
        return result

    def _snapshot(self) -> str:
        return json.dumps(dataclasses.asdict(self.engine.session), sort_keys=True, default=str)

    # -- event, start ---------------------------------------------------------------------------------
    def _event(self, name: str, payload: dict[str, Any], key: str) -> TurnResult:
        """falai.event.*: the payload is the input; ``after`` parks the run before its first step."""
        engine = self.engine
        turn = TurnResult(input={"kind": "event", "event": name, "key": key})
        for flow in self.setup.flows:
            for index, trigger in enumerate(flow.on or []):
                if trigger.event != name or not holds(trigger.if_, engine.scope(payload)):
                    continue  # falai.if.failed-silent
                run = engine.start(flow, index, "event", f"{flow.id}#{key}", dict(payload), key, turn)
                if run is None:
                    continue
                if trigger.after is not None:
                    computed = engine.clock.now_ms() + parse_duration_ms(trigger.after)
                    at = timers.adjust(computed, self.setup.business_hours, trigger.business_hours)
                    run.status = "parked"
                    run.wake_key = timers.start_key(run.run_id, at)
                    turn.schedule.append({"key": run.wake_key, "at": at})
                    turn.outcomes.append({"code": "awaiting-trigger", "runId": run.run_id})
                else:
                    engine.advance(run, turn, new_message=False)
        return turn

    def _start(self, flow_id: str, input_: dict[str, Any], key: str) -> TurnResult:
        """falai.start.*"""
        turn = TurnResult(input={"kind": "start", "flow": flow_id, "key": key})
        flow = self.engine.flows.get(flow_id)
        if flow is None:
            turn.skipped.append({"flowId": flow_id, "code": FLOW_GONE})
            return turn
        run = self.engine.start(flow, None, "start", f"{flow_id}#{key}", dict(input_), key, turn)
        if run is not None:
            self.engine.advance(run, turn, new_message=False)
        return turn

    # -- wakes ----------------------------------------------------------------------------------------
    def _wake(self, key: str) -> TurnResult:
        turn = TurnResult(input={"kind": "wake", "key": key})
        silence = timers.parse_silence_key(key)
        if silence is not None:
            self._silence_wake(key, silence, turn)
            return turn
        engine = self.engine
        run = next((r for r in engine.session.runs if r.live and r.wake_key == key), None)
        if run is None:
            turn.changed = False  # a stale wake is harmless (falai.silence.replaces)
            return turn
        run.wake_key = None
        if run.status == "waiting":
            if (
                engine.session.last_customer_at is not None
                and engine.session.last_customer_at > run.started_at
            ):
                turn.outcomes.append({"code": "customer-replied", "runId": run.run_id})
                engine.end(run, "customer-replied", turn)  # falai.silence.customer-replied
                return turn
            run.step += 1
        run.status = "active"
        engine.advance(run, turn, new_message=False)
        return turn

    def _silence_wake(self, key: str, silence: timers.SilenceKey, turn: TurnResult) -> None:
        """falai.silence.honoured-only-while, falai.silence.if-twice, falai.silence.speaks-first"""
        engine = self.engine
        session = engine.session
        if not timers.silence_still_holds(
            silence.last_assistant_at_ms, session.last_assistant_at, session.last_customer_at
        ):
            turn.outcomes.append({"code": "silence-broken"})
            turn.changed = False
            return
        flow = engine.flows.get(silence.flow_id)
        index = _silence_trigger(flow)
        if flow is None or index is None:
            turn.skipped.append({"flowId": silence.flow_id, "code": FLOW_GONE})
            return
        assert flow.on is not None
        if not holds(flow.on[index].if_, engine.scope()):
            return
        run = engine.start(flow, index, "silence", f"{flow.id}#{key}", {}, key, turn)
        if run is not None:
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
            assert flow.on is not None
            trigger = flow.on[index]
            key = timers.silence_key(flow.id, engine.session.session_id, stamped)
            policy = trigger_policy("silence", trigger)
            if not holds(trigger.if_, engine.scope()) or engine.gate(flow, policy, key) is not None:
                continue
            assert trigger.silence is not None
            at = timers.adjust(
                stamped + parse_duration_ms(trigger.silence),
                self.setup.business_hours,
                trigger.business_hours,
            )
            entry: dict[str, Any] = {"key": key, "at": at}
            previous = engine.session.silence_keys.get(flow.id)
            if previous is not None and previous != key:
                entry["replaces"] = previous
            engine.session.silence_keys[flow.id] = key
            turn.schedule.append(entry)


def _silence_trigger(flow: Flow | None) -> int | None:
    if flow is None:
        return None
    return next((i for i, t in enumerate(flow.on or []) if t.silence is not None), None)
