"""Each system's record vocabulary as pydantic models, and the JSON Schemas generated from them.

``conformance.record`` is the envelope every record shares (``events`` with a ``type`` each, ``final``);
this package says what the events and the final state of one system look like. ``python -m
conformance.schemas`` writes ``spec/protocol/records/<system>.schema.json`` from ``RECORD_MODELS``; the
runner checks every record against its system's schema (``conformance.records.check``), so a record that
reports a field with the wrong JSON type, a value outside a documented closed set, or an event type the
vocabulary does not have is the implementation's ``error``, naming the path. The prose beside each schema
(``spec/protocol/records/<system>.md``) says what the fields mean.
"""

from __future__ import annotations

from pydantic import BaseModel

from conformance.records.akan import AkanRecord
from conformance.records.falai import FalaiRecord
from conformance.records.llmz import LlmzRecord

#: system -> the model of one record of that system
RECORD_MODELS: dict[str, type[BaseModel]] = {"llmz": LlmzRecord, "falai": FalaiRecord, "akan": AkanRecord}


def schema_name(system: str) -> str:
    """The file name of a system's record schema, under ``spec/protocol/records/``."""
    return f"{system}.schema.json"
