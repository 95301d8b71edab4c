"""The seam between the llmz execution loop and the token budget / compaction policies.

The loop (``reference/llmz/execute.py`` and friends) calls ``fit_request`` once before every model
dispatch with the request it would send. ``fit_request`` measures it, reserves output space, compacts the
history when it crosses the trigger, and either returns the request to send (plus any compaction to commit
to the session) or raises a ``FitError`` before anything is dispatched.

The loop owns the session; this module owns the budget. The order of work, and why:

1. Validate the token settings and compute the window (``budget``): a bad ``maxTokens`` or compaction
   control is INVALID_CONFIG before any call.
2. Measure instructions + tools + history + current input (``tokens``).
3. If compaction is enabled and the request reaches the trigger, choose a cut (``compaction``), ask
   ``context.summarize`` for a summary of the dropped part (segment by segment when it is large) and
   measure the request again with the summary event in front of the kept history.
4. If the request does not fit, raise TOKEN_OVERFLOW. Nothing is committed here: a prepared summary is
   returned in ``new_history`` and the loop commits it only once the request has been sent through its
   hooks (llmz.compaction.commit-after-fit), so a failure anywhere leaves the session's history intact.

A failed summary raises ``CompactionFailedError`` (COMPACTION_FAILED, critical); an overflow raises
``TokenBudgetError`` (TOKEN_OVERFLOW, phase ``input``, critical). Both carry ``code``, ``critical`` and
``details()`` so the loop can record them as ``error`` events without knowing which one it got.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from reference.llmz import budget, compaction, tokens
from reference.llmz.compaction import MIN_SEGMENT, SUMMARY_FRAMING, Controls, Group
from reference.llmz.policies import DEFAULT_POLICIES, Policies
from reference.providers.scripted import ScriptExhausted

Message = dict[str, Any]

MIN_SUMMARY_ROOM = budget.RESERVE_FLOOR
"""The least room a cut must leave for the summary text (or maxSummaryTokens, when smaller)."""


@dataclass(frozen=True)
class ModelLimits:
    """Per-model context limits from the model's details (input window, maximum output)."""

    input_tokens: int
    output_tokens: int


def native_summary(content: str) -> Message:
    """llmz.compaction.summary-event.user-role-data: how a summary event travels to the model by default."""
    return {"role": "user", "content": f"<conversation_summary>\n{content}\n</conversation_summary>"}


@dataclass(frozen=True)
class FitContext:
    instructions: str
    """The system instructions text as sent."""
    tools: list[dict[str, Any]]
    """Native tool declarations as sent (run_javascript, with the host API in its description)."""
    history: list[Message]
    """Canonical conversation before the current turn's input, oldest first. Each message may carry an
    ``iteration`` key (the iteration id it belongs to); a call and its result share one. A compaction
    summary appears as ``{role: 'summary', content}`` and is rendered with ``render_summary``."""
    current: list[Message]
    """Current-turn input and this turn's iterations so far: never compacted."""
    max_tokens: object
    """``options.maxTokens`` as the host gave it: a cap on the whole context window, or None; checked
    (``budget.check_max_tokens``) before anything is measured."""
    models: list[ModelLimits]
    """Every configured model (a fallback list has several); the smallest limits apply."""
    compaction: dict[str, Any] | None
    """The session's compaction controls (triggerRatio, targetRatio, keepRecentIterations,
    maxSummaryTokens), or None when compaction is disabled (``compaction: false``)."""
    summarize: Callable[[list[Message], int], str]
    """Asks the model for a summary of the given messages within the given output budget. The runtime
    adds its summarizer instructions (budgeted at ``compaction.SUMMARY_PROMPT_ALLOWANCE`` tokens) and sends
    the request with no tools and ``max_tokens`` set to the budget. For the second and later segments of
    a large history the first message is ``{role: 'summary', content}``: the summary so far."""
    render_summary: Callable[[str], Message] | None = None
    """How a summary event is sent natively; ``native_summary`` when None."""
    policies: Policies = DEFAULT_POLICIES
    """The budget and compaction decisions to apply (``reference.llmz.policies``)."""


@dataclass
class FitResult:
    messages: list[Message]
    """The full message list to send (system prompt excluded; the loop adds it)."""
    max_output_tokens: int
    """The output reserve: the request's maxTokens."""
    input_tokens: int
    """The measured input size."""
    new_history: list[Message] | None = None
    """When compaction happened: the history to commit (starting with the summary event)."""
    discarded_iterations: list[str] = field(default_factory=list)
    """Iteration ids whose results compaction removed (the loop drops them from $iterations/$return)."""
    summary: str | None = None
    """The new summary text, when compaction happened."""
    context_tokens: dict[str, int] = field(default_factory=dict)
    """llmz.budget.context-tokens.categories-sum: instructions, tools, messages and their total."""


