"""The host side of one iteration: tools, exits, chat components and inspect, as the program sees them.

``IterationHost`` implements the sandbox's ``Bridge``. It validates inputs against their JSON Schemas
before anything runs (a rejected tool input never reaches the handler), calls the host's Python handlers
and hooks, records every observable action (``tool_call``, ``delivery``) as it happens, and gathers what
the iteration's settlement needs: signals, the attempted exit, inspections and any critical failure.
After a critical failure every further host operation is refused, even if generated code caught the
error. Its decisions come from the session's policy object. What the program hands over counts against
the execution's ceiling (``reference.llmz.host_ceiling``) before it is decoded or kept.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from reference.llmz import effects, memory
from reference.llmz.api import NEVER_SETTLES, Abort, Component, ThinkSignal, Tool, Truncated
from reference.llmz.config import RunConfig
from reference.llmz.errors import LlmzError
from reference.llmz.events import Events
from reference.llmz.host_ceiling import HostCeiling
from reference.llmz.inspector import Ask, asked_once, asker
from reference.llmz.kernel import MAX_DEPTH
from reference.llmz.policies import Policies
from reference.llmz.preview import UNDEFINED
from reference.llmz.reports import Display, SignalReport, ToolCallReport
from reference.llmz.sandbox import PayloadError, decode, encode_error, encode_value, load_bounded
from reference.llmz.session import Session
from reference.llmz.typescript import validation_error


def _plain(value: Any) -> Any:
    return None if value is UNDEFINED else value


OutcomeKind = Literal["value", "error", "signal", "hang", "cancel", "rejected"]


@dataclass(frozen=True)
class HandlerOutcome:
    """What one handler call came to, in the runtime's terms."""

    kind: OutcomeKind
    value: Any = None
    message: str = ""
    via: str = "return"
    """For a signal: whether the handler returned it or raised it."""
    display: Display = None


def deliver_status(handler: Any, content: Any) -> str:
    """Hand a delivery to its chat handler: acknowledged, failed (the handler raised) or unhandled."""
    if handler is None:
        return "unhandled"
    try:
        handler(content)
    except Exception:
        return "failed"
    return "delivered"


