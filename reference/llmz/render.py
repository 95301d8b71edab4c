"""``component.render(props)`` called by the host, outside any run: a standalone method.

It parses the props as a ``chat.<name>(props)`` send inside a run would (JSON Schema, then the schema's
effects) and returns the parsed value. A refusal is the same INVALID_COMPONENT_INPUT a send inside a run
gets, but with no iteration to continue it goes to the caller, raised (llmz.errors.recoverable-scope:
"recoverable" only describes failures inside an active iteration).
"""

from __future__ import annotations

import json
from typing import Any

from reference.llmz import effects
from reference.llmz.api import Component
from reference.llmz.policies import DEFAULT_POLICIES, Policies
from reference.llmz.typescript import validation_error


def render(component: Component, props: Any, policies: Policies = DEFAULT_POLICIES) -> Any:
    """The parsed props, or raises the LlmzError that refuses them."""
    value = json.loads(json.dumps(props))
    issues = policies.schema_issues(component.props, value)
    if not issues:
        parsed = effects.parse(
            component.effects,
            value,
            effects.COMPONENT_PROPS,
            f"{component.name}.render",
            policies.effect_rules,
        )
        if parsed.failure is not None:
            raise parsed.failure
        issues, value = parsed.issues, parsed.value
    if issues:
        refusal = validation_error(
            "INVALID_COMPONENT_INPUT",
            f"{component.name}.render",
            component.props,
            issues,
            policies.schema_shape,
        )
        if policies.standalone_raises:
            raise refusal
        return None  # a mutant's reading: the failure is swallowed instead of reaching the caller
    return value
