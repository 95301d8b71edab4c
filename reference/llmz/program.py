"""Running one generated program against the host and session memory, and naming what went wrong.

The order: refuse reserved declarations before anything runs (llmz.errors.reserved-identifier); run the
program in QuickJS with the session's memory installed; then turn its ending into at most one error.
Critical outcomes win (a critical host failure, a timeout, memory over capacity), then the program's own
failure, then unawaited tool calls (llmz.errors.host-operation-failed), then values that memory cannot
keep (llmz.errors.invalid-memory-value). Variables are stored even when the program failed, so work done
before a failure is not lost (llmz.persistence.failure-keeps-batch).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from reference.llmz import containment, memory, objects
from reference.llmz.errors import CATALOGUE, LlmzError
from reference.llmz.host import IterationHost
from reference.llmz.preview import UNDEFINED
from reference.llmz.sandbox import ProgramOutcome, run_program

if TYPE_CHECKING:
    from reference.llmz.iteration import IterationContext

_NOT_DEFINED = re.compile(r"^'?([A-Za-z_$][\w$]*)'? is not defined")


@dataclass(frozen=True)
class ProgramResult:
    returned: Any
    error: LlmzError | None


def reserved_declaration(code: str) -> LlmzError | None:
    """Generated code may not declare a name the runtime provides; that is recoverable when the model did
    it (llmz.errors.reserved-identifier)."""
    for name in memory.declared_names(code):
        if name in memory.RESERVED_IDENTIFIERS:
            return LlmzError(
                "RESERVED_IDENTIFIER",
                f"{name!r} is reserved by the runtime and cannot be declared",
                identifier=name,
                kind="variable",
            )
    return None


def classify_failure(error: dict[str, Any], code: str, tools: list[str]) -> LlmzError:
    """The typed error for a program that threw. Calling a function that does not exist is an unknown
    tool naming the available ones (llmz.errors.unknown-tool); typed host errors keep their code; any
    other JavaScript failure is EXECUTION_FAILED (llmz.errors.execution-failed)."""
    if error.get("host") and error["code"] in CATALOGUE:
        return LlmzError(error["code"], error["message"])
    name = missing_callable(error, code)
    if name is not None:
        return LlmzError(
            "UNKNOWN_TOOL",
            f"there is no tool named {name!r}; available tools: {sorted(tools)}",
            tool=name,
            available=sorted(tools),
        )
    details: dict[str, Any] = {"source": code}
    if isinstance(error.get("line"), int) and 1 <= error["line"] <= len(code.splitlines()):
        details["line"] = error["line"]
    return LlmzError("EXECUTION_FAILED", f"{error['name']}: {error['message']}", **details)


def missing_callable(error: dict[str, Any], code: str) -> str | None:
    """The name the program tried to call when it failed because that name does not exist."""
    missing = _NOT_DEFINED.match(error["message"]) if error["name"] == "ReferenceError" else None
    if missing and re.search(rf"(?<![\w$.]){re.escape(missing.group(1))}\s*\(", code):
        return missing.group(1)
    return None


def unawaited_problem(unawaited: list[str]) -> LlmzError | None:
    """Tool calls still unawaited when the program ended fail the iteration recoverably; their handlers
    already ran and their results are reported (llmz.errors.host-operation-failed)."""
    if not unawaited:
        return None
    return LlmzError(
        "HOST_OPERATION_FAILED",
        f"the program finished without awaiting {', '.join(unawaited)}; await every tool call",
    )


def _store_memory(
    outcome: ProgramOutcome, ctx: IterationContext, host: IterationHost, iteration_id: str
) -> LlmzError | None:
    mem = ctx.session.memory
    captured = mem.store(outcome.captured)
    host.memory_changes = captured.changed
    kept = outcome.has_result and outcome.result_problem is None and not outcome.result_too_large
    fits = mem.add_record(iteration_id, outcome.has_result, outcome.result if kept else None, kept)
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
    return memory_value_problem(problems)


def memory_value_problem(problems: list[str]) -> LlmzError | None:
    """Values memory cannot keep fail the iteration recoverably (llmz.memory.unsupported-values,
    llmz.errors.invalid-memory-value); the values that could be kept stay kept."""
    return LlmzError("INVALID_MEMORY_VALUE", "; ".join(problems)) if problems else None


def _timeout(ctx: IterationContext) -> LlmzError:
    config = ctx.config
    ctx.clock.advance(config.timeout_ms or 0)
    limit = "the timeout" if config.timeout_ms is None else f"the {config.timeout_ms} ms timeout"
    return LlmzError("EXECUTION_ABORTED", f"the program did not finish within {limit}", cause="timeout")


def heap_exhausted(error: dict[str, Any] | None) -> LlmzError | None:
    """A program that ran out of JavaScript heap ends with the memory error: critical, like the byte limit
    it mirrors (llmz.configuration.program-memory-bounded; which code is an open question there)."""
    if error is None or error.get("host") or error.get("name") != "InternalError":
        return None
    if "out of memory" not in str(error.get("message")):
        return None
    return LlmzError(
        "MEMORY_CAPACITY",
        f"the program ran out of its {containment.HEAP_BYTES}-byte JavaScript heap",
        cause="heap",
    )


def stopped_error(outcome: ProgramOutcome, ctx: IterationContext) -> LlmzError:
    """A program that did not end by itself: over its time budget it is aborted by the timeout
    (llmz.configuration.timeout-bounds-javascript); a worker that died or had to be stopped by the
    backstop is a failure of the runtime, not of the program."""
    if outcome.stopped == "timeout":
        return _timeout(ctx)
    return LlmzError("INTERNAL_ERROR", f"the program could not be run to its end: {outcome.stop_reason}")


def run(code: str, host: IterationHost, ctx: IterationContext, iteration_id: str) -> ProgramResult:
    """Run the program and settle its result and error (precedence in the module docstring)."""
    refused = reserved_declaration(code) or objects.name_clash(code, ctx.config.objects)
    if refused is not None:
        ctx.session.memory.add_record(iteration_id, False, None, True)
        return ProgramResult(UNDEFINED, refused)
    tools = list(ctx.config.tools)
    try:
        outcome = run_program(
            code,
            host,
            tools,
            chat=ctx.config.chat,
            memory_state=ctx.session.memory.guest_state(),
            objects_state=objects.guest_state(ctx.config.objects, ctx.session.memory.objects),
            known=list(ctx.session.memory.variables),
            limits=containment.limits_for(ctx.config.timeout_ms),
            max_bytes=ctx.session.memory.max_bytes,
        )
    except SyntaxError as exc:
        ctx.session.memory.add_record(iteration_id, False, None, True)
        return ProgramResult(UNDEFINED, LlmzError("INVALID_CODE", str(exc), source=code))
    memory_error = _store_memory(outcome, ctx, host, iteration_id) if outcome.settled else None
    if host.critical is not None:
        return ProgramResult(UNDEFINED, host.critical)
    if outcome.stopped is not None:
        return ProgramResult(UNDEFINED, stopped_error(outcome, ctx))
    if not outcome.settled:
        return ProgramResult(UNDEFINED, _timeout(ctx))
    exhausted = heap_exhausted(outcome.error)
    if exhausted is not None:
        return ProgramResult(UNDEFINED, exhausted)
    if memory_error is not None and memory_error.critical:
        return ProgramResult(outcome.value, memory_error)
    if outcome.error is not None:
        if outcome.error["name"] == "ThinkSignal" and outcome.error.get("host"):  # a signal made to interrupt
            return ProgramResult(UNDEFINED, memory_error)
        return ProgramResult(UNDEFINED, classify_failure(outcome.error, code, tools))
    return ProgramResult(outcome.value, unawaited_problem(outcome.unawaited) or memory_error)
