"""The native inspector: how a value is shown to the model, within a token budget.

One formatter serves ``return inspect(value)``, returned values and forced ThinkSignal inspection
(llmz.think-signal.native-inspector): a standalone string is shown exactly as it is, anything else as
indented JSON, where nested strings keep their JSON quoting. Nothing is XML-escaped or wrapped in CDATA
(llmz.inspection.no-escaping). The display budget (``options.toolResultMaxTokens``, default 2,000, or a
``truncate()`` policy on the value) bounds the preview; zero hides it
(llmz.think-signal.display-budgets-apply). When text is cut, the marker saying so counts toward the
budget (llmz.inspection.markers-counted) and ``preserve`` picks which end survives
(llmz.inspection.preserve-modes).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final, Literal

from reference.llmz.tokens import count_text

MAX_SAFE_INTEGER: Final = 2**53 - 1
"""JavaScript's ``Number.MAX_SAFE_INTEGER``: the largest display budget (llmz.inspection.budget-integers)."""

DEFAULT_RESULT_BUDGET: Final = 2000
MARKER: Final = "[... truncated ...]"
Preserve = Literal["top", "bottom", "both"]


class _Undefined:
    """JavaScript ``undefined``, which JSON cannot spell, kept distinct from ``null``."""

    def __repr__(self) -> str:
        return "undefined"


UNDEFINED: Final = _Undefined()


def format_value(value: Any) -> str:
    if value is UNDEFINED:
        return "undefined"
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False)


def display_budget_problem(budget: object) -> str | None:
    """Why ``budget`` cannot be a display budget, or None: budgets are nonnegative safe integers
    (llmz.inspection.budget-integers). What ``truncate`` throws for one is not named; this is our wording."""
    if isinstance(budget, bool) or not isinstance(budget, int | float):
        return f"truncate: maxTokens must be a nonnegative safe integer, got {budget!r}"
    if not float(budget).is_integer() or not 0 <= budget <= MAX_SAFE_INTEGER:
        return f"truncate: maxTokens must be a nonnegative safe integer, got {budget!r}"
    return None


def hidden_marker() -> str:
    return "[preview hidden: the display budget is 0 tokens]"


def _longest(fits: Callable[[int], bool], high: int) -> int:
    """The largest n in [0, high] with fits(n), assuming fits is true at 0 and monotone."""
    low = 0
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return low


def _cut(text: str, max_tokens: int, preserve: Preserve) -> str:
    shapes: dict[str, Callable[[int], str]] = {
        "top": lambda n: f"{text[:n]}\n{MARKER}",
        "bottom": lambda n: f"{MARKER}\n{text[len(text) - n :]}",
        "both": lambda n: f"{text[:n]}\n{MARKER}\n{text[len(text) - n :]}",
    }
    shape = shapes[preserve]
    if count_text(shape(0)) > max_tokens:
        return ""  # not even the marker fits
    limit = len(text) // 2 if preserve == "both" else len(text)
    return shape(_longest(lambda n: count_text(shape(n)) <= max_tokens, limit))


def preview(value: Any, max_tokens: int = DEFAULT_RESULT_BUDGET, preserve: Preserve = "top") -> str:
    """The value's preview within ``max_tokens`` tokens, marker included."""
    if max_tokens <= 0:
        return hidden_marker()
    text = format_value(value)
    if count_text(text) <= max_tokens:
        return text
    return _cut(text, max_tokens, preserve)
