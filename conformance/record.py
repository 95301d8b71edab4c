"""The record an implementation returns for one scenario.

``events`` is the ordered log of everything observable (model requests and responses, tool calls,
deliveries, exits, errors, schedule entries, outcome lines, refusals); ``final`` is the end state
(session status, transcript, ...). Every event has a ``type``; the vocabulary per system is documented in
``spec/protocol/records/<system>.md`` and modelled in ``conformance.records`` (whose schemas the runner checks
next). This envelope is validated first, against ``spec/protocol/record.schema.json``.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Event(BaseModel):
    model_config = ConfigDict(extra="allow")

    type: str = Field(min_length=1)


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid")

    events: list[Event]
    final: dict[str, Any] = Field(default_factory=dict)
