"""How much a program can make the host hold in one execution (issue 23, item 2).

Why. The worker's limits (the QuickJS heap, its address space, ``containment.MAX_PAYLOAD_CHARS`` per host
call) bound the program, not the host. Every tool input and output, delivery, inspected value, exit
payload and object assignment the program hands over is decoded and kept by the host (in the iteration's
reports, its events and the record), and the JavaScript budget does not count the host's time: a program
repeating 4 MiB tool calls took the harness to 2.7 GB before its execution ended.

The rule. The documents bound what the runtime retains by the session's memory limit (``maxBytes``, 16 MiB
by default, covering named variables, object memory and retained result records; llmz-1.0.2-DOCS.md,
"Execution and memory"), and name exceeding it a critical ``MEMORY_CAPACITY`` (llmz-1.0.1-ERRORS.md,
catalogue). They set no figure for what the host keeps of tool traffic, so this is our choice, stated
once here: one execution may hand the host at most ``RATIO`` times the session's ``maxBytes`` of JSON
text, and never less than ``FLOOR`` (64 MiB at the default limit: sixteen 4 MiB round trips). The host
operation that would pass it is refused without being decoded and ends the execution with
``MEMORY_CAPACITY``; nothing of it is kept. Ordinary programs move kilobytes: the ceiling is reached only
by a program that repeats megabyte-sized calls.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from reference.llmz.memory import DEFAULT_MAX_BYTES

RATIO: Final = 4
"""Ceiling per execution, in multiples of the session's ``maxBytes``."""
FLOOR: Final = RATIO * DEFAULT_MAX_BYTES
"""The smallest ceiling (64 MiB), so a session with a small memory limit can still pass large tool data."""


@dataclass
class HostCeiling:
    """The running total of JSON text one execution handed the host, against its ceiling."""

    limit: int
    used: int = 0

    @classmethod
    def for_memory(cls, max_bytes: int) -> HostCeiling:
        return cls(max(FLOOR, RATIO * max_bytes))

    def take(self, text: str | None) -> bool:
        """Count ``text`` (what one host operation carries) against the ceiling; False when it would pass
        it, in which case nothing is counted and the caller must not keep the value."""
        size = len(text) if text is not None else 0
        if self.used + size > self.limit:
            return False
        self.used += size
        return True

    def message(self, what: str) -> str:
        return (
            f"{what}: the program handed the host more than {self.limit:,} characters of values in this "
            f"execution ({RATIO} x the session's memory limit, at least {FLOOR:,})"
        )
