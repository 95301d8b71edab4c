"""The llmz token budget and compaction policies, pinned example by example (rule ids in test names)."""

from __future__ import annotations

from typing import Any

import pytest

from reference.llmz import budget, compaction, tokens
from reference.llmz.compaction import Cut, Group


# -- llmz.budget.max-tokens.positive-safe-integer ---------------------------------------------------
@pytest.mark.parametrize("value", [0, -1, 1.5, "100", True, 2**53])
def test_max_tokens_rejects_anything_but_a_positive_safe_integer(value: object) -> None:
    with pytest.raises(budget.BudgetConfigError, match=r"options\.maxTokens must be a positive safe integer"):
        budget.check_max_tokens(value)


@pytest.mark.parametrize("value", [None, 1, 4096, 2**53 - 1])
def test_max_tokens_accepts_none_and_positive_safe_integers(value: int | None) -> None:
    assert budget.check_max_tokens(value) == value


# -- llmz.budget.effective-limit.* ------------------------------------------------------------------
def test_effective_limit_is_the_cap_when_the_cap_is_smaller() -> None:
    assert budget.effective_limits(8000, [128_000], [16_384]) == (8000, 16_384)


def test_effective_limit_is_the_model_input_limit_when_it_is_smaller() -> None:
    assert budget.effective_limits(200_000, [32_000], [4096]) == (32_000, 4096)


def test_fallback_list_uses_smallest_input_and_smallest_output_limits() -> None:
    # The smallest input limit and the smallest output limit may come from different candidates.
    assert budget.effective_limits(None, [128_000, 16_000, 64_000], [2048, 8192, 4096]) == (16_000, 2048)


def test_effective_limit_needs_a_model() -> None:
    with pytest.raises(budget.BudgetConfigError, match="at least one model"):
        budget.effective_limits(None, [], [])


# -- llmz.budget.output-reserve.* --------------------------------------------------------------------
@pytest.mark.parametrize(
    ("limit", "output_limit", "expected", "why"),
    [
        (2000, 16_384, 256, "a tenth (200) is below the floor"),
        (2560, 16_384, 256, "a tenth is exactly the floor"),
        (8000, 16_384, 800, "a tenth, inside the bounds"),
        (8005, 16_384, 800, "a tenth rounds down"),
        (160_000, 100_000, 16_000, "a tenth is exactly the ceiling"),
        (1_000_000, 100_000, 16_000, "a tenth (100,000) is above the ceiling"),
        (8000, 500, 500, "the model's output limit is smaller than the tenth"),
        (2000, 100, 100, "the model's output limit beats even the floor"),
    ],
)
def test_planned_reserve(limit: int, output_limit: int, expected: int, why: str) -> None:
    assert budget.planned_reserve(limit, output_limit) == expected, why


def test_reserve_leaves_at_least_one_token_for_input() -> None:
    assert budget.planned_reserve(200, 16_384) == 199


def test_a_one_token_window_is_a_valid_setting_that_no_request_fits() -> None:
    """maxTokens 1 is a positive safe integer, so it is no configuration error; the request then fails to fit
    (llmz.budget.max-tokens.positive-safe-integer, llmz.budget.overflow.before-dispatch)."""
    window = budget.window_for(1, [128_000], [16_384])
    assert (window.limit, window.reserve, window.input_budget) == (1, 0, 1)
    assert not budget.fits(window, 2)


def test_input_budget_is_the_limit_minus_the_planned_reserve() -> None:
    assert budget.window_for(8000, [128_000], [16_384]).input_budget == 7200


# -- llmz.budget.overflow.before-dispatch --------------------------------------------------------------
def test_request_fits_up_to_the_input_budget_inclusive() -> None:
    window = budget.window_for(2000, [128_000], [16_384])
    assert window.input_budget == 1744
    assert budget.fits(window, 1744)
    assert not budget.fits(window, 1745)


def test_a_small_model_output_limit_widens_the_input_budget() -> None:
    window = budget.window_for(2000, [128_000], [100])
    assert window.input_budget == 1900
    assert budget.fits(window, 1900)
    assert not budget.fits(window, 1901)


# -- llmz.budget.measure.* ---------------------------------------------------------------------------
def test_count_text_is_exact_cl100k() -> None:
    assert tokens.count_text("hello world") == 2
    assert tokens.count_text("") == 0


def test_special_token_spellings_are_counted_as_text() -> None:
    assert tokens.count_text("<|endoftext|>") > 1


def test_message_framing_is_a_fixed_overhead_plus_text() -> None:
    message = {"role": "user", "content": "hello world"}
    assert tokens.count_message(message) == tokens.MESSAGE_OVERHEAD + tokens.count_text("user") + 2


