"""Mutants of readState and the store keys an agent may see."""

from __future__ import annotations

from typing import Any
from unittest import mock

from conformance.scenario.akan import StateKey
from reference.akan import (
    state_read,
)
from reference.mutants import Mutant

_agent_view = state_read.agent_view


def _secrets_in_the_clear(entry: StateKey) -> tuple[Any, str | None]:
    return _agent_view(entry.model_copy(update={"secret": []}))


def _every_named_key(state: dict[str, StateKey]) -> dict[str, StateKey]:
    return {name: entry for name, entry in state.items() if name}


def _visual_kept(entry: StateKey) -> tuple[Any, str | None]:
    return _agent_view(entry.model_copy(update={"visual": []}))


def _visual_as_secret(entry: StateKey) -> tuple[Any, str | None]:
    return _agent_view(entry.model_copy(update={"secret": [*entry.secret, *entry.visual], "visual": []}))


MUTANTS: list[Mutant] = [
    Mutant(
        "akan-agent-false-readable",
        ("akan.state.agent-false-keeps-key-off",),
        lambda: mock.patch("reference.akan.page.readable", _every_named_key),
        "a key subscribed with { agent: false } is listed and readable",
    ),
    Mutant(
        "akan-secrets-read-without-mask",
        ("akan.state.masked-model-refused-without-mask",),
        lambda: mock.patch("reference.akan.page.agent_view", _secrets_in_the_clear),
        "hidden and secret fields are read out when no mask model is named",
    ),
    Mutant(
        "akan-visual-fields-kept",
        ("akan.state.visual-field-stripped-from-agent-reads",),
        lambda: mock.patch("reference.akan.page.agent_view", _visual_kept),
        "field.visual fields reach the agent",
    ),
    Mutant(
        "akan-visual-fields-refuse",
        ("akan.state.visual-field-never-refused",),
        lambda: mock.patch("reference.akan.page.agent_view", _visual_as_secret),
        "a populated field.visual field makes the read be refused like a secret",
    ),
]
