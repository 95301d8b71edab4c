"""Runs and the floor: starting a run, stepping it, taking and giving back the floor, ending it.

Theory of operation. A run walks its flow's steps in order. ``say`` and ``do`` never stop it; a talk step
(``prompt``/``collect``) speaks with one model call and stops the run while fields it collects are still
missing (the run is then *asking*); a ``wait`` parks it until its wake or a customer message. Before every
step the run's premise (the flow's ``while``, or its trigger's ``if``) is checked again
(falai.if.default-while). The floor is a single run id (falai.message.single-floor); taking it suspends
the holder, and ending the holder resumes the most recently suspended live run
(falai.routing.takeover.effect).

Every decision with a rule behind it is read through ``self.policies`` (:mod:`reference.falai.policies`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from reference.clock import VirtualClock
from reference.falai import repeat, timers
from reference.falai.conditions import Condition, Scope
from reference.falai.definitions import Do, Flow, Say, Setup, Talk, Trigger, Wait, duration_ms
from reference.falai.inputs import HostClaims
from reference.falai.results import Ended, Outcome, Said, Scheduled, Skipped, Started, TurnResult
from reference.falai.session import Run, Session
from reference.providers.protocol import ModelProvider

if TYPE_CHECKING:
    from reference.falai.policies import Policies

Observer = Callable[[str, dict[str, Any]], object]
"""Receives the runtime's events as ``(type, fields)``, e.g. ``('action', {'name': ..., 'params': ...})``."""

#: falai.start.flow-gone: the skip code for a start (or a wake) naming a flow the agent does not have.
FLOW_GONE = "flow-gone"


@dataclass(frozen=True)
class HostView:
    """What the host's ``turn({ claims, anchors })`` adds to the one turn it comes with."""

    held: Mapping[str, int] = field(default_factory=dict)
    active: Sequence[str] = ()
    anchors: Mapping[str, str] = field(default_factory=dict)


def host_view(claims: HostClaims | None, anchors: Mapping[str, str] | None) -> HostView:
    """falai.repeat.host-claims, falai.live.anchor-lead: the host's claims count as this session's own,
    and its anchors name what a ``lead`` flow is tied to, for the turn they are passed with."""
    if claims is None:
        return HostView(anchors=dict(anchors or {}))
    return HostView(dict(claims.held), tuple(claims.active), dict(anchors or {}))


def run_id(flow_id: str, trigger_key: str) -> str:
    """falai.triggers.run-id.message, falai.event.run-id, falai.triggers.retry-same-keys: a run id is
    derived from the flow and the trigger's key alone (message id, event or start key, wake key), so a
    retried turn mints the same one."""
    return f"{flow_id}#{trigger_key}"


def names_event(trigger_event: str, published: str) -> bool:
    """falai.event.registered: an event trigger fires only for the event it names."""
    return trigger_event == published


def anchor_of(flow: Flow, anchors: Mapping[str, str], session_id: str) -> str:
    """falai.live.anchor-default, falai.live.anchor-lead"""
    if flow.anchor == "lead":
        return anchors.get("lead", session_id)
    return session_id


