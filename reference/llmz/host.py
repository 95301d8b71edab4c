"""The host side of one iteration: tools, exits, chat components and inspect, as the program sees them.

``IterationHost`` implements the sandbox's ``Bridge``. It validates inputs against their JSON Schemas
before anything runs (a rejected tool input never reaches the handler), runs the declarative handlers,
records every observable action (``tool_call``, ``delivery``) as it happens, and gathers what the
iteration's settlement needs: signals, the attempted exit, inspections and any critical failure. After a
critical failure every further host operation is refused, even if generated code caught the error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import jsonschema

from conformance.scenario.invalid import raw
from conformance.scenario.llmz import SessionProbe
from reference.llmz import behaviours, memory, signals
from reference.llmz.config import RunConfig
from reference.llmz.errors import LlmzError
from reference.llmz.kernel import MAX_DEPTH
from reference.llmz.preview import UNDEFINED, Preserve
from reference.llmz.sandbox import PayloadError, decode, encode_error, encode_value, load_bounded
from reference.llmz.session import Session
from reference.llmz.typescript import validation_error
from reference.record import Recorder


def schema_issues(schema: dict[str, Any] | None, value: Any) -> list[tuple[str, str]]:
    """Validation issues as (path, message); ``undefined`` validates as null."""
    if schema is None:
        return []
    data = None if value is UNDEFINED else value
    validator = jsonschema.Draft202012Validator(schema)
    return [
        ("/".join(str(p) for p in error.absolute_path) or "(root)", error.message)
        for error in sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
    ]


def _plain(value: Any) -> Any:
    return None if value is UNDEFINED else value


def send_status(handler: str, earlier_failure: bool) -> str:
    """What happens to a send: once a delivery of the iteration failed, later sends are skipped while
    earlier ones stay delivered (llmz.errors.delivery-failed)."""
    if earlier_failure:
        return "skipped"
    return {"ok": "delivered", "fail": "failed", "none": "unhandled"}[handler]


Display = tuple[int, Preserve] | None
"""A ``truncate()`` policy on a result: (maxTokens, preserve), or None for the run's result budget."""


@dataclass
class SignalReport:
    tool: str
    line: int | None
    reason: str
    result: Any
    display: Display = None


@dataclass
class ToolCallReport:
    name: str
    input: Any
    output: Any = UNDEFINED
    error: LlmzError | None = None
    pending: bool = False
    display: Display = None