def test_bookkeeping_keys_are_not_counted() -> None:
    plain = {"role": "user", "content": "hi"}
    annotated = {**plain, "iteration": "iteration_12", "source": {"role": "user", "content": "hi"}}
    assert tokens.count_message(annotated) == tokens.count_message(plain)


def test_media_transport_is_excluded_but_descriptions_are_counted() -> None:
    url = "https://example.com/" + "receipt-" * 40 + ".png"
    with_media = {"role": "user", "content": [{"type": "image", "url": url, "alt": "Store receipt"}]}
    without = {"role": "user", "content": [{"type": "image", "alt": "Store receipt"}]}
    assert tokens.count_message(with_media) == tokens.count_message(without)
    assert tokens.count_message(without) > tokens.count_message({"role": "user", "content": []})


def test_media_shaped_business_arguments_are_text() -> None:
    url = "https://example.com/" + "receipt-" * 40 + ".png"
    call = {
        "role": "assistant",
        "toolCalls": [{"name": "upload", "arguments": {"type": "image", "url": url}}],
    }
    assert tokens.count_message(call) > tokens.count_text(url)


def test_tool_declarations_cost_their_canonical_json() -> None:
    tool = {"name": "run_javascript", "description": "Run a program", "parameters": {"type": "object"}}
    reordered = dict(reversed(list(tool.items())))
    assert tokens.count_tools([tool]) == tokens.count_tools([reordered]) > 0


# -- llmz.compaction.trigger-ratio --------------------------------------------------------------------
def test_trigger_fires_at_exactly_the_ratio_and_not_below() -> None:
    assert compaction.should_compact(850, 1000, 0.85)
    assert not compaction.should_compact(849, 1000, 0.85)


def test_trigger_compares_exact_fractions() -> None:
    # 0.85 * 7200 is 6120 exactly; binary floating point would put it a hair above.
    assert compaction.should_compact(6120, 7200, 0.85)


# -- llmz.compaction.retains (grouping) ----------------------------------------------------------------
def _iteration(n: int, size: int = 10) -> list[dict[str, Any]]:
    call_id = f"call_{n}"
    return [
        {
            "role": "assistant",
            "content": "",
            "toolCalls": [{"id": call_id, "name": "run_javascript"}],
            "iteration": f"iteration_{n}",
            "size": size,
        },
        {
            "role": "tool",
            "toolResultCallId": call_id,
            "content": "ok",
            "iteration": f"iteration_{n}",
            "size": 0,
        },
    ]


def _size(message: dict[str, Any]) -> int:
    return int(message.get("size", 1))


def test_grouping_keeps_each_call_with_its_result_and_the_input_it_answers() -> None:
    tail = {"role": "user", "content": "not answered yet"}
    history = [{"role": "user", "content": "hi"}, *_iteration(1), *_iteration(2), tail]
    groups = compaction.group_history(history, _size, inputs_join_iteration=True)
    assert [g.iteration for g in groups] == ["iteration_1", "iteration_2", None]
    assert [len(g.messages) for g in groups] == [3, 2, 1]
    separate = compaction.group_history(history, _size)
    assert [g.iteration for g in separate] == [None, "iteration_1", "iteration_2", None]


def test_a_result_without_iteration_id_still_joins_its_call() -> None:
    history: list[dict[str, Any]] = [
        {"role": "assistant", "toolCalls": [{"id": "a"}]},
        {"role": "tool", "toolResultCallId": "a"},
    ]
    assert len(compaction.group_history(history, _size)) == 1


def test_stored_summary_is_recognised() -> None:
    stored: dict[str, Any] = {
        "role": "user",
        "content": "<conversation_summary>x</conversation_summary>",
        "source": {"role": "summary", "content": "x"},
    }
    assert compaction.group_history([stored], _size)[0].is_summary


# -- llmz.compaction.target-ratio / keep-recent-iterations / hard-overflow-keeps-fewer -------------------
def _groups(sizes: list[int]) -> list[Group]:
    return [Group(({"n": i},), f"iteration_{i}", size) for i, size in enumerate(sizes)]


def _cut(
    sizes: list[int], *, budget_: int = 1000, keep: int = 2, fixed: int = 0, cost: int = 0
) -> Cut | None:
    return compaction.choose_cut(
        _groups(sizes),
        fixed_tokens=fixed,
        summary_cost=cost,
        input_budget=budget_,
        target_ratio=0.65,
        keep_recent=keep,
    )


def test_cut_drops_the_shortest_prefix_that_reaches_the_target() -> None:
    # Total 900; the target is 650: dropping the first two groups (300) reaches 600.
    assert _cut([150, 150, 200, 200, 200]) == Cut(drop=2, estimate=600)


