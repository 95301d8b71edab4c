"""Compaction policy: when to compact, where to cut the history, and what the summary event looks like.

Theory of operation. The compactable history is split into *groups*, the smallest pieces that may be
dropped: all messages of one iteration (its assistant call and the tool results answering it stay
together, llmz.compaction.retains) with the input it answers, any input no iteration answered yet, or an
earlier summary event. Compaction always drops a *prefix* of the groups and puts one new summary
event in front of what remains, so chronology is kept and a result is never orphaned from its call.

Choosing the prefix (``choose_cut``) follows the guide's priorities, strongest first:

1. the request must fit the input budget (a hard overflow may therefore drop recent iterations,
   llmz.compaction.hard-overflow-keeps-fewer), and when it cannot fit even with the whole history dropped,
   compaction is pointless and the caller reports an overflow;
2. the ``keep_recent`` newest iterations are kept (llmz.compaction.keep-recent-iterations);
3. the shortest prefix that brings the request to the target is preferred (llmz.compaction.target-ratio),
   so no more history is lost than needed.

Sizes are estimates while choosing: the summary is not written yet, so it is charged at
``summary_cost`` tokens (its framing plus the least room the reference grants a summary). The caller
then lets the summary use part of the room the input budget still has, up to maxSummaryTokens
(llmz.compaction.max-summary-tokens), and re-measures the real request afterwards. Ratios are compared
as exact fractions so a boundary does not wobble with binary floating point.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from reference.llmz.tokens import BOOKKEEPING_KEYS

Message = dict[str, Any]

DEFAULT_TRIGGER_RATIO = 0.85
"""llmz.compaction.trigger-ratio."""
DEFAULT_TARGET_RATIO = 0.65
"""llmz.compaction.target-ratio."""
DEFAULT_KEEP_RECENT = 2
"""llmz.compaction.keep-recent-iterations."""
DEFAULT_MAX_SUMMARY_TOKENS = 1024
"""llmz.compaction.max-summary-tokens."""
SUMMARY_ROLE = "summary"
"""llmz.compaction.summary-event.first: the transcript role of a compaction summary."""


@dataclass(frozen=True)
class Group:
    """Messages that are kept or dropped together."""

    messages: tuple[Message, ...]
    iteration: str | None
    tokens: int

    @property
    def is_summary(self) -> bool:
        return len(self.messages) == 1 and is_summary_message(self.messages[0])


def is_summary_message(message: Message) -> bool:
    """A summary event, in transcript form or as a session stores it (native text plus its ``source``)."""
    source = message.get("source")
    from_source = isinstance(source, dict) and source.get("role") == SUMMARY_ROLE
    return message.get("role") == SUMMARY_ROLE or from_source


def _is_result(message: Message) -> bool:
    return message.get("role") == "tool" or "tool_call_id" in message or "toolResultCallId" in message


def group_history(
    history: Sequence[Message], measure: Callable[[Message], int], *, inputs_join_iteration: bool = False
) -> list[Group]:
    """llmz.compaction.retains: droppable groups that never separate a call from its result.

    Messages sharing an ``iteration`` id form one group; a tool result always joins the group before it,
    even without an iteration id, because a result without its call is invalid for every provider. With
    ``inputs_join_iteration`` (what automatic compaction uses), input messages outside any iteration (a
    turn's user input) join the iteration that follows them, since that iteration answers them: keeping
    an iteration keeps its input, as llmz 1.0.1 as published does. Without it each such input is a group
    of its own.
    """
    groups: list[list[Message]] = []
    waiting: list[Message] = []  # input not yet followed by its iteration
    for message in history:
        iteration = message.get("iteration")
        previous = groups[-1] if groups and not waiting else None
        joins = previous is not None and (
            _is_result(message) or (iteration is not None and _iteration_of(previous) == iteration)
        )
        if previous is not None and joins:
            previous.append(message)
        elif inputs_join_iteration and _is_input(message):
            waiting.append(message)
        else:
            groups.append([*waiting, message])
            waiting = []
    if waiting:
        groups.append(waiting)
    return [Group(tuple(group), _iteration_of(group), sum(measure(m) for m in group)) for group in groups]


def _is_input(message: Message) -> bool:
    return message.get("iteration") is None and not _is_result(message) and not is_summary_message(message)


def _iteration_of(group: Sequence[Message]) -> str | None:
    return next((m["iteration"] for m in group if m.get("iteration") is not None), None)


@lru_cache(maxsize=64)
def exact_ratio(ratio: float) -> Fraction:
    """The ratio as written (``0.7`` is seven tenths, not the nearest binary float), so comparisons against
    it are exact. Remembered: a run checks the same few ratios before every model call."""
    return Fraction(str(ratio))


def reaches(tokens: int, budget: int, ratio: float) -> bool:
    """``tokens`` is at or above ``ratio`` of ``budget`` (exact; see the trigger's open question)."""
    return tokens >= exact_ratio(ratio) * budget


def should_compact(input_tokens: int, input_budget: int, trigger_ratio: float) -> bool:
    """llmz.compaction.trigger-ratio: compact once the request reaches that share of the input budget."""
    return reaches(input_tokens, input_budget, trigger_ratio)


def protected_start(groups: Sequence[Group], keep_recent: int) -> int:
    """Index of the oldest group among the ``keep_recent`` newest iterations (len(groups) if none kept)."""
    if keep_recent <= 0:
        return len(groups)
    seen = 0
    for index in range(len(groups) - 1, -1, -1):
        if groups[index].iteration is not None and not groups[index].is_summary:
            seen += 1
            if seen == keep_recent:
                return index
    return 0


@dataclass(frozen=True)
class Cut:
    """Drop ``groups[:drop]``; ``estimate`` is the request size expected afterwards."""

    drop: int
    estimate: int


def choose_cut(
    groups: Sequence[Group],
    *,
    fixed_tokens: int,
    summary_cost: int,
    input_budget: int,
    target_ratio: float,
    keep_recent: int,
    protected: Callable[[Sequence[Group], int], int] = protected_start,
) -> Cut | None:
    """llmz.compaction.target-ratio, .keep-recent-iterations, .hard-overflow-keeps-fewer: pick the prefix.

    ``fixed_tokens`` is everything compaction cannot touch (instructions, tools, current-turn input and
    pending work). Returns None when no cut helps: either the recent iterations are all there is and the
    request already fits, or not even dropping every group would make it fit (the caller then measures
    the unchanged request and sends it or reports the overflow). ``protected`` finds where the kept
    recent iterations start.
    """
    tail = [0] * (len(groups) + 1)
    for index in range(len(groups) - 1, -1, -1):
        tail[index] = tail[index + 1] + groups[index].tokens

    def estimate(drop: int) -> int:
        return fixed_tokens + summary_cost + tail[drop]

    keep_from = protected(groups, keep_recent)
    for drop in range(1, keep_from + 1):
        if not _above(estimate(drop), input_budget, target_ratio):
            return Cut(drop, estimate(drop))
    if keep_from >= 1 and estimate(keep_from) <= input_budget:
        return Cut(keep_from, estimate(keep_from))
    if fixed_tokens + tail[0] <= input_budget:
        return None
    for drop in range(max(keep_from + 1, 1), len(groups) + 1):
        if estimate(drop) <= input_budget:
            return Cut(drop, estimate(drop))
    return None


def _above(tokens: int, budget: int, ratio: float) -> bool:
    return tokens > exact_ratio(ratio) * budget


def summary_event(content: str) -> Message:
    """llmz.compaction.summary-event.first: the transcript event that opens the retained history."""
    return {"role": SUMMARY_ROLE, "content": content}


def retained_history(groups: Sequence[Group], cut: Cut, summary: str) -> list[Message]:
    """The history to commit: the new summary first, then the kept groups unchanged."""
    kept = [dict(message) for group in groups[cut.drop :] for message in group.messages]
    return [summary_event(summary), *kept]


def discarded_iterations(groups: Sequence[Group], cut: Cut) -> list[str]:
    """llmz.compaction.discarded-results-removed: iteration ids whose results leave $iterations/$return."""
    seen: list[str] = []
    for group in groups[: cut.drop]:
        if group.iteration is not None and group.iteration not in seen:
            seen.append(group.iteration)
    return seen


@dataclass(frozen=True)
class Controls:
    """The session's serializable compaction controls, validated (llmz.compaction.config-invalid)."""

    trigger_ratio: float = DEFAULT_TRIGGER_RATIO
    target_ratio: float = DEFAULT_TARGET_RATIO
    keep_recent: int = DEFAULT_KEEP_RECENT
    max_summary_tokens: int = DEFAULT_MAX_SUMMARY_TOKENS


class CompactionConfigError(ValueError):
    """Out-of-range compaction controls; reported as INVALID_CONFIG before any model call."""

    code = "INVALID_CONFIG"


_CONTROL_NAMES = {
    "triggerRatio": "trigger_ratio",
    "targetRatio": "target_ratio",
    "keepRecentIterations": "keep_recent",
    "maxSummaryTokens": "max_summary_tokens",
}
_IGNORED_CONTROLS = frozenset({"model", "summarize", "enabled"})


def _number(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise CompactionConfigError(f"compaction.{name} must be a number, got {value!r}")
    return float(value)


def _count(name: str, value: object, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise CompactionConfigError(f"compaction.{name} must be an integer >= {minimum}, got {value!r}")
    return value


def controls_from(settings: dict[str, Any]) -> Controls:
    """Read llmz-style controls (``triggerRatio`` ...), applying the documented defaults.

    The ranges are the reference's answer to llmz.compaction.config-invalid's open question:
    0 < targetRatio < triggerRatio <= 1, keepRecentIterations >= 0, maxSummaryTokens >= 1.
    """
    unknown = set(settings) - set(_CONTROL_NAMES) - _IGNORED_CONTROLS
    if unknown:
        raise CompactionConfigError(
            f"unknown compaction control(s) {sorted(unknown)}; expected some of {sorted(_CONTROL_NAMES)}"
        )
    trigger = _number("triggerRatio", settings.get("triggerRatio", DEFAULT_TRIGGER_RATIO))
    target = _number("targetRatio", settings.get("targetRatio", DEFAULT_TARGET_RATIO))
    if not 0 < target < trigger <= 1:
        raise CompactionConfigError(
            f"compaction ratios must satisfy 0 < targetRatio < triggerRatio <= 1, got {target} and {trigger}"
        )
    return Controls(
        trigger_ratio=trigger,
        target_ratio=target,
        keep_recent=_count(
            "keepRecentIterations", settings.get("keepRecentIterations", DEFAULT_KEEP_RECENT), 0
        ),
        max_summary_tokens=_count(
            "maxSummaryTokens", settings.get("maxSummaryTokens", DEFAULT_MAX_SUMMARY_TOKENS), 1
        ),
    )


def session_controls(settings: dict[str, Any] | None) -> Controls | None:
    """The controls a session's settings give: None when compaction is disabled (``compaction: false``),
    so an overflow then fails with the history intact (llmz.compaction.disabled-fails-intact)."""
    return None if settings is None else controls_from(settings)


SUMMARY_PROMPT_ALLOWANCE = 100
"""Tokens set aside for the summarizer's own instructions, which the runtime adds around the messages."""
PIECE_FRAMING = 24
"""Tokens set aside for the message framing and part label of one piece of a split message."""
SUMMARY_FRAMING = 16
"""Tokens for the framing of the previous segment's summary inside the next summary request."""
MIN_SEGMENT = 64
"""Below this many tokens per segment, summarizing would take absurdly many calls: fail instead."""


def summary_room(limit: int, input_budget: int, ceiling: int, kept: int) -> int:
    """llmz.compaction.max-summary-tokens: the summary's allowance, the ceiling reduced by the space left.

    ``ceiling`` is maxSummaryTokens already bounded by the model's output limit; ``kept`` is what the
    request measures without the summary text once the cut is made. The guide lets remaining request space
    reduce the ceiling, so a summary is never asked to be longer than the input space the kept request
    leaves: it takes at most half of that space (the rest stays free for the conversation to grow, as
    llmz 1.0.1 as published does), and at most what lets a segment request hold a previous summary, its
    own answer and a minimal segment. ``tests/test_relations.py`` shows a runtime granting more is caught.
    """
    available = input_budget - kept
    per_segment = (limit - SUMMARY_PROMPT_ALLOWANCE - SUMMARY_FRAMING - MIN_SEGMENT) // 2
    return max(1, min(ceiling, available // 2, per_segment))


def summary_input(segment: Sequence[Group], previous: str | None) -> list[Message]:
    """llmz.compaction.summary-request.content and .segments: the messages one summary call condenses.

    They are the dropped messages as sent (bookkeeping removed), preceded by the previous segment's
    summary when there is one, so each new summary absorbs the last. An earlier compaction's summary is
    the oldest dropped message and is absorbed the same way (llmz.compaction.summary-event.replaces-earlier).
    """
    messages: list[Message] = [] if previous is None else [summary_event(previous)]
    for group in segment:
        for message in group.messages:
            messages.append({k: v for k, v in message.items() if k not in BOOKKEEPING_KEYS})
    return messages


def split_oversized(
    dropped: Sequence[Group],
    capacity: int,
    measure: Callable[[Message], int],
    split: Callable[[str, int], list[str]],
) -> list[Group]:
    """llmz.compaction.summary-request.segments: make every piece small enough for one summary request.

    A dropped group larger than ``capacity`` is turned into consecutive text pieces of its messages (as
    ``render_for_summary`` spells them), each a user message of its own, so even a single huge tool
    result can be summarized segment by segment instead of failing the compaction.
    """
    pieces: list[Group] = []
    for group in dropped:
        if group.tokens <= capacity:
            pieces.append(group)
            continue
        text = "\n".join(render_for_summary(m) for m in group.messages)
        chunks = split(text, max(1, capacity - PIECE_FRAMING))
        for index, chunk in enumerate(chunks, start=1):
            message = {"role": "user", "content": f"[part {index} of {len(chunks)} of one message]\n{chunk}"}
            pieces.append(Group((message,), group.iteration, measure(message)))
    return pieces


def render_for_summary(message: Message) -> str:
    """A message as quoted data for the summarizer: its JSON spelling, bookkeeping removed."""
    visible = {key: value for key, value in message.items() if key not in BOOKKEEPING_KEYS}
    return json.dumps(visible, ensure_ascii=False, sort_keys=True)


def segment_end(sizes: Sequence[int], start: int, capacity: int) -> int:
    """llmz.compaction.summary-request.segments: end (exclusive) of the segment that begins at ``start``.

    A segment takes consecutive groups while their transcript sizes fit ``capacity``. It always takes at
    least one group (groups are never split); an oversized one is rejected by the caller's size check.
    """
    end, used = start, 0
    while end < len(sizes) and (end == start or used + sizes[end] <= capacity):
        used += sizes[end]
        end += 1
    return end
