"""Running one generated program against the host and session memory, and settling what went wrong.

The order: refuse reserved declarations before anything runs (llmz.errors.reserved-identifier); run the
program in QuickJS with the session's memory installed; then turn its ending into at most one error.
Critical outcomes win (a critical host failure, a timeout, memory over capacity), then the program's own
failure, then unawaited tool calls (llmz.errors.host-operation-failed), then values that memory cannot
keep (llmz.errors.invalid-memory-value). Variables are stored even when the program failed, so work done
before a failure is not lost (llmz.persistence.failure-keeps-batch). Each failure is named by a pure
function of ``reference.llmz.failures``, reached through the session's policies.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from reference.llmz import containment, objects
from reference.llmz.errors import LlmzError
from reference.llmz.host import IterationHost
from reference.llmz.preview import UNDEFINED
from reference.llmz.sandbox import ProgramOutcome, run_program

if TYPE_CHECKING:
    from reference.llmz.iteration import IterationContext


@dataclass(frozen=True)
class ProgramResult:
    returned: Any
    error: LlmzError | None


def _store_memory(
    outcome: ProgramOutcome, ctx: IterationContext, host: IterationHost, iteration_id: str
) -> LlmzError | None:
    mem, policies = ctx.session.memory, ctx.session.policies
    captured = policies.store_variables(mem, outcome.captured, policies.memory_fits)
    host.memory_changes = captured.changed
    kept = outcome.has_result and outcome.result_problem is None and not outcome.result_too_large
    fits = policies.record_result(
        mem, iteration_id, outcome.has_result, outcome.result if kept else None, kept, policies.memory_fits
    )
    fits = fits and not outcome.result_too_large
    unavailable = captured.unavailable + ([] if fits else ["$return"])
    if unavailable:
        return LlmzError(
            "MEMORY_CAPACITY",
            f"memory is over its {mem.max_bytes}-byte limit; unavailable: {', '.join(unavailable)}",
            unavailable=unavailable,
        )
    problems = [f"{name}: {message}" for name, message in captured.unsupported.items()]
    if outcome.result_problem is not None:
        problems.append(f"returned {outcome.result_problem}")
    return policies.memory_value_problem(problems)


def stopped_error(outcome: ProgramOutcome, ctx: IterationContext) -> LlmzError:
    """A program that did not end by itself: over its time budget it is aborted by the timeout
    (llmz.configuration.timeout-bounds-javascript); a worker that died or had to be stopped by the
    backstop is a failure of the runtime, not of the program."""
    if outcome.stopped == "timeout":
        return ctx.session.policies.timeout_error(ctx.config.timeout_ms)
    return LlmzError("INTERNAL_ERROR", f"the program could not be run to its end: {outcome.stop_reason}")


def _run(code: str, host: IterationHost, ctx: IterationContext, iteration_id: str) -> ProgramResult:
    """Run the program and settle its result and error (precedence in the module docstring)."""
    session, policies = ctx.session, ctx.session.policies
    refused = policies.reserved_declaration(code) or objects.name_clash(code, ctx.config.objects)
    if refused is not None:
        session.memory.add_record(iteration_id, False, None, True, policies.memory_fits)
        return ProgramResult(UNDEFINED, refused)
    tools = list(ctx.config.tools)
    memory_state, memory_texts = session.memory.guest_state(policies.current_return)
    try:
        outcome = run_program(
            code,
            host,
            tools,
            chat=ctx.config.chat,
            memory_state=memory_state,
            memory_texts=memory_texts,
            variables=dict(session.memory.variables),
            objects_state=objects.guest_state(ctx.config.objects, session.memory.objects),
            known=list(session.memory.variables),
            limits=containment.limits_for(ctx.config.timeout_ms, policies.javascript_budget),
            max_bytes=session.memory.max_bytes,
            kernel_definition=policies.kernel_definition,
        )
    except SyntaxError as exc:
        session.memory.add_record(iteration_id, False, None, True, policies.memory_fits)
        return ProgramResult(UNDEFINED, LlmzError("INVALID_CODE", str(exc), source=code))
    memory_error = _store_memory(outcome, ctx, host, iteration_id) if outcome.settled else None
    if host.critical is not None:
        return ProgramResult(UNDEFINED, host.critical)
    if outcome.stopped is not None:
        return ProgramResult(UNDEFINED, stopped_error(outcome, ctx))
    if not outcome.settled:
        return ProgramResult(UNDEFINED, policies.timeout_error(ctx.config.timeout_ms))
    exhausted = policies.heap_exhausted(outcome.error)
    if exhausted is not None:
        return ProgramResult(UNDEFINED, exhausted)
    if memory_error is not None and memory_error.critical:
        return ProgramResult(outcome.value, memory_error)
    if outcome.error is not None:
        if outcome.error["name"] == "ThinkSignal" and outcome.error.get("host"):  # a signal made to interrupt
            return ProgramResult(UNDEFINED, memory_error)
        failure = policies.classify_failure(outcome.error, code, tools, policies.missing_callable)
        return ProgramResult(UNDEFINED, failure)
    return ProgramResult(outcome.value, policies.unawaited_problem(outcome.unawaited) or memory_error)


def run(code: str, host: IterationHost, ctx: IterationContext, iteration_id: str) -> ProgramResult:
    """Run the program; then apply the policies' readings of two open questions: whether a delivery
    failure the program caught still fails the iteration (llmz.errors.delivery-failed), and whether
    values memory cannot keep fail it or are only listed (llmz.errors.invalid-memory-value)."""
    ran = _run(code, host, ctx, iteration_id)
    policies = ctx.session.policies
    if ran.error is None and host.delivery_error is not None and policies.caught_delivery_failure_fails:
        return ProgramResult(ran.returned, host.delivery_error)
    unkept = ran.error is not None and ran.error.code == "INVALID_MEMORY_VALUE"
    if unkept and ran.error is not None and not policies.memory_errors_fail_iteration:
        host.seen_errors.append(ran.error)
        return ProgramResult(ran.returned, None)
    return ran
