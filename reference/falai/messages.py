"""A customer message turn, in the documented order (falai.routing.*).

1. Replays end the turn at once (falai.triggers.duplicate-input); otherwise the message is recorded.
2. Ingest: a run waiting with ``else`` gets the message first (falai.routing.ingest-first).
3. The situation is gathered and :func:`reference.falai.routing.plan` says what the model must score.
4. One understand call, only if something needs the model: scores, mentions, pending fields.
5. Mentions start beside the conversation; then :func:`reference.falai.routing.decide` settles the floor.
6. If nobody holds the floor and nothing spoke, the idle speaker answers (falai.idle.answers).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from reference.falai import repeat, routing
from reference.falai.definitions import Flow, Idle, OnMention, OnMessage, Trigger
from reference.falai.engine import Engine, trigger_policy
from reference.falai.inputs import Message
from reference.falai.results import Outcome, TurnResult
from reference.falai.session import Run

#: falai.message.scores: the range of a candidate's score, both ends included.
MIN_SCORE = 0
MAX_SCORE = 100

#: Our own wording of the instruction the understand call carries for mentions (falai.mention.conservative).
MENTION_INSTRUCTION = (
    "Answer true for a mention only when this message clearly shows it; when unsure, answer false."
)


@dataclass
class Understanding:
    scores: dict[str, float] = field(default_factory=dict)
    mentions: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Flow id -> extracted values, for every mention the model answered true."""
    fields: dict[str, Any] = field(default_factory=dict)


