"""Mutants of readState, the store keys an agent may see, and component-local state."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from reference.akan.local_state import Describe, LocalStates, Setter, setter_name
from reference.akan.model import LocalState, StateKey, ToolArg
from reference.akan.state_read import StateReader
from variants import Mutant
from variants.mutants.akan.common import mutant

_ANY_VALUE = {"type": "object", "properties": {"value": {}}}


class _AgentFalseReadable(StateReader):
    def readable(self, state: Mapping[str, StateKey]) -> dict[str, StateKey]:
        return {name: entry for name, entry in state.items() if name}


class _SecretsInTheClear(StateReader):
    def agent_view(self, entry: StateKey) -> tuple[Any, str | None]:
        return super().agent_view(replace(entry, secret=()))


class _VisualKept(StateReader):
    def agent_view(self, entry: StateKey) -> tuple[Any, str | None]:
        return super().agent_view(replace(entry, visual=()))


class _VisualAsSecret(StateReader):
    def agent_view(self, entry: StateKey) -> tuple[Any, str | None]:
        return super().agent_view(replace(entry, secret=(*entry.secret, *entry.visual), visual=()))


class _VisualStrippedAtSource(StateReader):
    """resolveReturn strips visual fields too, so the page never receives them."""

    def page_view(self, entry: StateKey) -> Any:
        value = entry.value
        if isinstance(value, dict):
            return {k: v for k, v in value.items() if k not in entry.visual}
        return value


class _EveryUseStateWritable(LocalStates):
    """Every published useState gets a setter, `set` or not."""

    def setters(self, states: Sequence[LocalState], describe: Describe) -> dict[str, Setter]:
        return {
            setter_name(name): (name, _ANY_VALUE)
            for name, state in self.published(states).items()
            if state.api == "useState"
        }


class _UndescribableSetterKept(LocalStates):
    """A setter whose type no schema describes is published with an empty schema for its value."""

    def setters(self, states: Sequence[LocalState], describe: Describe) -> dict[str, Setter]:
        return {
            setter_name(name): (name, _ANY_VALUE)
            for name, state in self.published(states).items()
            if state.set is not None
        }


class _ExposeUnpublished(LocalStates):
    def published(self, states: Sequence[LocalState]) -> dict[str, LocalState]:
        return super().published([state for state in states if state.api == "useState"])


class _UnnamedStatePublishesSetter(LocalStates):
    """A useState with an empty name still publishes its setter (as setState)."""

    def setters(self, states: Sequence[LocalState], describe: Describe) -> dict[str, Setter]:
        tools = super().setters(states, describe)
        for state in states:
            if not state.name and state.api == "useState" and state.set is not None:
                tools["setState"] = (
                    "",
                    {"type": "object", "properties": {"value": {"type": state.set}}, "required": ["value"]},
                )
        return tools


class _SettersByCapitalizedName(LocalStates):
    """Setters keyed by the capitalized name alone: ``count`` and ``Count`` share one, the later wins."""

    def setters(self, states: Sequence[LocalState], describe: Describe) -> dict[str, Setter]:
        tools: dict[str, Setter] = {}
        for name, state in self.published(states).items():
            schema = describe([ToolArg(name="value", type=state.set)]) if state.set is not None else None
            if state.api == "useState" and schema is not None:
                tools[setter_name(name)] = (name, schema)
        return tools


MUTANTS: list[Mutant] = [
    mutant(
        "akan-visual-stripped-for-page",
        "akan.state.visual-field-kept-for-browser",
        "field.visual fields are stripped from the page response as well as from agent reads",
        state=_VisualStrippedAtSource(),
    ),
    mutant(
        "akan-agent-false-readable",
        "akan.state.agent-false-keeps-key-off",
        "a key subscribed with { agent: false } is listed and readable",
        state=_AgentFalseReadable(),
    ),
    mutant(
        "akan-secrets-read-without-mask",
        "akan.state.masked-model-refused-without-mask",
        "hidden and secret fields are read out when no mask model is named",
        state=_SecretsInTheClear(),
    ),
    mutant(
        "akan-visual-fields-kept",
        "akan.state.visual-field-stripped-from-agent-reads",
        "field.visual fields reach the agent",
        state=_VisualKept(),
    ),
    mutant(
        "akan-visual-fields-refuse",
        "akan.state.visual-field-never-refused",
        "a populated field.visual field makes the read be refused like a secret",
        state=_VisualAsSecret(),
    ),
    mutant(
        "akan-use-state-always-writable",
        "akan.state.use-state-read-only-unless-set",
        "a useState without `set` can be written by the agent",
        local_state=_EveryUseStateWritable(),
    ),
    mutant(
        "akan-setters-collide-on-case",
        "akan.state.use-state-read-only-unless-set",
        "two writable useStates whose names differ only in their first letter's case share one setter",
        local_state=_SettersByCapitalizedName(),
    ),
    mutant(
        "akan-undescribable-setter-published",
        "akan.tool.use-state-set-degrades-read-only",
        "a useState setter of a type no schema describes is published anyway",
        local_state=_UndescribableSetterKept(),
    ),
    mutant(
        "akan-expose-unpublished",
        "akan.state.expose-derived-value",
        "st.expose values never reach the agent",
        local_state=_ExposeUnpublished(),
    ),
    mutant(
        "akan-unnamed-state-publishes-setter",
        "akan.tool.falsy-name-state-too",
        "a useState whose name is empty still publishes a setter",
        local_state=_UnnamedStatePublishesSetter(),
    ),
]
