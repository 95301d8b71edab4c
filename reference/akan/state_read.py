"""What ``readState`` hands the model for one store key: the value as its model lets an agent see it.

Three kinds of field are treated differently, because they mean different things. A ``field.visual``
field is presentation only, so it is simply dropped from every agent read and never stops one
(akan.state.visual-field-stripped-from-agent-reads, akan.state.visual-field-never-refused). A field the
model flags ``hidden`` or ``secret`` is data the agent must not see: a read that would carry one is refused
unless a ``mask:`` model is named, which then masks it (akan.state.masked-model-refused-without-mask,
akan.state.read-masked-by-declared-model). Fields are matched by name at any depth, so a list of records
is treated record by record.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from reference.akan.model import StateKey

MASK = "[masked]"


def _walk(value: Any, drop: set[str], mask: set[str]) -> Any:
    if isinstance(value, dict):
        return {k: MASK if k in mask else _walk(v, drop, mask) for k, v in value.items() if k not in drop}
    if isinstance(value, list):
        return [_walk(item, drop, mask) for item in value]
    return value


def holds_data(value: Any, fields: Iterable[str]) -> bool:
    """Whether any of ``fields`` carries something (not null, empty text or an empty collection)."""
    names = set(fields)
    if isinstance(value, dict):
        return any(
            (k in names and v not in (None, "", [], {})) or holds_data(v, names) for k, v in value.items()
        )
    if isinstance(value, list):
        return any(holds_data(item, names) for item in value)
    return False


@dataclass(frozen=True)
class StateReader:
    """What ``readState`` and each turn's context make of the subscribed store keys."""

    def agent_view(self, entry: StateKey) -> tuple[Any, str | None]:
        """``(value, None)`` for a readable key, or ``(None, reason)`` when the read is refused.

        akan.state.visual-field-stripped-from-agent-reads, akan.state.visual-field-never-refused,
        akan.state.masked-model-refused-without-mask, akan.state.read-masked-by-declared-model.
        """
        drop = set(entry.visual)
        if entry.mask is None:
            if holds_data(entry.value, entry.secret):
                return None, "this value holds hidden or secret fields and no mask: model is named for it"
            return _walk(entry.value, drop, set()), None
        return _walk(entry.value, drop, set(entry.mask) | set(entry.secret)), None

    def page_view(self, entry: StateKey) -> Any:
        """A key's value as the page receives and keeps it: whole, ``field.visual`` fields included.

        akan.state.visual-field-kept-for-browser: ``resolveReturn`` leaves a visual field alone; only the
        agent's reads (``agent_view``) drop it.
        """
        return entry.value

    def readable(self, state: Mapping[str, StateKey]) -> dict[str, StateKey]:
        """The keys on the agent's surface: named, and not subscribed with ``{ agent: false }``.

        akan.state.agent-false-keeps-key-off, akan.tool.falsy-name-state-too.
        """
        return {name: entry for name, entry in state.items() if name and entry.agent}

    def listed(self, name: str, entry: StateKey) -> str:
        """How a readable key appears in each turn's context: by name only.

        akan.state.subscribed-key-listed-and-read-on-demand: values only through ``readState``.
        """
        return name
