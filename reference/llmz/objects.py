"""Registered objects: host-backed properties that generated code reads and (when allowed) assigns.

Each object is a global in the program whose properties are accessors. Reading gives the current value;
assigning asks the host, which refuses read-only properties with INVALID_ASSIGNMENT and values the
property's schema rejects with INVALID_OBJECT_PROPERTY (llmz.memory.object-property-access,
llmz.errors.invalid-object-property). Accepted values live in session memory as *object memory*, count
toward ``maxBytes`` and survive executions and persistence. Initial values come from the definition and
are taken as they are, never validated (llmz.tools.initial-property-values-not-parsed). A generated
variable may not take an object's name (llmz.errors.invalid-assignment).
"""

from __future__ import annotations

import json
from typing import Any

from reference.llmz import memory
from reference.llmz.api import HostObject
from reference.llmz.errors import LlmzError


def guest_state(specs: list[HostObject], stored: dict[str, dict[str, Any]]) -> str:
    """Current property values per object: what memory holds, else the definition's initial value."""
    state = {
        spec.name: {
            prop.name: stored.get(spec.name, {}).get(prop.name, memory.encode_plain(prop.value))
            for prop in spec.properties
        }
        for spec in specs
    }
    return json.dumps(state)


def name_clash(code: str, specs: list[HostObject]) -> LlmzError | None:
    """A generated variable that takes an object's name is a recoverable assignment error."""
    names = {spec.name for spec in specs}
    for declared in memory.declared_names(code):
        if declared in names:
            return LlmzError(
                "INVALID_ASSIGNMENT", f"{declared!r} is a registered object; choose another variable name"
            )
    return None


def definition_problem(specs: list[HostObject]) -> LlmzError | None:
    """An object registered twice, or with a property listed twice, is a bad definition
    (llmz.errors.invalid-object)."""
    seen: set[str] = set()
    for spec in specs:
        props = [p.name for p in spec.properties]
        if spec.name in seen or len(set(props)) != len(props):
            return LlmzError(
                "INVALID_OBJECT", f"object {spec.name!r} is defined more than once or repeats a property"
            )
        seen.add(spec.name)
    return None
