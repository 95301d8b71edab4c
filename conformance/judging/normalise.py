"""Replacing volatile values in a record with stable placeholders, before judging and golden files.

A real runtime mints provider call ids, stamps wall-clock times and measures durations; none of that is
behaviour a rule constrains, and all of it would make two correct runs differ. So, at any depth of the
record, the value of a key listed in ``VOLATILE_KEYS`` becomes ``<kind-N>``, numbered by first appearance
within the record: the same value always gets the same placeholder, so cross references survive (a tool
result's ``tool_call_id`` still equals its call's ``id``), while the actual spelling stops mattering.

Values that appear verbatim in the scenario (a scripted ``id: call_1``, say) are not volatile: the
scenario chose them, and expectations may quote them, so they are kept. ``None`` and booleans are kept.
Keys not listed are never touched, so a rule about virtual-clock times (a schedule entry's ``at``) is
judged on the real value: records should carry such times under their own, descriptive keys.

What the implementation carries for itself (events of its own types, ``x-`` fields) is removed before
this, by ``conformance.records.extras.set_aside``, which needs the system's vocabulary to know an event
type from an unknown one; the runner and the fuzzer call both, in that order.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

#: key -> placeholder kind. Ids minted by the implementation or its provider, wall-clock stamps, and
#: measured durations. Extend with care: anything listed here can no longer be checked by an expectation.
VOLATILE_KEYS: dict[str, str] = {
    "id": "id",
    "call_id": "id",
    "tool_call_id": "id",
    "request_id": "id",
    "response_id": "id",
    "message_id": "id",
    "run_id": "id",
    "session_id": "id",
    "timestamp": "time",
    "created_at": "time",
    "updated_at": "time",
    "started_at": "time",
    "finished_at": "time",
    "wall_time": "time",
    "duration_ms": "duration",
    "elapsed_ms": "duration",
    "latency_ms": "duration",
}


def scenario_values(document: Any) -> set[str]:
    """Every string and number in a scenario document: values the scenario itself chose."""
    found: set[str] = set()
    stack = [document]
    while stack:
        value = stack.pop()
        kind = type(value)  # exact types first: a scenario document is plain YAML data
        if kind is str:
            found.add(value)
        elif kind is dict:
            stack.extend(value.values())
        elif kind is list:
            stack.extend(value)
        elif kind is int or kind is float:
            found.add(repr(value))
        elif isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, str | int | float) and not isinstance(value, bool):
            found.add(repr(value) if not isinstance(value, str) else value)
    return found


class _Placeholders:
    def __init__(self, keep: Iterable[str]) -> None:
        self._keep = keep if isinstance(keep, frozenset | set) else set(keep)
        self._assigned: dict[tuple[str, str], str] = {}
        self._counts: dict[str, int] = {}

    def replace(self, kind: str, value: Any) -> Any:
        if value is None or isinstance(value, bool | dict | list):
            return value
        token = value if isinstance(value, str) else repr(value)
        if token in self._keep:
            return value
        key = (kind, f"{type(value).__name__}:{token}")
        if key not in self._assigned:
            self._counts[kind] = self._counts.get(kind, 0) + 1
            self._assigned[key] = f"<{kind}-{self._counts[kind]}>"
        return self._assigned[key]

    def walk(self, value: Any) -> Any:
        """``value`` with its volatile values replaced. Copy on write: a dict or list none of whose
        values changed is returned as it is, so the record's unchanging bulk is visited but not copied
        (``normalise`` documents what that shares)."""
        kind_of = type(value)
        if kind_of is dict:
            out: dict[str, Any] | None = None
            for key, item in value.items():
                kind = VOLATILE_KEYS.get(key)
                if kind is None:
                    if type(item) in _SCALARS:
                        continue
                    new = self.walk(item)
                elif isinstance(item, dict | list):
                    new = self.walk(item)
                else:
                    new = self.replace(kind, item)
                if new is not item:
                    if out is None:
                        out = dict(value)
                    out[key] = new
            return value if out is None else out
        if kind_of is list:
            changed: list[Any] | None = None
            for index, item in enumerate(value):
                if type(item) in _SCALARS:
                    continue
                new = self.walk(item)
                if new is not item:
                    if changed is None:
                        changed = list(value)
                    changed[index] = new
            return value if changed is None else changed
        if kind_of in _SCALARS:
            return value
        return self._copy(value)

    def _copy(self, value: Any) -> Any:
        """A subclass of dict or list (an in-process implementation's own types): always a plain copy."""
        if isinstance(value, dict):
            return {
                key: (
                    self.walk(item)
                    if VOLATILE_KEYS.get(key) is None or isinstance(item, dict | list)
                    else self.replace(VOLATILE_KEYS[key], item)
                )
                for key, item in value.items()
            }
        if isinstance(value, list):
            return [self.walk(item) for item in value]
        return value


_SCALARS = frozenset({str, int, float, bool, type(None)})
"""Exact types ``walk`` returns as they are (subclasses take the general path)."""


def normalise(
    record: dict[str, Any], scenario: Any = None, *, keep: frozenset[str] | None = None
) -> dict[str, Any]:
    """``record`` with volatile values replaced (see the module docstring).

    The result is a new object wherever something was replaced and shares the rest with ``record``:
    callers judge it and drop the record it came from, so copying the unchanged parts would be wasted.
    ``keep`` is ``scenario_values(scenario)`` when the caller has it already (a loaded scenario keeps it).
    """
    if keep is None:
        keep = frozenset(scenario_values(scenario)) if scenario is not None else frozenset()
    result: dict[str, Any] = _Placeholders(keep).walk(record)
    return result
