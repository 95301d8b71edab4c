"""Deliberately broken token budgets and compaction policies, one flipped rule each.

Each mutant patches one pure function of ``reference.llmz.budget``, ``reference.llmz.compaction`` or
``reference.llmz.fit`` (looked up through the module at call time, so the patch takes effect), and names
the rule ids it breaks. ``tests/test_llmz_budget_mutants.py`` proves the scenarios under
``fixtures/scenarios/llmz/budget`` and ``.../compaction`` catch every one of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import replace
from typing import Any
from unittest import mock

from reference.llmz import budget, compaction, fit
from reference.llmz.compaction import Controls, Cut, Group
from reference.llmz.errors import LlmzError
from reference.mutants import Mutant

_ORIGINAL_CHOOSE_CUT = compaction.choose_cut
_ORIGINAL_CONTROLS_FROM = compaction.controls_from
_ORIGINAL_SETUP = fit._setup
_ORIGINAL_ONE_SUMMARY = fit._one_summary


def _patch(target: str, replacement: Any) -> Callable[[], AbstractContextManager[object]]:
    return lambda: mock.patch(target, replacement)


def _reserve_without_floor(limit: int, output_limit: int) -> int:
    return min(limit // budget.RESERVE_DIVISOR, budget.RESERVE_CEILING, output_limit)


def _reserve_ignoring_model(limit: int, output_limit: int) -> int:
    return min(max(limit // budget.RESERVE_DIVISOR, budget.RESERVE_FLOOR), budget.RESERVE_CEILING)


def _limits_ignoring_cap(
    cap: int | None, input_limits: Sequence[int], output_limits: Sequence[int]
) -> tuple[int, int]:
    return min(input_limits), min(output_limits)


def _limits_of_first_model(
    cap: int | None, input_limits: Sequence[int], output_limits: Sequence[int]
) -> tuple[int, int]:
    limit = input_limits[0] if cap is None else min(cap, input_limits[0])
    return limit, output_limits[0]


def _trigger_at(ratio: float) -> Callable[[int, int, float], bool]:
    def should_compact(input_tokens: int, input_budget: int, trigger_ratio: float) -> bool:
        return compaction.reaches(input_tokens, input_budget, ratio)

    return should_compact


def _cut_never_beyond_recent(groups: Sequence[Group], **kwargs: Any) -> Cut | None:
    """Keeps the recent iterations even when the request then cannot fit."""
    cut = _ORIGINAL_CHOOSE_CUT(groups, **kwargs)
    if cut is not None and cut.drop > compaction.protected_start(groups, kwargs["keep_recent"]):
        return None
    return cut


def _cut_without_target(groups: Sequence[Group], **kwargs: Any) -> Cut | None:
    """Drops only what the budget requires, as if the target were the whole budget."""
    return _ORIGINAL_CHOOSE_CUT(groups, **{**kwargs, "target_ratio": 1.0})


def _reserve_may_fill_window(limit: int, output_limit: int) -> int:
    tenth = limit // budget.RESERVE_DIVISOR
    return min(max(tenth, budget.RESERVE_FLOOR), budget.RESERVE_CEILING, output_limit)


def _output_overflow_as_generation_failure(entry: Any) -> LlmzError:
    return LlmzError("GENERATION_FAILED", "the response was incomplete")


def _summary_last(groups: Sequence[Group], cut: Cut, summary: str) -> list[dict[str, Any]]:
    kept = [dict(m) for group in groups[cut.drop :] for m in group.messages]
    return [*kept, compaction.summary_event(summary)]


def _controls_without_summary_cap(settings: dict[str, Any]) -> Controls:
    return replace(_ORIGINAL_CONTROLS_FROM(settings), max_summary_tokens=budget.RESERVE_CEILING)


def _setup_ignoring_disabled(context: fit.FitContext) -> tuple[budget.Window, Controls | None]:
    window, controls = _ORIGINAL_SETUP(context)
    return window, controls or Controls()


def _summary_failure_swallowed(
    context: fit.FitContext, messages: list[dict[str, Any]], allowance: int
) -> str:
    try:
        return _ORIGINAL_ONE_SUMMARY(context, messages, allowance)
    except fit.CompactionFailedError:
        return "(no summary)"


MUTANTS: list[Mutant] = [
    Mutant(
        "llmz-budget-no-reserve-floor",
        rules=("llmz.budget.output-reserve.floor",),
        patch=_patch("reference.llmz.budget.planned_reserve", _reserve_without_floor),
        description="the output reserve is a bare tenth, without the 256-token floor",
    ),
    Mutant(
        "llmz-budget-reserve-ignores-model-output",
        rules=("llmz.budget.output-reserve.model-output-limit",),
        patch=_patch("reference.llmz.budget.planned_reserve", _reserve_ignoring_model),
        description="the output reserve may exceed what the model can produce",
    ),
    Mutant(
        "llmz-budget-reserve-fills-window",
        rules=("llmz.budget.output-reserve.room-for-input",),
        patch=_patch("reference.llmz.budget.planned_reserve", _reserve_may_fill_window),
        description="the reserve may take the whole window (or more), leaving no input budget",
    ),
    Mutant(
        "llmz-budget-cap-ignored",
        rules=("llmz.budget.max-tokens.caps-context-window", "llmz.budget.effective-limit.smallest"),
        patch=_patch("reference.llmz.budget.effective_limits", _limits_ignoring_cap),
        description="options.maxTokens does not bound the context window",
    ),
    Mutant(
        "llmz-budget-fallback-first-model",
        rules=("llmz.budget.effective-limit.fallback-list",),
        patch=_patch("reference.llmz.budget.effective_limits", _limits_of_first_model),
        description="a fallback list is sized for its first candidate only",
    ),
    Mutant(
        "llmz-budget-no-overflow-check",
        rules=("llmz.budget.overflow.before-dispatch", "llmz.budget.no-silent-truncation"),
        patch=_patch("reference.llmz.budget.fits", lambda window, input_tokens: True),
        description="requests that cannot fit are dispatched anyway",
    ),
    Mutant(
        "llmz-budget-output-overflow-hidden",
        rules=("llmz.budget.overflow.output-phase",),
        patch=_patch("reference.llmz.iteration.output_overflow", _output_overflow_as_generation_failure),
        description="an answer cut off at max_tokens is reported as a generic generation failure",
    ),
    Mutant(
        "llmz-budget-tools-not-measured",
        rules=("llmz.budget.measure.includes",),
        patch=_patch("reference.llmz.tokens.count_tools", lambda tools: 0),
        description="tool declarations are left out of the input measurement",
    ),
    Mutant(
        "llmz-budget-instructions-not-measured",
        rules=("llmz.budget.measure.includes",),
        patch=_patch("reference.llmz.tokens.count_instructions", lambda instructions: 0),
        description="system instructions are left out of the input measurement",
    ),
    Mutant(
        "llmz-compaction-trigger-late",
        rules=("llmz.compaction.trigger-ratio",),
        patch=_patch("reference.llmz.compaction.should_compact", _trigger_at(1.0)),
        description="compaction starts only when the request fills the input budget, not at 85%",
    ),
    Mutant(
        "llmz-compaction-trigger-early",
        rules=("llmz.compaction.trigger-ratio",),
        patch=_patch("reference.llmz.compaction.should_compact", _trigger_at(0.5)),
        description="compaction starts at 50% of the input budget instead of 85%",
    ),
    Mutant(
        "llmz-compaction-recent-not-preferred",
        rules=("llmz.compaction.keep-recent-iterations",),
        patch=_patch("reference.llmz.compaction.protected_start", lambda groups, keep_recent: len(groups)),
        description="the newest iterations are dropped like any other to reach the target",
    ),
    Mutant(
        "llmz-compaction-target-ignored",
        rules=("llmz.compaction.target-ratio",),
        patch=_patch("reference.llmz.compaction.choose_cut", _cut_without_target),
        description="compaction drops only what the input budget requires, ignoring the 65% target",
    ),
    Mutant(
        "llmz-compaction-never-keeps-fewer",
        rules=("llmz.compaction.hard-overflow-keeps-fewer",),
        patch=_patch("reference.llmz.compaction.choose_cut", _cut_never_beyond_recent),
        description="a hard overflow never drops one of the recent iterations",
    ),
    Mutant(
        "llmz-compaction-summary-last",
        rules=("llmz.compaction.summary-event.first",),
        patch=_patch("reference.llmz.compaction.retained_history", _summary_last),
        description="the summary event is put after the retained history",
    ),
    Mutant(
        "llmz-compaction-results-kept",
        rules=("llmz.compaction.discarded-results-removed",),
        patch=_patch("reference.llmz.compaction.discarded_iterations", lambda groups, cut: []),
        description="results of summarized iterations stay in $iterations and $return",
    ),
    Mutant(
        "llmz-compaction-summary-uncapped",
        rules=("llmz.compaction.max-summary-tokens",),
        patch=_patch("reference.llmz.compaction.controls_from", _controls_without_summary_cap),
        description="maxSummaryTokens does not cap the summary request's output",
    ),
    Mutant(
        "llmz-compaction-single-segment",
        rules=("llmz.compaction.summary-request.segments",),
        patch=_patch("reference.llmz.compaction.segment_end", lambda sizes, start, capacity: len(sizes)),
        description="the whole dropped history goes into one summary request, however large",
    ),
    Mutant(
        "llmz-compaction-disabled-ignored",
        rules=("llmz.compaction.disabled-fails-intact", "llmz.compaction.controls-persist"),
        patch=_patch("reference.llmz.fit._setup", _setup_ignoring_disabled),
        description="compaction: false still compacts with the default controls",
    ),
    Mutant(
        "llmz-compaction-failure-drops-history",
        rules=("llmz.compaction.failure-keeps-history", "llmz.errors.compaction-failed"),
        patch=_patch("reference.llmz.fit._one_summary", _summary_failure_swallowed),
        description="a failed or invalid summary is replaced by a placeholder and the history is dropped",
    ),
]
