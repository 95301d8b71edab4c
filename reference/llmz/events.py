"""Where the runtime reports what happens: every event goes to each observer, in order.

An observer is any callable ``(event_type, fields)``; the event vocabulary is the record's
(spec/protocol/records/llmz.md), so a ``reference.record.Recorder`` is one observer among others. Each
observer gets its own copy of the fields, so none can change what another sees.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reference.llmz.api import Observer
from reference.record import snapshot


class Events:
    def __init__(self, observers: Sequence[Observer] = ()) -> None:
        self._observers = list(observers)

    def emit(self, type: str, **fields: Any) -> None:
        for observer in self._observers:
            observer(type, snapshot(fields))
