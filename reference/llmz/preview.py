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
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final, Literal

from reference.llmz import token_counts, vocabulary
from reference.llmz.budget import MAX_SAFE_INTEGER
from reference.llmz.tokens import count_text

# MAX_SAFE_INTEGER (JavaScript's Number.MAX_SAFE_INTEGER) is also the largest display budget
# (llmz.inspection.budget-integers); it has one definition, in reference.llmz.budget.

DEFAULT_RESULT_BUDGET: Final = 2000
MARKER: Final = "[... truncated ...]"
Preserve = Literal["top", "bottom", "both"]
_MARGIN = 64
"""Tokens by which a longer cut is over budget before it counts as clearly over (see ``_ceiling``)."""


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


def _ceiling(over: Callable[[int], bool], guess: int, high: int) -> int:
    """A length from which on nothing fits: the first of guess*2, guess*4, ... that is clearly over
    budget (``high + 1`` when none is).

    Bisection over the whole text would tokenize half of it, then a quarter, and so on, at every step
    (a 4 MB value cut to a 2,000-token preview took 16 s). Bounding the search first means every probe
    tokenizes about the answer's length, and the bisection below the bound makes exactly the choices it
    made before: adding text never removes ``_MARGIN`` tokens, so past a clearly-over length every
    probe would have failed anyway."""
    length = max(2 * guess, guess + 256)
    while length <= high:
        if over(length):
            return length
        length *= 2
    return high + 1


@lru_cache(maxsize=1)
def _encoding() -> Any:
    """The tokenizer ``count_text`` uses."""
    return vocabulary.encoding()


KeptChars = Callable[[int, bool], int]
"""How many characters the first ``n`` tokens of a text spell (the last ``n`` with True): the guess that
seeds ``cut``'s search."""


def kept_chars(text: str) -> KeptChars:
    """``KeptChars`` of ``text`` in the reference tokenizer. Each answer is a pure function of the tokenizer
    and the text, so it is remembered between runs beside the token counts (``token_counts``, under keys of
    its own): cutting a text that was cut before needs no tokenizer, and building one is a fixed cost of
    every run that needs it."""
    remembered = token_counts.store()
    digest = remembered.digest(text)
    ids: list[int] = []

    def kept(tokens: int, from_end: bool) -> int:
        key = f"{digest}:{'last' if from_end else 'first'}:{tokens}"
        found = remembered.get(key)
        if found is None:
            if not ids:
                ids.extend(_encoding().encode(text, disallowed_special=()))
            tokens = max(0, min(tokens, len(ids)))
            part = ids[len(ids) - tokens :] if from_end else ids[:tokens]
            found = len(_encoding().decode_bytes(part).decode("utf-8", errors="ignore"))
            remembered.put(key, found)
        return found

    return kept


def cut(
    text: str, kept: KeptChars, max_tokens: int, preserve: Preserve, count: Callable[[str], int] = count_text
) -> str:
    """Cut ``text`` to ``max_tokens`` tokens, marker included, keeping the end ``preserve`` names
    (llmz.inspection.preserve-modes, llmz.inspection.markers-counted); ``count`` is the tokenizer that
    decides what fits, ``kept`` (``kept_chars`` of the text) seeds the search."""
    shapes: dict[str, Callable[[int], str]] = {
        "top": lambda n: f"{text[:n]}\n{MARKER}",
        "bottom": lambda n: f"{MARKER}\n{text[len(text) - n :]}",
        "both": lambda n: f"{text[:n]}\n{MARKER}\n{text[len(text) - n :]}",
    }
    shape = shapes[preserve]
    room = max_tokens - count(shape(0))
    if room < 0:
        return ""  # not even the marker fits
    limit = len(text) // 2 if preserve == "both" else len(text)
    if preserve == "top":
        guess = kept(room, False)
    elif preserve == "bottom":
        guess = kept(room, True)
    else:
        half = room // 2
        guess = min(kept(half, False), kept(room - half, True))
    ceiling = _ceiling(lambda n: count(shape(n)) > max_tokens + _MARGIN, guess, limit)
    return shape(_longest(lambda n: n < ceiling and count(shape(n)) <= max_tokens, limit))


Cut = Callable[[str, KeptChars, int, Preserve, Callable[[str], int]], str]
"""The shape of ``cut``: text, its ``kept_chars``, the budget, the end to keep, the tokenizer."""


@dataclass(frozen=True)
class Previewer:
    """The native inspector with its three choices spelled out: how a value is written, how an over-long
    text is cut, and which tokenizer decides whether it fits. The policy object builds one."""

    format_value: Callable[[Any], str] = format_value
    cut: Cut = cut
    count_text: Callable[[str], int] = count_text

    def __call__(
        self, value: Any, max_tokens: int = DEFAULT_RESULT_BUDGET, preserve: Preserve = "top"
    ) -> str:
        """The value's preview within ``max_tokens`` tokens, marker included."""
        if max_tokens <= 0:
            return hidden_marker()
        text = self.format_value(value)
        if self.count_text(text) <= max_tokens:
            return text  # counted (or remembered) without the token ids, which only a cut's guess needs
        return self.cut(text, kept_chars(text), max_tokens, preserve, self.count_text)


DEFAULT_PREVIEWER: Final = Previewer()


def preview(value: Any, max_tokens: int = DEFAULT_RESULT_BUDGET, preserve: Preserve = "top") -> str:
    """The value's preview within ``max_tokens`` tokens, marker included (the reference's previewer)."""
    return DEFAULT_PREVIEWER(value, max_tokens, preserve)
