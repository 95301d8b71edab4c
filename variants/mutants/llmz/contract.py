"""Mutants of the error catalogue, memory, sessions, inspection and hooks: one decision each."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from reference.llmz import InspectEvent, memory
from reference.llmz.api import Tool
from variants import Mutant


def _cancel_retried(call: Callable[[], Any], tool: Tool) -> Any:
    """The tool's retries cover a cancellation as well as a failure: a handler that cancelled the run is
    called again, and its next answer replaces the cancellation."""
    for attempt in range(tool.retries + 1):
        outcome = call()
        if outcome.kind not in ("error", "cancel") or attempt == tool.retries:
            return outcome
    raise AssertionError("unreachable")


def _no_purpose(copy: Any, purpose: str, identity: Mapping[str, Any] | None) -> InspectEvent:
    """onInspect's event with an empty purpose."""
    return InspectEvent(copy, "", identity)


def _no_identity(copy: Any, purpose: str, identity: Mapping[str, Any] | None) -> InspectEvent:
    """onInspect's event without the value's identity."""
    return InspectEvent(copy, purpose)


def _newest_record_only(records: list[dict[str, Any]]) -> tuple[bool, Any]:
    """$return follows the newest iteration, even one that failed without a result."""
    if not records or not records[-1]["hasResult"]:
        return False, None
    return True, records[-1]["result"]


def _older_result_when_unkept(records: list[dict[str, Any]]) -> tuple[bool, Any]:
    """An unretainable new result falls back to the older one."""
    for record in reversed(records):
        if record["hasResult"] and record.get("retained", True):
            return True, record["result"]
    return False, None


def _lossy_to_json(state: memory.Memory) -> dict[str, Any]:
    """Persist memory as plain JSON: undefined becomes null and negative zero becomes 0."""
    plain = {name: memory.encode_plain(memory.to_plain(value)) for name, value in state.variables.items()}
    return {"variables": plain, "iterations": [], "maxBytes": state.max_bytes}


def _store_stopping_at_oversized(
    state: memory.Memory, captured: dict[str, dict[str, Any]], fits: memory.Limit
) -> memory.Capture:
    """Stops at the first value too large to measure: the values declared after it are never looked at."""
    kept: dict[str, dict[str, Any]] = {}
    for name, answer in captured.items():
        kept[name] = answer
        if answer.get("tooLarge"):
            break
    return memory.Memory.store(state, kept, fits)


def _result_over_capacity_ignored(
    state: memory.Memory, iteration_id: str, has_result: bool, result: Any, retained: bool, fits: memory.Limit
) -> bool:
    """A result too large for memory is dropped from its record without a capacity error."""
    memory.Memory.add_record(state, iteration_id, has_result, result, retained, fits)
    return True


def _unkept_result_marked_kept(
    state: memory.Memory, iteration_id: str, has_result: bool, result: Any, retained: bool, fits: memory.Limit
) -> bool:
    """A result that did not fit loses its value but its record still says it was kept: $return reads null."""
    kept = memory.Memory.add_record(state, iteration_id, has_result, result, retained, fits)
    if not kept:
        state.records[-1]["retained"] = True
    return kept