@dataclass
class IterationHost:
    config: RunConfig
    session: Session
    recorder: Recorder
    call_counts: dict[str, int]
    iteration: int
    signals: list[SignalReport] = field(default_factory=list)
    tool_calls: list[ToolCallReport] = field(default_factory=list)
    deliveries: list[dict[str, Any]] = field(default_factory=list)
    inspections: list[Any] = field(default_factory=list)
    exit_attempt: tuple[str, Any] | None = None
    critical: LlmzError | None = None
    hanging: bool = False
    memory_changes: list[str] = field(default_factory=list)
    seen_errors: list[LlmzError] = field(default_factory=list)
    """Every failure handed to the program, caught or not (llmz.errors.iteration-errors-list)."""
    """Named variables whose value the program set or changed."""
    delivery_error: LlmzError | None = None
    """The first failed delivery of the iteration. It is thrown to the program (uncaught, it fails the
    iteration recoverably); every later send of the iteration is skipped, while earlier acknowledged sends
    stay delivered (llmz.errors.delivery-failed)."""

    def _refuse(self, error: LlmzError) -> str:
        self.seen_errors.append(error)
        return encode_error(error.code, error.class_name, error.message)

    def _refuse_payload(self, code: str, subject: str, schema: Any, problem: Exception) -> str:
        """A value the host cannot take at all (too large, nested too deeply) fails like invalid input."""
        return self._refuse(validation_error(code, subject, schema, [("(root)", str(problem))]))

    def _closed(self) -> str | None:
        if self.critical is None:
            return None
        return encode_error("EXECUTION_ABORTED", "ExecutionAbortedError", "host operations are closed")

    # -- tools -------------------------------------------------------------------------------------
    def tool(self, name: str, input_json: str | None, line: int | None) -> str:
        closed = self._closed()
        if closed:
            return closed
        spec = self.config.tools[name]
        try:
            value = decode(input_json)
        except PayloadError as exc:
            error = validation_error("INVALID_TOOL_INPUT", name, spec.input, [("(root)", str(exc))])
            error.details["tool"] = name
            return self._finish_call(ToolCallReport(name, None, error=error))
        issues = schema_issues(spec.input, value)
        if issues:
            error = validation_error("INVALID_TOOL_INPUT", name, spec.input, issues)
            error.details["tool"] = name
            return self._finish_call(ToolCallReport(name, _plain(value), error=error))
        outcome = self._after_tool(name, self._run_handler(spec.name, self._before_tool(name, value)))
        truncate = spec.behaviour.truncate
        display: Display = None if truncate is None else (raw(truncate.max_tokens), truncate.preserve)
        report = ToolCallReport(name, _plain(value), display=display)
        if outcome.kind == "value":
            report.output = outcome.value
        elif outcome.kind == "error":
            report.error = LlmzError("TOOL_EXECUTION_FAILED", f"{name} failed: {outcome.message}", tool=name)
        elif outcome.kind == "rejected":
            report.error = LlmzError(
                "HOOK_FAILED", f"onAfterTool rejected the {name} result: {outcome.message}"
            )
        elif outcome.kind == "cancel":
            report.error = self.critical = LlmzError(
                "EXECUTION_ABORTED",
                f"the run was cancelled during {name}: {outcome.message}",
                cause=outcome.message,
            )
        elif outcome.kind == "hang":
            report.pending = self.hanging = True
        else:
            return self._signal(report, outcome, line)
        return self._finish_call(report)

    def _after_tool(self, name: str, outcome: behaviours.HandlerOutcome) -> behaviours.HandlerOutcome:
        """onAfterTool sees successful results, signals included. Its replacement is what the program and a
        forced inspection get; a rejection withholds the result from both
        (llmz.think-signal.after-tool-output)."""
        hook = self.config.after_tool.get(name)
        if hook is None or outcome.kind not in ("value", "signal"):
            return outcome
        self.recorder.emit("hook", name="onAfterTool", tool=name, iteration=self.iteration)
        if hook.reject is not None:
            return behaviours.HandlerOutcome("rejected", message=hook.reject)
        if hook.abort is not None:  # a hook that aborts stops the run (llmz.errors.hook-stop-critical)
            return behaviours.HandlerOutcome("cancel", message=hook.abort)
        if outcome.signal is not None:
            replaced = outcome.signal.model_copy(update={"context": hook.replace_output})
            return behaviours.HandlerOutcome("signal", value=hook.replace_output, signal=replaced)
        return behaviours.HandlerOutcome("value", value=hook.replace_output)

    def _before_tool(self, name: str, value: Any) -> Any:
        """onBeforeTool may substitute the input the handler receives (llmz.hooks.before-tool-replaces-input);
        it runs after the model's input passed validation."""
        hook = self.config.before_tool.get(name)
        if hook is None:
            return value
        self.recorder.emit("hook", name="onBeforeTool", tool=name, iteration=self.iteration)
        return hook.replace_input

    def _probe(self, probe: SessionProbe) -> Any:
        """A handler using the session while this run holds it (llmz.errors.session-state)."""
        try:
            if probe.op == "status":
                return self.session.status
            if probe.op == "to_json":
                self.session.to_json()
            elif probe.op in ("execute", "compact", "summarize"):
                self.session.require_idle(probe.op)  # what execute/compact/summarize check first
            else:
                self.session.append([m.model_dump(exclude_none=True) for m in probe.messages])
        except LlmzError as error:
            return {"error": error.code}
        return {"ok": True}

    def _run_handler(self, name: str, value: Any) -> behaviours.HandlerOutcome:
        spec = self.config.tools[name]
        if spec.behaviour.session_probe is not None:
            self.call_counts[name] = self.call_counts.get(name, 0) + 1
            return behaviours.HandlerOutcome("value", value=self._probe(spec.behaviour.session_probe))
        for attempt in range(spec.retries + 1):
            self.call_counts[name] = self.call_counts.get(name, 0) + 1
            outcome = behaviours.handle(spec, self.call_counts[name], _plain(value))
            if outcome.kind != "error" or attempt == spec.retries:
                return outcome
        raise AssertionError("unreachable")

    def _signal(self, report: ToolCallReport, outcome: behaviours.HandlerOutcome, line: int | None) -> str:
        """A ThinkSignal: JavaScript gets the context; the signal is remembered for the settlement."""
        spec = outcome.signal
        assert spec is not None
        if not signals.honoured(spec.via):
            if spec.via == "throw":  # an unrecognised thrown signal is just a failure
                report.error = LlmzError("TOOL_EXECUTION_FAILED", f"{report.name} threw: {spec.reason}")
            else:  # an unrecognised returned signal is just data
                report.output = {"reason": spec.reason, "context": spec.context}
            return self._finish_call(report)
        report.output = spec.context
        self.signals.append(SignalReport(report.name, line, spec.reason, spec.context, report.display))
        answer = self._finish_call(report, signal=spec.reason)
        if signals.interrupts_program():
            return encode_error(None, "ThinkSignal", spec.reason)
        return answer

    def _finish_call(self, report: ToolCallReport, signal: str | None = None) -> str:
        self.tool_calls.append(report)
        event: dict[str, Any] = {"iteration": self.iteration, "name": report.name, "input": report.input}
        if report.pending:
            event["pending"] = True
        elif report.error is not None:
            event["error"] = {"code": report.error.code, "message": report.error.message}
        else:
            event["output"] = _plain(report.output)
        if signal is not None:
            event["signal"] = {"reason": signal}
        self.recorder.emit("tool_call", **event)
        self._trace()
        if report.pending:
            return '{"hang": true}'
        if report.error is not None:
            return self._refuse(report.error)
        return encode_value(report.output)

    # -- registered objects ---------------------------------------------------------------------------
    def object_set(self, obj: str, prop: str, tagged_json: str | None) -> str:
        """An assignment to a registered object's property (llmz.memory.object-property-access)."""
        closed = self._closed()
        if closed:
            return closed
        spec = next(o for o in self.config.objects if o.name == obj)
        definition = next(p for p in spec.properties if p.name == prop)
        if not definition.writable:
            return self._refuse(LlmzError("INVALID_ASSIGNMENT", f"{obj}.{prop} is read-only"))
        try:  # the tagged form takes two levels per level of the value
            tagged = load_bounded(tagged_json, 2 * MAX_DEPTH + 1)
        except PayloadError as exc:
            return self._refuse_payload("INVALID_OBJECT_PROPERTY", f"{obj}.{prop}", definition.schema_, exc)
        issues = schema_issues(definition.schema_, memory.to_plain(tagged))
        if issues:
            error = validation_error("INVALID_OBJECT_PROPERTY", f"{obj}.{prop}", definition.schema_, issues)
            return self._refuse(error)
        self.session.memory.objects.setdefault(obj, {})[prop] = tagged
        return encode_value(UNDEFINED)

    # -- exits, components, inspect -----------------------------------------------------------------
    def exit(self, name: str, payload_json: str | None) -> str:
        closed = self._closed()
        if closed:
            return closed
        definition = self.config.exits.get(name)
        if definition is None:
            available = sorted(self.config.exits)
            return self._refuse(LlmzError("UNKNOWN_EXIT", f"no exit named {name!r}; available: {available}"))
        try:
            payload = decode(payload_json)
        except PayloadError as exc:
            return self._refuse_payload("INVALID_EXIT_INPUT", f"exit {name!r}", definition.schema, exc)
        issues = schema_issues(definition.schema, payload)
        if issues:
            return self._refuse(
                validation_error("INVALID_EXIT_INPUT", f"exit {name!r}", definition.schema, issues)
            )
        self.exit_attempt = (name, _plain(payload))
        return encode_value(UNDEFINED)

    def component(self, name: str, props_json: str | None) -> str:
        closed = self._closed()
        if closed:
            return closed
        spec = self.config.components.get(name)
        if spec is None:
            available = sorted(self.config.components)
            return self._refuse(
                LlmzError("UNKNOWN_COMPONENT", f"no component chat.{name}; available: {available}")
            )
        try:
            props = decode(props_json)
        except PayloadError as exc:
            return self._refuse_payload("INVALID_COMPONENT_INPUT", f"chat.{name}", spec.props, exc)
        issues = schema_issues(spec.props, props)
        if issues:
            return self._refuse(
                validation_error("INVALID_COMPONENT_INPUT", f"chat.{name}", spec.props, issues)
            )
        status = send_status(spec.handler, self.delivery_error is not None)
        self.deliver("component", _plain(props), status, component=name)
        if status == "failed":
            self.delivery_error = LlmzError("DELIVERY_FAILED", f"the chat.{name} handler failed")
            return self._refuse(self.delivery_error)
        return encode_value(UNDEFINED)

    def deliver(self, kind: str, content: Any, status: str, component: str | None = None) -> None:
        """Record one delivery attempt and let the guard see it."""
        entry = {"iteration": self.iteration, "kind": kind, "content": content, "status": status}
        if component is not None:
            entry["component"] = component
        self.deliveries.append(entry)
        self.recorder.emit("delivery", **entry)
        blank = isinstance(content, str) and not content.strip()
        if status != "skipped":
            self.session.note_delivery(status, blank)  # type: ignore[arg-type]
        self._trace()

    def _trace(self) -> None:
        """onTrace observes each completed action. It is an observer: if it throws, the action stands and
        the run goes on (llmz.hooks.trace-exceptions-harmless)."""
        behaviour = self.config.on_trace
        if behaviour == "none":
            return
        event: dict[str, Any] = {"iteration": self.iteration, "name": "onTrace"}
        if behaviour == "throw":
            event["threw"] = True
        self.recorder.emit("hook", **event)

    def inspect(self, value_json: str | None) -> str:
        """An inspected value is kept for the next request; one the host cannot take (too large, nested
        too deeply) is refused like any value inspection cannot show (llmz.errors.invalid-memory-value)."""
        try:
            self.inspections.append(decode(value_json))
        except PayloadError as exc:
            return self._refuse(LlmzError("INVALID_MEMORY_VALUE", f"inspect: {exc}"))
        return encode_value(UNDEFINED)

    def internal_failure(self, message: str) -> None:
        """The host itself failed while answering the program: the run stops with INTERNAL_ERROR (critical),
        recorded like any other failure instead of crashing."""
        if self.critical is None:
            self.critical = LlmzError("INTERNAL_ERROR", message)
