"""The scripted provider: answers each model call with the scenario's next script entry.

It records every request and response into the scenario's record, so the wire traffic between a runtime
and its model is observable. A runtime builds a request as a plain JSON-able dict (its own wire shape:
messages, tools, options) and receives the ``ModelResponse`` for that call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reference.providers.model import ModelResponse
from reference.record import Recorder


class ScriptExhausted(RuntimeError):
    """The runtime made more model calls than the scenario scripted."""

    def __init__(self, call: int) -> None:
        super().__init__(f"the script has no response for call {call}")
        self.call = call


class ProviderFailure(RuntimeError):
    """A scripted provider failure (HTTP status, optional retry-after)."""

    def __init__(self, status: int, message: str, retry_after: float | None) -> None:
        super().__init__(f"provider failed with HTTP {status}: {message}")
        self.status = status
        self.retry_after = retry_after


class ScriptedProvider:
    def __init__(self, script: Sequence[ModelResponse], recorder: Recorder) -> None:
        self._script = list(script)
        self._recorder = recorder
        self.calls = 0

    def complete(self, request: dict[str, Any], *, purpose: str = "turn") -> ModelResponse:
        """Record ``request`` as call N (1-based), then return the Nth script entry or raise."""
        self.calls += 1
        call = self.calls
        self._recorder.emit("model_request", call=call, purpose=purpose, **request)
        if call > len(self._script):
            raise ScriptExhausted(call)
        entry = self._script[call - 1]
        self._recorder.emit("model_response", call=call, **entry.record_fields())
        if entry.failure is not None:
            raise ProviderFailure(entry.failure.status, entry.failure.message, entry.failure.retry_after)
        return entry

    @property
    def remaining(self) -> int:
        return max(0, len(self._script) - self.calls)
