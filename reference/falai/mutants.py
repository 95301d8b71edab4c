"""Deliberately broken falai references, each flipping one rule (see reference.mutants).

Each patch replaces one module-level policy (a constant or a small pure function) that the reference looks
up at call time, so the reference code stays clean and the mutant breaks exactly one decision.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager, ExitStack
from typing import Any
from unittest import mock

from reference.falai import messages, repeat, routing
from reference.falai.repeat import Policy
from reference.falai.routing import Plan, Situation
from reference.mutants import Mutant

_ROUTING = "reference.falai.routing"
_real_plan = routing.plan
_real_verdict = repeat.verdict
_real_decide = routing.decide
_real_parse = messages._parse_understanding


def _const(name: str, value: int) -> AbstractContextManager[object]:
    return mock.patch(f"{_ROUTING}.{name}", value)


def _everywhere(name: str, new: object, modules: tuple[str, ...]) -> AbstractContextManager[object]:
    """Patch a helper in every module that imported it by name."""
    stack = ExitStack()
    for module in modules:
        stack.enter_context(mock.patch(f"reference.falai.{module}.{name}", new))
    return stack


def _decide_catch_all_over_floor(situation: Situation, the_plan: Plan, scores: Any) -> routing.Decision:
    """Starts the catch-all even while a run holds the floor."""
    decision = _real_decide(situation, the_plan, scores)
    if decision.kind == "keep" and situation.catch_alls:
        return routing.Decision("catch-all", situation.catch_alls[0])
    return decision


def _plan_lone_always_unscored(situation: Situation) -> Plan:
    """Starts a lone candidate unscored even when the idle speaker could answer."""
    return _real_plan(Situation(**{**situation.__dict__, "idle_silent": True}))


def _verdict_variant(skip_modes: tuple[str, ...]) -> Any:
    """A repeat verdict that never skips triggers whose policy is one of ``skip_modes``."""

    def verdict(
        claims: Mapping[str, int], flow_id: str, anchor: str, policy: Policy, trigger_key: str, now_ms: int
    ) -> str | None:
        if policy.mode in skip_modes:
            return None
        return _real_verdict(claims, flow_id, anchor, policy, trigger_key, now_ms)

    return verdict


def _parse_without_extract(data: dict[str, Any], candidates: tuple[str, ...], call: int) -> Any:
    """Forgets the values extracted for true mentions."""
    understanding = _real_parse(data, candidates, call)
    understanding.mentions = {flow: {} for flow in understanding.mentions}
    return understanding


def _plan_scoring_catch_alls(situation: Situation) -> Plan:
    """Offers every catch-all to the model as if it had phrases."""
    plain = _real_plan(situation)
    extra = tuple(f for f in situation.never_scored if f not in plain.candidates)
    return Plan(candidates=plain.candidates + extra, unscored_start=plain.unscored_start)


def _plan_always_scoring(situation: Situation) -> Plan:
    """Never lets a lone candidate start unscored."""
    return _real_plan(Situation(**{**situation.__dict__, "idle_silent": False}))


MUTANTS: list[Mutant] = [
    Mutant(
        "falai-new-flow-min-39",
        rules=("falai.routing.new-flow-min-score",),
        patch=lambda: _const("NEW_FLOW_MIN_SCORE", 39),
        description="a new flow wins from 39 instead of 40",
    ),
    Mutant(
        "falai-new-flow-min-41",
        rules=("falai.routing.new-flow-min-score",),
        patch=lambda: _const("NEW_FLOW_MIN_SCORE", 41),
        description="a new flow needs 41 instead of 40",
    ),
    Mutant(
        "falai-takeover-margin-14",
        rules=("falai.routing.takeover.margin",),
        patch=lambda: _const("TAKEOVER_MARGIN", 14),
        description="a lead of 14 takes the floor",
    ),
    Mutant(
        "falai-takeover-margin-16",
        rules=("falai.routing.takeover.margin",),
        patch=lambda: _const("TAKEOVER_MARGIN", 16),
        description="a lead of 15 no longer takes the floor",
    ),
    Mutant(
        "falai-catch-all-scored",
        rules=("falai.message.catch-all.never-scored",),
        patch=lambda: mock.patch(f"{_ROUTING}.plan", _plan_scoring_catch_alls),
        description="catch-all flows are sent to the understand call as candidates",
    ),
    Mutant(
        "falai-lone-candidate-always-scored",
        rules=("falai.routing.lone-candidate-unscored", "falai.routing.lone-candidate-no-call"),
        patch=lambda: mock.patch(f"{_ROUTING}.plan", _plan_always_scoring),
        description="a lone candidate is scored even when nobody else could answer",
    ),
    Mutant(
        "falai-replay-not-detected",
        rules=("falai.triggers.duplicate-input",),
        patch=lambda: mock.patch("reference.falai.messages.is_replay", lambda seen, message_id: False),
        description="a replayed message id is played again",
    ),
    Mutant(
        "falai-silence-never-broken",
        rules=("falai.silence.honoured-only-while",),
        patch=lambda: mock.patch("reference.falai.timers.silence_still_holds", lambda *args: True),
        description="every silence wake is honoured, however stale",
    ),
    Mutant(
        "falai-idle-silent-speaks",
        rules=("falai.idle.silent",),
        patch=lambda: mock.patch("reference.falai.messages.idle_speaks", lambda idle: True),
        description="idle: 'silent' still answers",
    ),
    Mutant(
        "falai-repeat-once-ignored",
        rules=("falai.repeat.once", "falai.message.repeat-default", "falai.mention.detector.already-claimed"),
        patch=lambda: mock.patch("reference.falai.repeat.verdict", _verdict_variant(("once",))),
        description="a 'once' trigger is never spent",
    ),
    Mutant(
        "falai-live-runs-ignored",
        rules=("falai.live.one-per-anchor", "falai.event.already-running", "falai.event.after.replaced"),
        patch=lambda: mock.patch(
            "reference.falai.session.Session.live_run", lambda self, flow_id, anchor: None
        ),
        description="a flow may have any number of live runs per anchor",
    ),
    Mutant(
        "falai-takeover-ignores-min-score",
        rules=("falai.routing.takeover.min-score",),
        patch=lambda: mock.patch(
            f"{_ROUTING}.takes_over", lambda challenger, asking: challenger >= asking + 15
        ),
        description="a 15-point lead takes the floor even below 40",
    ),
    Mutant(
        "falai-catch-all-over-floor",
        rules=("falai.message.catch-all.when",),
        patch=lambda: mock.patch(f"{_ROUTING}.decide", _decide_catch_all_over_floor),
        description="the catch-all starts although a run holds the floor",
    ),
    Mutant(
        "falai-lone-candidate-never-scored",
        rules=("falai.routing.lone-candidate-scored",),
        patch=lambda: mock.patch(f"{_ROUTING}.plan", _plan_lone_always_unscored),
        description="a lone candidate starts unscored whatever the idle speaker",
    ),
    Mutant(
        "falai-if-ignored",
        rules=("falai.if.gate", "falai.if.failed-silent", "falai.routing.eligible", "falai.if.default-while"),
        patch=lambda: _everywhere("holds", lambda condition, scope: True, ("messages", "agent", "engine")),
        description="every if and while holds",
    ),
    Mutant(
        "falai-while-ignored",
        rules=("falai.if.while-override",),
        patch=lambda: mock.patch(
            "reference.falai.engine.premise_condition",
            lambda flow, index: flow.on[index].if_ if flow.on is not None and index is not None else None,
        ),
        description="a flow's while is ignored in favour of its trigger's if",
    ),
    Mutant(
        "falai-idle-never-speaks",
        rules=("falai.idle.answers", "falai.idle.default", "falai.idle.options", "falai.routing.idle-last"),
        patch=lambda: mock.patch("reference.falai.messages.idle_speaks", lambda idle: False),
        description="the idle speaker never answers",
    ),
    Mutant(
        "falai-idle-over-a-reply",
        rules=("falai.idle.answers",),
        patch=lambda: mock.patch("reference.falai.messages.idle_turn", lambda floor, spoke: floor is None),
        description="the idle speaker answers even when something else spoke",
    ),
    Mutant(
        "falai-no-ingest",
        rules=("falai.routing.ingest-first",),
        patch=lambda: mock.patch("reference.falai.messages.MessageTurn._ingest", lambda self: False),
        description="a waiting run never gets the message first",
    ),
    Mutant(
        "falai-start-key-shape",
        rules=("falai.event.after.park",),
        patch=lambda: mock.patch("reference.falai.timers.start_key", lambda run_id, at: f"{run_id}:{at}"),
        description="the after wake key drops ':start'",
    ),
    Mutant(
        "falai-business-hours-ignored",
        rules=("falai.silence.business-hours", "falai.event.business-hours"),
        patch=lambda: mock.patch("reference.falai.timers.adjust", lambda computed, hours, enabled: computed),
        description="businessHours: true moves nothing",
    ),
    Mutant(
        "falai-always-key-ignored",
        rules=("falai.event.same-key", "falai.start.same-key", "falai.repeat.always"),
        patch=lambda: mock.patch("reference.falai.repeat.verdict", _verdict_variant(("always",))),
        description="the same always-key starts a run again",
    ),
    Mutant(
        "falai-cooldown-ignored",
        rules=("falai.repeat.cooldown",),
        patch=lambda: mock.patch("reference.falai.repeat.verdict", _verdict_variant(("cooldown",))),
        description="a cooldown never skips",
    ),
    Mutant(
        "falai-claim-nonce-always",
        rules=("falai.repeat.claim-key",),
        patch=lambda: mock.patch(
            "reference.falai.repeat.claim_key",
            lambda flow_id, anchor, policy, key: f"{flow_id}:{anchor}:{key}",
        ),
        description="every claim carries the trigger key as its nonce",
    ),
    Mutant(
        "falai-known-fields-asked-again",
        rules=("falai.repeat.known-fields-skipped",),
        patch=lambda: mock.patch("reference.falai.engine.fields_to_ask", lambda collect, data: list(collect)),
        description="collect steps ask again for fields already known",
    ),
    Mutant(
        "falai-asking-run-talks-over-mention",
        rules=("falai.mention.say-answers",),
        patch=lambda: mock.patch("reference.falai.messages.another_reply", lambda spoke: False),
        description="the asking run speaks although a mention already replied",
    ),
    Mutant(
        "falai-extract-dropped",
        rules=("falai.mention.extract.input",),
        patch=lambda: mock.patch("reference.falai.messages._parse_understanding", _parse_without_extract),
        description="extracted mention values never reach the run's input",
    ),
    Mutant(
        "falai-templates-unrendered",
        rules=("falai.start.input", "falai.event.payload-input"),
        patch=lambda: _everywhere("render", lambda text, scope: text, ("engine",)),
        description="{{input.x}} placeholders are sent as written",
    ),
    Mutant(
        "falai-host-claims-ignored",
        rules=("falai.repeat.host-claims", "falai.live.anchor-lead"),
        patch=lambda: mock.patch("reference.falai.play._extras", lambda agent, step: None),
        description="turn({ claims, anchors }) are ignored",
    ),
    Mutant(
        "falai-flow-gone-renamed",
        rules=("falai.start.flow-gone",),
        patch=lambda: mock.patch("reference.falai.agent.FLOW_GONE", "already-running"),
        description="an unknown flow is skipped under another (documented) code",
    ),
]


def _silence_key_without_session(flow_id: str, session_id: str, last_assistant_at_ms: int) -> str:
    return f"silence:{flow_id}:{last_assistant_at_ms}"


MUTANTS += [
    Mutant(
        "falai-silence-key-without-session",
        rules=("falai.silence.arm",),
        patch=lambda: mock.patch("reference.falai.timers.silence_key", _silence_key_without_session),
        description="the silence wake key leaves out the session id",
    ),
]
