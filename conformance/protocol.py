"""The stdio protocol between the harness and an implementation under test, as pydantic models.

Newline-delimited JSON, one object per line, on the implementation's stdin and stdout (stderr is free
for logs). The harness speaks first:

1. ``{"cmd": "hello", "protocol": [2, 3]}`` -> ``{"protocol": 3, "implementation": {...}}``: the harness
   offers the versions it speaks and the implementation picks one, or answers ``{"error": ...}``.
2. ``{"cmd": "run", "seq": n, "case": {...}}`` -> ``{"seq": n, "record": {...}}``, or
   ``{"seq": n, "skip": {"reason": ...}}`` for something it cannot express, or
   ``{"seq": n, "error": {"message": ...}}`` when it failed to play the case.
3. ``{"cmd": "stop"}``: the implementation exits.

Version 2 sends only the played half of a scenario (``id``, ``system``, ``requires``, ``setup``,
``script``, ``steps``); version 1 sent the whole document, answer key included, and is no longer spoken.
Version 3 keeps every message of version 2 and relaxes the record (``spec/protocol/README.md``,
"Migrating from version 2").

``spec/protocol/*.schema.json`` are generated from these models (``python -m conformance.schemas``).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from conformance.protocol_versions import PROTOCOL_VERSIONS as PROTOCOL_VERSIONS  # re-exported
from conformance.record import Record
from conformance.systems import SystemName


class Message(BaseModel):
    model_config = ConfigDict(extra="forbid")


class HelloCommand(Message):
    cmd: Literal["hello"]
    protocol: list[int] = Field(min_length=1)


class ImplementationInfo(Message):
    name: str = Field(min_length=1)
    version: str
    language: str
    systems: list[SystemName] = Field(min_length=1)
    capabilities: list[str] = Field(default_factory=list)
    homepage: str | None = None


class HelloResponse(Message):
    protocol: int
    implementation: ImplementationInfo


class Case(Message):
    """The played half of a scenario; judging fields (title, description, rules, expect) never travel."""

    id: str = Field(min_length=1, description="The scenario id, <system>/<area>/<name>.")
    system: SystemName
    requires: list[str] = Field(default_factory=list)
    setup: dict[str, Any] = Field(default_factory=dict)
    script: list[dict[str, Any]] = Field(default_factory=list)
    steps: list[dict[str, Any]] = Field(min_length=1)


class RunCommand(Message):
    cmd: Literal["run"]
    seq: int
    case: Case


class Skip(Message):
    reason: str = Field(min_length=1)


class Failure(Message):
    message: str = Field(min_length=1)


class RunResponse(Message):
    seq: int
    record: Record | None = None
    skip: Skip | None = None
    error: Failure | None = None


class StopCommand(Message):
    cmd: Literal["stop"]


class ErrorResponse(Message):
    error: Failure
