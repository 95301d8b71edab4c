"""Plays a falai scenario against the reference runtime and returns its record."""

from __future__ import annotations

from typing import Any

from conformance.scenario.model import FalaiScenario

#: Capability flags this reference declares for falai (scenarios may `require` them).
CAPABILITIES: tuple[str, ...] = ()


def play(scenario: FalaiScenario) -> dict[str, Any]:
    raise NotImplementedError("the falai reference is not written yet")