class FitError(Exception):
    """A failure before dispatch. Every subclass is critical: the run stops without another model call."""

    code = "INTERNAL_ERROR"
    critical = True

    def details(self) -> dict[str, Any]:
        return {"code": self.code, "critical": self.critical, "message": str(self)}


class TokenBudgetError(FitError):
    """The request cannot fit: TOKEN_OVERFLOW (phase 'input') raised before dispatch."""

    code = "TOKEN_OVERFLOW"

    def __init__(self, message: str, *, tokens: int | None = None, limit: int | None = None) -> None:
        super().__init__(message)
        self.tokens = tokens
        self.limit = limit
        self.phase = "input"

    def details(self) -> dict[str, Any]:
        return {**super().details(), "phase": self.phase, "tokens": self.tokens, "limit": self.limit}


class CompactionFailedError(FitError):
    """llmz.errors.compaction-failed: the summary could not be produced or was invalid; history is kept."""

    code = "COMPACTION_FAILED"

    def __init__(self, message: str, *, cause: BaseException | None = None) -> None:
        super().__init__(message)
        self.cause = cause

    def details(self) -> dict[str, Any]:
        cause = None if self.cause is None else str(self.cause)  # its message; class names are ours alone
        return {**super().details(), "cause": cause}


class FitConfigError(FitError):
    """Invalid token or compaction settings (INVALID_CONFIG)."""

    code = "INVALID_CONFIG"


@dataclass(frozen=True)
class _Request:
    """The measured parts of one request."""

    instructions: int
    tools: int
    current: int
    history: list[Message]
    """Native form of the (possibly compacted) history."""
    history_tokens: int

    @property
    def total(self) -> int:
        return self.instructions + self.tools + self.current + self.history_tokens

    def categories(self) -> dict[str, int]:
        messages = self.current + self.history_tokens
        return {
            "instructions": self.instructions,
            "tools": self.tools,
            "messages": messages,
            "total": self.total,
        }


def _setup(context: FitContext) -> tuple[budget.Window, Controls | None]:
    policies = context.policies
    try:
        cap = policies.check_max_tokens(context.max_tokens)
        window = budget.window_for(
            cap,
            [m.input_tokens for m in context.models],
            [m.output_tokens for m in context.models],
            policies.effective_limits,
            policies.planned_reserve,
        )
        controls = policies.compaction_controls(context.compaction)
    except (budget.BudgetConfigError, compaction.CompactionConfigError) as exc:
        raise FitConfigError(str(exc)) from exc
    return window, controls


def _native(context: FitContext, message: Message) -> Message:
    if message.get("role") != compaction.SUMMARY_ROLE:
        return message
    return (context.render_summary or native_summary)(str(message.get("content", "")))


def _measure(context: FitContext, history: Sequence[Message]) -> _Request:
    native = [_native(context, m) for m in history]
    measure = context.policies.measure
    return _Request(
        instructions=measure.count_instructions(context.instructions),
        tools=measure.count_tools(context.tools),
        current=measure.count_messages(context.current),
        history=native,
        history_tokens=measure.count_messages(native),
    )


def _result(context: FitContext, window: budget.Window, request: _Request) -> FitResult:
    """llmz.budget.overflow.before-dispatch / .no-silent-truncation: send whole, or fail before sending."""
    if not context.policies.input_fits(window, request.total):
        raise TokenBudgetError(
            f"the request needs {request.total} input tokens but only {window.input_budget} fit: the "
            f"effective limit is {window.limit} and {window.reserve} are reserved for output",
            tokens=request.total,
            limit=window.input_budget,
        )
    return FitResult(
        messages=[*request.history, *context.current],
        max_output_tokens=window.reserve,
        input_tokens=request.total,
        context_tokens=request.categories(),
    )


def fit_request(context: FitContext) -> FitResult:
    """Fit one request to its window, compacting the history first when it reaches the trigger."""
    window, controls = _setup(context)
    request = _measure(context, context.history)
    if controls is not None and context.policies.should_compact(
        request.total, window.input_budget, controls.trigger_ratio
    ):
        compacted = _compact(context, window, controls, request)
        if compacted is not None:
            return compacted
    return _result(context, window, request)


def _iterations_in(messages: Sequence[Message]) -> int:
    return len({m["iteration"] for m in messages if m.get("iteration") is not None})


