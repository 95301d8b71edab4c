"""Building a record while a reference runtime plays a scenario, and copying the data it holds."""

from __future__ import annotations

import copy
from typing import Any

_ATOMS = frozenset({str, int, float, bool, type(None)})


def _copy(value: Any) -> Any:
    # A scalar member is taken as it is without a call: most members of a record's data are scalars, and
    # the call per member was most of the cost of a copy.
    kind = type(value)
    if kind is dict:
        return {key: item if type(item) in _ATOMS else _copy(item) for key, item in value.items()}
    if kind is list:
        return [item if type(item) in _ATOMS else _copy(item) for item in value]
    if kind in _ATOMS:
        return value
    if kind is tuple:
        return tuple(_copy(item) for item in value)
    return copy.deepcopy(value)


def snapshot(value: Any) -> Any:
    """A copy of ``value`` that nothing done to the original can change: ``copy.deepcopy`` for the data a
    runtime records (dicts, lists, tuples, text, numbers, booleans, None), several times faster.

    Why it is safe where ``deepcopy`` was used. Exact types only are taken apart (a subclass of dict or
    list, and anything else, goes to ``deepcopy`` whole), scalars are immutable, and keys are hashable
    scalars. The one difference is sharing: a list that appears twice in ``value`` becomes two equal
    lists in the copy, which no JSON consumer can see (records and states travel as JSON). A structure
    that contains itself (the fast walk would recurse without end) is handed to ``deepcopy`` whole.
    """
    try:
        return _copy(value)
    except RecursionError:
        return copy.deepcopy(value)


class Recorder:
    """Append-only event log plus the final state; ``to_dict`` is what goes back to the harness."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.final: dict[str, Any] = {}

    def emit(self, type: str, **fields: Any) -> dict[str, Any]:
        event = {"type": type, **snapshot(fields)}
        self.events.append(event)
        return event

    def take(self, type: str, fields: dict[str, Any]) -> dict[str, Any]:
        """``emit`` for fields that are already the recorder's alone: an observer's own copy from
        ``reference.llmz.events``, which nothing else holds. Copying them once more protects nothing."""
        event = {"type": type, **fields}
        self.events.append(event)
        return event

    def to_dict(self) -> dict[str, Any]:
        """The record: the final state copied now (it is usually the runtime's live state), the events as
        they were copied when emitted (``emit``), in a list of their own. Copying every event a second
        time, as this once did, was most of the cost of handing a record over."""
        return {"events": list(self.events), "final": snapshot(self.final)}
