"""What a host application hands the llmz runtime, in Python: tools, exits, chat, hooks, models, options.

These are the reference's own setup types, shaped for a Python program rather than for a scenario file:
a tool's handler is a Python callable, a hook is a function, a ThinkSignal is an exception you may return
or raise. The conformance harness translates its declarative scenarios into these
(``conformance/players/llmz.py``); nothing here knows about scenarios.

Handlers follow llmz's conventions, in Python terms:

* a tool handler gets the validated input and returns the result; raising fails the call
  (TOOL_EXECUTION_FAILED); returning or raising a ``ThinkSignal`` asks the model to look at the result
  before it goes on; returning ``truncate(value, max_tokens)`` bounds the preview the model sees while the
  program still gets the whole value; raising ``Abort`` stops the run, as the host's abort signal does;
  returning ``NEVER_SETTLES`` stands for a promise that never settles (the execute timeout then ends the
  run);
* a chat handler or component handler acknowledges a delivery by returning and fails it by raising;
* observer hooks (``on_iteration_start``, ``on_iteration_end``, ``on_trace``) may raise without changing
  anything but the record's ``threw`` mark.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from reference.llmz.compaction import (
    DEFAULT_KEEP_RECENT,
    DEFAULT_MAX_SUMMARY_TOKENS,
    DEFAULT_TARGET_RATIO,
    DEFAULT_TRIGGER_RATIO,
)
from reference.llmz.inspector import InspectEvent

JsonSchema = dict[str, Any]
Preserve = Literal["top", "bottom", "both"]


class ThinkSignal(Exception):
    """Raised or returned by a tool handler: the call succeeded with ``context``, and the model must look
    at it before finishing (llmz.think-signal.return-or-throw). ``context`` may be ``truncate(...)``."""

    __llmz_think_signal_brand__ = True
    """The brand ``ThinkSignal.is`` reads (reference.llmz.errors.SIGNAL_BRAND_ATTRIBUTE)."""

    def __init__(self, reason: str, context: Any = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.context = context


class Abort(Exception):
    """Raised by a handler or an ``after_tool`` hook: the host aborts the run with ``reason``
    (EXECUTION_ABORTED, critical)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class _NeverSettles:
    def __repr__(self) -> str:
        return "NEVER_SETTLES"


NEVER_SETTLES: Final = _NeverSettles()
"""What a tool handler returns to stand for a promise that never settles."""


@dataclass(frozen=True)
class Truncated:
    """A result wrapped in ``truncate()``: the program gets ``value``; previews use this budget."""

    value: Any
    max_tokens: object
    """Checked when the handler returns it: a nonnegative safe integer (llmz.inspection.budget-integers)."""
    preserve: Preserve = "top"


def truncate(value: Any, max_tokens: object, preserve: Preserve = "top") -> Truncated:
    """``truncate({ value, maxTokens, preserve })``: a display budget for one result."""
    return Truncated(value, max_tokens, preserve)


def acknowledge(_content: Any) -> None:
    """The default chat handler: takes any delivery and acknowledges it."""


class SchemaIssue(Exception):
    """Raised by an effect's callback to refuse the value, as zod's ``ctx.addIssue`` does: a correctable
    input error of the surface (llmz.tools.refinement-failure-typed). Any other exception an effect raises
    is a configuration failure (llmz.tools.throwing-schema-callback)."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(message)
        self.path = path
        self.message = message


@dataclass(frozen=True)
class Effect:
    """One JavaScript effect of a schema (a trim, refinement or transform): ``apply`` gets the value the
    schema accepted so far and returns the next one, or raises ``SchemaIssue``. ``asynchronous`` marks a
    callback that returns a promise, which only tool inputs may await (llmz.tools.async-input-effects)."""

    apply: Callable[[Any], Any]
    asynchronous: bool = False


ToolHandler = Callable[[Any], Any]


@dataclass(frozen=True)
class Tool:
    """A host tool the program calls as ``await name(input)``."""

    name: str
    handler: ToolHandler | None
    """None is a definition without a handler, refused before any iteration (llmz.errors.invalid-tool)."""
    description: str = ""
    input: JsonSchema = field(default_factory=lambda: {"type": "object"})
    output: JsonSchema | None = None
    """Documentation only: shown to the model in the tool's declaration."""
    retries: int = 0
    """Extra handler attempts after a failed one."""
    input_effects: Sequence[Effect] = ()
    """Effects of the input schema, run after it accepted the model's input."""
    output_effects: Sequence[Effect] = ()
    """Effects of the output schema: never run (llmz.tools.output-effects-never-run)."""


