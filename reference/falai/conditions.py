"""A trigger's ``if`` and a flow's ``while``: predicates over what the agent knows at that moment.

The real API takes code predicates over ``context``, ``data``, ``input`` and ``now`` (falai.if.sees). Here
a condition is any Python callable taking a :class:`Scope`; :class:`Where` is a ready-made one that tests
one dotted path (the form the conformance scenarios write as data), so a definition can be printed,
compared and shared with runtimes in other languages.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

#: What a missing path looks up to; never equal to any value a scope holds.
MISSING: Any = object()
_UNSET: Any = object()


@dataclass(frozen=True)
class Scope:
    """What a condition and a template can read (falai.if.sees): the host context, the collected data,
    the run's input (an event payload, a start input, a mention's extracted values) and the time."""

    context: Mapping[str, Any] = field(default_factory=dict)
    data: Mapping[str, Any] = field(default_factory=dict)
    input: Mapping[str, Any] = field(default_factory=dict)
    now: int = 0

    def lookup(self, path: str) -> Any:
        """The value at a dotted ``path`` (``data.name``, ``context.lead.tags``), or :data:`MISSING`."""
        value: Any = {"context": self.context, "data": self.data, "input": self.input, "now": self.now}
        for part in path.split("."):
            if not isinstance(value, Mapping) or part not in value:
                return MISSING
            value = value[part]
        return value


Condition = Callable[[Scope], bool]
"""A predicate over the scope; ``None`` in its place means "always"."""


@dataclass(frozen=True)
class Where:
    """A condition testing the value at one dotted path with exactly one of ``equals``, ``one_of``,
    ``contains`` (a list value holds the item) or ``exists``. A missing value fails every test but
    ``exists=False``."""

    path: str
    equals: Any = _UNSET
    one_of: tuple[Any, ...] | None = None
    contains: Any = _UNSET
    exists: bool | None = None

    def __post_init__(self) -> None:
        given = [
            name
            for name, on in (
                ("equals", self.equals is not _UNSET),
                ("one_of", self.one_of is not None),
                ("contains", self.contains is not _UNSET),
                ("exists", self.exists is not None),
            )
            if on
        ]
        if len(given) != 1:
            raise ValueError(f"Where({self.path!r}) needs exactly one of equals, one_of, contains, exists; "
                             f"got {given or 'none'}")
        if self.path.split(".", 1)[0] not in ("context", "data", "input", "now"):
            raise ValueError(f"Where path {self.path!r} must start with context, data, input or now")

    def __repr__(self) -> str:
        tests = (
            ("equals", self.equals, self.equals is not _UNSET),
            ("one_of", self.one_of, self.one_of is not None),
            ("contains", self.contains, self.contains is not _UNSET),
            ("exists", self.exists, self.exists is not None),
        )
        given = ", ".join(f"{name}={value!r}" for name, value, on in tests if on)
        return f"Where({self.path!r}, {given})"

    def __call__(self, scope: Scope) -> bool:
        value = scope.lookup(self.path)
        if self.exists is not None:
            return (value is not MISSING) == self.exists
        if value is MISSING:
            return False
        if self.one_of is not None:
            return value in self.one_of
        if self.contains is not _UNSET:
            return isinstance(value, list) and self.contains in value
        return bool(value == self.equals)


def holds(condition: Condition | None, scope: Scope) -> bool:
    """falai.if.gate: an absent condition always holds."""
    return True if condition is None else bool(condition(scope))