class MessageTurn:
    def __init__(self, engine: Engine, message: Message) -> None:
        self.engine = engine
        self.policies = engine.policies
        self.session = engine.session
        self.message_id = message.id
        self.text = message.text
        self.turn = TurnResult(input=message)

    def play(self) -> TurnResult:
        if self.policies.is_replay(self.session.seen_messages, self.message_id):
            self.turn.outcomes.append(Outcome("duplicate-input"))
            self.turn.rules.append("falai.triggers.duplicate-input")
            self.turn.changed = False
            return self.turn
        self.session.seen_messages.append(self.message_id)
        self.session.history.append({"role": "customer", "text": self.text, "id": self.message_id})
        self.session.last_customer_at = self.engine.clock.now_ms()
        if self.policies.understand_on_ingest and self.policies.ingesting_run(self.session.runs) is not None:
            self._understand_unrouted()
        if self._ingest():
            return self.turn
        asking = self._asking_run()
        situation = self._situation(asking)
        plan = self.policies.plan(situation)
        judged, detectors = self._mention_flows()
        pending = self.engine.pending_fields(asking) if asking is not None else []
        answer = Understanding()
        if plan.candidates or judged or pending:
            answer = self._understand(plan.candidates, judged, pending)
        decision = self.policies.decide(situation, plan, answer.scores, self.policies)
        self._mentions(judged, detectors, answer)
        if decision.rule:
            self.turn.rules.append(decision.rule)
        self._apply(decision, asking, answer)
        if self.policies.idle_turn(self.session.floor, self.turn.spoke):
            self._idle()
        return self.turn

    def _understand_unrouted(self) -> None:
        """The other reading of falai.routing.ingest-first's open question: the turn's understand call is
        made as on any message, before the waiting run takes the message; its answer routes nothing."""
        asking = self._asking_run()
        plan = self.policies.plan(self._situation(asking))
        judged, _ = self._mention_flows()
        pending = self.engine.pending_fields(asking) if asking is not None else []
        self._understand(plan.candidates, judged, pending)

    # -- gathering ------------------------------------------------------------------------------------
    def _ingest(self) -> bool:
        """falai.routing.ingest-first: True when a waiting run took the message and routing is skipped."""
        run = self.policies.ingesting_run(self.session.runs)
        if run is None:
            return False
        self.turn.rules.append("falai.routing.ingest-first")
        run.wake_key = None
        if run.wait_else == "end":
            self.engine.end(run, "customer-replied", self.turn)
            return False
        steps = [step.id for step in self.engine.flows[run.flow_id].steps]
        if run.wait_else not in steps:
            raise ValueError(f"flow {run.flow_id}: wait else {run.wait_else!r} names no step of the flow")
        run.step = steps.index(run.wait_else)
        self.engine.take_floor(run)
        self.engine.advance(run, self.turn, new_message=True)
        return True

    def _asking_run(self) -> Run | None:
        holder = self.session.run(self.session.floor)
        return holder if holder is not None and holder.status == "active" else None

    def _passes(self, flow: Flow, trigger: Trigger, kind: repeat.TriggerKind) -> bool:
        """The trigger's ``if`` holds and its ``repeat`` still allows a start (repeat only, not liveness)."""
        return self.engine.holds(trigger.if_) and self._repeat_allows(flow, trigger, kind)

    def _repeat_allows(self, flow: Flow, trigger: Trigger, kind: repeat.TriggerKind) -> bool:
        policy = trigger_policy(kind, trigger)
        return self.engine.repeat_verdict(flow, policy, self.message_id) is None

    def _first(self, flow: Flow, kind: Literal["message", "mention"], phrases: bool) -> int | None:
        """Index of the flow's first trigger of ``kind`` (with or without phrases) that passes its gates."""
        wanted = OnMessage if kind == "message" else OnMention
        for index, trigger in enumerate(flow.on):
            listed = isinstance(trigger, wanted) and bool(trigger.phrases) == phrases
            if listed and self._passes(flow, trigger, kind):
                return index
        return None

    def _situation(self, asking: Run | None) -> routing.Situation:
        flows = self.engine.setup.flows
        return routing.Situation(
            eligible=tuple(f.id for f in flows if self._first(f, "message", True) is not None),
            catch_alls=tuple(f.id for f in flows if self._first(f, "message", False) is not None),
            asking=asking.flow_id if asking is not None else None,
            suspended=tuple(r.flow_id for r in self.session.runs if r.status == "suspended"),
            idle_silent=self.engine.setup.idle == "silent",
            order=tuple(f.id for f in flows),
            never_scored=tuple(f.id for f in flows if any(is_catch_all(t) for t in f.on)),
        )

    def _mention_flows(self) -> tuple[list[Flow], list[Flow]]:
        """Model-judged mentions still allowed by repeat, and code-only ``mention: []`` detectors."""
        judged: list[Flow] = []
        detectors: list[Flow] = []
        for flow in self.engine.setup.flows:
            triggers = [t for t in flow.on if isinstance(t, OnMention)]
            if any(not t.phrases for t in triggers):
                detectors.append(flow)
            elif triggers and self._repeat_allows(flow, triggers[0], "mention"):
                judged.append(flow)  # falai.mention.repeat-default: a spent mention is left out
        return judged, detectors

    # -- the understand call --------------------------------------------------------------------------
    def _understand(
        self, candidates: tuple[str, ...], judged: list[Flow], pending: list[str]
    ) -> Understanding:
        """falai.triggers.judged-by: the turn's one judging call. The catch-all is never a candidate."""
        flows = self.engine.flows
        request = {
            "message": self.text,
            "candidates": [_candidate(flows[flow_id]) for flow_id in candidates],
            "mentions": [_mention(flow) for flow in judged],
            "fields": pending,
            "instructions": MENTION_INSTRUCTION if judged else None,
        }
        entry = self.engine.provider.complete(request, purpose="understand")
        calls = self.engine.provider.calls
        return self.policies.parse_understanding(entry.json_data or {}, candidates, calls)

    # -- acting ---------------------------------------------------------------------------------------
    def _mentions(self, judged: list[Flow], detectors: list[Flow], answer: Understanding) -> None:
        """Mention runs start beside the conversation (falai.mention.beside)."""
        for flow in self.engine.setup.flows:
            if flow in detectors:
                index = next(i for i, t in enumerate(flow.on) if isinstance(t, OnMention) and not t.phrases)
                if self.engine.holds(flow.on[index].if_):
                    self._start_beside(flow, index, {})  # falai.mention.detector.*
            elif flow in judged and flow.id in answer.mentions:
                index = next(i for i, t in enumerate(flow.on) if isinstance(t, OnMention) and t.phrases)
                extract = answer.mentions[flow.id]
                if self.engine.holds(flow.on[index].if_, extract):
                    self._start_beside(flow, index, extract)

    def _start_beside(self, flow: Flow, index: int, input_: dict[str, Any]) -> None:
        run = self.engine.start(flow, index, "mention", input_, self.message_id, self.turn)
        if run is not None:
            self.engine.advance(run, self.turn, new_message=True)

    def _apply(self, decision: routing.Decision, asking: Run | None, answer: Understanding) -> None:
        if decision.kind == "keep" and asking is not None:
            self._keep(asking, answer)
        elif decision.kind == "takeover" and decision.flow_id is not None:
            resumed = next(
                (r for r in self.session.runs if r.flow_id == decision.flow_id and r.status == "suspended"),
                None,
            )
            if resumed is not None:
                self.engine.take_floor(resumed)
                self.engine.advance(resumed, self.turn, new_message=True)
            elif not self._start_message_run(decision.flow_id) and asking is not None:
                self._keep(asking, answer)  # the winner could not start: the asking run still answers
        elif decision.kind == "start" and decision.flow_id is not None:
            self._start_message_run(decision.flow_id)
        elif decision.kind == "catch-all" and decision.flow_id is not None:
            if not self.turn.spoke:
                self._start_message_run(decision.flow_id)
            elif self.policies.catch_all_after_mention_reply == "holds-floor":
                self._hold_floor_quietly(decision.flow_id)
            # else: a fallback does not start when a mention already answered (falai.message.catch-all.when)

    def _hold_floor_quietly(self, flow_id: str) -> None:
        """The other reading of falai.mention.say-do-one-call's open question: after a mention's ``say``
        answered, the catch-all still starts and takes the floor, but keeps quiet this turn."""
        flow = self.engine.flows[flow_id]
        index = self._first(flow, "message", False)
        run = self.engine.start(flow, index, "message", {}, self.message_id, self.turn)
        if run is not None:
            self.engine.take_floor(run)
            self.turn.outcomes.append(Outcome("another-reply", run.run_id))

    def _keep(self, asking: Run, answer: Understanding) -> None:
        """falai.routing.keep-floor; falai.mention.say-answers when a mention already replied."""
        if self.session.floor != asking.run_id:
            return  # a mention's talk step took the floor (falai.mention.talk-takes-floor)
        if self.policies.another_reply(self.turn.spoke):
            self.turn.outcomes.append(Outcome("another-reply", asking.run_id))
            self.turn.rules.append("falai.mention.say-answers")
            return
        for name in self.engine.pending_fields(asking):
            if name in answer.fields:
                self.session.data[name] = answer.fields[name]
        self.engine.advance(asking, self.turn, new_message=True)

    def _start_message_run(self, flow_id: str) -> bool:
        """falai.triggers.run-id.message, falai.message.holds-floor"""
        flow = self.engine.flows[flow_id]
        index = self._first(flow, "message", True)
        if index is None:
            index = self._first(flow, "message", False)
        run = self.engine.start(flow, index, "message", {}, self.message_id, self.turn)
        if run is None:
            return False
        self.engine.take_floor(run)
        self.engine.advance(run, self.turn, new_message=True)
        return True

    def _idle(self) -> None:
        """falai.idle.*: the idle speaker, unless it is silent (no call, no message; input already kept)."""
        idle = self.engine.setup.idle
        if not self.policies.idle_speaks(idle):
            self.turn.rules.append("falai.idle.silent")
            return
        options = idle if isinstance(idle, Idle) else Idle()  # falai.idle.default: no guideline
        request = {
            "persona": self.engine.setup.name,
            "message": self.text,
            "prompt": options.prompt,
            "tools": list(options.tools),
            "instructions": list(options.instructions),
        }
        entry = self.engine.provider.complete(request, purpose="idle")
        key = f"idle:{self.message_id}"
        self.engine.speak(self.turn, "idle", entry.text, key)
        self.turn.outcomes.append(Outcome("idle", key=key, kind="idle"))
        self.turn.rules.append("falai.idle.answers")