@dataclass(frozen=True)
class Exit:
    """A named way to finish; ``schema`` None accepts any payload, or none."""

    name: str
    description: str = ""
    schema: JsonSchema | None = None
    effects: Sequence[Effect] = ()


@dataclass(frozen=True)
class Component:
    """A chat component the program sends as ``chat.<name>(props)``; ``handler`` None means unbound."""

    name: str
    handler: Callable[[Any], Any] | None = acknowledge
    description: str = ""
    props: JsonSchema = field(default_factory=lambda: {"type": "object"})
    effects: Sequence[Effect] = ()
    takes_metadata: bool = False
    """The handler is called as ``handler(props, metadata)``, metadata holding the message id
    (llmz.components.handler-metadata); otherwise with the props alone."""
    legacy: Mapping[str, Any] = field(default_factory=dict)
    """Options of the previous API the host still passes (``aliases``); see ``host_api.legacy_options``."""


@dataclass(frozen=True)
class Property:
    """One host-backed property of a registered object."""

    name: str
    value: Any = None
    schema: JsonSchema | None = None
    writable: bool = False
    effects: Sequence[Effect] = ()


@dataclass(frozen=True)
class HostObject:
    """A registered object: a global whose properties live in session memory once assigned."""

    name: str
    properties: Sequence[Property] = ()
    description: str = ""


@dataclass(frozen=True)
class Chat:
    """What makes an execute a chat turn: the text handler, components and the streaming preview hook.
    ``handler`` None leaves assistant text unhandled; ``on_delta`` gets (chunk, text so far).
    ``on_restart`` gets the restart (retraction) events that llmz hands to the same ``onDelta``: kept apart
    here so ``on_delta`` keeps its two-argument form; it gets the event's fields as a dict."""

    handler: Callable[[str], Any] | None = acknowledge
    components: Sequence[Component] = ()
    on_delta: Callable[[str, str], Any] | None = None
    on_restart: Callable[[dict[str, Any]], Any] | None = None
    preset: str | None = None
    """``Chat.response``'s preset (markdown, text or speech; llmz.components.response-options)."""
    response_instructions: str | None = None
    """``Chat.response.instructions``: added to the chat guidance."""
    legacy: Mapping[str, Any] = field(default_factory=dict)
    """Options of the previous API the host still passes (``handler``, ``transcript``)."""


@dataclass(frozen=True)
class Hooks:
    """Host hooks. Per-tool hooks are keyed by tool name; a hook that answers ``None`` leaves things as
    they were (JavaScript's ``undefined``) and is not recorded."""

    on_exit: Callable[[str, Any], Any] | None = None
    """Called with (exit name, payload) once the chat guard let the exit through; raising rejects it."""
    before_tool: Mapping[str, Callable[[Any], Any]] = field(default_factory=dict)
    """Per tool: the input the handler gets instead of the model's (after validation)."""
    after_tool: Mapping[str, Callable[[Any, Any], Any]] = field(default_factory=dict)
    """Per tool: (input, output) -> the output to use instead; raising rejects it, ``Abort`` stops."""
    on_inspect: Callable[[InspectEvent], str | None] | None = None
    """Gets an ``InspectEvent`` for every preview (a copy of the value, the preview's purpose, the value's
    identity); returns the preview text, or None for the usual one."""
    before_request: Callable[[list[dict[str, Any]]], list[dict[str, Any]] | None] | None = None
    """Gets copies of a request's messages; returns the messages to send instead, or None."""
    before_execution: Callable[[str], str | None] | None = None
    """Gets the model's program; returns code to run instead, or None."""
    on_iteration_start: Callable[[int], Any] | None = None
    on_iteration_end: Callable[[int], Any] | None = None
    on_trace: Callable[[int], Any] | None = None
    """Called after every tool call and delivery, with the iteration number."""


@dataclass(frozen=True)
class Model:
    """A model's limits in tokens: its input window and its largest answer."""

    id: str
    input_tokens: int = 128_000
    output_tokens: int = 16_384
    audio: bool = True
    """Whether the model takes audio input natively; without it audio goes to the transcription model
    (llmz.configuration.transcription-model)."""


DEFAULT_MODELS: Final = (Model("scripted"),)
"""The model a session uses when none is named: the scripted one, with generous limits."""


