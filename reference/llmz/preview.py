"""The native inspector: how a value is shown to the model, within a token budget.

One formatter serves ``return inspect(value)``, returned values and forced ThinkSignal inspection
(llmz.think-signal.native-inspector): a standalone string is shown exactly as it is, anything else as
indented JSON, where nested strings keep their JSON quoting. Nothing is XML-escaped or wrapped in CDATA
(llmz.inspection.no-escaping). The display budget (``options.toolResultMaxTokens``, default 2,000)
bounds the preview; zero hides it (llmz.think-signal.display-budgets-apply).
"""

from __future__ import annotations

import json
from typing import Any, Final

from reference.llmz.tokens import count_text

DEFAULT_RESULT_BUDGET: Final = 2000


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


def hidden_marker() -> str:
    return "[preview hidden: the display budget is 0 tokens]"


def preview(value: Any, max_tokens: int = DEFAULT_RESULT_BUDGET) -> str:
    """The value's preview, cut from the end when it exceeds ``max_tokens``."""
    if max_tokens <= 0:
        return hidden_marker()
    text = format_value(value)
    total = count_text(text)
    if total <= max_tokens:
        return text
    marker = f"\n[... truncated: {total} tokens, showing about {max_tokens}]"
    low, high = 0, len(text)
    while low < high:  # longest prefix that fits the budget
        middle = (low + high + 1) // 2
        if count_text(text[:middle]) <= max_tokens:
            low = middle
        else:
            high = middle - 1
    return text[:low] + marker
