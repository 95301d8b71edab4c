"""Mutants of broken streams: restarts, retraction, midStreamFallback and what happens after dispatch."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from reference.llmz import streaming
from variants import Mutant


def _bare_restart(
    iteration: int, attempt: int, from_model: Any, to_model: Any, reason: str
) -> dict[str, Any]:
    """The restart event says only that it is one."""
    return {"iteration": iteration, "restart": True}


MUTANTS: list[Mutant] = [
    Mutant(
        "llmz-restart-without-option",
        rules=("llmz.streaming.mid-stream-fallback-before-dispatch",),
        description="a broken stream restarts on the next model even without midStreamFallback",
        policies=lambda p: replace(
            p, may_restart=lambda enabled, dispatched, has_next: has_next and not dispatched
        ),
    ),
    Mutant(
        "llmz-never-restarts",
        rules=("llmz.streaming.mid-stream-fallback-before-dispatch",),
        description="midStreamFallback is ignored: a broken stream always fails the generation",
        policies=lambda p: replace(p, may_restart=lambda enabled, dispatched, has_next: False),
    ),
    Mutant(
        "llmz-replays-after-dispatch",
        rules=("llmz.streaming.no-replay-after-dispatch", "llmz.streaming.execute-while-streaming"),
        description="a program already started from the stream runs again on the fallback model",
        policies=lambda p: replace(p, may_restart=lambda enabled, dispatched, has_next: enabled and has_next),
    ),
    Mutant(
        "llmz-bare-restart-event",
        rules=("llmz.streaming.restart-event-fields",),
        description="the restart event carries no attempt, models or reason",
        policies=lambda p: replace(p, restart_event=_bare_restart),
    ),
    Mutant(
        "llmz-retracts-after-replacement",
        rules=("llmz.streaming.restart-before-replacement",),
        description="the restart reaches the consumer only after the replacement's previews",
        policies=lambda p: replace(p, retract_before_replacement=False),
    ),
    Mutant(
        "llmz-silent-restart",
        rules=("llmz.streaming.mid-stream-fallback-needs-retraction",),
        description="a restart is never handed to the preview consumer, so stale previews stay",
        policies=lambda p: replace(p, tell_consumer_of_restart=False),
    ),
    Mutant(
        "llmz-failed-retraction-ignored",
        rules=("llmz.streaming.failed-retraction-stops",),
        description="a consumer that throws on a restart is ignored and the replacement goes on",
        policies=lambda p: replace(p, failed_retraction_stops=False),
    ),
    Mutant(
        "llmz-ignores-max-time-to-first-token",
        rules=("llmz.configuration.streaming-options",),
        description="maxTimeToFirstToken is ignored: a stream whose first token is late is used as usual",
        policies=lambda p: replace(p, first_token_late=lambda limit, delay, unit: False),
    ),
    Mutant(
        "llmz-first-token-limit-in-microseconds",
        rules=("llmz.configuration.streaming-options",),
        description="maxTimeToFirstToken is read in microseconds, so a first token well within it is late",
        policies=lambda p: replace(p, first_token_limit_unit_ms=0.001),
    ),
    Mutant(
        "llmz-break-after-dispatch-ignored",
        rules=("llmz.streaming.post-dispatch-failure-reported",),
        description="a stream that breaks after its program started is taken as complete (its exit applies)",
        policies=lambda p: replace(p, report_interruption=False),
    ),
]

assert streaming.may_restart(True, False, True), "the mutants above assume the reference restarts here"
