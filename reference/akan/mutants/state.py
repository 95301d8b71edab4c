"""Mutants of readState and the store keys an agent may see."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from unittest import mock

from conformance.scenario.akan import LocalState, StateKey
from reference.akan import local_state, state_read
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


# -- st.useState and st.expose --------------------------------------------------------------------------

_published_locals = local_state.published


def _every_use_state_writable(states: Sequence[LocalState]) -> dict[str, tuple[str, dict[str, Any]]]:
    """Every published useState gets a setter, `set` or not."""
    return {
        local_state.setter_name(name): (name, {"type": "object", "properties": {"value": {}}})
        for name, state in _published_locals(states).items() if state.api == "useState"
    }


def _undescribable_setter_kept(states: Sequence[LocalState]) -> dict[str, tuple[str, dict[str, Any]]]:
    """A setter whose type no schema describes is published with an empty schema for its value."""
    return {
        local_state.setter_name(name): (name, {"type": "object", "properties": {"value": {}}})
        for name, state in _published_locals(states).items() if state.set is not None
    }


def _use_state_only(states: Sequence[LocalState]) -> dict[str, LocalState]:
    return _published_locals([state for state in states if state.api == "useState"])


MUTANTS += [
    Mutant(
        "akan-use-state-always-writable",
        ("akan.state.use-state-read-only-unless-set",),
        lambda: mock.patch.object(local_state, "setters", _every_use_state_writable),
        "a useState without `set` can be written by the agent",
    ),
    Mutant(
        "akan-undescribable-setter-published",
        ("akan.tool.use-state-set-degrades-read-only",),
        lambda: mock.patch.object(local_state, "setters", _undescribable_setter_kept),
        "a useState setter of a type no schema describes is published anyway",
    ),
    Mutant(
        "akan-expose-unpublished",
        ("akan.state.expose-derived-value",),
        lambda: mock.patch.object(local_state, "published", _use_state_only),
        "st.expose values never reach the agent",
    ),
]


def _setters_for_unnamed_too(states: Sequence[LocalState]) -> dict[str, tuple[str, dict[str, Any]]]:
    """A useState with an empty name still publishes its setter (as setState)."""
    tools = _real_setters(states)
    for state in states:
        if not state.name and state.api == "useState" and state.set is not None:
            tools["setState"] = ("", {"type": "object", "properties": {"value": {"type": state.set}},
                                      "required": ["value"]})
    return tools


_real_setters = local_state.setters

MUTANTS += [
    Mutant(
        "akan-unnamed-state-publishes-setter",
        ("akan.tool.falsy-name-state-too",),
        lambda: mock.patch.object(local_state, "setters", _setters_for_unnamed_too),
        "a useState whose name is empty still publishes a setter",
    ),
]
