"""What a host reads about failures after a run: guards, iteration error fields, result exports.

llmz hands the host typed failures and lets it classify them with guards (``isLLMzError(value, code)``
and each class's detachable ``is``). The guards recognise a library error by a brand shared by every
loaded copy of the library plus its code, never by class identity, class name or message
(llmz.errors.class-guard, llmz.errors.is-llmz-error, llmz.errors.guard-brand,
llmz.errors.guard-not-instanceof). Python has no ``Symbol.for``; its analogue here is a well-known
attribute name that every copy of this module sets on its error and signal classes, so an error made by a
second copy of the library (loaded under another module name) still passes, while a look-alike object or a
parsed JSON form of an error does not (llmz.errors.guards-reject-json).

The same module turns failures into plain diagnostic data (llmz.errors.diagnostics-content,
llmz.persistence.result-diagnostics) and a result into its compact outcome summary
(llmz.persistence.result-tojson), and writes ``CodeExecutionError.stacktrace``: the whole program,
numbered and annotated (llmz.error-recovery.full-stacktrace), where the model's feedback shows only an
excerpt.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from reference.llmz.errors import BRAND_ATTRIBUTE, CATALOGUE, CODE_OF_CLASS, SIGNAL_BRAND_ATTRIBUTE, LlmzError
from reference.llmz.feedback import stack_trace

Guard = Callable[[object], bool]

_CODE_OF_CLASS = CODE_OF_CLASS

RECORD_FIELDS = ("type", "code", "class", "recoverable", "message", "iteration", "step")
"""The fields of an ``error`` record event that are not the error's own details."""


def branded(value: object) -> bool:
    """Made by some copy of the library: carries the shared brand (never ``isinstance``)."""
    return getattr(type(value), BRAND_ATTRIBUTE, None) is True


def recognises(value: object, code: str | None) -> bool:
    """``isLLMzError(value, code)``: the shared brand plus a catalogue code, equal to ``code`` when given
    (llmz.errors.is-llmz-error, llmz.errors.guard-brand)."""
    found = getattr(value, "code", None)
    return branded(value) and found in CATALOGUE and (code is None or found == code)


def class_guard(class_name: str, recognise: Callable[[object, str | None], bool] = recognises) -> Guard:
    """The static ``is`` of the exported class ``class_name``: a plain function, so it works detached from
    the class (llmz.errors.class-guard). It accepts exactly the errors of that class's code."""
    code = _CODE_OF_CLASS[class_name]
    return lambda value: recognise(value, code)


def any_branded_guard(class_name: str, recognise: Callable[[object, str | None], bool] = recognises) -> Guard:
    """A class guard that forgets its code (a mutant's reading): every library error passes."""
    return lambda value: recognise(value, None)


def is_think_signal(value: object) -> bool:
    """``ThinkSignal.is``: the signal brand every copy of the library sets
    (llmz.errors.think-signal-guard)."""
    return getattr(type(value), SIGNAL_BRAND_ATTRIBUTE, None) is True


def from_record(fields: Mapping[str, Any]) -> LlmzError:
    """The typed failure behind an ``error`` event (the runtime reports each failure once, as an event)."""
    details = {key: value for key, value in fields.items() if key not in RECORD_FIELDS}
    return LlmzError(
        str(fields["code"]), str(fields["message"]), critical=not fields["recoverable"], **details
    )


def full_stacktrace(error: LlmzError) -> str | None:
    """``CodeExecutionError.stacktrace``: every line of the program, numbered, with the failing line marked
    (llmz.error-recovery.full-stacktrace). None for failures without guest source."""
    source, line = error.details.get("source"), error.details.get("line")
    if error.code != "EXECUTION_FAILED" or not isinstance(source, str):
        return None
    lines = source.splitlines()
    return stack_trace(source, line if isinstance(line, int) else 1, max(1, len(lines)))


def summary_text(error: LlmzError) -> str:
    """``iteration.error``: the readable one-line summary of the typed failure."""
    return f"{error.class_name} ({error.code}): {error.message}"


def iteration_fields(iteration: Mapping[str, Any], seen: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """An iteration's failure fields, from the events the runtime reported for it: ``exception`` the typed
    failure that ended it, ``error`` its readable summary, ``errors`` every failure observed
    (llmz.errors.iteration-error-fields)."""
    errors = tuple(from_record(fields) for fields in seen)
    code = iteration.get("error_code")
    ending = [error for error in errors if error.code == code]
    exception = ending[-1] if code is not None and ending else None
    return {
        "exception": exception,
        "error": summary_text(exception) if exception is not None else None,
        "errors": errors,
    }


def error_diagnostic(error: LlmzError) -> dict[str, Any]:
    """One failure as plain data: name, code, message and criticality, with its cause nested
    (llmz.errors.diagnostics-content)."""
    out: dict[str, Any] = {
        "name": error.class_name,
        "code": error.code,
        "message": error.message,
        "critical": error.critical,
    }
    cause = error.details.get("cause")
    if isinstance(cause, str):
        out["cause"] = {"name": "Error", "message": cause}
    for key in ("tool", "source", "line", "limit", "phase"):
        if key in error.details:
            out[key] = error.details[key]
    return out


def result_diagnostics(
    status: str,
    iterations: Sequence[Any],
    error: LlmzError | None,
    describe: Callable[[LlmzError], dict[str, Any]] = error_diagnostic,
) -> dict[str, Any]:
    """``result.diagnostics()``: the run's iterations with their failures, and the run's own failure.
    A failure that is not a typed error (only a variant makes one) is exported by its text."""

    def export(failure: object) -> dict[str, Any] | None:
        if failure is None:
            return None
        return describe(failure) if isinstance(failure, LlmzError) else {"message": str(failure)}

    return {
        "status": status,
        "iterations": [
            {
                "index": it.index,
                "status": it.status,
                "exception": export(it.exception),
                "errors": [export(failure) for failure in it.errors],
            }
            for it in iterations
        ],
        "error": export(error),
    }


def result_summary(status: str, exit_name: str | None, error_code: str | None) -> dict[str, Any]:
    """``result.toJSON()``: the outcome in brief, the exit or the error code
    (llmz.persistence.result-tojson)."""
    outcome = {"exit": exit_name} if exit_name is not None else {"errorCode": error_code}
    return {"status": status, **outcome}
