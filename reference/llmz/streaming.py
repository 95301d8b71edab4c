"""Streamed answers: previews, and what happens when a stream breaks partway.

Previews hand each chunk to ``onDelta`` with the text so far (llmz.streaming.content-accumulates); a
throwing preview callback changes nothing (llmz.streaming.preview-callback-errors-ignored). When the
transport fails before the answer completes, the outcome depends on whether the program was already
dispatched: a complete call may start while the stream is still open (llmz.streaming.execute-while-
streaming; the reference does, like llmz 1.0.1). Before dispatch, ``midStreamFallback`` lets the runtime
restart on the next model, telling the preview consumer to retract first
(llmz.streaming.mid-stream-fallback-before-dispatch, llmz.streaming.restart-before-replacement); a
consumer that fails to retract stops generation (llmz.streaming.failed-retraction-stops). After dispatch
nothing is replayed (llmz.streaming.no-replay-after-dispatch): what ran stays and the interruption is
reported (llmz.streaming.post-dispatch-failure-reported).

``options.maxTimeToFirstToken`` (llmz.configuration.streaming-options) bounds the wait for a stream's
first chunk. The documents give neither its unit nor what a late first token leads to; the reference
reads milliseconds (as llmz 1.0.1 validates it) and treats a late stream like a failed call: the next
model of a fallback list is asked, and without one the generation fails. Whatever the reading, the late
stream itself is never used.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from reference.llmz.config import RunConfig
from reference.llmz.errors import LlmzError
from reference.llmz.events import Events
from reference.providers.model import ModelResponse

DISPATCH_WHILE_STREAMING: Final = True
"""Whether a call that arrived complete starts before the stream ends (the documents allow, not require)."""


def emit_previews(
    chunks: Sequence[str],
    config: RunConfig,
    events: Events,
    iteration: int,
    stream_contents: Callable[[list[str]], list[str]],
) -> None:
    """Hand each chunk to ``onDelta`` (chat only) and record it as a ``delta`` event."""
    hook = config.on_delta
    if config.mode != "chat" or hook is None or not chunks:
        return
    pieces = list(chunks)
    for chunk, content in zip(pieces, stream_contents(pieces), strict=True):
        event: dict[str, Any] = {"iteration": iteration, "delta": chunk, "content": content}
        try:
            hook(chunk, content)
        except Exception:
            event["threw"] = True
        events.emit("delta", **event)


FIRST_TOKEN_LIMIT_UNIT_MS: Final = 1.0
"""Milliseconds per unit of ``maxTimeToFirstToken`` (the documents leave the unit open)."""

LATE_FIRST_TOKEN_FALLS_BACK: Final = True
"""A late first token moves on to the next model (else the generation fails at once)."""


def first_token_late(limit: float | None, delay_ms: float | None, unit_ms: float) -> bool:
    """Whether a streamed answer's first chunk came after ``options.maxTimeToFirstToken``
    (llmz.configuration.streaming-options): only with a limit, and only for a stream that reports its
    first-chunk time; ``unit_ms`` is the length of one unit of the limit."""
    return limit is not None and delay_ms is not None and delay_ms > limit * unit_ms


def late_first_token(limit: float, delay_ms: float) -> LlmzError:
    """The failure of a stream whose first token was late: no answer arrived in time, so it is a
    generation failure (llmz.errors.generation-failed)."""
    return LlmzError(
        "GENERATION_FAILED",
        f"the first streamed token came after {delay_ms:g} ms, beyond maxTimeToFirstToken ({limit:g})",
    )


def may_restart(enabled: bool, dispatched: bool, has_next_model: bool) -> bool:
    """A broken stream is restarted only with ``midStreamFallback``, only before the program was
    dispatched, and only onto another model."""
    return enabled and not dispatched and has_next_model


def restart_event(
    iteration: int, attempt: int, from_model: Any, to_model: Any, reason: str
) -> dict[str, Any]:
    """The fields of a restart (retraction) event (llmz.streaming.restart-event-fields)."""
    return {
        "iteration": iteration,
        "restart": True,
        "attempt": attempt,
        "models": [from_model, to_model],
        "reason": reason,
    }


def announce_restart(config: RunConfig, events: Events, fields: dict[str, Any], tell_consumer: bool) -> bool:
    """Hand a restart to the preview consumer before any replacement text; False when it failed to
    retract. Without an ``onRestart`` consumer (or in a worker) there is nothing to retract."""
    hook = config.on_restart
    if config.mode != "chat" or hook is None or not tell_consumer:
        return True
    event = dict(fields)
    ok = True
    try:
        hook(dict(fields))
    except Exception:
        event["threw"] = True
        ok = False
    events.emit("delta", **event)
    return ok


def dispatched(entry: ModelResponse, dispatch_while_streaming: bool) -> bool:
    """Whether the program of a broken answer had started when the stream failed."""
    brk = entry.stream_break
    return dispatch_while_streaming and brk is not None and bool(entry.tool_calls) and brk.calls_arrived()


def broken_error(entry: ModelResponse, after_dispatch: bool) -> LlmzError:
    """The failure a broken stream ends its iteration with: an incomplete response is GENERATION_FAILED
    (critical, llmz.errors.generation-failed); after dispatch it says the program was interrupted."""
    message = entry.stream_break.message if entry.stream_break is not None else "the stream broke"
    if after_dispatch:
        message = f"the response stream failed after the program started: {message}"
    return LlmzError("GENERATION_FAILED", message)


def failed_retraction() -> LlmzError:
    return LlmzError("GENERATION_FAILED", "the preview consumer failed to retract a restarted preview")
