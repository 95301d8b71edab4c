"""Mutants of the checks on values a host can get wrong, each broken from one side.

Each either lets an invalid value through (read the loose way a JavaScript runtime without the check
would: ``Number(value)``), or refuses a valid value at the edge of the range.
``fixtures/scenarios/llmz/invalid-input`` pins both sides; ``tests/test_invalid_input.py`` shows each of
those scenarios failing against the mutant named for it.
"""

from __future__ import annotations

import math
from dataclasses import replace

from reference.llmz import budget, definitions, preview
from reference.llmz.errors import LlmzError
from variants import Mutant


def _js_number(value: object) -> float:
    """``Number(value)`` for the JSON values a scenario can hold (NaN for what does not convert)."""
    if isinstance(value, bool | int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip() or 0)
        except ValueError:
            return math.nan
    return math.nan


def _max_tokens_coerced(value: object) -> int | None:
    """maxTokens goes through Number() and Math.floor before the range check: true, 1.5 and "8000" pass."""
    if value is None:
        return None
    number = _js_number(value)
    if math.isnan(number) or not 1 <= math.floor(number) <= budget.MAX_SAFE_INTEGER:
        raise budget.BudgetConfigError(f"options.maxTokens out of range: {value!r}")
    return math.floor(number)


def _max_tokens_any_integer(value: object) -> int | None:
    """Only the type is checked: 0, -1 and 2^53 pass as caps."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise budget.BudgetConfigError(f"options.maxTokens must be an integer: {value!r}")
    return value


def _max_tokens_from_two(value: object) -> int | None:
    """An off-by-one lower bound: 1 is refused."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 2 <= value <= budget.MAX_SAFE_INTEGER:
        raise budget.BudgetConfigError(f"options.maxTokens must be at least 2: {value!r}")
    return value


def _result_budget_coerced(value: object) -> LlmzError | None:
    """toolResultMaxTokens goes through Number() before the range check: true, 1.5 and "2000" pass."""
    low, high = definitions.RESULT_BUDGET_RANGE
    number = _js_number(value)
    if not math.isnan(number) and low <= number <= high:
        return None
    return LlmzError("INVALID_CONFIG", f"options.toolResultMaxTokens out of range: {value!r}")


def _display_budget_below_max_safe(value: object) -> str | None:
    """An exclusive upper bound: the largest safe integer itself is refused."""
    if value == budget.MAX_SAFE_INTEGER:
        return "truncate: maxTokens too large"
    return preview.display_budget_problem(value)


def _identifier_starting_with_a_letter(name: object) -> bool:
    """Only letters may start a name: $card and _card are refused."""
    return isinstance(name, str) and name[:1].isalpha() and name.replace("$", "_").isidentifier()


MUTANTS: list[Mutant] = [
    Mutant(
        "llmz-max-tokens-coerced",
        rules=("llmz.budget.max-tokens.positive-safe-integer",),
        description="maxTokens is read with Number() and floored: true, 1.5 and '8000' are accepted",
        policies=lambda p: replace(p, check_max_tokens=_max_tokens_coerced),
    ),
    Mutant(
        "llmz-max-tokens-any-integer",
        rules=("llmz.budget.max-tokens.positive-safe-integer",),
        description="any integer is a maxTokens: 0, -1 and 2^53 are accepted",
        policies=lambda p: replace(p, check_max_tokens=_max_tokens_any_integer),
    ),
    Mutant(
        "llmz-max-tokens-from-two",
        rules=("llmz.budget.max-tokens.positive-safe-integer",),
        description="maxTokens 1 is refused as a configuration failure",
        policies=lambda p: replace(p, check_max_tokens=_max_tokens_from_two),
    ),
    Mutant(
        "llmz-result-budget-coerced",
        rules=("llmz.inspection.tool-result-range", "llmz.inspection.budget-integers"),
        description="toolResultMaxTokens is read with Number(): true, 1.5 and '2000' are accepted",
        policies=lambda p: replace(p, result_budget_problem=_result_budget_coerced),
    ),
    Mutant(
        "llmz-truncate-budget-unchecked",
        rules=("llmz.inspection.budget-integers",),
        description="truncate takes any maxTokens: -1, 1.5, true and 2^53 are used as budgets",
        policies=lambda p: replace(p, display_budget_problem=lambda budget: None),
    ),
    Mutant(
        "llmz-truncate-budget-below-max-safe",
        rules=("llmz.inspection.budget-integers",),
        description="truncate refuses the largest safe integer as a budget",
        policies=lambda p: replace(p, display_budget_problem=_display_budget_below_max_safe),
    ),
    Mutant(
        "llmz-component-names-unchecked",
        rules=("llmz.components.exact-identifier", "llmz.errors.invalid-component"),
        description="any component name registers, identifier or not",
        policies=lambda p: replace(p, is_identifier=lambda name: True),
    ),
    Mutant(
        "llmz-component-names-letter-first",
        rules=("llmz.components.exact-identifier",),
        description="a component name must start with a letter: $card and _card are refused",
        policies=lambda p: replace(p, is_identifier=_identifier_starting_with_a_letter),
    ),
]
