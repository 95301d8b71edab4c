"""Deliberately broken falai references, each flipping one rule (see reference.mutants)."""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager
from unittest import mock

from reference.falai import repeat, routing
from reference.falai.repeat import Policy
from reference.falai.routing import Plan, Situation
from reference.mutants import Mutant

_ROUTING = "reference.falai.routing"
_real_plan = routing.plan
_real_verdict = repeat.verdict


def _const(name: str, value: int) -> AbstractContextManager[object]:
    return mock.patch(f"{_ROUTING}.{name}", value)


def _plan_scoring_catch_alls(situation: Situation) -> Plan:
    """Offers every catch-all to the model as if it had phrases."""
    plain = _real_plan(situation)
    extra = tuple(f for f in situation.never_scored if f not in plain.candidates)
    return Plan(candidates=plain.candidates + extra, unscored_start=plain.unscored_start)


def _plan_always_scoring(situation: Situation) -> Plan:
    """Never lets a lone candidate start unscored."""
    return _real_plan(Situation(**{**situation.__dict__, "idle_silent": False}))


def _verdict_ignoring_once(
    claims: Mapping[str, int], flow_id: str, anchor: str, policy: Policy, trigger_key: str, now_ms: int
) -> str | None:
    """Lets a 'once' trigger start again and again."""
    if policy.mode == "once":
        return None
    return _real_verdict(claims, flow_id, anchor, policy, trigger_key, now_ms)


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
        patch=lambda: mock.patch("reference.falai.repeat.verdict", _verdict_ignoring_once),
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
]
