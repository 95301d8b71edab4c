"""Generated scenarios, differential: hypothesis cases played on the reference and an implementation.

``engine`` searches and shrinks, ``facts`` is the comparison's vocabulary (documented facts as expect
matchers), ``falai``, ``akan`` and ``llmz`` generate cases around each system's documented boundaries and
say which facts the documents fix about them (llmz in families: the token budget in ``llmz``, then
``llmz_compaction``, ``llmz_memory`` and ``llmz_loop``), ``known`` reads a baseline's known deviations,
``write`` turns a finding into a scenario file, ``command`` is ``python -m conformance fuzz``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from conformance.fuzz.engine import Generator


def generator_for(system: str) -> Generator:
    """The case generator of ``system`` (imported on use: hypothesis is only needed when fuzzing)."""
    if system == "falai":
        from conformance.fuzz.falai import FalaiGenerator

        return FalaiGenerator()
    if system == "akan":
        from conformance.fuzz.akan import AkanGenerator

        return AkanGenerator()
    if system == "llmz":
        from conformance.fuzz.llmz import LlmzGenerator

        return LlmzGenerator()
    raise KeyError(f"no fuzz generator for system {system!r}")
