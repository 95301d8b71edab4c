"""Properties of the pure routing decision (reference/falai/routing.py) under the default policies."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from reference.falai import routing
from reference.falai.policies import DEFAULT_POLICIES
from reference.falai.routing import Decision, Plan, Situation, plan

FLOWS = ["a", "b", "c", "d", "e"]


def decide(situation: Situation, the_plan: Plan, scores: dict[str, int]) -> Decision:
    return routing.decide(situation, the_plan, scores, DEFAULT_POLICIES)


scores_st = st.dictionaries(st.sampled_from(FLOWS), st.integers(min_value=0, max_value=100))


@st.composite
def situations(draw: st.DrawFn) -> Situation:
    flows = draw(st.permutations(FLOWS))
    catch_all_pool = draw(st.lists(st.sampled_from(flows), unique=True, max_size=2))
    rest = [f for f in flows if f not in catch_all_pool]
    eligible = draw(st.lists(st.sampled_from(rest), unique=True)) if rest else []
    asking = draw(st.none() | st.sampled_from(flows))
    catch_alls = draw(st.lists(st.sampled_from(catch_all_pool), unique=True)) if catch_all_pool else []
    return Situation(
        eligible=tuple(f for f in flows if f in eligible),
        catch_alls=tuple(f for f in flows if f in catch_alls),
        asking=asking,
        idle_silent=draw(st.booleans()),
        order=tuple(flows),
        never_scored=tuple(catch_all_pool),
    )


@given(situations())
def test_catch_alls_are_never_scored(situation: Situation) -> None:
    """falai.message.catch-all.never-scored"""
    assert not set(plan(situation).candidates) & set(situation.never_scored)


@given(situations())
def test_the_asking_flow_is_scored(situation: Situation) -> None:
    """falai.routing.asking-scored"""
    if situation.asking is not None and situation.asking not in situation.never_scored:
        assert situation.asking in plan(situation).candidates


@given(situations())
def test_lone_candidate_unscored_exactly_when_nobody_else_could_answer(situation: Situation) -> None:
    """falai.routing.lone-candidate-unscored, falai.routing.lone-candidate-scored"""
    the_plan = plan(situation)
    nobody_else = (
        situation.asking is None
        and len(situation.eligible) == 1
        and not situation.catch_alls
        and situation.idle_silent
    )
    assert (the_plan.unscored_start is not None) == nobody_else
    if nobody_else:
        assert the_plan.candidates == ()
    else:
        assert set(situation.eligible) <= set(the_plan.candidates)


@given(situations(), scores_st)
def test_free_floor_goes_to_a_score_of_40_or_the_first_catch_all(
    situation: Situation, scores: dict[str, int]
) -> None:
    """falai.routing.new-flow-min-score, falai.routing.catch-all-fallback, falai.routing.nobody"""
    if situation.asking is not None:
        return
    the_plan = plan(situation)
    decision = decide(situation, the_plan, scores)
    if the_plan.unscored_start is not None:
        assert decision.kind == "start" and decision.flow_id == the_plan.unscored_start
        return
    top = max((scores.get(f, 0) for f in the_plan.candidates), default=None)
    if top is not None and top >= routing.NEW_FLOW_MIN_SCORE:
        assert decision.kind == "start"
        assert decision.flow_id is not None and scores.get(decision.flow_id, 0) == top
        first_best = next(f for f in the_plan.candidates if scores.get(f, 0) == top)
        assert decision.flow_id == first_best
    elif situation.catch_alls:
        assert (decision.kind, decision.flow_id) == ("catch-all", situation.catch_alls[0])
    else:
        assert decision.kind == "none"


@given(situations(), scores_st)
def test_takeover_needs_the_margin_and_40(situation: Situation, scores: dict[str, int]) -> None:
    """falai.routing.takeover.margin, falai.routing.takeover.min-score, falai.routing.keep-floor"""
    if situation.asking is None:
        return
    the_plan = plan(situation)
    decision = decide(situation, the_plan, scores)
    asking_score = scores.get(situation.asking, 0) if situation.asking in the_plan.candidates else 0
    challengers = [f for f in the_plan.candidates if f != situation.asking]
    can_win = [
        f
        for f in challengers
        if scores.get(f, 0) >= asking_score + routing.TAKEOVER_MARGIN
        and scores.get(f, 0) >= routing.NEW_FLOW_MIN_SCORE
    ]
    if can_win:
        assert decision.kind == "takeover" and decision.flow_id in can_win
    else:
        assert (decision.kind, decision.flow_id) == ("keep", situation.asking)


@given(situations(), scores_st, st.sampled_from(FLOWS), st.integers(min_value=1, max_value=100))
def test_raising_the_winners_score_keeps_it_winning(
    situation: Situation, scores: dict[str, int], _unused: str, bump: int
) -> None:
    """Monotonicity: a flow that wins keeps winning when only its own score rises."""
    the_plan = plan(situation)
    decision = decide(situation, the_plan, scores)
    if decision.kind not in ("start", "takeover") or decision.flow_id is None:
        return
    raised = {**scores, decision.flow_id: min(100, scores.get(decision.flow_id, 0) + bump)}
    again = decide(situation, the_plan, raised)
    assert (again.kind, again.flow_id) == (decision.kind, decision.flow_id)


def test_boundaries() -> None:
    """The exact edges of both thresholds."""
    free = Situation(eligible=("x",), order=("x",))
    assert decide(free, plan(free), {"x": 39}).kind == "none"
    assert decide(free, plan(free), {"x": 40}).kind == "start"
    held = Situation(eligible=("y",), asking="x", order=("x", "y"))
    assert decide(held, plan(held), {"x": 50, "y": 64}).kind == "keep"
    assert decide(held, plan(held), {"x": 50, "y": 65}).kind == "takeover"
    assert decide(held, plan(held), {"x": 20, "y": 35}).kind == "keep"
    assert routing.NEW_FLOW_MIN_SCORE == 40 and routing.TAKEOVER_MARGIN == 15
    assert (DEFAULT_POLICIES.new_flow_min_score, DEFAULT_POLICIES.takeover_margin) == (40, 15)
