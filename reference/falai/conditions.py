"""Evaluating the declarative stand-ins for a trigger's ``if`` and a flow's ``while``.

The real API takes code predicates over ``context``, ``data``, ``input``, ``silenced`` and ``now``
(falai.if.sees); scenarios write them as data (``conformance.scenario.falai.Condition``) so that every
implementation can evaluate the same predicate.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conformance.scenario.falai import Condition

_MISSING = object()


def lookup(scope: Mapping[str, Any], path: str) -> Any:
    """The value at a dotted ``path`` in ``scope``, or a private sentinel when any part is missing."""
    value: Any = scope
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return _MISSING
        value = value[part]
    return value


def holds(condition: Condition | None, scope: Mapping[str, Any]) -> bool:
    """falai.if.gate: an absent condition always holds."""
    if condition is None:
        return True
    value = lookup(scope, condition.path)
    if "exists" in condition.model_fields_set:
        return (value is not _MISSING) == bool(condition.exists)
    if value is _MISSING:
        return False
    if "one_of" in condition.model_fields_set:
        return value in (condition.one_of or [])
    if "contains" in condition.model_fields_set:
        return isinstance(value, list) and condition.contains in value
    return bool(value == condition.equals)
