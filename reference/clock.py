"""A virtual clock and duration parsing, so time-based rules (silence, after, cooldown) run instantly."""

from __future__ import annotations

import re

_UNITS_MS = {"ms": 1, "s": 1_000, "m": 60_000, "h": 3_600_000, "d": 86_400_000, "w": 604_800_000}
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)\s*$")

#: 2026-01-05T12:00:00Z, a Monday at noon: a fixed, readable epoch for every scenario.
DEFAULT_START_MS = 1_767_614_400_000


def parse_duration_ms(text: str) -> int:
    """``'24h'`` -> 86_400_000. Raises ValueError naming the text when it is not a duration."""
    match = _DURATION.match(text)
    if match is None:
        raise ValueError(f"{text!r} is not a duration like '30s', '15m', '24h', '2d' or '1w'")
    return int(float(match.group(1)) * _UNITS_MS[match.group(2)])


class VirtualClock:
    def __init__(self, start_ms: int = DEFAULT_START_MS) -> None:
        self._now = start_ms

    def now_ms(self) -> int:
        return self._now

    def advance(self, duration: str | int) -> int:
        step = parse_duration_ms(duration) if isinstance(duration, str) else duration
        if step < 0:
            raise ValueError("the virtual clock never moves back")
        self._now += step
        return self._now
