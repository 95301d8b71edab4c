"""Wake keys and wake times: silence keys, after-start keys and business hours, as pure functions.

The agent's ``businessHours`` is a function (``reference.falai.definitions.BusinessHours``); this module
only decides when it applies.
"""

from __future__ import annotations

from dataclasses import dataclass

from reference.falai.definitions import DAY_MS, HOUR_MS, BusinessHours

__all__ = ["DAY_MS", "HOUR_MS", "SilenceKey", "adjust", "parse_silence_key", "silence_key",
           "silence_still_holds", "start_key", "step_wake_key"]


def silence_key(flow_id: str, session_id: str, last_assistant_at_ms: int) -> str:
    """falai.silence.arm"""
    return f"silence:{flow_id}:{session_id}:{last_assistant_at_ms}"


@dataclass(frozen=True)
class SilenceKey:
    """What a silence wake needs from its key: the flow to start and the assistant message it waited on.
    The session id between them is not kept: a session only ever receives its own wakes."""

    flow_id: str
    last_assistant_at_ms: int


def parse_silence_key(key: str) -> SilenceKey | None:
    """Split a silence wake key; None when ``key`` is not one (flow ids may not contain ':'; the session
    id, which may, is everything between the flow id and the time)."""
    parts = key.split(":")
    if len(parts) < 4 or parts[0] != "silence" or not parts[-1].isdigit():
        return None
    return SilenceKey(parts[1], int(parts[-1]))


def silence_still_holds(key_ms: int, last_assistant_at: int | None, last_customer_at: int | None) -> bool:
    """falai.silence.honoured-only-while: same last assistant message, no customer message after it."""
    if last_assistant_at != key_ms:
        return False
    return last_customer_at is None or last_customer_at <= last_assistant_at


def start_key(run_id: str, at_ms: int) -> str:
    """falai.event.after.park"""
    return f"{run_id}:start:{at_ms}"


def step_wake_key(run_id: str, step_id: str, at_ms: int) -> str:
    """A ``wait`` step's wake key. Not given by our documents; the reference's own shape."""
    return f"{run_id}:{step_id}:{at_ms}"


def adjust(computed_ms: int, hours: BusinessHours | None, enabled: bool) -> int:
    """falai.business-hours.where, falai.business-hours.forward-only: opted-in timers move, never back."""
    if not enabled or hours is None:
        return computed_ms
    return max(computed_ms, hours(computed_ms))
