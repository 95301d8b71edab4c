"""What every model provider offers a reference runtime, so a runtime can be given any of them.

The scripted provider (in-process, from a scenario's script) and the OpenAI-compatible HTTP provider
(a live endpoint, or the fake server) both satisfy this protocol. A runtime that annotates its
provider with ``ModelProvider`` instead of a concrete class can be pointed at either unchanged.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from reference.providers.model import ModelResponse


@runtime_checkable
class ModelProvider(Protocol):
    calls: int
    """How many calls have been made so far; runtimes count their model calls per turn with it."""

    def complete(self, request: dict[str, Any], *, purpose: str = "turn") -> ModelResponse:
        """Answer one model call. ``request`` is the runtime's own request dict, recorded as sent."""
        ...
