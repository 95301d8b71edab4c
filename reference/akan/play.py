"""Plays a akan scenario against the reference runtime and returns its record."""

from __future__ import annotations

from typing import Any

from conformance.scenario.model import AkanScenario

#: Capability flags this reference declares for akan (scenarios may `require` them).
CAPABILITIES: tuple[str, ...] = ()


def play(scenario: AkanScenario) -> dict[str, Any]:
    raise NotImplementedError("the akan reference is not written yet")
