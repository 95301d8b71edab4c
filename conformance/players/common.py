"""What every system's player shares: the scripted model in the reference's own response types."""

from __future__ import annotations

from collections.abc import Sequence

from conformance.scenario.common import ScriptEntry
from reference.providers.model import ModelResponse, ProviderError, ToolCall, Usage


def model_response(entry: ScriptEntry) -> ModelResponse:
    """One script entry as the answer a provider gives (the scenario vocabulary, field for field)."""
    return ModelResponse(
        text=entry.text,
        tool_calls=tuple(
            ToolCall(name=call.name, code=call.code, arguments=call.arguments, id=call.id)
            for call in entry.tool_calls
        ),
        json_data=entry.json_data,
        stop_reason=entry.stop_reason,
        usage=Usage(entry.usage.input_tokens, entry.usage.output_tokens),
        chunks=tuple(entry.chunks) if entry.chunks is not None else None,
        failure=(
            ProviderError(entry.failure.status, entry.failure.message, entry.failure.retry_after)
            if entry.failure is not None
            else None
        ),
    )


def model_responses(script: Sequence[ScriptEntry]) -> list[ModelResponse]:
    return [model_response(entry) for entry in script]
