"""The record an implementation returns for one scenario.

``events`` is the ordered log of everything observable (model requests and responses, tool calls,
deliveries, exits, errors, schedule entries, outcome lines, refusals); ``final`` is the end state
(session status, transcript, ...). Every event has a ``type``; the vocabulary per system is documented in
``spec/protocol/records/<system>.md`` and modelled in ``conformance.records`` (whose schemas the runner checks
next). This envelope is validated first, against ``spec/protocol/record.schema.json``.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator


class Event(BaseModel):
    model_config = ConfigDict(extra="allow")

    type: str = Field(min_length=1)


PRIVATE = r"^x-"
"""A field of the implementation's own: allowed at any depth, the top of the record included
(spec/protocol/README.md, "Your own events and fields"), and set aside before judging."""


class Record(BaseModel):
    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={"additionalProperties": False, "patternProperties": {PRIVATE: {}}},
    )

    events: list[Event]
    final: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _only_private_extras(self) -> Record:
        """Nothing but ``x-`` fields beside ``events`` and ``final`` (the schema's ``patternProperties``)."""
        for key in self.model_extra or {}:
            if not re.match(PRIVATE, key):
                raise ValueError(f"{key!r}: a record holds events, final and x- fields only")
        return self
