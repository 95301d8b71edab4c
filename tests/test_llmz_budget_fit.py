"""fit_request, the seam the llmz loop calls before every dispatch, driven directly."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference.llmz import tokens
from reference.llmz.fit import (
    CompactionFailedError,
    FitConfigError,
    FitContext,
    FitResult,
    ModelLimits,
    TokenBudgetError,
    fit_request,
)

Message = dict[str, Any]


def iteration(n: int, words: int = 120) -> list[Message]:
    call_id = f"call_{n}"
    return [
        {
            "role": "assistant",
            "content": "",
            "iteration": f"iteration_{n}",
            "toolCalls": [
                {"id": call_id, "name": "run_javascript", "arguments": {"code": f"return step{n}()"}}
            ],
        },
        {
            "role": "tool",
            "toolResultCallId": call_id,
            "iteration": f"iteration_{n}",
            "content": " ".join(f"fact{n}-{k}" for k in range(words)),
        },
    ]


class Summarizer:
    """Records every summary request; answers from a list (an Exception entry is raised)."""

    def __init__(self, *answers: str | Exception) -> None:
        self.answers = list(answers) or ["the summary"]
        self.calls: list[tuple[list[Message], int]] = []

    def __call__(self, messages: list[Message], limit: int) -> str:
        self.calls.append((copy.deepcopy(messages), limit))
        answer = self.answers[min(len(self.calls), len(self.answers)) - 1]
        if isinstance(answer, Exception):
            raise answer
        return answer


def context(
    history: list[Message],
    *,
    cap: int | None,
    summarizer: Summarizer | None = None,
    compaction: dict[str, Any] | None = None,
    current: list[Message] | None = None,
    models: list[ModelLimits] | None = None,
) -> FitContext:
    return FitContext(
        instructions="You are a careful worker.",
        tools=[{"name": "run_javascript", "description": "Run a JavaScript program."}],
        history=history,
        current=current if current is not None else [{"role": "user", "content": "next step please"}],
        max_tokens=cap,
        models=models or [ModelLimits(128_000, 16_384)],
        compaction={} if compaction is None else compaction,
        summarize=summarizer or Summarizer(),
    )


def size_of(ctx: FitContext) -> int:
    return (
        tokens.count_instructions(ctx.instructions)
        + tokens.count_tools(ctx.tools)
        + tokens.count_messages(ctx.history)
        + tokens.count_messages(ctx.current)
    )


def cap_for_share(history: list[Message], share: float) -> int:
    """A cap (a multiple of ten, >= 2560 so the reserve is its tenth) putting the request at ``share``."""
    measured = size_of(context(history, cap=None))
    # input = share * 0.9 * cap  =>  cap = input / (0.9 * share)
    return int(measured / (0.9 * share)) // 10 * 10


SIX = [m for n in range(1, 7) for m in iteration(n)]


def test_below_the_trigger_nothing_is_summarized_and_the_full_reserve_is_kept() -> None:
    summarizer = Summarizer()
    ctx = context(SIX, cap=cap_for_share(SIX, 0.80), summarizer=summarizer)
    result = fit_request(ctx)
    assert summarizer.calls == []
    assert result.new_history is None
    assert result.messages == [*SIX, *ctx.current]
    assert result.max_output_tokens == ctx.max_tokens // 10  # type: ignore[operator]
    assert result.input_tokens == size_of(ctx)


def test_at_the_trigger_the_history_is_summarized_and_the_two_newest_iterations_kept() -> None:
    summarizer = Summarizer("iterations 1-4 fetched facts")
    ctx = context(SIX, cap=cap_for_share(SIX, 0.90), summarizer=summarizer)
    result = fit_request(ctx)
    assert len(summarizer.calls) == 1
    request, limit = summarizer.calls[0]
    assert limit <= 1024
    assert any("fact1-0" in m.get("content", "") for m in request)
    assert result.new_history is not None
    assert result.new_history[0] == {"role": "summary", "content": "iterations 1-4 fetched facts"}
    kept = {m["iteration"] for m in result.new_history[1:]}
    assert "iteration_5" in kept and "iteration_6" in kept
    assert "iteration_1" in result.discarded_iterations
    assert result.messages[0]["role"] == "user"
    assert "iterations 1-4 fetched facts" in result.messages[0]["content"]
    assert result.messages[-1] == ctx.current[-1]


def test_compaction_aims_at_the_target_share() -> None:
    ctx = context(SIX, cap=cap_for_share(SIX, 0.90))
    result = fit_request(ctx)
    input_budget = ctx.max_tokens - ctx.max_tokens // 10  # type: ignore[operator]
    assert result.input_tokens <= 0.65 * input_budget


def test_current_turn_iterations_count_as_the_most_recent() -> None:
    current = [{"role": "user", "content": "go"}, *iteration(7, words=700), *iteration(8, words=700)]
    ctx = context(SIX, cap=cap_for_share([*SIX, *current], 0.9), current=current)
    result = fit_request(ctx)
    assert result.new_history is not None
    # Both protected iterations are in the current turn, so earlier iterations 5 and 6 are not protected
    # and go as the target requires.
    assert result.messages[-len(current) :] == current
    assert "iteration_5" in result.discarded_iterations


def test_an_earlier_summary_is_replaced_and_fed_to_the_new_one() -> None:
    old = {
        "role": "user",
        "content": "<conversation_summary>\nold facts\n</conversation_summary>",
        "source": {"role": "summary", "content": "old facts"},
    }
    history = [old, *SIX]
    summarizer = Summarizer("new facts")
    result = fit_request(context(history, cap=cap_for_share(history, 0.9), summarizer=summarizer))
    assert "old facts" in summarizer.calls[0][0][0]["content"]
    assert result.new_history is not None
    summaries = [m for m in result.new_history if m.get("role") == "summary" or "source" in m]
    assert summaries == [{"role": "summary", "content": "new facts"}]


def test_large_histories_are_summarized_in_segments_carrying_the_previous_summary() -> None:
    history = [m for n in range(1, 13) for m in iteration(n, words=200)]
    summarizer = Summarizer("part one", "part two", "part three", "part four")
    result = fit_request(
        context(history, cap=3000, summarizer=summarizer, compaction={"maxSummaryTokens": 200})
    )
    assert len(summarizer.calls) >= 2
    assert summarizer.calls[1][0][0] == {"role": "summary", "content": "part one"}
    assert all(limit <= 200 for _, limit in summarizer.calls)
    assert result.summary == summarizer.answers[len(summarizer.calls) - 1]


@pytest.mark.parametrize(
    "answer",
    [RuntimeError("provider failed with HTTP 500"), "", "word " * 2000],
    ids=["error", "empty", "too-long"],
)
def test_a_failed_summary_is_compaction_failed_and_leaves_history_untouched(answer: str | Exception) -> None:
    history = copy.deepcopy(SIX)
    with pytest.raises(CompactionFailedError) as caught:
        fit_request(context(history, cap=cap_for_share(SIX, 0.9), summarizer=Summarizer(answer)))
    assert caught.value.code == "COMPACTION_FAILED" and caught.value.critical
    assert history == SIX
    if isinstance(answer, Exception):
        assert caught.value.cause is answer
        assert "HTTP 500" in str(caught.value.details()["cause"])


def test_compaction_disabled_overflow_fails_without_touching_history() -> None:
    history = copy.deepcopy(SIX)
    summarizer = Summarizer()
    ctx = FitContext(**{**context(history, cap=1000, summarizer=summarizer).__dict__, "compaction": None})
    with pytest.raises(TokenBudgetError) as caught:
        fit_request(ctx)
    assert summarizer.calls == []
    assert history == SIX
    details = caught.value.details()
    assert details["code"] == "TOKEN_OVERFLOW" and details["phase"] == "input"
    # The limit reported is the input budget: 1,000 minus the 256-token reserve.
    assert details["limit"] == 744 and details["tokens"] == size_of(ctx)


def test_compaction_disabled_request_below_the_limit_is_sent_whole() -> None:
    ctx = FitContext(**{**context(SIX, cap=cap_for_share(SIX, 0.95)).__dict__, "compaction": None})
    result: FitResult = fit_request(ctx)
    assert result.messages == [*SIX, *ctx.current]


def test_mandatory_context_larger_than_the_window_overflows_before_any_summary() -> None:
    summarizer = Summarizer()
    current = [{"role": "user", "content": "detail " * 3000}]
    with pytest.raises(TokenBudgetError):
        fit_request(context(SIX, cap=2000, summarizer=summarizer, current=current))
    assert summarizer.calls == []


def test_fallback_models_bound_the_window() -> None:
    ctx = context([], cap=None, models=[ModelLimits(128_000, 16_384), ModelLimits(8000, 300)])
    assert fit_request(ctx).max_output_tokens == 300


@pytest.mark.parametrize("cap", [0, -5, 2**53])
def test_invalid_max_tokens_is_invalid_config(cap: int) -> None:
    with pytest.raises(FitConfigError, match="maxTokens") as caught:
        fit_request(context([], cap=cap))
    assert caught.value.code == "INVALID_CONFIG"


def test_invalid_compaction_controls_are_invalid_config() -> None:
    with pytest.raises(FitConfigError, match="targetRatio"):
        fit_request(context([], cap=None, compaction={"triggerRatio": 0.5, "targetRatio": 0.9}))


def test_a_single_dropped_message_larger_than_the_window_is_summarized_in_pieces() -> None:
    history = [*iteration(1, words=1500), *iteration(2, words=20), *iteration(3, words=20)]
    summarizer = Summarizer("first piece", "second piece", "third piece", "fourth piece", "fifth piece")
    result = fit_request(
        context(history, cap=2000, summarizer=summarizer, compaction={"keepRecentIterations": 1})
    )
    assert len(summarizer.calls) >= 2
    assert summarizer.calls[1][0][0] == {"role": "summary", "content": "first piece"}
    assert result.new_history is not None and result.new_history[0]["role"] == "summary"
