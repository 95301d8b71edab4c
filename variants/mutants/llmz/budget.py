"""Mutants of the token budget and compaction, one flipped rule each.

Each replaces one decision of ``reference.llmz.budget``, ``.tokens`` or ``.compaction`` in the policy
object, and names the rule ids it breaks. ``tests/test_llmz_budget_mutants.py`` proves the scenarios under
``fixtures/scenarios/llmz/budget`` and ``.../compaction`` catch every one of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from reference.llmz import budget, compaction
from reference.llmz.compaction import Controls, Cut, Group
from reference.llmz.errors import LlmzError
from reference.llmz.policies import Policies
from variants import Mutant


def _reserve_without_floor(limit: int, output_limit: int) -> int:
    return min(limit // budget.RESERVE_DIVISOR, budget.RESERVE_CEILING, output_limit)


def _reserve_ignoring_model(limit: int, output_limit: int) -> int:
    return min(max(limit // budget.RESERVE_DIVISOR, budget.RESERVE_FLOOR), budget.RESERVE_CEILING)


def _reserve_may_fill_window(limit: int, output_limit: int) -> int:
    tenth = limit // budget.RESERVE_DIVISOR
    return min(max(tenth, budget.RESERVE_FLOOR), budget.RESERVE_CEILING, output_limit)


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


def _high_trigger_falls_back(input_tokens: int, input_budget: int, trigger_ratio: float) -> bool:
    """Replaces a triggerRatio above 0.95 by the default 0.85, as a validation that "corrects" a ratio
    leaving no room to summarize would: raising the ratio past that point makes compaction start sooner,
    which "compaction starts at triggerRatio of the input budget" never allows."""
    effective = compaction.DEFAULT_TRIGGER_RATIO if trigger_ratio > 0.95 else trigger_ratio
    return compaction.should_compact(input_tokens, input_budget, effective)


def _unmeasured(part: str) -> Callable[[Policies], Policies]:
    """A fixed part of the request (``tools`` or ``instructions``) is left out of the measurement."""
    return lambda p: replace(p, measure=replace(p.measure, includes=p.measure.includes - {part}))


def _cut_never_beyond_recent(p: Policies) -> Policies:
    """Keeps the recent iterations even when the request then cannot fit."""
    base, protected = p.choose_cut, p.protected_start

    def choose_cut(groups: Sequence[Group], **options: Any) -> Cut | None:
        cut: Cut | None = base(groups, **options)
        if cut is not None and cut.drop > protected(groups, options["keep_recent"]):
            return None
        return cut

    return replace(p, choose_cut=choose_cut)


def _cut_without_target(p: Policies) -> Policies:
    """Drops only what the budget requires, as if the target were the whole budget."""
    base = p.choose_cut
    return replace(p, choose_cut=lambda groups, **options: base(groups, **{**options, "target_ratio": 1.0}))


def _iteration_split_at_feedback(p: Policies) -> Policies:
    """An iteration's own messages stay together only when they are results: the answer of a text-only
    iteration and the feedback that follows it become two groups, each counted as an iteration."""
    base = p.group_history

    def result(message: dict[str, Any]) -> bool:
        return message.get("role") == "tool" or "toolResultCallId" in message or "tool_call_id" in message

    def group_history(history: Sequence[dict[str, Any]], measure: Any, **options: Any) -> list[Group]:
        groups: list[Group] = []
        for group in base(history, measure, **options):
            pieces: list[list[dict[str, Any]]] = [[]]
            own_seen = False
            for message in group.messages:
                own = message.get("iteration") is not None and not result(message)
                if own and own_seen:
                    pieces.append([])
                own_seen = own_seen or own
                pieces[-1].append(message)
            groups += [
                Group(tuple(piece), group.iteration, sum(measure(m) for m in piece)) for piece in pieces
            ]
        return groups

    return replace(p, group_history=group_history)


def _summary_last(groups: Sequence[Group], cut: Cut, summary: str) -> list[dict[str, Any]]:
    kept = [dict(m) for group in groups[cut.drop :] for m in group.messages]
    return [*kept, compaction.summary_event(summary)]


def _controls_without_summary_cap(p: Policies) -> Policies:
    base = p.compaction_controls

    def controls(settings: dict[str, Any] | None) -> Controls | None:
        read = base(settings)
        return None if read is None else replace(read, max_summary_tokens=budget.RESERVE_CEILING)

    return replace(p, compaction_controls=controls)


def _controls_ignoring_disabled(p: Policies) -> Policies:
    base = p.compaction_controls
    return replace(p, compaction_controls=lambda settings: base(settings) or Controls())


def _media_transport_counted(p: Policies) -> Policies:
    """The url and bytes of image and audio parts are measured as if they were text."""
    return replace(p, measure=replace(p.measure, media_transport=frozenset()))


def _media_shaped_text_free(p: Policies) -> Policies:
    """Any string that looks like a data URL is taken for media and left out of the measurement."""
    base = p.measure.count_text
    return replace(
        p, measure=replace(p.measure, count_text=lambda text: 0 if text.startswith("data:") else base(text))
    )


def _tokens_of_last_call(usages: Sequence[Any]) -> dict[str, int]:
    """result.tokens reports the run's last answer instead of adding up all of them."""
    return budget.run_tokens(list(usages)[-1:])