def is_replay(seen: Sequence[str], message_id: str) -> bool:
    """falai.triggers.duplicate-input: a message id the session already took in is a replay."""
    return message_id in seen


def idle_turn(floor: str | None, something_spoke: bool) -> bool:
    """falai.idle.answers: the idle speaker's turn comes when nobody holds the floor and nobody spoke."""
    return floor is None and not something_spoke


def another_reply(mention_spoke: bool) -> bool:
    """falai.mention.say-answers: once a mention replied, the asking run keeps quiet this turn."""
    return mention_spoke


def ingesting_run(runs: Sequence[Run]) -> Run | None:
    """falai.routing.ingest-first: a run waiting with ``else`` gets the customer's message first."""
    return next((r for r in runs if r.status == "waiting" and r.wait_else is not None), None)


def is_catch_all(trigger: Trigger) -> bool:
    """falai.message.catch-all.never-scored: a message trigger with no phrases."""
    return isinstance(trigger, OnMessage) and not trigger.phrases


def idle_speaks(idle: Literal["silent"] | Idle | None) -> bool:
    """falai.idle.silent, falai.idle.default: only 'silent' mutes the idle speaker."""
    return idle != "silent"


def _candidate(flow: Flow) -> dict[str, Any]:
    """falai.message.model-reads: phrases, name and description."""
    phrases = next((t.phrases for t in flow.on if isinstance(t, OnMessage) and t.phrases), [])
    return {"flowId": flow.id, "name": flow.name, "description": flow.description, "phrases": list(phrases)}


def _mention(flow: Flow) -> dict[str, Any]:
    trigger = next(t for t in flow.on if isinstance(t, OnMention) and t.phrases)
    return {
        "flowId": flow.id,
        "name": flow.name,
        "phrases": list(trigger.phrases),
        "extract": sorted(trigger.extract),
    }


def parse_understanding(data: dict[str, Any], candidates: tuple[str, ...], call: int) -> Understanding:
    """Validate the scripted answer; a bad answer names the call and the field."""
    scores: dict[str, float] = {}
    for flow_id, score in (data.get("scores") or {}).items():
        number = isinstance(score, int | float) and not isinstance(score, bool)
        if not number or not MIN_SCORE <= score <= MAX_SCORE:
            raise ValueError(
                f"understand call {call}: json.scores.{flow_id} must be a number from {MIN_SCORE} to "
                f"{MAX_SCORE}, "
                f"got {score!r} (falai.message.scores)"
            )
        if flow_id in candidates:
            scores[flow_id] = score
    mentions: dict[str, dict[str, Any]] = {}
    for flow_id, said in (data.get("mentions") or {}).items():
        if isinstance(said, dict):
            mentions[flow_id] = dict(said)
        elif said is True:
            mentions[flow_id] = {}
        elif said is not False:
            raise ValueError(
                f"understand call {call}: json.mentions.{flow_id} must be true, false or an object "
                f"of extracted values, got {said!r}"
            )
    return Understanding(scores, mentions, dict(data.get("fields") or {}))
