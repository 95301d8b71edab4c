"""``session.summarize()`` and ``session.compact()``: summaries on request, outside any execution.

Both use the ``fast`` model unless the session's compaction controls name one, and both leave the
session untouched when the summary cannot be produced. ``summarize`` only reads; ``compact`` keeps the
newest ``keepRecentIterations`` iterations (the call's value, else the session's, else 2) and replaces
everything before them with one summary event. The current turn's messages are never touched.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from reference.llmz import compaction, pruning
from reference.llmz.api import DEFAULT_MODELS, Model, Observer
from reference.llmz.errors import LlmzError
from reference.llmz.events import Events
from reference.llmz.execute import Runtime, for_fit, summarizer
from reference.llmz.session import Session
from reference.providers.protocol import ModelProvider
from reference.providers.scripted import ProviderFailure

STANDALONE_MODEL: Final = "fast"


def _controls(session: Session) -> dict[str, Any]:
    return session.compaction or {}


def _summary_budget(session: Session, runtime: Runtime) -> int:
    ceiling = int(_controls(session).get("maxSummaryTokens", compaction.DEFAULT_MAX_SUMMARY_TOKENS))
    return min([ceiling, *(m.output_tokens for m in runtime.models)])


def _summarize(session: Session, runtime: Runtime, messages: list[dict[str, Any]]) -> str:
    model = _controls(session).get("model") or STANDALONE_MODEL
    policies = session.policies
    custom = session.summarize_callback if policies.uses_custom_summarizer else None
    write = custom if custom is not None else summarizer(runtime, model)
    budget = _summary_budget(session, runtime)
    try:
        text = write(messages, budget)
    except ProviderFailure as exc:
        raise LlmzError(
            "COMPACTION_FAILED", f"the summary could not be generated: {exc}", cause=str(exc)
        ) from exc
    problem = pruning.summary_fits(text, budget, policies.measure.count_text)
    if problem is not None and policies.checks_summary_on_request:
        raise problem
    return text


def _check_signal(session: Session, signal: pruning.AbortSignal | None) -> None:
    problem = pruning.cancelled(signal, session.policies.honours_abort_signal)
    if problem is not None:
        raise problem


def summarize(
    session: Session,
    provider: ModelProvider,
    *,
    models: Sequence[Model] = DEFAULT_MODELS,
    observers: Sequence[Observer] = (),
    signal: pruning.AbortSignal | None = None,
) -> str:
    """``session.summarize()``: a summary of the processed history; the conversation does not change."""
    session.require_idle("summarize")  # llmz.compaction.explicit-lock
    _check_signal(session, signal)
    measure = session.policies.measure.count_message
    messages = [for_fit(m, earlier=True) for m in session.history]
    runtime = Runtime(provider, list(models))
    groups = compaction.group_history(messages, measure)
    text = _summarize(session, runtime, compaction.summary_input(groups, None))
    if session.policies.signal_checked_after_summary:
        _check_signal(session, signal)  # cancelled while the summary was written: nothing is returned
    Events(observers).emit("summary", content=text)
    return text


def compact(
    session: Session,
    provider: ModelProvider,
    *,
    keep_recent_iterations: int | None = None,
    models: Sequence[Model] = DEFAULT_MODELS,
    observers: Sequence[Observer] = (),
    signal: pruning.AbortSignal | None = None,
) -> str | None:
    """``session.compact({ keepRecentIterations })``: replace the history before the newest iterations
    with one summary event. Returns the summary, or None when nothing was older than the kept ones."""
    session.require_idle("compact")  # llmz.compaction.explicit-lock
    _check_signal(session, signal)
    policies = session.policies
    earlier, _ = session.split()
    groups = compaction.group_history(
        [for_fit(m, earlier=True) for m in earlier], policies.measure.count_message
    )
    keep = (
        keep_recent_iterations
        if keep_recent_iterations is not None
        else int(_controls(session).get("keepRecentIterations", compaction.DEFAULT_KEEP_RECENT))
    )
    cut = policies.protected_start(groups, keep)
    if cut == 0:
        return None  # nothing older than the kept iterations
    text = _summarize(session, Runtime(provider, list(models)), compaction.summary_input(groups[:cut], None))
    if session.policies.signal_checked_after_summary:
        _check_signal(session, signal)  # cancelled while the summary was written: nothing is committed
    retained = sum(len(group.messages) for group in groups[cut:])
    session.replace_earlier_history(retained, text)
    discarded = [g.iteration for g in groups[:cut] if g.iteration is not None]
    policies.drop_iterations(session.memory, [str(i) for i in discarded])
    Events(observers).emit("compaction", summary=text, retained=retained, discarded_iterations=discarded)
    return text
