"""Record rewrites shared by several systems' permitted variants."""

from __future__ import annotations

import copy
from collections.abc import Callable

from variants import Record

EXTRA = "x_implementation_note"
"""The name of the field the extra-field variants add: an implementation may report more than we ask."""


def extra_event_and_final_fields(record: Record) -> Record:
    """Every event and the final state carry one field the record vocabulary does not define.

    The vocabularies list the fields an implementation must report; none forbids reporting more (a
    timestamp, a trace id, a debug note), so no expectation may demand that an event has *only* the listed
    fields. This is the record protocol's own freedom, the same for every system.
    """
    changed = copy.deepcopy(record)
    for event in changed.get("events", []):
        event[EXTRA] = "added by a permitted variant"
    changed.setdefault("final", {})[EXTRA] = "added by a permitted variant"
    return changed


def on_events(kind: str, rewrite: Callable[[dict[str, object]], None]) -> Callable[[Record], Record]:
    """A transform that applies ``rewrite`` (in place, on a copy) to every event of one type."""

    def transform(record: Record) -> Record:
        changed = copy.deepcopy(record)
        for event in changed.get("events", []):
            if event.get("type") == kind:
                rewrite(event)
        return changed

    return transform
