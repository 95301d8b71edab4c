"""Permitted variants of the llmz reference: allowed choices every llmz scenario must accept."""

from __future__ import annotations

from variants import Permitted
from variants.records import extra_event_and_final_fields

PERMITTED: list[Permitted] = [
    Permitted(
        name="llmz-extra-record-fields",
        system="llmz",
        exercises=("protocol:extra-fields",),
        description="every event and the final state carry a field the record vocabulary does not list",
        transform=extra_event_and_final_fields,
    ),
]
