"""The ``probe`` event of the llmz record: the answers of one ``probe`` step
(conformance.scenario.llmz_probes).

Answers are what the host API returned, reported as they came: booleans from the guards, the strings and
codes an iteration exposes, the plain data of the result and session exports. The shape of exported data
(``diagnostics``, ``summary``, ``snapshot``) is the implementation's own; scenarios judge it only for what
the documents fix. Prose: ``spec/protocol/records/llmz.md``, section "probe".
"""

from __future__ import annotations

from typing import Any, Literal

from conformance.records.common import Open, open_set, optional


class FailureGuards(Open):
    """The guards' answers about one failure the run produced."""

    code: str = optional()
    is_llmz_error: bool = optional()
    other_code: bool = optional()
    class_guard: bool = optional()
    other_class_guard: bool = optional()
    renamed: bool = optional()
    json_is_llmz_error: bool = optional()
    json_class_guard: bool = optional()
    forged_is_llmz_error: bool = optional()
    forged_class_guard: bool = optional()


class ForeignFailure(Open):
    """A failure made by a second, independently loaded copy of the library, classified by this copy."""

    code: str = optional()
    is_instance: bool = optional()
    is_llmz_error: bool = optional()
    class_guard: bool = optional()
    other_class_guard: bool = optional()


class SignalGuards(Open):
    """``ThinkSignal.is`` on a signal of this copy, of the second copy, and on an ordinary error."""

    local: bool = optional()
    foreign: bool = optional()
    plain: bool = optional()


class ParsedDiagnostics(Open):
    """The objects with a string ``code`` in the parsed ``result.diagnostics()``; how many a guard took."""

    coded: int = optional()
    accepted: int = optional()


class IterationException(Open):
    code: str = optional()
    typed: bool = optional()
    stacktrace: str = optional()


class IterationFields(Open):
    """``iteration.error`` (a string or null) and ``iteration.exception`` of one iteration."""

    index: int = optional()
    error: Any = optional()
    exception: IterationException | None = None


class Legacy(Open):
    snapshot_signal: bool = optional()
    snapshot_class: bool = optional()
    result_snapshot: bool = optional()


class ProbeError(Open):
    """What the probed call threw (same fields as an ``error`` event's first four)."""

    code: str = optional()
    class_: str = optional(alias="class")
    recoverable: bool = optional()
    message: str = optional()


class Constructed(Open):
    """An exported error class the host constructed: whether the class exists, then its code, criticality,
    the documented fields as read back (a cause as its message) and its class guard's answer."""

    exported: bool = optional()
    code: str = optional()
    critical: bool = optional()
    fields: dict[str, Any] = optional()
    class_guard: bool = optional()


class Probe(Open):
    type: Literal["probe"]
    probe: str = open_set(
        "guards", "iterations", "diagnostics", "snapshot", "render", "legacy", "error_class"
    )
    failures: list[FailureGuards] = optional()
    foreign: ForeignFailure = optional()
    think_signal: SignalGuards = optional()
    parsed_diagnostics: ParsedDiagnostics = optional()
    iterations: list[IterationFields] = optional()
    diagnostics: Any = optional()
    summary: Any = optional()
    snapshot: Any = optional()
    version: Any = optional()
    rendered: Any = optional()
    error: ProbeError = optional()
    legacy: Legacy = optional()
    constructed: Constructed = optional()
