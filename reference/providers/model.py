"""What a model answers, in the reference's own types: every provider returns a ``ModelResponse``.

The runtimes read answers only through these types, whatever produced them: a scripted list (offline
demos and the conformance suite), the OpenAI-compatible HTTP client (a live endpoint or the loopback fake
server), or a plain Python function. They are frozen dataclasses rather than the harness's scenario
models, so the reference stays a library that knows nothing of YAML or of the suite that judges it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Literal

from reference.record import snapshot

StopReason = Literal["stop", "tool_calls", "max_tokens"]


def _as_dict(item: Any) -> dict[str, Any]:
    """``dataclasses.asdict`` for the flat records below (no field holds another dataclass): each field in
    order, its value copied (``reference.record.snapshot``). ``asdict`` takes every value apart generically
    and was the larger part of recording an answer."""
    return {f.name: snapshot(getattr(item, f.name)) for f in fields(item)}


@dataclass(frozen=True)
class ToolCall:
    """A native tool call: for llmz the one ``run_javascript`` call, whose program is ``code``."""

    name: str = "run_javascript"
    code: str | None = None
    arguments: dict[str, Any] | None = None
    id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The call as recorded: fields that are not set are left out."""
        return {key: value for key, value in _as_dict(self).items() if value is not None}


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0

    def to_dict(self) -> dict[str, int]:
        return _as_dict(self)


@dataclass(frozen=True)
class ProviderError:
    """The provider refused the call (HTTP status, optional retry-after seconds) instead of answering."""

    status: int
    message: str = "provider failure"
    retry_after: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return _as_dict(self)


@dataclass(frozen=True)
class StreamBreak:
    """A stream that fails after ``after`` chunks; its tool calls were complete after ``calls_after``
    chunks (None: only at the end, which a broken stream never reaches)."""

    after: int
    calls_after: int | None = None
    message: str = "the stream broke"

    def calls_arrived(self) -> bool:
        """Whether the tool calls were complete before the transport failed."""
        return self.calls_after is not None and self.calls_after <= self.after


@dataclass(frozen=True)
class ModelResponse:
    """One answer of the model: text, tool calls, structured output, stream chunks, or a failure."""

    text: str = ""
    tool_calls: Sequence[ToolCall] = ()
    json_data: dict[str, Any] | None = None
    """Structured output (falai's understand call answers its scores and mentions this way)."""
    stop_reason: StopReason | None = None
    """None means: ``tool_calls`` when there are tool calls, else ``stop``."""
    usage: Usage = field(default_factory=Usage)
    chunks: Sequence[str] | None = None
    """Stream deltas, when the answer arrives as a stream."""
    failure: ProviderError | None = None
    stream_break: StreamBreak | None = None
    """The stream fails partway (only with ``chunks``): the answer never completes."""
    continuation: Any = None
    """Opaque provider continuation metadata (a reasoning signature): the answer is signed output."""
    first_chunk_delay_ms: float | None = None
    """How long the stream's first chunk took to arrive (scripted, or measured over HTTP); None: at once or
    not streamed. Runtimes compare it with a time-to-first-token limit; it is not part of the record."""

    def effective_stop_reason(self) -> StopReason:
        if self.stop_reason is not None:
            return self.stop_reason
        return "tool_calls" if self.tool_calls else "stop"

    def record_fields(self) -> dict[str, Any]:
        """The answer as the ``model_response`` event records it (one shape for every provider)."""
        if self.failure is not None:
            return {"failure": self.failure.to_dict()}
        return {
            "text": self.text,
            "tool_calls": [call.to_dict() for call in self.tool_calls],
            **({"json": self.json_data} if self.json_data is not None else {}),
            "stop_reason": self.effective_stop_reason(),
            "usage": self.usage.to_dict(),
            **({"continuation": self.continuation} if self.continuation is not None else {}),
        }
