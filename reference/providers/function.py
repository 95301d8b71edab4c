"""A model that is a plain Python function: the quickest way to script a demo by logic, not by list."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reference.providers.model import ModelResponse
from reference.record import Recorder

Answer = Callable[[dict[str, Any], str], ModelResponse]
"""``(request, purpose) -> answer``: the runtime's own request dict, and what the call is for."""


class FunctionProvider:
    """Answers each call by calling ``answer(request, purpose)``; records like every provider does."""

    def __init__(self, answer: Answer, recorder: Recorder | None = None) -> None:
        self._answer = answer
        self._recorder = recorder if recorder is not None else Recorder()
        self.calls = 0

    def complete(self, request: dict[str, Any], *, purpose: str = "turn") -> ModelResponse:
        self.calls += 1
        self._recorder.emit("model_request", call=self.calls, purpose=purpose, **request)
        response = self._answer(request, purpose)
        self._recorder.emit("model_response", call=self.calls, **response.record_fields())
        return response
