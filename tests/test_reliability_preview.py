"""Reliability: the llmz preview cut stays cheap on huge values and cuts exactly where plain bisection did.

The cut used to bisect over the whole text, tokenizing half of it, then a quarter, and so on, at every
step. It now bounds the search near the answer first (``reference.llmz.preview._ceiling``); these tests
pin that the chosen cut is the same as the plain bisection's, on hostile text shapes too. Speed itself is
measured by ``python -m conformance.bench --preview``, not asserted here.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.llmz.preview import MARKER, Preserve, preview
from reference.llmz.tokens import count_text

pytestmark = pytest.mark.reliability


def _plain_bisection(text: str, max_tokens: int, preserve: Preserve) -> str:
    """The previous algorithm, kept as the oracle."""
    shapes: dict[str, Callable[[int], str]] = {
        "top": lambda n: f"{text[:n]}\n{MARKER}",
        "bottom": lambda n: f"{MARKER}\n{text[len(text) - n :]}",
        "both": lambda n: f"{text[:n]}\n{MARKER}\n{text[len(text) - n :]}",
    }
    if max_tokens <= 0 or count_text(text) <= max_tokens:
        return preview(text, max_tokens, preserve)
    shape = shapes[preserve]
    if count_text(shape(0)) > max_tokens:
        return ""
    low, high = 0, len(text) // 2 if preserve == "both" else len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if count_text(shape(middle)) <= max_tokens:
            low = middle
        else:
            high = middle - 1
    return shape(low)


HOSTILE_TEXTS = {
    "spaces": " " * 60_000,
    "newlines": "\n" * 100_000,
    "one-long-word": "x" * 200_000,
    "emoji": "\U0001f642" * 50_000,
    "cjk": "\u4e2d\u6587\u5b57" * 30_000,
    "json-ish": '{"a": [1, 2, {"b": "c"}]}, ' * 20_000,
    "mixed-whitespace": " \n\t" * 50_000,
}


@pytest.mark.parametrize("name", sorted(HOSTILE_TEXTS))
@pytest.mark.parametrize("preserve", ["top", "bottom", "both"])
def test_hostile_texts_are_cut_where_plain_bisection_cut_them(name: str, preserve: Preserve) -> None:
    text = HOSTILE_TEXTS[name]
    shown = preview(text, 300, preserve)
    assert shown == _plain_bisection(text, 300, preserve)
    assert count_text(shown) <= 300


@settings(max_examples=60, deadline=None)
@given(
    text=st.text(min_size=1, max_size=3000),
    budget=st.integers(min_value=1, max_value=400),
    preserve=st.sampled_from(["top", "bottom", "both"]),
)
def test_any_text_is_cut_where_plain_bisection_cut_it(text: str, budget: int, preserve: Preserve) -> None:
    assert preview(text, budget, preserve) == _plain_bisection(text, budget, preserve)
