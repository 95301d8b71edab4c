"""The native inspector's previews and display budgets (reference.llmz.preview)."""

from __future__ import annotations

import pytest

from reference.llmz.preview import MARKER, UNDEFINED, preview
from reference.llmz.tokens import count_text

LONG = " ".join(f"word{n}" for n in range(300))


def test_standalone_text_is_shown_as_is() -> None:
    text = '<b>a & "b"</b>\n    indented'
    assert preview(text) == text


def test_nested_strings_keep_json_quoting() -> None:
    assert '"note": "one\\ntwo"' in preview({"note": "one\ntwo"})


def test_undefined_is_shown_as_undefined() -> None:
    assert preview(UNDEFINED) == "undefined"


def test_zero_budget_hides_the_value() -> None:
    assert "word1" not in preview(LONG, 0)


@pytest.mark.parametrize("budget", [8, 20, 57, 300])
@pytest.mark.parametrize("preserve", ["top", "bottom", "both"])
def test_a_cut_preview_including_its_marker_stays_within_budget(budget: int, preserve: str) -> None:
    shown = preview(LONG, budget, preserve)  # type: ignore[arg-type]
    assert count_text(shown) <= budget
    assert MARKER in shown


def test_preserve_picks_the_surviving_end() -> None:
    assert preview(LONG, 20, "top").startswith("word0 ")
    assert preview(LONG, 20, "bottom").endswith("word299")
    both = preview(LONG, 20, "both")
    assert both.startswith("word0 ") and both.endswith("word299")
