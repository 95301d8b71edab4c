"""``python:fakes.mistyped:make``: the reference, except that one field of each record has the wrong type.

It plays every case exactly as the reference does, then reports the first ``iteration`` event's ``index``
(llmz), the first ``turn`` event's ``step`` (falai) or ``final.tokens`` (akan) as a string: the kind of
slip a runtime written in a loosely typed language makes. The record envelope stays valid, so only the
system's record schema can catch it.
"""

from __future__ import annotations

from typing import Any

from conformance.players import hello_info, play


def mistype(record: dict[str, Any], system: str) -> str:
    """Break one field in place; return its record path."""
    if system == "akan":
        record["final"]["tokens"] = str(record["final"]["tokens"])
        return "final.tokens"
    kind, field = ("iteration", "index") if system == "llmz" else ("turn", "step")
    position, event = next((i, e) for i, e in enumerate(record["events"]) if e["type"] == kind)
    event[field] = str(event[field])
    return f"events[{position}].{field}"


class Mistyped:
    def hello(self) -> dict[str, Any]:
        return {**hello_info(), "name": "mistyped"}

    def run(self, payload: dict[str, Any]) -> dict[str, Any]:
        record = play(payload)
        mistype(record, str(payload["system"]))
        return record


def make() -> Mistyped:
    return Mistyped()
