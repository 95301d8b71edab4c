"""The scripted provider: answers each model call with the scenario's next script entry for it.

It records every request and response into the scenario's record, so the wire traffic between a runtime
and its model is observable. A runtime builds a request as a plain JSON-able dict (its own wire shape:
messages, tools, options) and receives the ``ScriptEntry`` for that call.
"""

from __future__ import annotations

from typing import Any

from conformance.scenario.common import ScriptEntry
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
    """Answers calls from the script: each call takes the first unused entry meant for its purpose
    (``ScriptEntry.purpose``), so an untagged script is played strictly in order."""

    def __init__(self, script: list[ScriptEntry], recorder: Recorder) -> None:
        self._script = script
        self._recorder = recorder
        self._used: set[int] = set()
        self.calls = 0
        self.last_entry: ScriptEntry | None = None
        """The entry that answered the latest call."""

    def _next_entry(self, purpose: str) -> ScriptEntry | None:
        for index, entry in enumerate(self._script):
            if index not in self._used and entry.purpose in (None, purpose):
                self._used.add(index)
                return entry
        return None

    def complete(self, request: dict[str, Any], *, purpose: str = "turn") -> ScriptEntry:
        """Record ``request`` as call N (1-based), then return the script entry for it or raise."""
        self.calls += 1
        call = self.calls
        self._recorder.emit("model_request", call=call, purpose=purpose, **request)
        entry = self._next_entry(purpose)
        if entry is None:
            raise ScriptExhausted(call)
        self.last_entry = entry
        if entry.failure is not None:
            self._recorder.emit("model_response", call=call, failure=entry.failure.model_dump())
            raise ProviderFailure(entry.failure.status, entry.failure.message, entry.failure.retry_after)
        self._recorder.emit(
            "model_response",
            call=call,
            text=entry.text,
            tool_calls=[c.model_dump(exclude_none=True) for c in entry.tool_calls],
            **({"json": entry.json_data} if entry.json_data is not None else {}),
            stop_reason=entry.effective_stop_reason(),
            usage=entry.usage.model_dump(),
        )
        return entry

    @property
    def remaining(self) -> int:
        return len(self._script) - len(self._used)
