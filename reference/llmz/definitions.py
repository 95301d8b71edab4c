"""Checks on one execute call's configuration, made before any iteration exists.

A bad definition or setting is a critical failure raised before the first model call
(llmz.errors.config-before-iteration): the run ends with the error and nothing is sent. Each check cites
the rule that makes it one; the first problem found is reported.
"""

from __future__ import annotations

from typing import Final

from reference.llmz import objects
from reference.llmz.config import RunConfig
from reference.llmz.errors import LlmzError
from reference.llmz.memory import RESERVED_IDENTIFIERS

RESULT_BUDGET_RANGE: Final = (0, 2000)
"""llmz.inspection.tool-result-range: ``options.toolResultMaxTokens`` accepts 0 through 2,000."""

TEXT_NAMES: Final = frozenset({"text", "message"})
"""llmz.components.reserved-text-names: names kept for native assistant output."""

ALLOWED_EXIT_NAMES: Final = frozenset({"exit"})
"""llmz.errors.reserved-identifier-exit-name: the conventional exit name stays allowed."""


def result_budget_problem(budget: int) -> LlmzError | None:
    """Outside 0-2,000 (a negative budget included, llmz.inspection.budget-integers) is INVALID_CONFIG
    (llmz.errors.invalid-config)."""
    low, high = RESULT_BUDGET_RANGE
    if low <= budget <= high:
        return None
    return LlmzError(
        "INVALID_CONFIG", f"options.toolResultMaxTokens must be an integer from {low} to {high}, got {budget}"
    )


def reserved_registration(config: RunConfig) -> LlmzError | None:
    """A registered tool, exit or component may not take a runtime name: critical, unlike the same
    mistake in generated code (llmz.errors.reserved-identifier)."""
    registered = [("tool", name) for name in config.tools] + [("component", n) for n in config.components]
    registered += [("object", spec.name) for spec in config.objects]
    registered += [("exit", name) for name in config.exits if name not in ALLOWED_EXIT_NAMES]
    for kind, name in registered:
        if name in RESERVED_IDENTIFIERS:
            return LlmzError(
                "RESERVED_IDENTIFIER",
                f"the {kind} name {name!r} is reserved by the runtime",
                critical=True,
                identifier=name,
                kind=kind,
            )
    return None


def component_name_problem(config: RunConfig) -> LlmzError | None:
    """``text`` and ``message`` belong to native assistant output (llmz.components.reserved-text-names)."""
    for name in config.components:
        if name in TEXT_NAMES:
            return LlmzError(
                "INVALID_COMPONENT", f"{name!r} is reserved for assistant text and cannot name a component"
            )
    return None


DUPLICATE_CODES: Final = {"tool": "INVALID_TOOL", "exit": "INVALID_EXIT", "component": "INVALID_COMPONENT"}
"""A name registered twice is a bad definition of that kind (llmz.errors.invalid-tool,
llmz.errors.invalid-exit, llmz.errors.invalid-component)."""


def duplicate_problem(config: RunConfig) -> LlmzError | None:
    for kind, names in config.duplicates.items():
        return LlmzError(DUPLICATE_CODES[kind], f"the {kind} name {names[0]!r} is registered more than once")
    return None


def configuration_problem(config: RunConfig) -> LlmzError | None:
    """The first configuration failure of this execute call, if any."""
    return (
        result_budget_problem(config.result_budget)
        or reserved_registration(config)
        or component_name_problem(config)
        or duplicate_problem(config)
        or objects.definition_problem(config.objects)
    )
