"""Plays a llmz scenario against the reference runtime and returns its record."""

from __future__ import annotations

from typing import Any

from conformance.scenario.model import LlmzScenario

#: Capability flags this reference declares for llmz (scenarios may `require` them).
CAPABILITIES: tuple[str, ...] = ()


def play(scenario: LlmzScenario) -> dict[str, Any]:
    raise NotImplementedError("the llmz reference is not written yet")
