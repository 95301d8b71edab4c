"""Token budget arithmetic for one llmz request: the window, the output reserve, the input budget.

Theory of operation. Every request is fitted to a *window*:

1. The effective limit is the smallest of ``options.maxTokens`` and each configured model's input limit;
   the output limit is the smallest of the models' output limits (a fallback list is sized for its
   smallest candidate).
2. The *reserve* is a tenth of the effective limit, rounded down, clamped to [256, 16000], then capped by
   the output limit and by the limit minus one, so at least one token is left for input. It is decided
   before any input is looked at and is the request's output allowance.
3. The *input budget* is the effective limit minus the reserve. A request fits when its measured input
   is at most the input budget; otherwise it must fail before dispatch. Compaction's trigger and target
   ratios are fractions of this number.

Step 2's "minus one" and step 3's comparison are the reference's reading of what the guide leaves open
(see the open_question of llmz.budget.output-reserve.room-for-input); they agree with llmz 1.0.1 as
published. Everything here is pure integer arithmetic.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from reference.providers.model import Usage

RESERVE_DIVISOR = 10
"""llmz.budget.output-reserve.fraction: one tenth, rounded down."""
RESERVE_FLOOR = 256
"""llmz.budget.output-reserve.floor."""
RESERVE_CEILING = 16_000
"""llmz.budget.output-reserve.ceiling."""
MAX_SAFE_INTEGER = 2**53 - 1
"""llmz.budget.max-tokens.positive-safe-integer: JavaScript's Number.MAX_SAFE_INTEGER."""


class BudgetConfigError(ValueError):
    """An invalid token setting; reported as INVALID_CONFIG before any model call."""

    code = "INVALID_CONFIG"


@dataclass(frozen=True)
class Window:
    """The fixed numbers one request is fitted to."""

    limit: int
    """Effective context limit (input + output)."""
    output_limit: int
    """Largest answer every candidate model accepts."""
    reserve: int
    """Output reserve: the request's output allowance."""

    @property
    def input_budget(self) -> int:
        """What is left for input once output is reserved."""
        return self.limit - self.reserve


def check_max_tokens(value: object) -> int | None:
    """llmz.budget.max-tokens.positive-safe-integer: None (no cap) or an integer in [1, 2**53 - 1]."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_SAFE_INTEGER:
        raise BudgetConfigError(
            f"options.maxTokens must be a positive safe integer (1 to {MAX_SAFE_INTEGER}), got {value!r}"
        )
    return value


def effective_limits(
    cap: int | None, input_limits: Sequence[int], output_limits: Sequence[int]
) -> tuple[int, int]:
    """llmz.budget.effective-limit.smallest and .fallback-list: (context limit, output limit).

    Every candidate model of a fallback list must accept the same request, so the smallest of each limit
    wins; the cap only ever lowers the context limit.
    """
    if not input_limits or not output_limits:
        raise BudgetConfigError("at least one model with known input and output limits is required")
    limit = min(input_limits)
    if cap is not None:
        limit = min(limit, cap)
    return limit, min(output_limits)


def planned_reserve(limit: int, output_limit: int) -> int:
    """llmz.budget.output-reserve.fraction, .floor, .ceiling, .model-output-limit, .room-for-input.

    The floor and ceiling bound the tenth; the model's output limit and the room for input are applied
    last because no request may ask for more output than the model produces or the window holds.
    """
    tenth = limit // RESERVE_DIVISOR
    return min(max(tenth, RESERVE_FLOOR), RESERVE_CEILING, output_limit, limit - 1)


Limits = Callable[[int | None, Sequence[int], Sequence[int]], tuple[int, int]]
Reserve = Callable[[int, int], int]


def window_for(
    cap: int | None,
    input_limits: Sequence[int],
    output_limits: Sequence[int],
    limits: Limits = effective_limits,
    reserve: Reserve = planned_reserve,
) -> Window:
    """The window of one request: ``limits`` finds the effective limits, ``reserve`` plans the output."""
    limit, output_limit = limits(cap, input_limits, output_limits)
    return Window(limit=limit, output_limit=output_limit, reserve=reserve(limit, output_limit))


def fits(window: Window, input_tokens: int) -> bool:
    """llmz.budget.overflow.before-dispatch: the measured input stays within the input budget."""
    return input_tokens <= window.input_budget


def run_tokens(usages: Sequence[Usage]) -> dict[str, int]:
    """``result.tokens``: the usage the provider reported, added up over every call of the run, summary
    calls included (llmz.budget.result-tokens.provider-usage); never the local measurement."""
    return {
        "input_tokens": sum(usage.input_tokens for usage in usages),
        "output_tokens": sum(usage.output_tokens for usage in usages),
    }