def test_cut_keeps_the_two_newest_iterations_even_above_the_target() -> None:
    # The two newest iterations alone are 800 > 650 but fit the 1000 budget: keep them.
    assert _cut([100, 100, 400, 400]) == Cut(drop=2, estimate=800)


def test_hard_overflow_drops_a_recent_iteration_when_keeping_both_cannot_fit() -> None:
    # The two newest are 1100 > 1000: one of them must go, the newest stays.
    assert _cut([100, 500, 600]) == Cut(drop=2, estimate=600)


def test_no_cut_when_only_protected_iterations_exist_and_the_request_fits() -> None:
    assert _cut([300, 400]) is None


def test_no_cut_when_nothing_can_make_the_request_fit() -> None:
    assert _cut([100, 100], fixed=1200) is None


def test_keep_recent_counts_iterations_not_loose_messages() -> None:
    groups = [
        Group(({"n": 0},), "iteration_0", 100),
        Group(({"n": 1},), None, 10),
        Group(({"n": 2},), "iteration_2", 500),
        Group(({"n": 3},), None, 10),
        Group(({"n": 4},), "iteration_4", 300),
    ]
    cut = compaction.choose_cut(
        groups, fixed_tokens=0, summary_cost=0, input_budget=1000, target_ratio=0.65, keep_recent=2
    )
    # Counting the loose message as an iteration would protect less and drop iteration_2 as well.
    assert cut == Cut(drop=2, estimate=810)


def test_summary_and_retained_history() -> None:
    groups = compaction.group_history([*_iteration(1), *_iteration(2), *_iteration(3)], _size)
    cut = Cut(drop=1, estimate=0)
    retained = compaction.retained_history(groups, cut, "what happened")
    assert retained[0] == {"role": "summary", "content": "what happened"}
    assert [m["iteration"] for m in retained[1:]] == ["iteration_2"] * 2 + ["iteration_3"] * 2
    assert compaction.discarded_iterations(groups, cut) == ["iteration_1"]


# -- llmz.compaction.summary-request.* ------------------------------------------------------------------
def test_summary_input_is_the_dropped_messages_after_the_summary_so_far() -> None:
    groups = compaction.group_history(_iteration(1), _size)
    messages = compaction.summary_input(groups, "earlier summary")
    assert messages[0] == {"role": "summary", "content": "earlier summary"}
    assert [m["role"] for m in messages[1:]] == ["assistant", "tool"]
    assert all("iteration" not in m for m in messages)


def test_segments_take_whole_groups_within_capacity() -> None:
    sizes = [40, 40, 40, 100, 10]
    assert compaction.segment_end(sizes, 0, 100) == 2
    assert compaction.segment_end(sizes, 2, 100) == 3
    assert compaction.segment_end(sizes, 3, 100) == 4  # an oversized group still gets its own segment
    assert compaction.segment_end(sizes, 4, 100) == 5


# -- llmz.compaction.config-invalid ----------------------------------------------------------------------
def test_controls_default_to_the_documented_values() -> None:
    assert compaction.controls_from({}) == compaction.Controls(0.85, 0.65, 2, 1024)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"triggerRatio": 0.6, "targetRatio": 0.6}, "targetRatio < triggerRatio"),
        ({"triggerRatio": 1.5}, "triggerRatio <= 1"),
        ({"targetRatio": 0}, "0 < targetRatio"),
        ({"keepRecentIterations": -1}, "keepRecentIterations must be an integer >= 0"),
        ({"maxSummaryTokens": 0}, "maxSummaryTokens must be an integer >= 1"),
        ({"triggerRatio": "high"}, "triggerRatio must be a number"),
        ({"trigger": 0.9}, "unknown compaction control"),
    ],
)
def test_invalid_controls_are_config_errors(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(compaction.CompactionConfigError, match=message):
        compaction.controls_from(settings)


def test_an_oversized_group_is_split_into_pieces_within_capacity() -> None:
    big = {"role": "tool", "toolResultCallId": "c", "content": " ".join(f"item{k}" for k in range(600))}
    groups = [Group((big,), "iteration_1", tokens.count_message(big)), *_groups([5])]
    pieces = compaction.split_oversized(groups, 200, tokens.count_message, tokens.split_text)
    assert len(pieces) > 3
    assert all(piece.tokens <= 200 for piece in pieces)
    assert pieces[0].messages[0]["content"].startswith("[part 1 of ")
    assert pieces[-1] == groups[-1], "groups that fit are passed through unchanged"


def test_split_text_pieces_rejoin_to_the_text() -> None:
    text = "Ledger entry " * 300
    pieces = tokens.split_text(text, 50)
    assert "".join(pieces) == text
    assert all(tokens.count_text(piece) <= 50 for piece in pieces)
