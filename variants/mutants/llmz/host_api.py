"""Mutants of what the host reads after a run: guards, iteration fields, diagnostics, snapshots, render.

Each breaks one documented fact of llmz's host API that the ``probe`` step observes
(conformance.scenario.llmz_probes), by replacing one decision of ``reference.llmz.policies``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from reference.llmz import diagnostics, errors
from reference.llmz.api import ThinkSignal
from reference.llmz.errors import CATALOGUE, LlmzError
from reference.llmz.feedback import stack_trace
from variants import Mutant


def _formatting_error_softened(
    class_name: str, message: str, fields: Mapping[str, object]
) -> LlmzError | None:
    """CODE_FORMATTING_FAILED made recoverable, without its ``source``."""
    if class_name != "CodeFormattingError":
        return errors.exported_error(class_name, message, fields)
    return LlmzError("CODE_FORMATTING_FAILED", message, critical=False)


def _internal_error_without_cause(
    class_name: str, message: str, fields: Mapping[str, object]
) -> LlmzError | None:
    """INTERNAL_ERROR made without the cause it was given."""
    kept = {key: value for key, value in fields.items() if class_name != "InternalError" or key != "cause"}
    return errors.exported_error(class_name, message, kept)


def _by_class(value: object, code: str | None) -> bool:
    """Recognise only instances of this copy's own class."""
    return isinstance(value, LlmzError) and (code is None or value.code == code)


def _by_look(value: object, code: str | None) -> bool:
    """Also take any object that carries a catalogue code and the matching class name."""
    found = getattr(value, "code", None)
    if found not in CATALOGUE or (code is not None and found != code):
        return diagnostics.recognises(value, code)
    return diagnostics.recognises(value, code) or getattr(value, "name", None) == CATALOGUE[found][0]


def _by_class_name(value: object, code: str | None) -> bool:
    """Brand and code, and the failure's class name must also be the catalogue's."""
    found = getattr(value, "code", None)
    named = found in CATALOGUE and getattr(value, "class_name", None) == CATALOGUE[found][0]
    return diagnostics.recognises(value, code) and named


def _json_too(value: object, code: str | None) -> bool:
    """Also take parsed JSON: a mapping with a catalogue code."""
    if isinstance(value, Mapping):
        return value.get("code") in CATALOGUE and (code is None or value.get("code") == code)
    return diagnostics.recognises(value, code)


