"""Component-local values on the agent's surface: ``st.useState`` and ``st.expose``.

Both publish a value under a name the agent can read with ``readState`` and sees listed in each turn's
context, like a subscribed store key (akan.state.expose-derived-value). A falsy name publishes nothing
(akan.tool.falsy-name-state-too). Only a ``useState`` whose ``meta.set`` names a type can be written by
the agent (akan.state.use-state-read-only-unless-set), through a setter tool; a type no schema describes
leaves the value published but read-only (akan.tool.use-state-set-degrades-read-only). The documents do
not name the setter tool; the reference calls it ``setState<Name>``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from reference.akan.model import LocalState, ToolArg

Describe = Callable[[Sequence[ToolArg]], dict[str, Any] | None]
"""How a setter's parameters are described (``Declarations.parameters``): None when they cannot be."""
Setter = tuple[str, dict[str, Any]]
"""A setter tool's state name and parameters."""


def setter_name(name: str) -> str:
    return f"setState{name[:1].upper()}{name[1:]}"


@dataclass(frozen=True)
class LocalStates:
    """Which component-local values the agent can read, and which it can write through a setter."""

    def published(self, states: Sequence[LocalState]) -> dict[str, LocalState]:
        """The values the agent can read, by name; later repeats of a name are ignored.

        akan.state.expose-derived-value, akan.tool.falsy-name-state-too.
        """
        found: dict[str, LocalState] = {}
        for state in states:
            if state.name and state.name not in found:
                found[state.name] = state
        return found

    def setters(self, states: Sequence[LocalState], describe: Describe) -> dict[str, Setter]:
        """Tool name -> (state name, parameters) for each writable ``useState``.

        akan.state.use-state-read-only-unless-set, akan.tool.use-state-set-degrades-read-only.
        """
        tools: dict[str, Setter] = {}
        for name, state in self.published(states).items():
            if state.api != "useState" or state.set is None:
                continue
            schema = describe([ToolArg(name="value", type=state.set)])
            if schema is not None:
                tools[_unused(setter_name(name), tools)] = (name, schema)
        return tools

    def setter_tools(self, states: Sequence[LocalState], describe: Describe) -> list[dict[str, Any]]:
        return [
            {"name": tool, "description": f"Set the screen's {state} value.", "parameters": schema}
            for tool, (state, schema) in self.setters(states, describe).items()
        ]


def _unused(tool: str, taken: dict[str, Setter]) -> str:
    """``tool``, or with the first free ``_2``, ``_3``... after it: ``count`` and ``Count`` both make
    ``setStateCount``, and each writable useState must keep a way to be written
    (akan.state.use-state-read-only-unless-set), so the later one takes a suffix rather than the place."""
    suffix = 2
    chosen = tool
    while chosen in taken:
        chosen, suffix = f"{tool}_{suffix}", suffix + 1
    return chosen
