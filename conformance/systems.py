"""The one registry of systems: everything the harness knows per system, in one table.

The CLI's ``--system`` choices, the scenario loader's folders, the catalogue's files, traceability, the
record schemas, the players and the variant registry all read this module, so adding a system (or
renaming one) is one entry here plus its own files, never a hunt through a dozen tuples.

Values that would drag in heavy modules (models, players) are named by import path and resolved on use,
so importing the registry costs nothing.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Literal, get_args

SystemName = Literal["llmz", "falai", "akan"]
"""The systems, as a type: pydantic models use it for their ``system`` fields."""

SYSTEMS: tuple[SystemName, ...] = get_args(SystemName)


@dataclass(frozen=True)
class System:
    name: SystemName
    title: str
    specification: tuple[str, ...]
    """The seed documents (file names) that are this system's specification."""
    record_model: str
    """``module:attribute`` of the pydantic model of its records (``conformance.records``)."""
    player: str
    """The module of its player: the thin translation from a case to the reference's API."""

    @property
    def record_schema(self) -> str:
        """The file name of its record schema in ``spec/protocol/records/``."""
        return f"{self.name}.schema.json"

    def load_record_model(self) -> Any:
        module, _, attribute = self.record_model.partition(":")
        return getattr(importlib.import_module(module), attribute)

    def load_player(self) -> Any:
        return importlib.import_module(self.player)


REGISTRY: dict[str, System] = {
    "llmz": System(
        "llmz",
        "llmz 1.0.2, the code-first runtime",
        ("llmz-1.0.2-DOCS.md", "llmz-1.0.1-ERRORS.md"),
        "conformance.records.llmz:LlmzRecord",
        "conformance.players.llmz",
    ),
    "falai": System(
        "falai",
        "@falai/agent 4.0 triggers",
        ("falai-4.0.0-alpha.10-docs.md",),
        "conformance.records.falai:FalaiRecord",
        "conformance.players.falai",
    ),
    "akan": System(
        "akan",
        "the Akan in-page agent",
        ("akan-in-page-agent-guideline.md",),
        "conformance.records.akan:AkanRecord",
        "conformance.players.akan",
    ),
}

if tuple(REGISTRY) != SYSTEMS:  # pragma: no cover - a registry edit that forgot the type, or the reverse
    raise RuntimeError(f"conformance.systems: REGISTRY {tuple(REGISTRY)} differs from SystemName {SYSTEMS}")


def get(name: str) -> System:
    if name not in REGISTRY:
        raise KeyError(f"unknown system {name!r}; known: {', '.join(SYSTEMS)}")
    return REGISTRY[name]
