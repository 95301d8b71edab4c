"""Properties of the llmz budget and compaction policies, over generated windows and histories."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from reference.llmz import budget, compaction
from reference.llmz.compaction import Group
from reference.llmz.fit import FitContext, ModelLimits, fit_request

limits = st.integers(min_value=2, max_value=3_000_000)
outputs = st.integers(min_value=1, max_value=200_000)


@given(limit=limits, output_limit=outputs)
def test_reserve_stays_within_floor_ceiling_and_output_limit(limit: int, output_limit: int) -> None:
    """llmz.budget.output-reserve.floor / .ceiling / .model-output-limit."""
    reserve = budget.planned_reserve(limit, output_limit)
    assert reserve <= limit - 1
    assert reserve <= budget.RESERVE_CEILING
    assert reserve <= output_limit
    assert reserve >= min(budget.RESERVE_FLOOR, output_limit, limit - 1)
    if output_limit >= budget.RESERVE_FLOOR and limit > budget.RESERVE_FLOOR:
        assert reserve >= budget.RESERVE_FLOOR


@given(limit=st.integers(min_value=2, max_value=3_000_000), output_limit=outputs)
def test_reserve_always_leaves_room_for_input(limit: int, output_limit: int) -> None:
    """llmz.budget.output-reserve.room-for-input: reserve plus a non-empty input budget fill the window."""
    window = budget.window_for(None, [limit], [output_limit])
    assert window.input_budget >= 1
    assert window.reserve + window.input_budget == window.limit
    assert window.reserve >= min(budget.RESERVE_FLOOR, output_limit, limit - 1)


@st.composite
def histories(draw: st.DrawFn) -> tuple[list[Group], int, int, int]:
    """Groups of generated sizes (some loose messages), a fixed part, a budget and keep_recent."""
    count = draw(st.integers(min_value=0, max_value=12))
    groups = [
        Group(
            ({"n": i},),
            None if draw(st.booleans()) and i % 3 == 0 else f"iteration_{i}",
            draw(st.integers(min_value=1, max_value=800)),
        )
        for i in range(count)
    ]
    return groups, draw(st.integers(0, 600)), draw(st.integers(200, 5000)), draw(st.integers(0, 4))


def _estimate(groups: list[Group], drop: int, fixed: int, cost: int) -> int:
    return fixed + cost + sum(g.tokens for g in groups[drop:])


@settings(max_examples=300)
@given(case=histories(), cost=st.integers(0, 300))
def test_cut_prefers_target_then_recent_iterations_then_fitting(
    case: tuple[list[Group], int, int, int], cost: int
) -> None:
    """llmz.compaction.target-ratio / .keep-recent-iterations / .hard-overflow-keeps-fewer."""
    groups, fixed, input_budget, keep = case
    cut = compaction.choose_cut(
        groups,
        fixed_tokens=fixed,
        summary_cost=cost,
        input_budget=input_budget,
        target_ratio=0.65,
        keep_recent=keep,
    )
    keep_from = compaction.protected_start(groups, keep)
    target = 0.65 * input_budget
    reachable = [d for d in range(1, keep_from + 1) if _estimate(groups, d, fixed, cost) <= target]
    if cut is None:
        fits_somewhere = any(
            _estimate(groups, d, fixed, cost) <= input_budget for d in range(1, len(groups) + 1)
        )
        assert not fits_somewhere or fixed + sum(g.tokens for g in groups) <= input_budget
        return
    assert cut.estimate == _estimate(groups, cut.drop, fixed, cost)
    assert cut.estimate <= input_budget
    if reachable:
        assert cut.drop == reachable[0], "the shortest prefix reaching the target is chosen"
    elif keep_from >= 1 and _estimate(groups, keep_from, fixed, cost) <= input_budget:
        assert cut.drop == keep_from, "recent iterations are kept when the request then fits"


def _iteration(n: int, words: int) -> list[dict[str, Any]]:
    call_id = f"call_{n}"
    return [
        {
            "role": "assistant",
            "content": "",
            "iteration": f"iteration_{n}",
            "toolCalls": [
                {"id": call_id, "name": "run_javascript", "arguments": {"code": f"return step{n}()"}}
            ],
        },
        {
            "role": "tool",
            "toolResultCallId": call_id,
            "iteration": f"iteration_{n}",
            "content": " ".join(f"word{n}x{k}" for k in range(words)),
        },
    ]


@settings(max_examples=60, deadline=None)
@given(
    sizes=st.lists(st.integers(min_value=5, max_value=300), min_size=0, max_size=8),
    current_words=st.integers(min_value=1, max_value=200),
    cap=st.integers(min_value=600, max_value=6000),
    keep=st.integers(min_value=0, max_value=3),
)
def test_fit_never_splits_groups_and_never_drops_current_input(
    sizes: list[int], current_words: int, cap: int, keep: int
) -> None:
    """llmz.compaction.retains and llmz.budget.no-silent-truncation, through fit_request."""
    history = [m for n, words in enumerate(sizes) for m in _iteration(n, words)]
    current = [{"role": "user", "content": " ".join(f"ask{k}" for k in range(current_words))}]
    context = FitContext(
        instructions="Work.",
        tools=[],
        history=history,
        current=current,
        max_tokens=cap,
        models=[ModelLimits(128_000, 16_384)],
        compaction={"keepRecentIterations": keep, "maxSummaryTokens": 64},
        summarize=lambda messages, limit: "short summary",
    )
    before = copy.deepcopy((history, current))
    try:
        result = fit_request(context)
    except Exception as exc:  # in tiny windows these are legitimate outcomes; anything else is a bug
        assert getattr(exc, "code", None) in ("TOKEN_OVERFLOW", "COMPACTION_FAILED"), exc
        assert (history, current) == before, "a failed fit must leave the session's messages untouched"
        return
    assert (history, current) == before, "fit_request proposes a new history; it never edits the old one"
    assert result.messages[-len(current) :] == current
    sent_calls = {c["id"] for m in result.messages for c in m.get("toolCalls", [])}
    for message in result.messages:
        if "toolResultCallId" in message:
            assert message["toolResultCallId"] in sent_calls
    assert result.input_tokens + result.max_output_tokens <= cap
    assert sum(v for k, v in result.context_tokens.items() if k != "total") == result.context_tokens["total"]