@dataclass
class IterationHost:
    config: RunConfig
    session: Session
    events: Events
    iteration: int
    ceiling: HostCeiling = field(default_factory=lambda: HostCeiling.for_memory(memory.DEFAULT_MAX_BYTES))
    """Shared by the execution's iterations: what its programs may still hand the host."""
    signals: list[SignalReport] = field(default_factory=list)
    tool_calls: list[ToolCallReport] = field(default_factory=list)
    deliveries: list[dict[str, Any]] = field(default_factory=list)
    inspections: list[Any] = field(default_factory=list)
    exit_attempt: tuple[str, Any] | None = None
    critical: LlmzError | None = None
    hanging: bool = False
    memory_changes: list[str] = field(default_factory=list)
    """Named variables whose value the program set or changed."""
    seen_errors: list[LlmzError] = field(default_factory=list)
    """Every failure handed to the program, caught or not (llmz.errors.iteration-errors-list)."""
    delivery_error: LlmzError | None = None
    """The first failed delivery of the iteration. It is thrown to the program (uncaught, it fails the
    iteration recoverably); every later send of the iteration is skipped, while earlier acknowledged sends
    stay delivered (llmz.errors.delivery-failed)."""
    ask_inspect: Ask | None = field(init=False, default=None)
    """``onInspect`` as this iteration asks it: once per preview (reference.llmz.inspector.asked_once)."""

    def __post_init__(self) -> None:
        self.ask_inspect = asked_once(asker(self.config.hooks.on_inspect, self.policies))

    @property
    def policies(self) -> Policies:
        return self.session.policies

    def _refuse(self, error: LlmzError) -> str:
        self.seen_errors.append(error)
        return encode_error(error.code, error.class_name, error.message)

    def _invalid(self, code: str, subject: str, schema: Any, issues: list[tuple[str, str]]) -> LlmzError:
        return validation_error(code, subject, schema, issues, self.policies.schema_shape)

    def _refuse_payload(self, code: str, subject: str, schema: Any, problem: Exception) -> str:
        """A value the host cannot take at all (too large, nested too deeply) fails like invalid input."""
        return self._refuse(self._invalid(code, subject, schema, [("(root)", str(problem))]))

    def _closed(self) -> str | None:
        if self.critical is None:
            return None
        return encode_error("EXECUTION_ABORTED", "ExecutionAbortedError", "host operations are closed")

    def _over_ceiling(self, text: str | None, what: str) -> LlmzError | None:
        """None when ``text`` fits under the execution's ceiling (and is counted); else the critical
        MEMORY_CAPACITY that ends the execution, with nothing of ``text`` kept."""
        if self.ceiling.take(text):
            return None
        self.critical = LlmzError("MEMORY_CAPACITY", self.ceiling.message(what))
        return self.critical

    def _closed_or_over(self, text: str | None, what: str) -> str | None:
        """The answer refusing an operation when the host is closed or ``text`` passes the ceiling."""
        closed = self._closed()
        if closed:
            return closed
        over = self._over_ceiling(text, what)
        return self._refuse(over) if over is not None else None

    # -- tools -------------------------------------------------------------------------------------
    def tool(self, name: str, input_json: str | None, line: int | None) -> str:
        closed = self._closed_or_over(input_json, f"tool {name} input")
        if closed:
            return closed
        spec = self.config.tools[name]
        try:
            value = decode(input_json)
        except PayloadError as exc:
            error = self._invalid("INVALID_TOOL_INPUT", name, spec.input, [("(root)", str(exc))])
            error.details["tool"] = name
            return self._finish_call(ToolCallReport(name, None, error=error))
        issues = self.policies.schema_issues(spec.input, value)
        parsed = effects.Parsed(value)
        if not issues:
            parsed = self._parse(spec.input_effects, value, effects.TOOL_INPUT, f"tool {name} input")
            issues = parsed.issues
        if parsed.failure is not None:
            self.critical = parsed.failure
            return self._finish_call(ToolCallReport(name, _plain(value), error=parsed.failure))
        if issues:
            error = self._invalid("INVALID_TOOL_INPUT", name, spec.input, issues)
            error.details["tool"] = name
            return self._finish_call(ToolCallReport(name, _plain(value), error=error))
        handler_input = _plain(self._before_tool(name, parsed.value))
        handled = self._output(spec, self._run_handler(spec, handler_input))
        outcome = self._after_tool(name, handler_input, handled)
        report = ToolCallReport(name, _plain(value), display=outcome.display)
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

    def _parse(self, defined: Any, value: Any, surface: str, subject: str) -> effects.Parsed:
        """The schema's effects on a value its JSON Schema accepted (reference.llmz.effects)."""
        return effects.parse(defined, _plain(value), surface, subject, self.policies.effect_rules)

    def _output(self, spec: Tool, outcome: HandlerOutcome) -> HandlerOutcome:
        """A handler's result goes on as it is: output schema effects never run
        (llmz.tools.output-effects-never-run)."""
        if not self.policies.run_output_effects or outcome.kind != "value" or not spec.output_effects:
            return outcome
        ran = effects.parse(
            spec.output_effects, outcome.value, effects.TOOL_INPUT, spec.name, effects.DEFAULT_RULES
        )
        if ran.failure is not None or ran.issues:
            return HandlerOutcome("error", message=ran.failure.message if ran.failure else ran.issues[0][1])
        return HandlerOutcome("value", ran.value, display=outcome.display)

    def _run_handler(self, spec: Tool, value: Any) -> HandlerOutcome:
        """The handler, called as often as the session's retry decision says (``handler_attempts``)."""
        attempts = self.policies.handler_attempts
        outcome: HandlerOutcome = attempts(lambda: self._call_handler(spec, value), spec)
        return outcome

    @staticmethod
    def with_retries(call: Callable[[], HandlerOutcome], spec: Tool) -> HandlerOutcome:
        """One handler call, made again after a failure as often as the tool's ``retries`` allow. The retry
        policy is for a handler that failed (llmz.errors.tool-execution-failed); after any other outcome the
        first answer stands. A cancellation above all: it is critical, and a critical failure allows no
        further business action (llmz.errors.critical-stops), so the handler is never called again after it.
        A static method here, not a module function: the mutation sample is drawn by each operator's order
        of occurrence in this module, and this place keeps the committed sample's mutants where they were."""
        for attempt in range(spec.retries + 1):
            outcome = call()
            if outcome.kind != "error" or attempt == spec.retries:
                return outcome
        raise AssertionError("unreachable")

    def _call_handler(self, spec: Tool, value: Any) -> HandlerOutcome:
        """One call of a Python handler, read the way llmz reads a JavaScript one."""
        try:
            if spec.handler is None:  # only a mutant lets such a tool run (llmz.errors.invalid-tool)
                raise TypeError(f"tool {spec.name} has no handler")
            result = spec.handler(value)
        except ThinkSignal as signal:
            return self._signalled(signal, "throw")
        except Abort as abort:
            return HandlerOutcome("cancel", message=abort.reason)
        except Exception as exc:
            return HandlerOutcome("error", message=str(exc))
        if result is NEVER_SETTLES:
            return HandlerOutcome("hang")
        if isinstance(result, ThinkSignal):
            return self._signalled(result, "return")
        return self._unwrapped(result, lambda value, display: HandlerOutcome("value", value, display=display))

    def _signalled(self, signal: ThinkSignal, via: str) -> HandlerOutcome:
        return self._unwrapped(
            signal.context,
            lambda value, display: HandlerOutcome("signal", value, signal.reason, via, display),
        )

    def _unwrapped(self, result: Any, outcome: Any) -> HandlerOutcome:
        """A ``truncate()`` wrapper gives its value a display budget; one whose budget is not a nonnegative
        safe integer throws there, so the call fails (llmz.inspection.budget-integers)."""
        if not isinstance(result, Truncated):
            return outcome(result, None)  # type: ignore[no-any-return]
        problem = self.policies.display_budget_problem(result.max_tokens)
        if problem is not None:
            return HandlerOutcome("error", message=problem)
        value, display = self.policies.unwrap_truncated(result)
        return outcome(value, display)  # type: ignore[no-any-return]

    def _after_tool(self, name: str, handler_input: Any, outcome: HandlerOutcome) -> HandlerOutcome:
        """onAfterTool sees successful results, signals included. Its replacement is what the program and a
        forced inspection get; a rejection withholds the result from both
        (llmz.think-signal.after-tool-output); an ``Abort`` stops the run (llmz.errors.hook-stop-critical)."""
        hook = self.config.hooks.after_tool.get(name)
        if hook is None or outcome.kind not in ("value", "signal"):
            return outcome
        self.events.emit("hook", name="onAfterTool", tool=name, iteration=self.iteration)
        try:
            replaced = hook(handler_input, outcome.value)
        except Abort as abort:
            return HandlerOutcome("cancel", message=abort.reason)
        except ThinkSignal as signal:
            if self.policies.hook_signals_honoured:
                return HandlerOutcome("signal", outcome.value, signal.reason, "throw", outcome.display)
            return HandlerOutcome("rejected", message=f"onAfterTool may not produce a ThinkSignal: {signal}")
        except Exception as exc:
            return HandlerOutcome("rejected", message=str(exc))
        return HandlerOutcome(outcome.kind, replaced, outcome.message, outcome.via, outcome.display)

    def _before_tool(self, name: str, value: Any) -> Any:
        """onBeforeTool may substitute the input the handler receives (llmz.hooks.before-tool-replaces-input);
        it runs after the model's input passed validation."""
        hook = self.config.hooks.before_tool.get(name)
        if hook is None or not self.policies.before_tool_replaces_input:
            return value
        self.events.emit("hook", name="onBeforeTool", tool=name, iteration=self.iteration)
        return hook(_plain(value))

    def _signal(self, report: ToolCallReport, outcome: HandlerOutcome, line: int | None) -> str:
        """A ThinkSignal: JavaScript gets the context; the signal is remembered for the settlement."""
        reason, context = outcome.message, outcome.value
        if not self.policies.signal_honoured(outcome.via):
            if outcome.via == "throw":  # an unrecognised thrown signal is just a failure
                report.error = LlmzError("TOOL_EXECUTION_FAILED", f"{report.name} threw: {reason}")
            else:  # an unrecognised returned signal is just data
                report.output = {"reason": reason, "context": context}
            return self._finish_call(report)
        report.output = context
        self.signals.append(SignalReport(report.name, line, reason, context, report.display))
        answer = self._finish_call(report, signal=reason)
        if self.policies.signals_interrupt_program:
            return encode_error(None, "ThinkSignal", reason)
        return answer

    def _finish_call(self, report: ToolCallReport, signal: str | None = None) -> str:
        answer = None
        if not report.pending and report.error is None:
            answer = encode_value(report.output)
            over = self._over_ceiling(answer, f"tool {report.name} output")
            if over is not None:
                report.output, report.error, answer = UNDEFINED, over, None
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
        self.events.emit("tool_call", **event)
        self._trace()
        if report.pending:
            return '{"hang": true}'
        if report.error is not None or answer is None:
            return self._refuse(report.error or LlmzError("INTERNAL_ERROR", "no answer"))
        return answer

    # -- registered objects ---------------------------------------------------------------------------
    def object_set(self, obj: str, prop: str, tagged_json: str | None) -> str:
        """An assignment to a registered object's property (llmz.memory.object-property-access)."""
        closed = self._closed_or_over(tagged_json, f"{obj}.{prop}")
        if closed:
            return closed
        spec = next(o for o in self.config.objects if o.name == obj)
        definition = next(p for p in spec.properties if p.name == prop)
        schema = definition.schema
        if not definition.writable:
            return self._refuse(LlmzError("INVALID_ASSIGNMENT", f"{obj}.{prop} is read-only"))
        try:  # the tagged form takes two levels per level of the value
            tagged = load_bounded(tagged_json, 2 * MAX_DEPTH + 1)
        except PayloadError as exc:
            return self._refuse_payload("INVALID_OBJECT_PROPERTY", f"{obj}.{prop}", schema, exc)
        plain = memory.to_plain(tagged)
        issues = self.policies.schema_issues(schema, plain)
        if not issues:
            parsed = self._parse(definition.effects, plain, effects.OBJECT_PROPERTY, f"{obj}.{prop}")
            if parsed.failure is not None:
                self.critical = parsed.failure
                return self._refuse(parsed.failure)
            issues = parsed.issues
            if parsed.value != plain:
                tagged = memory.encode_plain(parsed.value)
        if issues:
            return self._refuse(self._invalid("INVALID_OBJECT_PROPERTY", f"{obj}.{prop}", schema, issues))
        self.session.memory.objects.setdefault(obj, {})[prop] = tagged
        return encode_value(UNDEFINED)

    # -- exits, components, inspect -----------------------------------------------------------------
    def exit(self, name: str, payload_json: str | None) -> str:
        closed = self._closed_or_over(payload_json, f"exit {name!r}")
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
        issues = self.policies.schema_issues(definition.schema, payload)
        if not issues:
            parsed = self._parse(definition.effects, payload, effects.EXIT_PAYLOAD, f"exit {name!r}")
            if parsed.failure is not None:
                self.critical = parsed.failure
                return self._refuse(parsed.failure)
            issues, payload = parsed.issues, parsed.value
        if issues:
            return self._refuse(
                self._invalid("INVALID_EXIT_INPUT", f"exit {name!r}", definition.schema, issues)
            )
        self.exit_attempt = (name, _plain(payload))
        return encode_value(UNDEFINED)

    def component(self, name: str, props_json: str | None) -> str:
        closed = self._closed_or_over(props_json, f"chat.{name}")
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
        issues = self.policies.schema_issues(spec.props, props)
        if not issues:
            parsed = self._parse(spec.effects, props, effects.COMPONENT_PROPS, f"chat.{name}")
            if parsed.failure is not None:
                self.critical = parsed.failure
                return self._refuse(parsed.failure)
            issues, props = parsed.issues, parsed.value
        if issues:
            return self._refuse(self._invalid("INVALID_COMPONENT_INPUT", f"chat.{name}", spec.props, issues))
        if self.delivery_error is not None and self.policies.skip_sends_after_failed_delivery:
            status = "skipped"
        else:
            status = deliver_status(self._component_handler(spec), _plain(props))
        self.deliver("component", _plain(props), status, component=name)
        if status == "failed":
            self.delivery_error = LlmzError("DELIVERY_FAILED", f"the chat.{name} handler failed")
            return self._refuse(self.delivery_error)
        return encode_value(UNDEFINED)

    def _component_handler(self, spec: Component) -> Callable[[Any], Any] | None:
        """The handler as llmz calls it: with the message metadata too when it takes it
        (llmz.components.handler-metadata)."""
        handler: Callable[..., Any] | None = spec.handler
        if handler is None or not spec.takes_metadata:
            return handler
        metadata = self.policies.message_metadata(len(self.deliveries) + 1)
        return lambda props: handler(props, metadata)

    def deliver(self, kind: str, content: Any, status: str, component: str | None = None) -> None:
        """Record one delivery attempt and let the guard see it."""
        entry = {"iteration": self.iteration, "kind": kind, "content": content, "status": status}
        if component is not None:
            entry["component"] = component
        self.deliveries.append(entry)
        self.events.emit("delivery", **entry)
        blank = isinstance(content, str) and not content.strip()
        if status != "skipped":
            self.session.note_delivery(status, blank)  # type: ignore[arg-type]
        self._trace()

    def _trace(self) -> None:
        """onTrace observes each completed action. It is an observer: if it throws, the action stands and
        the run goes on (llmz.hooks.trace-exceptions-harmless)."""
        hook = self.config.hooks.on_trace
        if hook is not None and self.policies.trace_observed:
            observe(self.events, "onTrace", hook, self.iteration)

    def inspect(self, value_json: str | None) -> str:
        """An inspected value is kept for the next request; one the host cannot take (too large, nested
        too deeply) is refused like any value inspection cannot show (llmz.errors.invalid-memory-value)."""
        closed = self._closed_or_over(value_json, "inspect")
        if closed:
            return closed
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


def observe(events: Events, name: str, hook: Any, iteration: int) -> Any:
    """Call an observer hook. One that throws an ordinary error changes nothing
    (llmz.errors.observers-observational, llmz.hooks.trace-exceptions-harmless); the record only notes
    that it ran and threw. Returns what the hook returned (None when it threw), for the caller to ignore."""
    fields: dict[str, Any] = {"iteration": iteration, "name": name}
    returned = None
    try:
        returned = hook(iteration)
    except Exception:
        fields["threw"] = True
    events.emit("hook", **fields)
    return returned
