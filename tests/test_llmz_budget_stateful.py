"""A long conversation driven through fit_request by hypothesis, committing every compaction it proposes.

The machine plays the part of the execution loop: each turn appends user input and one iteration (an
assistant call plus its result), asks ``fit_request`` for the next request and, like the loop, commits
``new_history`` when compaction happened. After every step the invariants the budget promises must hold,
whatever sizes, windows and controls hypothesis picks.
"""

from __future__ import annotations

from typing import Any

from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from reference.llmz.fit import FitContext, FitResult, ModelLimits, fit_request

Message = dict[str, Any]


def words(prefix: str, count: int) -> str:
    return " ".join(f"{prefix}{k}" for k in range(count))


class Conversation(RuleBasedStateMachine):
    @initialize(
        cap=st.integers(min_value=1500, max_value=8000),
        keep=st.integers(min_value=0, max_value=3),
        max_summary=st.integers(min_value=16, max_value=400),
    )
    def setup(self, cap: int, keep: int, max_summary: int) -> None:
        self.cap = cap
        self.controls = {"keepRecentIterations": keep, "maxSummaryTokens": max_summary}
        self.history: list[Message] = []
        self.turns = 0
        self.summaries = 0
        self.last: FitResult | None = None
        self.failed: str | None = None

    def _summarize(self, messages: list[Message], limit: int) -> str:
        self.summaries += 1
        return f"summary {self.summaries}"

    @rule(input_words=st.integers(1, 150), code_words=st.integers(1, 250), result_words=st.integers(1, 250))
    def turn(self, input_words: int, code_words: int, result_words: int) -> None:
        if self.failed:
            return
        self.turns += 1
        n = self.turns
        current = [{"role": "user", "content": words(f"ask{n}-", input_words)}]
        context = FitContext(
            instructions="Work carefully.", tools=[], history=list(self.history), current=current,
            max_tokens=self.cap, models=[ModelLimits(128_000, 16_384)], compaction=self.controls,
            summarize=self._summarize,
        )
        try:
            result = fit_request(context)
        except Exception as exc:
            code = getattr(exc, "code", None)
            assert code in ("TOKEN_OVERFLOW", "COMPACTION_FAILED"), exc
            self.failed = code
            event(f"fit failed with {code}")
            return
        self.last = result
        if result.new_history is not None:
            event("compacted")
            self.history = result.new_history
        call = {"role": "assistant", "content": "", "iteration": f"iteration_{n}",
                "toolCalls": [{"id": f"call_{n}", "input": {"code": words(f"step{n}-", code_words)}}]}
        answer = {"role": "user", "type": "tool_result", "toolResultCallId": f"call_{n}",
                  "iteration": f"iteration_{n}", "content": words(f"fact{n}-", result_words)}
        self.history = [*self.history, *current, call, answer]

    @invariant()
    def the_last_request_fits_its_window(self) -> None:
        if self.last is not None:
            assert self.last.input_tokens + self.last.max_output_tokens <= self.cap

    @invariant()
    def at_most_one_summary_and_it_comes_first(self) -> None:
        positions = [i for i, m in enumerate(self.history) if m.get("role") == "summary"]
        assert positions in ([], [0])

    @invariant()
    def every_result_follows_its_call(self) -> None:
        called: set[str] = set()
        for message in self.history:
            for call in message.get("toolCalls", []):
                called.add(call["id"])
            if "toolResultCallId" in message:
                assert message["toolResultCallId"] in called

    @invariant()
    def the_newest_iteration_always_survives(self) -> None:
        if self.turns and not self.failed:
            assert any(m.get("iteration") == f"iteration_{self.turns}" for m in self.history)

    @invariant()
    def the_current_input_is_sent_whole_and_last(self) -> None:
        if self.last is not None and not self.failed:
            sent = self.last.messages[-1]
            assert sent["role"] == "user" and sent["content"].startswith(f"ask{self.turns}-")

    @invariant()
    def context_categories_add_up(self) -> None:
        if self.last is not None:
            parts = {k: v for k, v in self.last.context_tokens.items() if k != "total"}
            assert sum(parts.values()) == self.last.context_tokens["total"] == self.last.input_tokens


Conversation.TestCase.settings = settings(max_examples=25, stateful_step_count=20, deadline=None)
TestConversation = Conversation.TestCase
