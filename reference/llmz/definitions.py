"""Checks on one execute call's configuration, made before any iteration exists.

A bad definition or setting is a critical failure raised before the first model call
(llmz.errors.config-before-iteration): the run ends with the error and nothing is sent. Each check cites
the rule that makes it one; the first problem found is reported.
"""

from __future__ import annotations

from collections.abc import Callable
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


def is_integer_in(value: object, low: int, high: int) -> bool:
    """``Number.isInteger(value) && low <= value <= high`` as JavaScript sees a JSON value: ``true`` is not a
    number, ``2.0`` is the integer 2."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return float(value).is_integer() and low <= value <= high


def result_budget_problem(budget: object) -> LlmzError | None:
    """Outside 0-2,000, or not an integer at all (a fraction, a boolean, a string: a budget is a
    nonnegative safe integer, llmz.inspection.budget-integers), is INVALID_CONFIG
    (llmz.errors.invalid-config)."""
    low, high = RESULT_BUDGET_RANGE
    if is_integer_in(budget, low, high):
        return None
    return LlmzError(
        "INVALID_CONFIG",
        f"options.toolResultMaxTokens must be an integer from {low} to {high}, got {budget!r}",
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


def is_identifier(name: object) -> bool:
    """An exact JavaScript identifier name (llmz.components.exact-identifier): a letter, ``_`` or ``$``, then
    letters, digits, ``_`` or ``$``; Unicode letters count, as in JavaScript."""
    return isinstance(name, str) and name != "" and name.replace("$", "_").isidentifier()


def component_name_problem(
    config: RunConfig, is_identifier: Callable[[object], bool] = is_identifier
) -> LlmzError | None:
    """A component name must be an identifier the program can call as ``chat.<name>``
    (llmz.components.exact-identifier), and ``text`` and ``message`` belong to native assistant output
    (llmz.components.reserved-text-names). Either failure is a bad registration: INVALID_COMPONENT."""
    for name in config.components:
        if not is_identifier(name):
            return LlmzError(
                "INVALID_COMPONENT", f"the component name {name!r} is not a JavaScript identifier"
            )
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


def handler_problem(config: RunConfig) -> LlmzError | None:
    """A tool defined without a handler is a bad tool definition (llmz.errors.invalid-tool): the guide
    gives every Tool a name and an async handler, and lists only the other parts as optional."""
    for name, tool in config.tools.items():
        if not callable(tool.handler):
            return LlmzError("INVALID_TOOL", f"the tool {name!r} has no handler")
    return None


def configuration_problem(
    config: RunConfig,
    result_budget_problem: Callable[[object], LlmzError | None] = result_budget_problem,
    is_identifier: Callable[[object], bool] = is_identifier,
    handler_problem: Callable[[RunConfig], LlmzError | None] = handler_problem,
) -> LlmzError | None:
    """The first configuration failure of this execute call, if any. ``result_budget_problem`` and
    ``is_identifier`` are the checks of the two values a host most easily gets wrong; ``handler_problem``
    the check of a tool without a handler."""
    return (
        handler_problem(config)
        or result_budget_problem(config.result_budget)
        or reserved_registration(config)
        or component_name_problem(config, is_identifier)
        or duplicate_problem(config)
        or objects.definition_problem(config.objects)
    )