@dataclass(frozen=True)
class Compaction:
    """Session compaction controls (``new Session({ compaction })``)."""

    trigger_ratio: float = DEFAULT_TRIGGER_RATIO
    target_ratio: float = DEFAULT_TARGET_RATIO
    keep_recent_iterations: int = DEFAULT_KEEP_RECENT
    max_summary_tokens: int = DEFAULT_MAX_SUMMARY_TOKENS
    model: str | None = None
    summarize: Callable[[list[dict[str, Any]], int], str] | None = None
    """``compaction.summarize``: a host callback writing the summary (messages, token limit) instead of the
    model (llmz.compaction.custom-summarize). Host code: never serialized."""

    def as_llmz(self) -> dict[str, Any]:
        """The controls in llmz's own spelling, as a session stores and serializes them."""
        controls: dict[str, Any] = {
            "triggerRatio": self.trigger_ratio,
            "targetRatio": self.target_ratio,
            "keepRecentIterations": self.keep_recent_iterations,
            "maxSummaryTokens": self.max_summary_tokens,
        }
        if self.model is not None:
            controls["model"] = self.model
        return controls


@dataclass(frozen=True)
class Options:
    """``execute({ options })``. ``max_tokens`` and ``tool_result_max_tokens`` are checked by the runtime,
    so a wrong value is reported as the runtime's error rather than refused here."""

    loop: int | None = None
    """Most model iterations for this execute (None: the reference's default, 3)."""
    timeout: str | int | None = None
    """JavaScript time budget: milliseconds, or a duration such as ``"30s"``."""
    require_chat_response: bool = True
    max_tokens: object = None
    tool_result_max_tokens: object = None
    """``options.toolResultMaxTokens``; None (left out, as JavaScript's undefined): the documented default,
    2,000 (llmz.inspection.tool-result-default, applied by ``execute``)."""
    mid_stream_fallback: bool = False
    """``options.midStreamFallback``: a stream that breaks before dispatch restarts on the next model."""
    transcription_model: str | None = None
    """``options.transcriptionModel``: the model that transcribes audio for a model that cannot take it
    (llmz.configuration.transcription-model). None: the reference's default."""
    max_time_to_first_token: float | None = None
    """``options.maxTimeToFirstToken``: a streamed answer whose first chunk is later is not used
    (llmz.configuration.streaming-options; the reference reads it in milliseconds). None: no limit."""


NO_HOOKS: Final = Hooks()
DEFAULT_COMPACTION: Final = Compaction()
DEFAULT_OPTIONS: Final = Options()


@dataclass(frozen=True)
class ExitResult:
    name: str
    payload: Any


@dataclass(frozen=True)
class IterationResult:
    index: int
    status: str
    """continued, thinking_requested, recoverable_error, exit_success or critical_error."""
    error_code: str | None = None
    exception: Any = None
    """``iteration.exception``: the typed failure (an LlmzError) that ended the iteration, if any."""
    error: str | None = None
    """``iteration.error``: the readable summary of ``exception`` (llmz.errors.iteration-error-fields)."""
    errors: tuple[Any, ...] = ()
    """``iteration.errors``: every typed failure observed during the iteration."""


@dataclass(frozen=True)
class ExecutionResult:
    """What one ``execute`` call came to."""

    status: Literal["success", "error"]
    exit: ExitResult | None
    error_code: str | None
    iterations: tuple[IterationResult, ...]
    messages: list[dict[str, Any]]
    """The session's history as the model sees it, after the call."""
    memory: dict[str, Any]
    """Named variables after the call, as JSON values."""
    session: Any = None
    """``result.session``: the session the call ran on, the one it created when none was given
    (llmz.sessions.fresh-session-when-omitted)."""
    tokens: dict[str, int] | None = None
    """``result.tokens``: the usage the provider reported for this run's calls, added up
    (llmz.api.result-contents, llmz.budget.result-tokens.provider-usage)."""
    error: Any = None
    """``result.error``: the typed failure (an LlmzError) of a failed run."""
    snapshot: Any = None
    """Always None: snapshot results of the previous API are gone (llmz.migration.no-snapshots); only a
    mutant fills it."""

    def to_json(self) -> dict[str, Any]:
        """``result.toJSON()``: a compact summary of the outcome; not conversation state
        (llmz.persistence.result-tojson, llmz.migration.result-not-state). Written by the policies of
        the session the run used."""
        exit_name = self.exit.name if self.exit is not None else None
        return dict(self.session.policies.result_summary(self.status, exit_name, self.error_code))

    def diagnostics(self) -> dict[str, Any]:
        """``result.diagnostics()``: the run's failures as plain data
        (llmz.persistence.result-diagnostics)."""
        policies = self.session.policies
        exported = policies.result_diagnostics(
            self.status, self.iterations, self.error, policies.error_diagnostic
        )
        return dict(exported)


Observer = Callable[[str, dict[str, Any]], None]
"""Gets every event the runtime reports: its type and its fields (spec/protocol/records/llmz.md)."""