def _target_zero_accepted(p: Policies) -> Policies:
    """Reads a targetRatio of 0 as the smallest valid target instead of refusing it."""
    base = p.compaction_controls

    def controls(settings: dict[str, Any] | None) -> Controls | None:
        if settings and settings.get("targetRatio") == 0:
            settings = {**settings, "targetRatio": 0.01}
        return base(settings)

    return replace(p, compaction_controls=controls)


def _cut_to_protected(p: Policies) -> Policies:
    """Drops everything compaction may drop, whatever the target would let it keep."""
    base = p.choose_cut
    return replace(p, choose_cut=lambda groups, **kw: base(groups, **{**kw, "target_ratio": 1e-9}))


def _summary_room_adding_kept(limit: int, input_budget: int, ceiling: int, kept: int) -> int:
    """The generated survivor llmz/fit 271:62 (``-`` for ``+``): the kept request is added to the input
    budget instead of taken from it, so only the window and the ceiling bound the summary's allowance."""
    per_segment = (
        limit - compaction.SUMMARY_PROMPT_ALLOWANCE - compaction.SUMMARY_FRAMING - compaction.MIN_SEGMENT
    ) // 2
    return max(1, min(ceiling, (input_budget + kept) // 2, per_segment))


def _summary_room_doubled(limit: int, input_budget: int, ceiling: int, kept: int) -> int:
    """The generated survivor llmz/fit 289:41 (``available * 2``): twice the space the kept request leaves."""
    per_segment = (
        limit - compaction.SUMMARY_PROMPT_ALLOWANCE - compaction.SUMMARY_FRAMING - compaction.MIN_SEGMENT
    ) // 2
    return max(1, min(ceiling, (input_budget - kept) * 2, per_segment))


def _output_overflow_as_generation_failure(entry: Any) -> LlmzError:
    return LlmzError("GENERATION_FAILED", "the response was incomplete")


MUTANTS: list[Mutant] = [
    Mutant(
        "llmz-budget-no-reserve-floor",
        rules=("llmz.budget.output-reserve.floor",),
        description="the output reserve is a bare tenth, without the 256-token floor",
        policies=lambda p: replace(p, planned_reserve=_reserve_without_floor),
    ),
    Mutant(
        "llmz-budget-reserve-ignores-model-output",
        rules=("llmz.budget.output-reserve.model-output-limit",),
        description="the output reserve may exceed what the model can produce",
        policies=lambda p: replace(p, planned_reserve=_reserve_ignoring_model),
    ),
    Mutant(
        "llmz-budget-reserve-fills-window",
        rules=("llmz.budget.output-reserve.room-for-input",),
        description="the reserve may take the whole window (or more), leaving no input budget",
        policies=lambda p: replace(p, planned_reserve=_reserve_may_fill_window),
    ),
    Mutant(
        "llmz-budget-cap-ignored",
        rules=("llmz.budget.max-tokens.caps-context-window", "llmz.budget.effective-limit.smallest"),
        description="options.maxTokens does not bound the context window",
        policies=lambda p: replace(p, effective_limits=_limits_ignoring_cap),
    ),
    Mutant(
        "llmz-budget-fallback-first-model",
        rules=("llmz.budget.effective-limit.fallback-list",),
        description="a fallback list is sized for its first candidate only",
        policies=lambda p: replace(p, effective_limits=_limits_of_first_model),
    ),
    Mutant(
        "llmz-budget-no-overflow-check",
        rules=("llmz.budget.overflow.before-dispatch", "llmz.budget.no-silent-truncation"),
        description="requests that cannot fit are dispatched anyway",
        policies=lambda p: replace(p, input_fits=lambda window, input_tokens: True),
    ),
    Mutant(
        "llmz-budget-output-overflow-hidden",
        rules=("llmz.budget.overflow.output-phase",),
        description="an answer cut off at max_tokens is reported as a generic generation failure",
        policies=lambda p: replace(p, output_overflow=_output_overflow_as_generation_failure),
    ),
    Mutant(
        "llmz-budget-tools-not-measured",
        rules=("llmz.budget.measure.includes",),
        description="tool declarations are left out of the input measurement",
        policies=_unmeasured("tools"),
    ),
    Mutant(
        "llmz-budget-instructions-not-measured",
        rules=("llmz.budget.measure.includes",),
        description="system instructions are left out of the input measurement",
        policies=_unmeasured("instructions"),
    ),
    Mutant(
        "llmz-compaction-trigger-late",
        rules=("llmz.compaction.trigger-ratio",),
        description="compaction starts only when the request fills the input budget, not at 85%",
        policies=lambda p: replace(p, should_compact=_trigger_at(1.0)),
    ),
    Mutant(
        "llmz-compaction-trigger-early",
        rules=("llmz.compaction.trigger-ratio",),
        description="compaction starts at 50% of the input budget instead of 85%",
        policies=lambda p: replace(p, should_compact=_trigger_at(0.5)),
    ),
    Mutant(
        "llmz-compaction-high-trigger-falls-back",
        rules=("llmz.compaction.trigger-ratio",),
        description="a triggerRatio above 0.95 is read as the default 0.85: a higher ratio compacts sooner",
        policies=lambda p: replace(p, should_compact=_high_trigger_falls_back),
    ),
    Mutant(
        "llmz-compaction-recent-not-preferred",
        rules=("llmz.compaction.keep-recent-iterations",),
        description="the newest iterations are dropped like any other to reach the target",
        policies=lambda p: replace(p, protected_start=lambda groups, keep_recent: len(groups)),
    ),
    Mutant(
        "llmz-iteration-split-at-feedback",
        rules=("llmz.compaction.keep-recent-iterations",),
        description="a text-only iteration's answer and its feedback are cut apart, counted as two",
        policies=_iteration_split_at_feedback,
    ),
    Mutant(
        "llmz-compaction-target-ignored",
        rules=("llmz.compaction.target-ratio",),
        description="compaction drops only what the input budget requires, ignoring the 65% target",
        policies=_cut_without_target,
    ),
    Mutant(
        "llmz-compaction-never-keeps-fewer",
        rules=("llmz.compaction.hard-overflow-keeps-fewer",),
        description="a hard overflow never drops one of the recent iterations",
        policies=_cut_never_beyond_recent,
    ),
    Mutant(
        "llmz-compaction-summary-last",
        rules=("llmz.compaction.summary-event.first",),
        description="the summary event is put after the retained history",
        policies=lambda p: replace(p, retained_history=_summary_last),
    ),
    Mutant(
        "llmz-compaction-results-kept",
        rules=("llmz.compaction.discarded-results-removed",),
        description="results of summarized iterations stay in $iterations and $return",
        policies=lambda p: replace(p, discarded_iterations=lambda groups, cut: []),
    ),
    Mutant(
        "llmz-compaction-summary-uncapped",
        rules=("llmz.compaction.max-summary-tokens",),
        description="maxSummaryTokens does not cap the summary request's output",
        policies=_controls_without_summary_cap,
    ),
    Mutant(
        "llmz-compaction-single-segment",
        rules=("llmz.compaction.summary-request.segments",),
        description="the whole dropped history goes into one summary request, however large",
        policies=lambda p: replace(p, segment_end=lambda sizes, start, capacity: len(sizes)),
    ),
    Mutant(
        "llmz-compaction-disabled-ignored",
        rules=("llmz.compaction.disabled-fails-intact", "llmz.compaction.controls-persist"),
        description="compaction: false still compacts with the default controls",
        policies=_controls_ignoring_disabled,
    ),
    Mutant(
        "llmz-compaction-failure-drops-history",
        rules=("llmz.compaction.failure-keeps-history", "llmz.errors.compaction-failed"),
        description="a failed or invalid summary is replaced by a placeholder and the history is dropped",
        policies=lambda p: replace(p, summary_failure_fallback="(no summary)"),
    ),
    Mutant(
        "llmz-budget-media-transport-measured",
        rules=("llmz.budget.measure.media-excluded",),
        description="the url of an image part is measured as text",
        policies=_media_transport_counted,
    ),
    Mutant(
        "llmz-budget-media-shaped-text-free",
        rules=("llmz.budget.measure.media-shaped-text-counted",),
        description="a data URL pasted as ordinary text is left out of the measurement",
        policies=_media_shaped_text_free,
    ),
    Mutant(
        "llmz-budget-result-tokens-last-call",
        rules=("llmz.budget.result-tokens.provider-usage",),
        description="result.tokens is the usage of the run's last model call only",
        policies=lambda p: replace(p, run_tokens=_tokens_of_last_call),
    ),
    Mutant(
        "llmz-failed-segment-skipped",
        rules=("llmz.compaction.failure-keeps-history",),
        description="a segment whose summary fails is left out; the later segments are summarized without it",
        policies=lambda p: replace(p, summary_failure_fallback=""),
    ),
    Mutant(
        "llmz-target-ratio-zero-accepted",
        rules=("llmz.compaction.config-invalid",),
        description="a targetRatio of 0 is taken (as the smallest target) instead of refused",
        policies=_target_zero_accepted,
    ),
    Mutant(
        "llmz-compaction-drops-to-protected",
        rules=("llmz.compaction.target-ratio",),
        description="compaction drops all it may, down to the protected iterations, ignoring the target",
        policies=_cut_to_protected,
    ),
    Mutant(
        "llmz-compaction-summary-room-ignores-kept",
        rules=("llmz.compaction.max-summary-tokens",),
        description="the summary may be as long as the window allows, whatever space the kept request leaves",
        policies=lambda p: replace(p, summary_room=_summary_room_adding_kept),
    ),
    Mutant(
        "llmz-compaction-summary-room-doubled",
        rules=("llmz.compaction.max-summary-tokens",),
        description="the summary may take twice the input space the kept request leaves",
        policies=lambda p: replace(p, summary_room=_summary_room_doubled),
    ),
]
