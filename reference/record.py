"""Building a record while a reference runtime plays a scenario."""

from __future__ import annotations

import copy
from typing import Any


class Recorder:
    """Append-only event log plus the final state; ``to_dict`` is what goes back to the harness."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.final: dict[str, Any] = {}

    def emit(self, type: str, **fields: Any) -> dict[str, Any]:
        event = {"type": type, **copy.deepcopy(fields)}
        self.events.append(event)
        return event

    def to_dict(self) -> dict[str, Any]:
        return {"events": copy.deepcopy(self.events), "final": copy.deepcopy(self.final)}