class Engine:
    def __init__(
        self,
        setup: Setup,
        provider: ModelProvider,
        clock: VirtualClock,
        context: Mapping[str, Any],
        policies: Policies,
        observer: Observer | None = None,
    ) -> None:
        self.setup = setup
        self.provider = provider
        self.clock = clock
        self.policies = policies
        self.observer = observer
        self.session = Session(setup.session_id)
        self.flows: dict[str, Flow] = {flow.id: flow for flow in setup.flows}
        self.context: dict[str, Any] = dict(context)
        self.host = HostView()

    # -- scopes and anchors ---------------------------------------------------------------------------
    def scope(self, input_: Mapping[str, Any] | None = None) -> Scope:
        """What an ``if``/``while`` and a template can read (falai.if.sees)."""
        return Scope(self.context, self.session.data, input_ or {}, self.clock.now_ms())

    def holds(self, condition: Condition | None, input_: Mapping[str, Any] | None = None) -> bool:
        """falai.if.gate, through the policies."""
        return self.policies.holds(condition, self.scope(input_))

    def anchor_of(self, flow: Flow) -> str:
        return self.policies.anchor_of(flow, self.host.anchors, self.session.session_id)

    # -- starting -------------------------------------------------------------------------------------
    def repeat_verdict(self, flow: Flow, policy: repeat.Policy, trigger_key: str) -> str | None:
        """The claim ledger's skip code for this trigger (the host's claims count too), or None."""
        anchor = self.anchor_of(flow)
        claims = {**self.host.held, **self.session.claims}
        key = self.policies.claim_key(flow.id, anchor, policy, trigger_key)
        return self.policies.verdict(claims, key, policy, self.clock.now_ms())

    def gate(self, flow: Flow, policy: repeat.Policy, trigger_key: str) -> str | None:
        """The skip code for a start, or None. Repeat first, then one live run per flow and anchor."""
        code = self.repeat_verdict(flow, policy, trigger_key)
        if code is not None:
            return code
        anchor = self.anchor_of(flow)
        if f"{flow.id}:{anchor}" in self.host.active:
            return "already-running"
        live = self.policies.live_run(self.session.runs, flow.id, anchor)
        if live is not None and live.status != "parked":
            return "already-running"
        return None

    def start(
        self,
        flow: Flow,
        trigger_index: int | None,
        kind: repeat.TriggerKind,
        input_: Mapping[str, Any],
        trigger_key: str,
        turn: TurnResult,
    ) -> Run | None:
        """Gate, claim and create a run; a run parked on ``after`` is replaced (falai.live.one-per-anchor)."""
        trigger = flow.on[trigger_index] if trigger_index is not None else None
        policy = trigger_policy(kind, trigger)
        code = self.gate(flow, policy, trigger_key)
        if code is not None:
            turn.skipped.append(Skipped(flow.id, code))
            return None
        anchor = self.anchor_of(flow)
        parked = self.policies.live_run(self.session.runs, flow.id, anchor)
        if parked is not None:
            self.end(parked, "replaced", turn)
        key = self.policies.claim_key(flow.id, anchor, policy, trigger_key)
        self.policies.record_claim(self.session.claims, key, flow.id, anchor, policy, self.clock.now_ms())
        run_id = self.policies.run_id(flow.id, trigger_key)
        run = Run(run_id, flow.id, anchor, trigger_index, dict(input_), self.clock.now_ms())
        self.session.runs.append(run)
        turn.started.append(Started(flow.id, run_id))
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
        turn.ended.append(Ended(run.run_id, run.flow_id, reason))
        if run.run_id in self.session.suspended:
            self.session.suspended.remove(run.run_id)
        if self.session.floor == run.run_id:
            self._give_floor_back()

    def _give_floor_back(self) -> None:
        """The floor goes to the most recently suspended live run, or to nobody."""
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
        return self.holds(self.policies.premise(self.flows[run.flow_id], run.trigger_index), run.input)

    def advance(self, run: Run, turn: TurnResult, *, new_message: bool) -> None:
        """Walk the run's steps until it asks, waits or ends."""
        flow = self.flows[run.flow_id]
        while run.step < len(flow.steps):
            if not self.premise_holds(run):
                turn.outcomes.append(Outcome("premise-changed", run.run_id))
                turn.rules.append("falai.if.default-while")
                self.end(run, "premise-changed", turn)
                return
            step = flow.steps[run.step]
            if isinstance(step, Wait):
                self._park_on_wait(run, step, turn)
                return
            if isinstance(step, Say):
                text = self.policies.render(step.text, self.scope(run.input))
                self.speak(turn, "verbatim", text, f"{run.run_id}:{step.id}")
            elif isinstance(step, Do):
                self._act(run, step, turn)
            elif self._talk(run, step, turn, new_message=new_message):
                return
            run.step += 1
        self.end(run, "completed", turn)

    def speak(self, turn: TurnResult, kind: Literal["verbatim", "talk", "idle"], text: str, key: str) -> None:
        """falai.silence.stamp: every assistant message stamps lastAssistantAt."""
        turn.messages.append(Said(kind, text, key))
        turn.spoke = True
        self.session.last_assistant_at = self.clock.now_ms()
        self.session.history.append({"role": "assistant", "text": text, "key": key})

    def pending_fields(self, run: Run) -> list[str]:
        flow = self.flows[run.flow_id]
        if run.step >= len(flow.steps):
            return []
        step = flow.steps[run.step]
        collect = step.collect if isinstance(step, Talk) else ()
        return self.policies.fields_to_ask(collect, self.session.data)

    def _talk(self, run: Run, step: Talk, turn: TurnResult, *, new_message: bool) -> bool:
        """A talk step: True when the run stops to wait for the customer's answer."""
        pending = self.policies.fields_to_ask(step.collect, self.session.data)
        if step.collect and not pending:
            turn.rules.append("falai.repeat.known-fields-skipped")
            return False
        self.take_floor(run)
        fields = self.setup.fields
        asks = [fields[name].ask or name for name in pending if name in fields]
        prompt = self.policies.render(step.prompt, self.scope(run.input)) if step.prompt else None
        request = {
            "persona": self.setup.name,
            "runId": run.run_id,
            "flowId": run.flow_id,
            "stepId": step.id,
            "prompt": prompt,
            "collect": pending,
            "asks": asks,
            "newMessage": new_message,
        }
        entry = self.provider.complete(request, purpose="talk")
        turn.llm_calls += 1
        self.speak(turn, "talk", entry.text, f"{run.run_id}:{step.id}")
        return bool(pending)

    def _act(self, run: Run, step: Do, turn: TurnResult) -> None:
        """Call the action; a result saying ``spoke: True`` stamps lastAssistantAt (falai.silence.stamp)."""
        action = self.setup.actions.get(step.action)
        params = self.policies.render_params(dict(step.params or {}), self.scope(run.input))
        if self.observer is not None:
            event = {"name": step.action, "runId": run.run_id, "params": params, "known": action is not None}
            self.observer("action", event)
        result = action(params) if action is not None else None
        if result is not None and result.get("spoke") is True:
            turn.spoke = self.policies.action_spoke_is_speech
            self.session.last_assistant_at = self.clock.now_ms()

    def _park_on_wait(self, run: Run, step: Wait, turn: TurnResult) -> None:
        computed = self.clock.now_ms() + duration_ms(step.duration)
        at = self.policies.adjust(computed, self.setup.business_hours, step.business_hours)
        run.status = "waiting"
        run.wake_key = timers.step_wake_key(run.run_id, step.id, at)
        run.wait_else = step.else_
        turn.schedule.append(Scheduled(run.wake_key, at))
        if not self.policies.waiting_run_keeps_floor and self.session.floor == run.run_id:
            self._give_floor_back()  # the other reading of falai.silence.fires' open question


def trigger_policy(kind: repeat.TriggerKind, trigger: Trigger | None) -> repeat.Policy:
    """The trigger's declared ``repeat``, or its kind's default (falai.repeat.defaults)."""
    return repeat.policy_for(kind, trigger.repeat if trigger is not None else None)


def premise_condition(flow: Flow, trigger_index: int | None) -> Condition | None:
    """falai.if.default-while, falai.if.while-override: the flow's ``while``, else its trigger's ``if``."""
    if flow.while_ is not None:
        return flow.while_
    if trigger_index is not None:
        return flow.on[trigger_index].if_
    return None


def fields_to_ask(collect: Sequence[str], data: Mapping[str, Any]) -> list[str]:
    """falai.repeat.known-fields-skipped: a collect step asks only for fields that hold no value yet."""
    return [name for name in collect if name not in data]