MUTANTS: list[Mutant] = [
    Mutant(
        "llmz-schemas-not-enforced",
        rules=(
            "llmz.errors.invalid-tool-input",
            "llmz.tools.input-validated-first",
            "llmz.errors.invalid-exit-input",
            "llmz.memory.exit-validates-payload",
            "llmz.errors.invalid-component-input",
            "llmz.errors.invalid-object-property",
        ),
        description="tool inputs, exit payloads, component props and object properties are never validated",
        policies=lambda p: replace(p, schema_issues=lambda schema, value: []),
    ),
    Mutant(
        "llmz-critical-error-continues",
        rules=("llmz.errors.critical-stops",),
        description="a critical failure is followed by another model call",
        policies=lambda p: replace(p, stops_run=lambda status: status == "exit_success"),
    ),
    Mutant(
        "llmz-failed-iteration-clears-return",
        rules=("llmz.memory.failed-iteration-keeps-return",),
        description="$return is emptied by an iteration that failed without a result",
        policies=lambda p: replace(p, current_return=_newest_record_only),
    ),
    Mutant(
        "llmz-stale-return-after-unkept-result",
        rules=("llmz.memory.unretainable-result-clears-return",),
        description="$return keeps showing the older result when the new one cannot be kept",
        policies=lambda p: replace(p, current_return=_older_result_when_unkept),
    ),
    Mutant(
        "llmz-unsupported-memory-accepted",
        rules=(
            "llmz.memory.unsupported-values",
            "llmz.errors.invalid-memory-value",
            "llmz.tools.results-follow-memory-rules",
        ),
        description="values memory cannot keep are dropped silently",
        policies=lambda p: replace(p, memory_value_problem=lambda problems: None),
    ),
    Mutant(
        "llmz-memory-codec-lossy",
        rules=("llmz.memory.codec-round-trip",),
        description="undefined and negative zero do not survive toJSON/fromJSON",
        policies=lambda p: replace(p, memory_snapshot=_lossy_to_json),
    ),
    Mutant(
        "llmz-memory-unbounded",
        rules=(
            "llmz.errors.memory-capacity",
            "llmz.memory.default-limit",
            "llmz.memory.partial-retention-reported",
        ),
        description="memory grows past maxBytes (and past the 16 MiB default)",
        policies=lambda p: replace(p, memory_fits=lambda size, limit: True),
    ),
    Mutant(
        "llmz-memory-default-limit-off-by-one",
        rules=("llmz.memory.default-limit",),
        description="a session without maxBytes keeps one byte less than one given maxBytes 16 MiB",
        policies=lambda p: replace(p, default_memory_limit=memory.DEFAULT_MAX_BYTES - 1),
    ),
    Mutant(
        "llmz-event-preview-unbounded",
        rules=("llmz.sessions.event-preview-budget",),
        description="an event payload reaches the model in full, however large",
        policies=lambda p: replace(p, event_preview_tokens=10**9),
    ),
    Mutant(
        "llmz-input-joins-running-turn",
        rules=("llmz.sessions.input-during-turn-queued", "llmz.sessions.events-during-run-wait"),
        description="input appended during a run is added to the running turn",
        policies=lambda p: replace(p, running_turn_takes_input=True),
    ),
    Mutant(
        "llmz-session-never-busy",
        rules=(
            "llmz.errors.session-state",
            "llmz.sessions.concurrent-execute-rejected",
            "llmz.persistence.serialize-only-settled",
        ),
        description="a second execute and toJSON are allowed while a run holds the session",
        policies=lambda p: replace(p, busy_problem=lambda active, operation: None),
    ),
    Mutant(
        "llmz-any-format-version",
        rules=("llmz.persistence.restore-checks-version", "llmz.errors.invalid-session"),
        description="snapshots of unknown format versions are restored",
        policies=lambda p: replace(p, known_format_version=lambda version: True),
    ),
    Mutant(
        "llmz-result-budget-unchecked",
        rules=(
            "llmz.inspection.tool-result-range",
            "llmz.inspection.budget-integers",
            "llmz.errors.invalid-config",
        ),
        description="toolResultMaxTokens outside 0-2,000 is accepted",
        policies=lambda p: replace(p, result_budget_problem=lambda budget: None),
    ),
    Mutant(
        "llmz-reserved-declarations-allowed",
        rules=("llmz.errors.reserved-identifier",),
        description="generated code may declare the runtime's own names",
        policies=lambda p: replace(p, reserved_declaration=lambda code: None),
    ),
    Mutant(
        "llmz-unawaited-calls-ignored",
        rules=("llmz.errors.host-operation-failed",),
        description="a program may finish with tool calls it never awaited",
        policies=lambda p: replace(p, unawaited_problem=lambda unawaited: None),
    ),
    Mutant(
        "llmz-sends-after-failed-delivery",
        rules=("llmz.errors.delivery-failed",),
        description="sends after a failed delivery in the same iteration still go out",
        policies=lambda p: replace(p, skip_sends_after_failed_delivery=False),
    ),
    Mutant(
        "llmz-unknown-callable-is-generic",
        rules=("llmz.errors.unknown-tool",),
        description="calling a missing tool is reported as a generic execution failure",
        policies=lambda p: replace(p, missing_callable=lambda error, code: None),
    ),
    Mutant(
        "llmz-compaction-keeps-old-results",
        rules=("llmz.memory.compaction-no-stale-return", "llmz.compaction.discarded-results-removed"),
        description="results of compacted iterations stay in $iterations and $return",
        policies=lambda p: replace(p, drop_iterations=lambda state, ids: None),
    ),
    Mutant(
        "llmz-validation-without-shape",
        rules=("llmz.errors.validation-details",),
        description="validation errors do not say which input shape was expected",
        policies=lambda p: replace(p, schema_shape=lambda schema: "unknown"),
    ),
    Mutant(
        "llmz-before-request-unmeasured",
        rules=("llmz.hooks.before-request-must-fit",),
        description="a request replaced by onBeforeRequest is sent without being measured",
        policies=lambda p: replace(p, measure_hook_replacements=False),
    ),
    Mutant(
        "llmz-on-inspect-sees-original",
        rules=("llmz.inspection.on-inspect-snapshot",),
        description="onInspect receives the value itself, so its changes leak into the preview",
        policies=lambda p: replace(p, snapshot=lambda value: value),
    ),
    Mutant(
        "llmz-on-inspect-no-purpose",
        rules=("llmz.inspection.on-inspect-context",),
        description="onInspect is told no purpose for the preview (an empty name)",
        policies=lambda p: replace(p, inspect_event=_no_purpose),
    ),
    Mutant(
        "llmz-on-inspect-no-identity",
        rules=("llmz.inspection.on-inspect-context",),
        description="onInspect is told whose value it previews nowhere: the event carries no identity",
        policies=lambda p: replace(p, inspect_event=_no_identity),
    ),
    Mutant(
        "llmz-trace-shows-whole-program",
        rules=("llmz.error-recovery.bounded-trace",),
        description="the stack trace in feedback reproduces the whole program",
        policies=lambda p: replace(p, trace_context_lines=10_000),
    ),
    Mutant(
        "llmz-fallback-last-first",
        rules=("llmz.configuration.fallback-order",),
        description="a fallback list is tried from its last model",
        policies=lambda p: replace(
            p, fallback_sequence=lambda models: [list(reversed(models))[i:] for i in range(len(models))]
        ),
    ),
    Mutant(
        "llmz-caught-errors-forgotten",
        rules=("llmz.errors.iteration-errors-list", "llmz.errors.success-with-errors"),
        description="failures the program caught are not listed on the iteration",
        policies=lambda p: replace(
            p, iteration_errors=lambda seen, ending: [] if ending is None else [ending.code]
        ),
    ),
    Mutant(
        "llmz-definitions-unchecked",
        rules=(
            "llmz.errors.config-before-iteration",
            "llmz.errors.invalid-exit",
            "llmz.errors.invalid-object",
            "llmz.errors.invalid-component",
            "llmz.components.reserved-text-names",
        ),
        description="bad definitions and settings are accepted and the run starts",
        policies=lambda p: replace(p, configuration_problem=lambda *checks: None),
    ),
    Mutant(
        "llmz-unkept-result-reads-null",
        rules=("llmz.memory.unretainable-result-clears-return",),
        description="a result memory could not keep leaves $return null instead of empty",
        policies=lambda p: replace(p, record_result=_unkept_result_marked_kept),
    ),
    Mutant(
        "llmz-result-over-capacity-ignored",
        rules=("llmz.errors.memory-capacity",),
        description="a result memory cannot hold is dropped quietly: no MEMORY_CAPACITY, the run goes on",
        policies=lambda p: replace(p, record_result=_result_over_capacity_ignored),
    ),
    Mutant(
        "llmz-oversized-value-stops-capture",
        rules=("llmz.memory.partial-retention-reported",),
        description="after the first value too large for memory, later values are neither kept nor reported",
        policies=lambda p: replace(p, store_variables=_store_stopping_at_oversized),
    ),
    Mutant(
        "llmz-variables-forgotten",
        rules=("llmz.memory.variables-persist", "llmz.configuration.cancellation-keeps-effects"),
        description="named variables are not kept after the program ends",
        policies=lambda p: replace(p, store_variables=lambda state, captured, fits: memory.Capture()),
    ),
    Mutant(
        "llmz-previews-not-accumulated",
        rules=("llmz.streaming.content-accumulates",),
        description="a streaming preview's content is only its own chunk",
        policies=lambda p: replace(p, stream_contents=lambda chunks: list(chunks)),
    ),
    Mutant(
        "llmz-summary-committed-before-hooks",
        rules=("llmz.compaction.commit-after-fit",),
        description="a prepared summary replaces history before the final request is known to fit",
        policies=lambda p: replace(p, commit_compaction_before_hooks=True),
    ),
    Mutant(
        "llmz-cancelled-handler-retried",
        rules=("llmz.errors.critical-stops",),
        description="a handler that cancelled the run is called again while its tool has retries left",
        policies=lambda p: replace(p, handler_attempts=_cancel_retried),
    ),
    Mutant(
        "llmz-before-tool-ignored",
        rules=("llmz.hooks.before-tool-replaces-input",),
        description="onBeforeTool's replacement input never reaches the handler",
        policies=lambda p: replace(p, before_tool_replaces_input=False),
    ),
]
