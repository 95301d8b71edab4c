"""The stdio protocol between the harness and an implementation under test, as pydantic models.

Newline-delimited JSON, one object per line, on the implementation's stdin and stdout (stderr is free
for logs). The harness speaks first:

1. ``{"cmd": "hello", "protocol": [1]}`` -> ``{"protocol": 1, "implementation": {...}}``: the harness
   offers the versions it speaks and the implementation picks one, or answers ``{"error": ...}``.
2. ``{"cmd": "run", "seq": n, "scenario": {...}}`` -> ``{"seq": n, "record": {...}}``, or
   ``{"seq": n, "skip": {"reason": ...}}`` for something it cannot express, or
   ``{"seq": n, "error": {"message": ...}}`` when it failed to play the case.
3. ``{"cmd": "stop"}``: the implementation exits.

``spec/protocol/*.schema.json`` are generated from these models (``python -m conformance.schemas``).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from conformance.record import Record

PROTOCOL_VERSIONS = (1,)


class Message(BaseModel):
    model_config = ConfigDict(extra="forbid")


class HelloCommand(Message):
    cmd: Literal["hello"]
    protocol: list[int] = Field(min_length=1)


class ImplementationInfo(Message):
    name: str = Field(min_length=1)
    version: str
    language: str
    systems: list[Literal["llmz", "falai", "akan"]] = Field(min_length=1)
    capabilities: list[str] = Field(default_factory=list)
    homepage: str | None = None


class HelloResponse(Message):
    protocol: int
    implementation: ImplementationInfo


class RunCommand(Message):
    cmd: Literal["run"]
    seq: int
    scenario: dict[str, Any]


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
