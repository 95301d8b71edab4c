"""The seam between the llmz execution loop and the token budget / compaction policies.

The loop (``reference/llmz/execute.py`` and friends) calls ``fit_request`` once before every model
dispatch with the request it would send. ``fit_request`` measures it, reserves output space, compacts the
history when it crosses the trigger, and either returns the request to send (plus any compaction to commit
to the session) or raises ``TokenBudgetError`` before anything is dispatched.

The loop owns the session; this module owns the budget. Until the budget work lands, the stub below sends
the request unchanged with a fixed output allowance, so the loop can be written and tested independently.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Message = dict[str, Any]


@dataclass(frozen=True)
class ModelLimits:
    """Per-model context limits from the model's details (input window, maximum output)."""

    input_tokens: int
    output_tokens: int


@dataclass(frozen=True)
class FitContext:
    instructions: str
    """The system instructions text as sent."""
    tools: list[dict[str, Any]]
    """Native tool declarations as sent (run_javascript, with the host API in its description)."""
    history: list[Message]
    """Canonical conversation before the current turn's input, oldest first. Each message may carry an
    ``iteration`` key (the iteration id it belongs to); a call and its result share one."""
    current: list[Message]
    """Current-turn input and this turn's iterations so far: never compacted."""
    max_tokens: int | None
    """``options.maxTokens``: a cap on the whole context window, or None."""
    models: list[ModelLimits]
    """Every configured model (a fallback list has several); the smallest limits apply."""
    compaction: dict[str, Any] | None
    """The session's compaction controls (triggerRatio, targetRatio, keepRecentIterations,
    maxSummaryTokens), or None when compaction is disabled (``compaction: false``)."""
    summarize: Callable[[list[Message], int], str]
    """Asks the model for a summary of the given messages within the given output budget."""


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


class TokenBudgetError(Exception):
    """The request cannot fit: TOKEN_OVERFLOW (phase 'input') raised before dispatch."""

    code = "TOKEN_OVERFLOW"

    def __init__(self, message: str, *, tokens: int | None = None, limit: int | None = None) -> None:
        super().__init__(message)
        self.tokens = tokens
        self.limit = limit


def fit_request(context: FitContext) -> FitResult:
    """Stub: sends everything, reserving 1024 output tokens. Replaced by the budget implementation."""
    return FitResult(messages=[*context.history, *context.current], max_output_tokens=1024, input_tokens=0)
