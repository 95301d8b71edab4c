"""The ``probe`` event of the llmz record: the answers of one ``probe`` step
(conformance.scenario.llmz_probes).

Answers are what the host API returned, reported as they came: booleans from the guards, the strings and
codes an iteration exposes, the plain data of the result and session exports. The shape of exported data
(``diagnostics``, ``summary``, ``snapshot``) is the implementation's own; scenarios judge it only for what
the documents fix. Prose: ``spec/protocol/records/llmz.md``, section "probe".
"""

from __future__ import annotations

from typing import Any, Literal

from conformance.records.common import Open, optional


class FailureGuards(Open):
    """The guards' answers about one failure the run produced."""

    code: str
    is_llmz_error: bool
    other_code: bool
    class_guard: bool
    other_class_guard: bool
    renamed: bool
    json_is_llmz_error: bool
    json_class_guard: bool
    forged_is_llmz_error: bool
    forged_class_guard: bool


class ForeignFailure(Open):
    """A failure made by a second, independently loaded copy of the library, classified by this copy."""

    code: str
    is_instance: bool
    is_llmz_error: bool
    class_guard: bool
    other_class_guard: bool


class SignalGuards(Open):
    """``ThinkSignal.is`` on a signal of this copy, of the second copy, and on an ordinary error."""

    local: bool
    foreign: bool
    plain: bool


class ParsedDiagnostics(Open):
    """The objects with a string ``code`` in the parsed ``result.diagnostics()``; how many a guard took."""

    coded: int
    accepted: int


class IterationException(Open):
    code: str
    typed: bool
    stacktrace: str = optional()


class IterationFields(Open):
    """``iteration.error`` (a string or null) and ``iteration.exception`` of one iteration."""

    index: int
    error: Any
    exception: IterationException | None


class Legacy(Open):
    snapshot_signal: bool
    snapshot_class: bool
    result_snapshot: bool


class ProbeError(Open):
    """What the probed call threw (same fields as an ``error`` event's first four)."""

    code: str
    class_: str = optional(alias="class")
    recoverable: bool
    message: str


class Constructed(Open):
    """An exported error class the host constructed: whether the class exists, then its code, criticality,
    the documented fields as read back (a cause as its message) and its class guard's answer."""

    exported: bool
    code: str = optional()
    critical: bool = optional()
    fields: dict[str, Any] = optional()
    class_guard: bool = optional()


class Probe(Open):
    type: Literal["probe"]
    probe: Literal["guards", "iterations", "diagnostics", "snapshot", "render", "legacy", "error_class"]
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
