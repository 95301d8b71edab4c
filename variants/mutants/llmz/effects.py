"""Mutants of schema effects: each breaks one thing the guide says about trims, refinements and transforms
on the four input surfaces (tool input, exit payload, component props, object property), or about the
effects of a tool's output schema. ``fixtures/scenarios/llmz/tools`` and ``components`` pin both sides;
``tests/test_llmz_effect_mutants.py`` shows which scenario each mutant fails.
"""

from __future__ import annotations

from dataclasses import replace

from reference.llmz import effects, prompt
from reference.llmz.config import RunConfig
from reference.llmz.effects import EffectRules
from reference.llmz.policies import Policies
from variants import Mutant

EFFECT_RULES = (
    "llmz.tools.schema-effects-preserved",
    "llmz.tools.refinement-failure-typed",
    "llmz.errors.refinements-enforced",
    "llmz.tools.parsed-value-delivered",
)


def _rules(p: Policies, **changes: object) -> Policies:
    return replace(p, effect_rules=replace(p.effect_rules, **changes))  # type: ignore[arg-type]


def _without(surface: str) -> object:
    def change(p: Policies) -> Policies:
        return _rules(p, surfaces=p.effect_rules.surfaces - {surface})

    return change


def _parsed_shape_shown(p: Policies) -> Policies:
    """The model is shown what a tool's transforms produce: the keys its effects add appear as inputs."""

    def api_description(config: RunConfig) -> str:
        text = prompt.api_description(config)
        for tool in config.tools.values():
            added: list[str] = []
            for effect in tool.input_effects:
                try:
                    added += [key for key in effect.apply({}) if isinstance(key, str)]
                except Exception:
                    continue
            if added:
                text += f"\n- {tool.name} parsed input also has: {', '.join(added)}"
        return text

    return replace(p, api_description=api_description)


def _mutant(name: str, rules: tuple[str, ...], description: str, change: object) -> Mutant:
    return Mutant(name, rules, description, policies=change)  # type: ignore[arg-type]


MUTANTS: list[Mutant] = [
    _mutant(
        "llmz-tool-input-effects-ignored",
        (
            *EFFECT_RULES,
            "llmz.tools.async-input-effects",
            "llmz.tools.throwing-schema-callback",
            "llmz.tools.effects-run-once",
        ),
        "A tool's input is validated by its JSON description only: trims, refinements and transforms "
        "never run.",
        _without(effects.TOOL_INPUT),
    ),
    _mutant(
        "llmz-exit-effects-ignored",
        (*EFFECT_RULES, "llmz.tools.async-effects-elsewhere-rejected"),
        "An exit payload is validated by its JSON description only.",
        _without(effects.EXIT_PAYLOAD),
    ),
    _mutant(
        "llmz-component-effects-ignored",
        (
            *EFFECT_RULES,
            "llmz.tools.async-effects-elsewhere-rejected",
            "llmz.components.render-parses-once",
            "llmz.components.transformed-props-shape",
        ),
        "Component props are validated by their JSON description only.",
        _without(effects.COMPONENT_PROPS),
    ),
    _mutant(
        "llmz-property-effects-ignored",
        (*EFFECT_RULES, "llmz.tools.async-effects-elsewhere-rejected"),
        "An object property assignment is validated by its JSON description only.",
        _without(effects.OBJECT_PROPERTY),
    ),
    _mutant(
        "llmz-raw-value-delivered",
        (
            "llmz.tools.parsed-value-delivered",
            "llmz.tools.async-input-effects",
            "llmz.tools.effects-run-once",
            "llmz.components.render-parses-once",
            "llmz.tools.schema-effects-preserved",
            "llmz.tools.original-schema-kept",
        ),
        "Effects run and refinements are enforced, but consumers get the raw argument, not the parsed value.",
        lambda p: _rules(p, deliver_parsed=False),
    ),
    _mutant(
        "llmz-async-effects-everywhere",
        ("llmz.tools.async-effects-elsewhere-rejected",),
        "Exits, components and object properties await asynchronous effects instead of refusing them.",
        lambda p: _rules(p, async_surfaces=effects.SURFACES),
    ),
    _mutant(
        "llmz-async-tool-input-refused",
        ("llmz.tools.async-input-effects",),
        "An asynchronous effect in a tool input schema is refused as a configuration error.",
        lambda p: _rules(p, async_surfaces=frozenset()),
    ),
    _mutant(
        "llmz-effects-run-twice",
        ("llmz.tools.effects-run-once", "llmz.components.render-parses-once"),
        "A successful parse runs the schema's effects a second time.",
        lambda p: _rules(p, passes=2),
    ),
    _mutant(
        "llmz-thrown-schema-callback-correctable",
        ("llmz.tools.throwing-schema-callback",),
        "A schema callback that throws is reported as correctable input (INVALID_TOOL_INPUT) and the run "
        "goes on.",
        lambda p: _rules(p, thrown_callback_is_issue=True),
    ),
    _mutant(
        "llmz-output-effects-run",
        ("llmz.tools.output-effects-never-run",),
        "A tool's output schema effects run on the handler's result.",
        lambda p: replace(p, run_output_effects=True),
    ),
    _mutant(
        "llmz-transformed-props-unchecked",
        ("llmz.components.transformed-props-shape",),
        "Props a transform turned into a string are delivered.",
        lambda p: _rules(p, props_stay_structured=False),
    ),
    _mutant(
        "llmz-render-skips-effects",
        ("llmz.components.render-parses-once",),
        "component.render checks the props against the JSON Schema only and never runs the effects.",
        lambda p: replace(p, render_runs_effects=False),
    ),
    _mutant(
        "llmz-every-transform-structured",
        ("llmz.tools.parsed-value-delivered",),
        "A tool input transformed into a string is refused, as transformed component props are.",
        lambda p: _rules(p, structured_surfaces=effects.SURFACES),
    ),
    _mutant(
        "llmz-model-sees-parsed-shape",
        ("llmz.tools.model-schema-input-shape",),
        "The tool description shown to the model lists what the input's transforms add.",
        _parsed_shape_shown,
    ),
]

__all__ = ["MUTANTS", "EffectRules"]
