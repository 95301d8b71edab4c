"""What ``Session.from_json`` checks before it trusts a snapshot (llmz.persistence.restore-checks-*).

A snapshot is the host's data: it may have been edited, truncated or written by something else. Each check
below looks at one property the documents name (chronology, identities, call/result pairing, exact result
encodings, memory capacity) and raises INVALID_SESSION when the snapshot breaks it, so a restore either
yields a consistent session or fails and leaves the caller's session as it was. The format version is
checked first, in ``Session.from_json`` (llmz.persistence.restore-checks-version).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from reference.llmz.conversation import check_pairing
from reference.llmz.errors import LlmzError
from reference.llmz.memory import Memory

Check = Callable[[dict[str, Any]], None]

_ITERATION_ID = re.compile(r"^iteration_(\d+)$")


def _history(state: dict[str, Any]) -> list[dict[str, Any]]:
    history = state.get("history", [])
    if not isinstance(history, list) or not all(isinstance(m, dict) for m in history):
        raise LlmzError("INVALID_SESSION", "the snapshot's history must be a list of messages")
    return history


def pairing(state: dict[str, Any]) -> None:
    """Every result answers an earlier call and every call of a settled session has its result
    (llmz.persistence.restore-checks-pairing)."""
    history = _history(state)
    check_pairing(history)
    answered = {m.get("toolResultCallId") for m in history}
    for index, message in enumerate(history):
        for call in message.get("toolCalls", []) or []:
            if call.get("id") not in answered:
                missing = call.get("id")
                raise LlmzError("INVALID_SESSION", f"history[{index}] calls {missing!r}, which has no result")


def identities(state: dict[str, Any]) -> None:
    """Tool call ids and iteration record ids are unique (llmz.persistence.restore-checks-identities)."""
    seen: set[Any] = set()
    for message in _history(state):
        for call in message.get("toolCalls", []) or []:
            if call.get("id") in seen:
                raise LlmzError("INVALID_SESSION", f"tool call id {call.get('id')!r} appears twice")
            seen.add(call.get("id"))
    records = _records(state)
    ids = [record.get("id") for record in records]
    if len(set(ids)) != len(ids):
        raise LlmzError("INVALID_SESSION", "an iteration record id appears twice")


def _number(iteration_id: object) -> int | None:
    match = _ITERATION_ID.match(iteration_id) if isinstance(iteration_id, str) else None
    return int(match.group(1)) if match else None


def chronology(state: dict[str, Any]) -> None:
    """History and iteration records run oldest first (llmz.persistence.restore-checks-chronology)."""
    for sequence, where in (
        ([m.get("iteration") for m in _history(state) if "iteration" in m], "history"),
        ([r.get("id") for r in _records(state)], "iteration records"),
    ):
        numbers = [_number(item) for item in sequence]
        if any(n is None for n in numbers) or numbers != sorted(numbers):  # type: ignore[type-var]
            raise LlmzError("INVALID_SESSION", f"the {where} of the snapshot are out of order")


def _records(state: dict[str, Any]) -> list[dict[str, Any]]:
    memory = state.get("memory", {})
    records = memory.get("iterations", []) if isinstance(memory, dict) else []
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise LlmzError("INVALID_SESSION", "the snapshot's iteration records must be a list of records")
    return records


def well_encoded(value: Any) -> bool:
    """Whether ``value`` is a tagged memory value as ``reference.llmz.memory`` writes it."""
    if value is None or isinstance(value, bool | str):
        return True
    if isinstance(value, int | float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(well_encoded(item) for item in value)
    if isinstance(value, dict):
        tag = value.get("$")
        if tag == "object":
            inner = value.get("v")
            return set(value) == {"$", "v"} and isinstance(inner, dict) and all(
                well_encoded(item) for item in inner.values()
            )
        return tag in ("undefined", "-0") and set(value) == {"$"}
    return False


def encodings(state: dict[str, Any]) -> None:
    """Exact values (variables, retained results, object memory) are well-formed encodings
    (llmz.persistence.restore-checks-encodings)."""
    memory = state.get("memory", {})
    if not isinstance(memory, dict):
        raise LlmzError("INVALID_SESSION", "the snapshot's memory must be an object")
    values = list((memory.get("variables") or {}).values())
    values += [r.get("result") for r in _records(state) if r.get("retained", True) and r.get("hasResult")]
    values += [v for props in (memory.get("objects") or {}).values() for v in props.values()]
    if not all(well_encoded(value) for value in values):
        raise LlmzError("INVALID_SESSION", "the snapshot holds a malformed exact value")


def capacity(state: dict[str, Any]) -> None:
    """The retained memory fits the snapshot's own limit (llmz.persistence.restore-checks-capacity)."""
    memory = Memory.from_json(state.get("memory"))
    if memory.size() > memory.max_bytes:
        raise LlmzError(
            "INVALID_SESSION", f"the snapshot's memory ({memory.size()} bytes) is over its {memory.max_bytes}"
        )


CHECKS: tuple[Check, ...] = (pairing, identities, chronology, encodings, capacity)
