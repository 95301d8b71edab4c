"""The adapter interface every implementation is reached through.

An implementation answers ``hello()`` once (name, version, language, systems, capability flags) and
``run(payload, timeout)`` per scenario. ``run`` returns an ``Outcome``: a record, a skip with its reason,
or an error with its reason. An adapter never raises for a misbehaving implementation (crash, hang,
garbage); it turns that into an error outcome so one bad case never stops the run. Only an
implementation that cannot even say hello raises ``AdapterError``: without its systems and capabilities
there is nothing to run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from conformance.protocol import ImplementationInfo

DEFAULT_TIMEOUT = 30.0


@dataclass(frozen=True)
class Outcome:
    record: dict[str, Any] | None = None
    skip: str | None = None
    error: str | None = None


class AdapterError(Exception):
    """The implementation cannot be reached at all (bad spec, failed hello, unknown preset)."""


class Adapter(Protocol):
    def hello(self) -> ImplementationInfo: ...

    def run(self, payload: dict[str, Any], timeout: float) -> Outcome: ...

    def close(self) -> None: ...
