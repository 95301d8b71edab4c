"""Runs and the floor: starting a run, stepping it, taking and giving back the floor, ending it.

Theory of operation. A run walks its flow's steps in order. ``say`` and ``do`` never stop it; a talk step
(``prompt``/``collect``) speaks with one model call and stops the run while fields it collects are still
missing (the run is then *asking*); a ``wait`` parks it until its wake or a customer message. Before every
step the run's premise (the flow's ``while``, or its trigger's ``if``) is checked again
(falai.if.default-while). The floor is a single run id (falai.message.single-floor); taking it suspends
the holder, and ending the holder resumes the most recently suspended live run
(falai.routing.takeover.effect).
"""

from __future__ import annotations

from typing import Any

from conformance.scenario.falai import Condition, Flow, FlowStep, Setup, Trigger
from reference.clock import VirtualClock, parse_duration_ms
from reference.falai import repeat, timers
from reference.falai.conditions import holds
from reference.falai.session import Run, Session, TurnResult
from reference.falai.templates import render, render_all
from reference.providers.protocol import ModelProvider
from reference.record import Recorder


class Engine:
    def __init__(
        self, setup: Setup, provider: ModelProvider, clock: VirtualClock, recorder: Recorder
    ) -> None:
        self.setup = setup
        self.provider = provider
        self.clock = clock
        self.recorder = recorder
        self.session = Session(setup.session_id)
        self.flows: dict[str, Flow] = {flow.id: flow for flow in setup.flows}
        self.context: dict[str, Any] = dict(setup.context)
        self.anchors: dict[str, str] = {}
        self.host_held: dict[str, int] = {}
        self.host_active: list[str] = []

    # -- scopes and anchors ---------------------------------------------------------------------------
    def scope(self, input_: dict[str, Any] | None = None) -> dict[str, Any]:
        """What an ``if``/``while`` and a template can read (falai.if.sees)."""
        return {
            "context": self.context,
            "data": self.session.data,
            "input": input_ or {},
            "now": self.clock.now_ms(),
        }

    def anchor_of(self, flow: Flow) -> str:
        """falai.live.anchor-default, falai.live.anchor-lead"""
        if flow.anchor == "lead":
            return self.anchors.get("lead", self.session.session_id)
        return self.session.session_id

    # -- starting -------------------------------------------------------------------------------------
    def gate(self, flow: Flow, policy: repeat.Policy, trigger_key: str) -> str | None:
        """The skip code for a start, or None. Repeat first, then one live run per flow and anchor."""
        anchor = self.anchor_of(flow)
        claims = {**self.host_held, **self.session.claims}
        code = repeat.verdict(claims, flow.id, anchor, policy, trigger_key, self.clock.now_ms())
        if code is not None:
            return code
        if f"{flow.id}:{anchor}" in self.host_active:
            return "already-running"
        live = self.session.live_run(flow.id, anchor)
        if live is not None and live.status != "parked":
            return "already-running"
        return None

    def start(
        self,
        flow: Flow,
        trigger_index: int | None,
        kind: repeat.TriggerKind,
        run_id: str,
        input_: dict[str, Any],
        trigger_key: str,
        turn: TurnResult,
    ) -> Run | None:
        """Gate, claim and create a run; a run parked on ``after`` is replaced (falai.live.one-per-anchor)."""
        trigger = flow.on[trigger_index] if flow.on is not None and trigger_index is not None else None
        policy = trigger_policy(kind, trigger)
        code = self.gate(flow, policy, trigger_key)
        if code is not None:
            turn.skipped.append({"flowId": flow.id, "code": code})
            return None
        anchor = self.anchor_of(flow)
        parked = self.session.live_run(flow.id, anchor)
        if parked is not None:
            self.end(parked, "replaced", turn)
        repeat.record_claim(self.session.claims, flow.id, anchor, policy, trigger_key, self.clock.now_ms())
        run = Run(run_id, flow.id, anchor, trigger_index, input_, self.clock.now_ms())
        self.session.runs.append(run)
        turn.started.append({"flowId": flow.id, "runId": run_id})
        return run

    # -- the floor ------------------------------------------------------------------------------------
    def take_floor(self, run: Run) -> None:
        holder = self.session.run(self.session.floor)
        if holder is not None and holder is not run and holder.live:
            holder.status = "suspended"
            self.session.suspended.append(holder.run_id)
        self.session.floor = run.run_id
        if run.status == "suspended":
            self.session.suspended.remove(run.run_id)
        run.status = "active"

    def end(self, run: Run, reason: str, turn: TurnResult) -> None:
        run.status = "ended"
        run.wake_key = None
        turn.ended.append({"runId": run.run_id, "flowId": run.flow_id, "reason": reason})
        if run.run_id in self.session.suspended:
            self.session.suspended.remove(run.run_id)
        if self.session.floor == run.run_id:
            self.session.floor = None
            while self.session.suspended:
                back = self.session.run(self.session.suspended.pop())
                if back is not None and back.live:
                    back.status = "active"
                    self.session.floor = back.run_id
                    break

    # -- stepping -------------------------------------------------------------------------------------
    def premise_holds(self, run: Run) -> bool:
        """falai.if.default-while, falai.if.while-override"""
        return holds(premise_condition(self.flows[run.flow_id], run.trigger_index), self.scope(run.input))

    def advance(self, run: Run, turn: TurnResult, *, new_message: bool) -> None:
        """Walk the run's steps until it asks, waits or ends."""
        flow = self.flows[run.flow_id]
        while run.step < len(flow.steps):
            if not self.premise_holds(run):
                turn.outcomes.append({"code": "premise-changed", "runId": run.run_id})
                self.end(run, "premise-changed", turn)
                return
            step = flow.steps[run.step]
            if step.wait is not None:
                self._park_on_wait(run, step, turn)
                return
            if step.say is not None:
                self.speak(
                    turn, "verbatim", render(step.say, self.scope(run.input)), f"{run.run_id}:{step.id}"
                )
            elif step.do is not None:
                self._act(run, step, turn)
            elif self._talk(run, step, turn, new_message=new_message):
                return
            run.step += 1
        self.end(run, "completed", turn)

    def speak(self, turn: TurnResult, kind: str, text: str, key: str) -> None:
        """falai.silence.stamp: every assistant message stamps lastAssistantAt."""
        turn.messages.append({"kind": kind, "text": text, "key": key})
        turn.spoke = True
        self.session.last_assistant_at = self.clock.now_ms()
        self.session.history.append({"role": "assistant", "text": text, "key": key})

    def pending_fields(self, run: Run) -> list[str]:
        flow = self.flows[run.flow_id]
        if run.step >= len(flow.steps):
            return []
        return fields_to_ask(flow.steps[run.step].collect or [], self.session.data)

    def _talk(self, run: Run, step: FlowStep, turn: TurnResult, *, new_message: bool) -> bool:
        """A talk step: True when the run stops to wait for the customer's answer."""
        pending = fields_to_ask(step.collect or [], self.session.data)
        if step.collect and not pending:
            return False  # falai.repeat.known-fields-skipped
        self.take_floor(run)
        asks = [self.setup.fields[name].ask or name for name in pending if name in self.setup.fields]
        request = {
            "persona": self.setup.name,
            "runId": run.run_id,
            "flowId": run.flow_id,
            "stepId": step.id,
            "prompt": render(step.prompt, self.scope(run.input)) if step.prompt else None,
            "collect": pending,
            "asks": asks,
            "newMessage": new_message,
        }
        entry = self.provider.complete(request, purpose="talk")
        turn.llm_calls += 1
        self.speak(turn, "talk", entry.text, f"{run.run_id}:{step.id}")
        return bool(pending)

    def _act(self, run: Run, step: FlowStep, turn: TurnResult) -> None:
        assert step.do is not None
        action = self.setup.actions.get(step.do)
        params = render_all(step.with_ or {}, self.scope(run.input))
        self.recorder.emit("action", name=step.do, runId=run.run_id, params=params, known=action is not None)
        if action is not None and action.spoke:
            turn.spoke = True
            self.session.last_assistant_at = self.clock.now_ms()

    def _park_on_wait(self, run: Run, step: FlowStep, turn: TurnResult) -> None:
        assert step.wait is not None
        at = timers.adjust(
            self.clock.now_ms() + parse_duration_ms(step.wait), self.setup.business_hours, step.business_hours
        )
        run.status = "waiting"
        run.wake_key = timers.step_wake_key(run.run_id, step.id, at)
        run.wait_else = step.else_
        turn.schedule.append({"key": run.wake_key, "at": at})


def trigger_policy(kind: repeat.TriggerKind, trigger: Trigger | None) -> repeat.Policy:
    """The trigger's declared ``repeat``, or its kind's default (falai.repeat.defaults)."""
    if trigger is None or trigger.repeat is None:
        return repeat.policy_for(kind, None)
    if isinstance(trigger.repeat, str):
        return repeat.policy_for(kind, trigger.repeat)
    return repeat.policy_for(kind, {"cooldown": trigger.repeat.cooldown})


def premise_condition(flow: Flow, trigger_index: int | None) -> Condition | None:
    """falai.if.default-while, falai.if.while-override: the flow's ``while``, else its trigger's ``if``."""
    if flow.while_ is not None:
        return flow.while_
    if flow.on is not None and trigger_index is not None:
        return flow.on[trigger_index].if_
    return None


def fields_to_ask(collect: list[str], data: dict[str, Any]) -> list[str]:
    """falai.repeat.known-fields-skipped: a collect step asks only for fields that hold no value yet."""
    return [name for name in collect if name not in data]
