"""Mutants for the error catalogue, memory, sessions, inspection and hooks (see ``reference.mutants``).

Each one breaks a single policy function named in its patch, so ``tests/test_llmz_mutants.py`` can show
that the scenarios pinning the listed rules fail, naming those rules, when that policy is wrong.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any
from unittest import mock

from reference.llmz import memory
from reference.mutants import Mutant


def _patch(target: str, replacement: Any) -> Callable[[], AbstractContextManager[object]]:
    return lambda: mock.patch(target, replacement)


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


def _lossy_to_json(self: memory.Memory) -> dict[str, Any]:
    """Persist memory as plain JSON: undefined becomes null and negative zero becomes 0."""
    plain = {name: memory.encode_plain(memory.to_plain(value)) for name, value in self.variables.items()}
    return {"variables": plain, "iterations": [], "maxBytes": self.max_bytes}


def _append_into_running_turn(self: Any, items: list[dict[str, Any]]) -> None:
    """Input appended during a run joins that run's turn instead of waiting."""
    from reference.llmz.session import to_native

    converted = [to_native(item) for item in items]
    (self.history if self.active else self.pending).extend(converted)


def _previews_without_accumulation(entry: Any, host: Any) -> None:
    """Each preview carries only its own chunk as content."""
    if not host.config.chat or host.config.on_delta == "none" or not entry.chunks:
        return
    for chunk in entry.chunks:
        host.recorder.emit("delta", iteration=host.iteration, delta=chunk, content=chunk)


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
        patch=_patch("reference.llmz.host.schema_issues", lambda schema, value: []),
        description="tool inputs, exit payloads, component props and object properties are never validated",
    ),
    Mutant(
        "llmz-critical-error-continues",
        rules=("llmz.errors.critical-stops",),
        patch=_patch("reference.llmz.execute.stops_run", lambda status: status == "exit_success"),
        description="a critical failure is followed by another model call",
    ),
    Mutant(
        "llmz-failed-iteration-clears-return",
        rules=("llmz.memory.failed-iteration-keeps-return",),
        patch=_patch("reference.llmz.memory.current_return", _newest_record_only),
        description="$return is emptied by an iteration that failed without a result",
    ),
    Mutant(
        "llmz-stale-return-after-unkept-result",
        rules=("llmz.memory.unretainable-result-clears-return",),
        patch=_patch("reference.llmz.memory.current_return", _older_result_when_unkept),
        description="$return keeps showing the older result when the new one cannot be kept",
    ),
    Mutant(
        "llmz-unsupported-memory-accepted",
        rules=(
            "llmz.memory.unsupported-values",
            "llmz.errors.invalid-memory-value",
            "llmz.tools.results-follow-memory-rules",
        ),
        patch=_patch("reference.llmz.program.memory_value_problem", lambda problems: None),
        description="values memory cannot keep are dropped silently",
    ),
    Mutant(
        "llmz-memory-codec-lossy",
        rules=("llmz.memory.codec-round-trip",),
        patch=_patch("reference.llmz.memory.Memory.to_json", _lossy_to_json),
        description="undefined and negative zero do not survive toJSON/fromJSON",
    ),
    Mutant(
        "llmz-memory-unbounded",
        rules=(
            "llmz.errors.memory-capacity",
            "llmz.memory.default-limit",
            "llmz.memory.partial-retention-reported",
        ),
        patch=_patch("reference.llmz.memory.fits", lambda size, limit: True),
        description="memory grows past maxBytes (and past the 16 MiB default)",
    ),
    Mutant(
        "llmz-event-preview-unbounded",
        rules=("llmz.sessions.event-preview-budget",),
        patch=_patch("reference.llmz.session.EVENT_PREVIEW_TOKENS", 10**9),
        description="an event payload reaches the model in full, however large",
    ),
    Mutant(
        "llmz-input-joins-running-turn",
        rules=("llmz.sessions.input-during-turn-queued", "llmz.sessions.events-during-run-wait"),
        patch=_patch("reference.llmz.session.Session.append", _append_into_running_turn),
        description="input appended during a run is added to the running turn",
    ),
    Mutant(
        "llmz-session-never-busy",
        rules=(
            "llmz.errors.session-state",
            "llmz.sessions.concurrent-execute-rejected",
            "llmz.persistence.serialize-only-settled",
        ),
        patch=_patch("reference.llmz.session.Session.require_idle", lambda self, operation: None),
        description="a second execute and toJSON are allowed while a run holds the session",
    ),
    Mutant(
        "llmz-any-format-version",
        rules=("llmz.persistence.restore-checks-version", "llmz.errors.invalid-session"),
        patch=_patch("reference.llmz.session.known_format_version", lambda version: True),
        description="snapshots of unknown format versions are restored",
    ),
    Mutant(
        "llmz-result-budget-unchecked",
        rules=(
            "llmz.inspection.tool-result-range",
            "llmz.inspection.budget-integers",
            "llmz.errors.invalid-config",
        ),
        patch=_patch("reference.llmz.definitions.result_budget_problem", lambda budget: None),
        description="toolResultMaxTokens outside 0-2,000 is accepted",
    ),
    Mutant(
        "llmz-reserved-declarations-allowed",
        rules=("llmz.errors.reserved-identifier",),
        patch=_patch("reference.llmz.program.reserved_declaration", lambda code: None),
        description="generated code may declare the runtime's own names",
    ),
    Mutant(
        "llmz-unawaited-calls-ignored",
        rules=("llmz.errors.host-operation-failed",),
        patch=_patch("reference.llmz.program.unawaited_problem", lambda unawaited: None),
        description="a program may finish with tool calls it never awaited",
    ),
    Mutant(
        "llmz-sends-after-failed-delivery",
        rules=("llmz.errors.delivery-failed",),
        patch=_patch(
            "reference.llmz.host.send_status",
            lambda handler, earlier_failure: {"ok": "delivered", "fail": "failed"}.get(handler, "unhandled"),
        ),
        description="sends after a failed delivery in the same iteration still go out",
    ),
    Mutant(
        "llmz-unknown-callable-is-generic",
        rules=("llmz.errors.unknown-tool",),
        patch=_patch("reference.llmz.program.missing_callable", lambda error, code: None),
        description="calling a missing tool is reported as a generic execution failure",
    ),
    Mutant(
        "llmz-compaction-keeps-old-results",
        rules=("llmz.memory.compaction-no-stale-return", "llmz.compaction.discarded-results-removed"),
        patch=_patch("reference.llmz.memory.Memory.drop_iterations", lambda self, ids: None),
        description="results of compacted iterations stay in $iterations and $return",
    ),
    Mutant(
        "llmz-validation-without-shape",
        rules=("llmz.errors.validation-details",),
        patch=_patch("reference.llmz.typescript.ts_type", lambda schema: "unknown"),
        description="validation errors do not say which input shape was expected",
    ),
    Mutant(
        "llmz-before-request-unmeasured",
        rules=("llmz.hooks.before-request-must-fit",),
        patch=_patch("reference.llmz.request_hook.check_fits", lambda *args: None),
        description="a request replaced by onBeforeRequest is sent without being measured",
    ),
    Mutant(
        "llmz-on-inspect-sees-original",
        rules=("llmz.inspection.on-inspect-snapshot",),
        patch=_patch("reference.llmz.inspector.snapshot", lambda value: value),
        description="onInspect receives the value itself, so its changes leak into the preview",
    ),
    Mutant(
        "llmz-trace-shows-whole-program",
        rules=("llmz.error-recovery.bounded-trace",),
        patch=_patch("reference.llmz.feedback.TRACE_CONTEXT_LINES", 10_000),
        description="the stack trace in feedback reproduces the whole program",
    ),
    Mutant(
        "llmz-fallback-last-first",
        rules=("llmz.configuration.fallback-order",),
        patch=_patch(
            "reference.llmz.execute.fallback_sequence",
            lambda models: [list(reversed(models))[i:] for i in range(len(models))],
        ),
        description="a fallback list is tried from its last model",
    ),
    Mutant(
        "llmz-caught-errors-forgotten",
        rules=("llmz.errors.iteration-errors-list", "llmz.errors.success-with-errors"),
        patch=_patch(
            "reference.llmz.iteration.iteration_errors",
            lambda seen, ending: [] if ending is None else [ending.code],
        ),
        description="failures the program caught are not listed on the iteration",
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
        patch=_patch("reference.llmz.definitions.configuration_problem", lambda config: None),
        description="bad definitions and settings are accepted and the run starts",
    ),
    Mutant(
        "llmz-variables-forgotten",
        rules=("llmz.memory.variables-persist", "llmz.configuration.cancellation-keeps-effects"),
        patch=_patch("reference.llmz.memory.Memory.store", lambda self, captured: memory.Capture()),
        description="named variables are not kept after the program ends",
    ),
    Mutant(
        "llmz-previews-not-accumulated",
        rules=("llmz.streaming.content-accumulates",),
        patch=_patch("reference.llmz.iteration.stream_previews", _previews_without_accumulation),
        description="a streaming preview's content is only its own chunk",
    ),
    Mutant(
        "llmz-summary-committed-before-hooks",
        rules=("llmz.compaction.commit-after-fit",),
        patch=_patch("reference.llmz.execute.commit_before_hooks", lambda: True),
        description="a prepared summary replaces history before the final request is known to fit",
    ),
    Mutant(
        "llmz-before-tool-ignored",
        rules=("llmz.hooks.before-tool-replaces-input",),
        patch=_patch("reference.llmz.host.IterationHost._before_tool", lambda self, name, value: value),
        description="onBeforeTool's replacement input never reaches the handler",
    ),
]
