"""Naming what went wrong in one iteration: pure functions from what happened to a typed error (or none).

Each one decides a single question and cites its rule: which declarations are refused, what a thrown
JavaScript error becomes, whether unawaited calls or values memory cannot keep fail the iteration, what
running out of time or heap is, and which errors an iteration lists. ``reference.llmz.program`` and
``reference.llmz.iteration`` call them through the policy object (``reference.llmz.policies``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from reference.llmz import containment, memory
from reference.llmz.errors import CATALOGUE, LlmzError
from reference.providers.model import ModelResponse

_NOT_DEFINED = re.compile(r"^'?([A-Za-z_$][\w$]*)'? is not defined")


def missing_callable(error: dict[str, Any], code: str) -> str | None:
    """The name the program tried to call when it failed because that name does not exist."""
    missing = _NOT_DEFINED.match(error["message"]) if error["name"] == "ReferenceError" else None
    if missing and re.search(rf"(?<![\w$.]){re.escape(missing.group(1))}\s*\(", code):
        return missing.group(1)
    return None


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


def classify_failure(
    error: dict[str, Any],
    code: str,
    tools: list[str],
    missing: Callable[[dict[str, Any], str], str | None] = missing_callable,
) -> LlmzError:
    """The typed error for a program that threw. Calling a function that does not exist is an unknown
    tool naming the available ones (llmz.errors.unknown-tool); typed host errors keep their code; any
    other JavaScript failure is EXECUTION_FAILED (llmz.errors.execution-failed)."""
    if error.get("host") and error["code"] in CATALOGUE:
        return LlmzError(error["code"], error["message"])
    name = missing(error, code)
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


def unawaited_problem(unawaited: list[str]) -> LlmzError | None:
    """Tool calls still unawaited when the program ended fail the iteration recoverably; their handlers
    already ran and their results are reported (llmz.errors.host-operation-failed)."""
    if not unawaited:
        return None
    return LlmzError(
        "HOST_OPERATION_FAILED",
        f"the program finished without awaiting {', '.join(unawaited)}; await every tool call",
    )


def memory_value_problem(problems: list[str]) -> LlmzError | None:
    """Values memory cannot keep fail the iteration recoverably (llmz.memory.unsupported-values,
    llmz.errors.invalid-memory-value); the values that could be kept stay kept."""
    return LlmzError("INVALID_MEMORY_VALUE", "; ".join(problems)) if problems else None


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


def output_overflow(entry: ModelResponse) -> LlmzError:
    """An answer cut off at its output allowance is a critical TOKEN_OVERFLOW in phase ``output``, never
    run and never taken for a listen request (llmz.budget.overflow.output-phase,
    llmz.errors.token-overflow)."""
    message = "the response was cut off at its output token limit"
    if entry.usage.output_tokens:
        return LlmzError("TOKEN_OVERFLOW", message, phase="output", tokens=entry.usage.output_tokens)
    return LlmzError("TOKEN_OVERFLOW", message, phase="output")


def iteration_errors(seen: list[LlmzError], ending: LlmzError | None) -> list[str]:
    """The codes of every failure of the iteration, including ones the program caught, so an iteration
    can succeed and still list errors (llmz.errors.iteration-errors-list, llmz.errors.success-with-errors).
    ThinkSignals are not failures and never appear (llmz.errors.think-signal-not-error)."""
    codes = [error.code for error in seen]
    if ending is not None and ending.code not in codes:  # an uncaught host error is already listed
        codes.append(ending.code)
    return codes


def timeout_error(timeout_ms: int | None) -> LlmzError:
    """A program cut off by its time budget aborts the run: EXECUTION_ABORTED, critical
    (llmz.errors.execution-aborted, llmz.configuration.timeout-bounds-javascript)."""
    limit = "the timeout" if timeout_ms is None else f"the {timeout_ms} ms timeout"
    return LlmzError("EXECUTION_ABORTED", f"the program did not finish within {limit}", cause="timeout")


def stream_contents(chunks: list[str]) -> list[str]:
    """What each streamed preview carries as ``content``: the text accumulated so far
    (llmz.streaming.content-accumulates)."""
    contents, text = [], ""
    for chunk in chunks:
        text += chunk
        contents.append(text)
    return contents
