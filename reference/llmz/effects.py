"""Running a schema's JavaScript effects (trims, refinements, transforms) on the value its JSON Schema
accepted, on the four input surfaces (llmz.tools.schema-effects-preserved).

The JSON Schema is only the model-facing description; the original schema, effects included, is what
validates (llmz.tools.original-schema-kept). A refinement's issue is the surface's typed input error
(llmz.tools.refinement-failure-typed); a callback that throws instead, or an asynchronous effect where the
surface parses synchronously, is a critical configuration failure (llmz.tools.throwing-schema-callback,
llmz.tools.async-effects-elsewhere-rejected). Only tool inputs await asynchronous effects
(llmz.tools.async-input-effects). A successful parse runs each effect once and consumers get the parsed
value (llmz.tools.effects-run-once, llmz.tools.parsed-value-delivered).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from reference.llmz.api import Effect, SchemaIssue
from reference.llmz.errors import LlmzError

TOOL_INPUT: Final = "tool-input"
EXIT_PAYLOAD: Final = "exit-payload"
COMPONENT_PROPS: Final = "component-props"
OBJECT_PROPERTY: Final = "object-property"

SURFACES: Final = frozenset({TOOL_INPUT, EXIT_PAYLOAD, COMPONENT_PROPS, OBJECT_PROPERTY})
"""Where schema effects take effect: every input surface (llmz.tools.schema-effects-preserved)."""

ASYNC_SURFACES: Final = frozenset({TOOL_INPUT})
"""Where an asynchronous effect is awaited; elsewhere parsing is synchronous (llmz.tools.async-input-effects,
llmz.tools.async-effects-elsewhere-rejected)."""

PASSES: Final = 1
"""How many times a successful parse runs the effects (llmz.tools.effects-run-once)."""


@dataclass
class Parsed:
    """What parsing produced: the value consumers get, the issues refusing it, or a critical failure."""

    value: Any
    issues: list[tuple[str, str]] = field(default_factory=list)
    failure: LlmzError | None = None


@dataclass(frozen=True)
class EffectRules:
    """The decisions parsing makes, as the runtime's policies give them."""

    surfaces: frozenset[str] = SURFACES
    async_surfaces: frozenset[str] = ASYNC_SURFACES
    passes: int = PASSES
    deliver_parsed: bool = True
    """llmz.tools.parsed-value-delivered: consumers get the parsed value, not the raw argument."""
    thrown_callback_is_issue: bool = False
    """llmz.tools.throwing-schema-callback: a callback that throws is a configuration failure, never
    correctable input."""
    props_stay_structured: bool = True
    """llmz.components.transformed-props-shape: transformed props must still be an object or an array."""
    structured_surfaces: frozenset[str] = frozenset({COMPONENT_PROPS})
    """Where that shape check applies: component props only (llmz.tools.parsed-value-delivered: a tool's
    input, an exit's payload or a property may be transformed into any value)."""


DEFAULT_RULES: Final = EffectRules()
"""The reference's rules."""


def parse(effects: Sequence[Effect], value: Any, surface: str, subject: str, rules: EffectRules) -> Parsed:
    """Run ``effects`` over ``value`` (already accepted by the JSON Schema) for one surface."""
    if not effects or surface not in rules.surfaces:
        return Parsed(value)
    if surface not in rules.async_surfaces and any(effect.asynchronous for effect in effects):
        return Parsed(
            value,
            failure=_config(
                f"{subject}: an asynchronous effect cannot run here, where the schema is parsed synchronously"
            ),
        )
    parsed = value
    for _ in range(rules.passes):
        parsed = value
        for effect in effects:
            try:
                parsed = effect.apply(parsed)
            except SchemaIssue as issue:
                return Parsed(value, issues=[(issue.path, issue.message)])
            except Exception as exc:  # any other exception is the host's configuration
                if rules.thrown_callback_is_issue:
                    return Parsed(value, issues=[("(root)", str(exc))])
                return Parsed(value, failure=_config(f"{subject}: a schema callback threw: {exc}"))
    structured = surface in rules.structured_surfaces and rules.props_stay_structured
    if structured and not isinstance(parsed, dict | list):
        return Parsed(value, issues=[("(root)", "the transformed props are neither an object nor an array")])
    return Parsed(parsed if rules.deliver_parsed else value)


def _config(message: str) -> LlmzError:
    return LlmzError("INVALID_CONFIG", message)
