"""Who gets a customer message: the routing decision as a pure function.

Theory of operation. A message turn routes in two halves around the understand call:

1. :func:`plan` looks at the situation (eligible scored flows, eligible catch-alls, the asking run's flow,
   flows with a suspended run, the idle mode) and says which flows the model must score and whether a
   lone candidate starts without a score (falai.routing.lone-candidate-unscored). The catch-all is never
   among the scored flows (falai.message.catch-all.never-scored).
2. The shell makes the understand call if anything needs the model, then :func:`decide` turns the scores
   into one :class:`Decision`: the asking run keeps the floor, another flow takes it over, a new flow
   starts, the first catch-all starts, or nobody takes the floor and the idle speaker may answer.

Both thresholds live here and nowhere else (falai.routing.constants); the runtime reads them, and the
functions here, through its :class:`reference.falai.policies.Policies`, which is how another choice (a
permitted variant) or a broken one (a mutant) is handed in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from reference.falai.policies import Policies

#: falai.routing.new-flow-min-score, falai.routing.takeover.min-score: the least score that wins a message.
NEW_FLOW_MIN_SCORE = 40
#: falai.routing.takeover.margin: how far a challenger must lead the asking flow to take the floor.
TAKEOVER_MARGIN = 15


@dataclass(frozen=True)
class Situation:
    """What routing needs to know about the session when a message arrives.

    ``eligible``: message flows with phrases whose ``if`` and ``repeat`` pass, in agent order
    (falai.routing.eligible). ``catch_alls``: ``message: []`` flows that pass ``if`` and ``repeat``, in
    agent order. ``never_scored``: every catch-all flow. ``asking``: the flow of the run holding the
    floor, if any. ``suspended``: flows that have a suspended run. ``idle_silent``: ``idle: 'silent'``.
    ``order``: every flow id in agent order.
    """

    eligible: tuple[str, ...]
    catch_alls: tuple[str, ...] = ()
    asking: str | None = None
    suspended: tuple[str, ...] = ()
    idle_silent: bool = False
    order: tuple[str, ...] = ()
    never_scored: tuple[str, ...] = ()
    """Every catch-all flow, eligible or not: an asking catch-all run is not scored and counts as 0."""


@dataclass(frozen=True)
class Plan:
    """Which flows the understand call must score, and a flow that starts with no score at all."""

    candidates: tuple[str, ...]
    unscored_start: str | None = None


@dataclass(frozen=True)
class Decision:
    kind: Literal["keep", "takeover", "start", "catch-all", "none"]
    flow_id: str | None = None
    rule: str = ""
    """The rule id that settled the message, for traceability in the reference's own tests."""


def _in_order(flows: set[str], situation: Situation) -> tuple[str, ...]:
    order = situation.order or (*situation.eligible, *situation.suspended, *filter(None, [situation.asking]))
    seen: list[str] = []
    for flow in order:
        if flow in flows and flow not in seen:
            seen.append(flow)
    return tuple(seen)


def plan(situation: Situation) -> Plan:
    """falai.routing.asking-scored, falai.routing.lone-candidate-scored,
    falai.routing.lone-candidate-unscored.

    A lone candidate is scored like any other, unless nobody else could answer the customer (no floor,
    no catch-all, idle silent): then a low score would leave the message unanswered, so it starts unscored.
    """
    if (
        situation.asking is None
        and len(situation.eligible) == 1
        and not situation.catch_alls
        and situation.idle_silent
    ):
        return Plan(candidates=(), unscored_start=situation.eligible[0])
    flows = set(situation.eligible)
    if situation.asking is not None:
        flows.add(situation.asking)
        flows.update(situation.suspended)
    flows.difference_update(situation.never_scored)  # falai.message.catch-all.never-scored
    return Plan(candidates=_in_order(flows, situation))


def best(scores: Mapping[str, float], flows: Sequence[str]) -> tuple[str, float] | None:
    """The highest score among ``flows``; ties go to the earlier flow (agent order)."""
    winner: tuple[str, float] | None = None
    for flow in flows:
        score = scores.get(flow, 0)
        if winner is None or score > winner[1]:
            winner = (flow, score)
    return winner


def takes_over(challenger: float, asking: float, policies: Policies) -> bool:
    """falai.routing.takeover.margin and falai.routing.takeover.min-score: both must hold."""
    return (
        challenger >= asking + policies.takeover_margin and challenger >= policies.new_flow_min_score
    )


def wins_free_floor(score: float, policies: Policies) -> bool:
    """falai.routing.new-flow-min-score: with no floor, the best score needs at least 40."""
    return score >= policies.new_flow_min_score


def decide(situation: Situation, the_plan: Plan, scores: Mapping[str, float], policies: Policies) -> Decision:
    """Turn scores into who takes the message (falai.routing.* steps 3 to 6)."""
    if the_plan.unscored_start is not None:
        return Decision("start", the_plan.unscored_start, "falai.routing.lone-candidate-unscored")
    if situation.asking is not None:
        challengers = [f for f in the_plan.candidates if f != situation.asking]
        top = policies.best(scores, challengers)
        # An asking catch-all is never scored (falai.message.catch-all.never-scored): it counts as 0.
        asking_score = scores.get(situation.asking, 0) if situation.asking in the_plan.candidates else 0
        if top is not None and policies.takes_over(top[1], asking_score, policies):
            return Decision("takeover", top[0], "falai.routing.takeover.margin")
        return Decision("keep", situation.asking, "falai.routing.keep-floor")
    top = policies.best(scores, the_plan.candidates)
    if top is not None and wins_free_floor(top[1], policies):
        return Decision("start", top[0], "falai.routing.new-flow-min-score")
    if situation.catch_alls:
        return Decision("catch-all", situation.catch_alls[0], "falai.routing.catch-all-fallback")
    return Decision("none", None, "falai.routing.nobody")
