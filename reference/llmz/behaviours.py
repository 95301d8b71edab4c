"""The declarative tool handlers of a scenario: what call number N of a tool does.

A pure function of the tool's spec, the call number and the input, so the host stays a thin shell. The
counters live with the scenario run (not the iteration), so "fails twice then succeeds" spans iterations
and executions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from conformance.scenario.invalid import raw
from conformance.scenario.llmz import ThinkSignalSpec, ToolSpec
from reference.llmz.preview import display_budget_problem

OutcomeKind = Literal["value", "error", "signal", "hang", "cancel", "rejected"]


@dataclass(frozen=True)
class HandlerOutcome:
    kind: OutcomeKind
    value: Any = None
    message: str = ""
    signal: ThinkSignalSpec | None = None


def handle(tool: ToolSpec, call_number: int, parsed_input: Any) -> HandlerOutcome:
    """The handler's outcome for its ``call_number``-th invocation (1-based).

    A handler that wraps its result in ``truncate`` with a budget that is not a nonnegative safe integer
    throws there, so the call fails instead of showing a preview under that budget
    (llmz.inspection.budget-integers).
    """
    outcome = _outcome(tool, call_number, parsed_input)
    truncate = tool.behaviour.truncate
    if truncate is not None and outcome.kind in ("value", "signal"):
        problem = display_budget_problem(raw(truncate.max_tokens))
        if problem is not None:
            return HandlerOutcome("error", message=problem)
    return outcome


def _outcome(tool: ToolSpec, call_number: int, parsed_input: Any) -> HandlerOutcome:
    behaviour = tool.behaviour
    if call_number <= behaviour.fail_first:
        return HandlerOutcome("error", message=behaviour.fail_message)
    if behaviour.think_signal is not None:
        return HandlerOutcome("signal", value=behaviour.think_signal.context, signal=behaviour.think_signal)
    if behaviour.throws is not None:
        return HandlerOutcome("error", message=behaviour.throws)
    if behaviour.hangs:
        return HandlerOutcome("hang")
    if behaviour.cancels is not None:
        return HandlerOutcome("cancel", message=behaviour.cancels)
    if behaviour.returns_input:
        return HandlerOutcome("value", value=parsed_input)
    return HandlerOutcome("value", value=behaviour.returns)
