"""What every system's player shares: the scripted model in the reference's own response types."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from conformance.scenario.common import ScriptEntry
from reference.providers.model import ModelResponse, ProviderError, StreamBreak, ToolCall, Usage
from reference.providers.protocol import ModelProvider
from reference.providers.scripted import ScriptedProvider
from reference.record import Recorder


def model_response(entry: ScriptEntry) -> ModelResponse:
    """One script entry as the answer a provider gives (the scenario vocabulary, field for field)."""
    return ModelResponse(
        text=entry.text,
        tool_calls=tuple(
            ToolCall(name=call.name, code=call.code, arguments=call.arguments, id=call.id)
            for call in entry.tool_calls
        ),
        json_data=entry.json_data,
        continuation=entry.continuation,
        stop_reason=entry.stop_reason,
        usage=Usage(entry.usage.input_tokens, entry.usage.output_tokens),
        chunks=tuple(entry.chunks) if entry.chunks is not None else None,
        failure=(
            ProviderError(entry.failure.status, entry.failure.message, entry.failure.retry_after)
            if entry.failure is not None
            else None
        ),
        stream_break=(
            StreamBreak(entry.stream_break.after, entry.stream_break.calls_after, entry.stream_break.message)
            if entry.stream_break is not None
            else None
        ),
        first_chunk_delay_ms=entry.first_chunk_delay_ms,
    )


def given(**values: Any) -> dict[str, Any]:
    """Only the options a scenario set, as keyword arguments: an unset one (None) is left out so the
    reference applies its own default, which then lives in one place (tests/test_defaults_agree.py)."""
    return {name: value for name, value in values.items() if value is not None}


ProviderFactory = Callable[[Sequence[ScriptEntry], Recorder], ModelProvider]
"""How a player gets its model: from the scenario's script and the record's recorder. The default plays
the script in-process; the differential test passes one that serves it over HTTP instead."""


def scripted_provider(script: Sequence[ScriptEntry], recorder: Recorder) -> ScriptedProvider:
    """The reference's scripted provider playing a scenario's script, purposes included."""
    return ScriptedProvider(
        [model_response(entry) for entry in script], recorder, [entry.purpose for entry in script]
    )
