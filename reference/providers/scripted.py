"""The scripted provider: answers each model call with the scenario's next script entry for it.

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
    """Answers calls from a script: each call takes the first unused answer meant for its purpose.

    ``purposes`` (parallel to ``script``) tags answers for one kind of call, such as ``summary``; an
    untagged answer serves any call, so an untagged script is played strictly in order.
    """

    def __init__(
        self,
        script: Sequence[ModelResponse],
        recorder: Recorder | None = None,
        purposes: Sequence[str | None] | None = None,
    ) -> None:
        self._script = list(script)
        self._purposes = list(purposes) if purposes is not None else [None] * len(self._script)
        if len(self._purposes) != len(self._script):
            raise ValueError(f"{len(self._purposes)} purposes for {len(self._script)} scripted answers")
        self._recorder = recorder if recorder is not None else Recorder()
        self._used: set[int] = set()
        self.calls = 0
        self.last_entry: ModelResponse | None = None
        """The answer given to the latest call."""

    def _next_entry(self, purpose: str) -> ModelResponse | None:
        for index, (entry, meant_for) in enumerate(zip(self._script, self._purposes, strict=True)):
            if index not in self._used and meant_for in (None, purpose):
                self._used.add(index)
                return entry
        return None

    def complete(self, request: dict[str, Any], *, purpose: str = "turn") -> ModelResponse:
        """Record ``request`` as call N (1-based), then return the scripted answer for it or raise."""
        self.calls += 1
        call = self.calls
        self._recorder.emit("model_request", call=call, purpose=purpose, **request)
        entry = self._next_entry(purpose)
        if entry is None:
            raise ScriptExhausted(call)
        self.last_entry = entry
        self._recorder.emit("model_response", call=call, **entry.record_fields())
        if entry.failure is not None:
            raise ProviderFailure(entry.failure.status, entry.failure.message, entry.failure.retry_after)
        return entry

    @property
    def remaining(self) -> int:
        return len(self._script) - len(self._used)