def _compact(
    context: FitContext, window: budget.Window, controls: Controls, request: _Request
) -> FitResult | None:
    """llmz.compaction.*: cut, summarize, rebuild; None when no cut can help (the caller then decides)."""
    policies = context.policies
    measure = policies.measure
    groups = policies.group_history(
        context.history, lambda m: measure.count_message(_native(context, m)), inputs_join_iteration=True
    )
    ceiling = min(controls.max_summary_tokens, window.output_limit)
    frame = measure.count_message(_native(context, compaction.summary_event("")))
    least = min(ceiling, MIN_SUMMARY_ROOM)
    cut = policies.choose_cut(
        groups,
        fixed_tokens=request.instructions + request.tools + request.current,
        summary_cost=frame + least,
        input_budget=window.input_budget,
        target_ratio=controls.target_ratio,
        # The current turn's own iterations are the newest ones and already protected.
        keep_recent=max(0, controls.keep_recent - _iterations_in(context.current)),
        protected=policies.protected_start,
    )
    if cut is None:
        return None
    room = policies.summary_room(window.limit, window.input_budget, ceiling, cut.estimate - least)
    summary = _summarize(context, window, room, groups[: cut.drop])
    new_history = policies.retained_history(groups, cut, summary)
    result = _result(context, window, _measure(context, new_history))
    result.new_history = new_history
    result.discarded_iterations = policies.discarded_iterations(groups, cut)
    result.summary = summary
    return result


def _summarize(context: FitContext, window: budget.Window, room: int, dropped: Sequence[Group]) -> str:
    """llmz.compaction.summary-request.*, .failure-error: one summarizer call per segment.

    Every segment request must hold the summarizer's instructions, its own answer (``room`` tokens at
    most) and the previous segment's summary, so a segment gets what the window has left after those.
    Groups too large for any segment are split into text pieces first.
    """
    # The worst case for every segment: instructions, its own answer and a previous summary of ``room``.
    capacity = window.limit - compaction.SUMMARY_PROMPT_ALLOWANCE - 2 * room - SUMMARY_FRAMING
    if capacity < MIN_SEGMENT:
        raise CompactionFailedError(
            f"a {window.limit}-token window leaves only {capacity} tokens per summary segment once a "
            f"{room}-token summary is reserved twice; at least {MIN_SEGMENT} are needed"
        )
    measure = context.policies.measure
    dropped = compaction.split_oversized(dropped, capacity, measure.count_message, tokens.split_text)
    sizes = [group.tokens for group in dropped]
    previous: str | None = None
    start = 0
    while start < len(dropped):
        carried = 0 if previous is None else measure.count_message(compaction.summary_event(previous))
        frame = compaction.SUMMARY_PROMPT_ALLOWANCE + carried
        end = context.policies.segment_end(sizes, start, window.limit - frame - room)
        messages = compaction.summary_input(dropped[start:end], previous)
        size = compaction.SUMMARY_PROMPT_ALLOWANCE + measure.count_messages(messages)
        if size + room > window.limit:
            raise CompactionFailedError(
                f"a summary request of about {size} tokens cannot fit the {window.limit}-token window "
                f"next to its {room}-token answer"
            )
        previous = _one_summary(context, messages, room)
        start = end
    if previous is None:
        raise CompactionFailedError("compaction chose to drop nothing, so there is nothing to summarize")
    return previous


def _one_summary(context: FitContext, messages: list[Message], allowance: int) -> str:
    """One summary, or what the policies put in place of one that failed (by default nothing: the
    failure stands and the history is kept, llmz.compaction.failure-keeps-history)."""
    try:
        return _checked_summary(context, messages, allowance)
    except CompactionFailedError:
        if context.policies.summary_failure_fallback is None:
            raise
        return context.policies.summary_failure_fallback


def _checked_summary(context: FitContext, messages: list[Message], allowance: int) -> str:
    """Call the summarizer once and validate its answer (non-empty text within its allowance)."""
    try:
        text = context.summarize(messages, allowance)
    except ScriptExhausted:
        raise  # a scenario that under-scripted its summary call is a broken case, not a compaction outcome
    except Exception as exc:
        raise CompactionFailedError(f"summary generation failed: {exc}", cause=exc) from exc
    if not isinstance(text, str) or not text.strip():
        raise CompactionFailedError(f"the summary must be non-empty text, got {text!r}")
    size = context.policies.measure.count_text(text)
    if size > allowance:
        raise CompactionFailedError(f"the summary has {size} tokens, over its allowance of {allowance}")
    return text