def _swapped_fields(iteration: Mapping[str, Any], seen: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``iteration.exception`` gets the summary string and ``iteration.error`` nothing."""
    fields = diagnostics.iteration_fields(iteration, seen)
    return {**fields, "exception": fields["error"], "error": None}


def _excerpt_stacktrace(error: LlmzError) -> str | None:
    """The stacktrace is the bounded excerpt the model sees, not the whole program."""
    source, line = error.details.get("source"), error.details.get("line")
    if error.code != "EXECUTION_FAILED" or not isinstance(source, str):
        return None
    return stack_trace(source, line if isinstance(line, int) else 1)


def _flat_diagnostic(error: LlmzError) -> dict[str, Any]:
    """Only the name and message: no code, no criticality, no cause."""
    return {"name": error.class_name, "message": error.message}


def _empty_diagnostics(status: str, *_: Any, **__: Any) -> dict[str, Any]:
    return {"status": status}


def _bare_summary(status: str, _exit: str | None, _code: str | None) -> dict[str, Any]:
    return {"status": status}


MUTANTS: list[Mutant] = [
    Mutant(
        "llmz-guards-ignore-code",
        rules=("llmz.errors.is-llmz-error", "llmz.errors.class-guard"),
        description="isLLMzError and the class guards accept any library error, whatever code is asked for",
        policies=lambda p: replace(p, recognises=lambda value, code: diagnostics.recognises(value, None)),
    ),
    Mutant(
        "llmz-class-guards-accept-any-error",
        rules=("llmz.errors.class-guard",),
        description="each class's is() accepts every library error, not only its own class's",
        policies=lambda p: replace(p, class_guard=diagnostics.any_branded_guard),
    ),
    Mutant(
        "llmz-guards-use-instanceof",
        rules=("llmz.errors.guard-brand", "llmz.errors.guard-not-instanceof"),
        description="guards test instanceof this copy's class, so another loaded copy's errors are refused",
        policies=lambda p: replace(p, recognises=_by_class),
    ),
    Mutant(
        "llmz-guards-match-look-alikes",
        rules=("llmz.errors.guard-not-instanceof",),
        description="guards also accept an ordinary error carrying a catalogue code and the class name",
        policies=lambda p: replace(p, recognises=_by_look),
    ),
    Mutant(
        "llmz-guards-check-class-name",
        rules=("llmz.errors.guard-not-instanceof",),
        description="guards also require the failure's class name, so a renamed genuine failure is refused",
        policies=lambda p: replace(p, recognises=_by_class_name),
    ),
    Mutant(
        "llmz-guards-accept-json",
        rules=("llmz.errors.guards-reject-json",),
        description="guards accept parsed JSON diagnostics that carry a catalogue code",
        policies=lambda p: replace(p, recognises=_json_too),
    ),
    Mutant(
        "llmz-think-signal-guard-instanceof",
        rules=("llmz.errors.think-signal-guard",),
        description="ThinkSignal.is tests instanceof, so a signal from another loaded copy is not recognised",
        policies=lambda p: replace(p, is_think_signal=lambda value: isinstance(value, ThinkSignal)),
    ),
    Mutant(
        "llmz-iteration-error-fields-swapped",
        rules=("llmz.errors.iteration-error-fields",),
        description="iteration.exception holds the summary string and iteration.error is empty",
        policies=lambda p: replace(p, iteration_fields=_swapped_fields),
    ),
    Mutant(
        "llmz-stacktrace-is-excerpt",
        rules=("llmz.error-recovery.full-stacktrace",),
        description="CodeExecutionError.stacktrace is the bounded excerpt, not the complete annotated source",
        policies=lambda p: replace(p, stacktrace=_excerpt_stacktrace),
    ),
    Mutant(
        "llmz-diagnostics-drop-code-and-cause",
        rules=("llmz.errors.diagnostics-content",),
        description="diagnostics keep each failure's name and message but not its code, criticality or cause",
        policies=lambda p: replace(p, error_diagnostic=_flat_diagnostic),
    ),
    Mutant(
        "llmz-diagnostics-empty",
        rules=("llmz.persistence.result-diagnostics", "llmz.errors.diagnostics-content"),
        description="result.diagnostics() exports only the status, none of the run's failures",
        policies=lambda p: replace(p, result_diagnostics=_empty_diagnostics),
    ),
    Mutant(
        "llmz-result-summary-without-outcome",
        rules=("llmz.persistence.result-tojson",),
        description="result.toJSON() names neither the exit nor the error code",
        policies=lambda p: replace(p, result_summary=_bare_summary),
    ),
    Mutant(
        "llmz-snapshot-unversioned",
        rules=("llmz.migration.format-versions",),
        description="session.toJSON() states no format version",
        policies=lambda p: replace(p, writes_format_version=False),
    ),
    Mutant(
        "llmz-snapshot-keeps-definitions",
        rules=("llmz.tools.definitions-reattached",),
        description="session.toJSON() carries the last run's tool, exit, component and object descriptions",
        policies=lambda p: replace(p, persists_definitions=True),
    ),
    Mutant(
        "llmz-standalone-failure-swallowed",
        rules=("llmz.errors.recoverable-scope",),
        description="component.render() with invalid props returns nothing instead of throwing to the caller",
        policies=lambda p: replace(p, standalone_raises=False),
    ),
    Mutant(
        "llmz-result-offers-snapshot",
        rules=("llmz.migration.no-snapshots",),
        description="an ExecutionResult still offers a snapshot of the run, as the previous API did",
        policies=lambda p: replace(p, legacy_result_snapshot=True),
    ),
    Mutant(
        "llmz-tool-without-handler-accepted",
        rules=("llmz.errors.invalid-tool",),
        description="a tool defined without a handler is accepted and the run goes on",
        policies=lambda p: replace(p, tool_handler_problem=lambda config: None),
    ),
    Mutant(
        "llmz-formatting-error-recoverable",
        rules=("llmz.errors.code-formatting-failed",),
        description="CodeFormattingError is made recoverable and drops the source it was given",
        policies=lambda p: replace(p, exported_error=_formatting_error_softened),
    ),
    Mutant(
        "llmz-internal-error-drops-cause",
        rules=("llmz.errors.internal-error",),
        description="InternalError forgets the cause it was given",
        policies=lambda p: replace(p, exported_error=_internal_error_without_cause),
    ),
]
