"""The llmz record vocabulary as models: one per event type, discriminated by ``type``, and the final state.

The prose, with what each field means, is ``spec/protocol/records/llmz.md``; the JSON Schema generated from
these models is ``spec/protocol/records/llmz.schema.json``. The models fix field names and JSON types; a
field is required only where a rule needs it (an ``error``'s code, message and criticality), and value
sets are open (``conformance.records.common``). Wording, and the request shape beyond what the prose
states, are left to the implementation (a bridge maps llmz's native messages, which may carry ``null``
content).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from conformance.records.common import ModelResponse, Open, needed, open_set, open_union, optional
from conformance.records.llmz_probes import Probe

#: Request messages are llmz's own: role and content are fixed, the rest is the native shape.
Content = str | list[dict[str, Any]] | None


class NativeToolCall(Open):
    id: str = optional()
    name: str = optional()
    input: Any = optional()


class Message(Open):
    """One message as sent to the model (or kept in ``session.messages``)."""

    role: str = open_set("system", "user", "assistant")
    content: Content = None
    toolCalls: list[NativeToolCall] = optional()
    type: str = optional()
    toolResultCallId: str = optional()


class ToolDeclaration(Open):
    name: str = optional()
    description: str = optional()
    input_schema: dict[str, Any] = optional()


class ToolChoice(Open):
    type: str = open_set("required", "auto")
    name: str = optional()


class ModelRequest(Open):
    """One request to the model, exactly as sent."""

    type: Literal["model_request"]
    call: int = optional()
    purpose: str = open_set(
        "turn",
        "summary",
        "transcription",
        description="turn: an iteration; summary: a compaction summary; transcription: audio sent to the "
        "transcription model (llmz.configuration.transcription-model).",
    )
    model: str | list[str] = optional()
    messages: list[Message] = optional()
    tools: list[ToolDeclaration] = optional()
    tool_choice: ToolChoice | None = Field(
        default=None, description="Turn requests; absent or null on a summary or transcription request."
    )
    max_tokens: int = optional()


class ToolError(Open):
    code: str = optional()
    message: str = optional()


class Signal(Open):
    reason: str = optional()


class ToolCall(Open):
    """One call of a host tool by generated code, as it completed: ``output``, ``error`` or ``pending``."""

    type: Literal["tool_call"]
    iteration: int = optional()
    name: str = optional()
    input: Any = optional()
    output: Any = optional()
    error: ToolError = optional()
    pending: bool = optional()
    signal: Signal = optional()


class Delivery(Open):
    type: Literal["delivery"]
    iteration: int = optional()
    kind: str = open_set("text", "component")
    content: Any = optional()
    component: str = optional()
    status: str = open_set("delivered", "failed", "unhandled", "skipped")


class Delta(Open):
    """A preview (``delta``, ``content``) or a restart telling the consumer to retract (``restart: true``,
    ``attempt``, ``models``, ``reason``)."""

    type: Literal["delta"]
    iteration: int = optional()
    delta: str = optional()
    content: str = optional()
    restart: bool = optional()
    attempt: int = optional()
    models: list[Any] = optional()
    reason: str = optional()
    threw: bool = optional()


class Inspection(Open):
    type: Literal["inspection"]
    iteration: int = optional()
    kind: str = open_set("forced", "explicit")
    preview: str = optional()
    tool: str = optional()
    line: int = optional()
    reason: str = optional()


HOOK_NAMES = (
    "onExit",
    "onAfterTool",
    "onBeforeTool",
    "onBeforeRequest",
    "onBeforeExecution",
    "onIterationStart",
    "onIterationEnd",
    "onTrace",
    "onInspect",
)


class Hook(Open):
    type: Literal["hook"]
    iteration: int = optional()
    name: str = open_set(*HOOK_NAMES)
    exit: str = optional()
    tool: str = optional()
    threw: bool = optional()
    purpose: str | None = optional()
    identity: dict[str, Any] | None = optional()


class Compaction(Open):
    type: Literal["compaction"]
    summary: str = optional()
    retained: int = optional()
    discarded_iterations: list[str] = optional()


class Summary(Open):
    type: Literal["summary"]
    content: str = optional()


class Issue(Open):
    path: str | list[str | int] = optional()
    message: str = optional()


class Error(Open):
    type: Literal["error"]
    code: str = needed("llmz.errors.shape", description="Every failure carries its stable code.")
    class_: str = optional(alias="class")
    recoverable: bool = needed("llmz.errors.shape", description="The failure's critical flag, negated.")
    message: str = needed("llmz.errors.shape", description="Every failure carries a readable message.")
    iteration: int = optional()
    step: str = open_set("append", "save_and_restore", "summarize", "compact", "prune", "request_messages")
    tool: str = optional()
    limit: int = optional()
    tokens: int = optional()
    phase: str = open_set("output", "input")
    cause: str = optional()
    status: int = optional()
    source: str = optional()
    line: int = optional()
    issues: list[Issue] = optional()
    expected: str = optional()
    identifier: str = optional()
    kind: str = open_set("variable", "tool", "object", "exit", "component")
    available: list[str] = optional()
    unavailable: list[str] = optional()


class ContextTokens(Open):
    """``tokens.context``: the measured request by category; the category names are the implementation's."""

    total: int = optional()


class IterationTokens(Open):
    context: ContextTokens = optional()


class Iteration(Open):
    type: Literal["iteration"]
    execution: int = optional()
    index: int = optional()
    status: str = open_set(
        "exit_success", "thinking_requested", "recoverable_error", "continued", "critical_error"
    )
    error_code: str = optional()
    errors: list[str] = optional()
    tokens: IterationTokens = optional()


class RequestMessages(Open):
    """What ``session.requestMessages(...)`` returned (a ``request_messages`` step)."""

    type: Literal["request_messages"]
    messages: list[Message] = optional()


class Exit(Open):
    type: Literal["exit"]
    name: str = optional()
    payload: Any = optional()


class RunTokens(Open):
    """``result.tokens``: the provider-reported usage of the run's model calls, added up."""

    input_tokens: int = optional()
    output_tokens: int = optional()


class Result(Open):
    type: Literal["result"]
    execution: int = optional()
    status: str = open_set("success", "error")
    exit: str = optional()
    error_code: str = optional()
    tokens: RunTokens = optional()


class HostCallError(Open):
    code: str = optional()


class HostCall(Open):
    """What a host-API call step (conformance/scenario/llmz_host.py) or a probing handler reported."""

    type: Literal["host_call"]
    step: str = open_set(
        "inspect",
        "render",
        "api_surface",
        "definition_json",
        "default_components",
        "component_handler",
        "result_contents",
    )
    text: str = optional()
    tokens: int = optional()
    component: str = optional()
    props: Any = optional()
    handler_bound: bool = optional()
    present: list[str] = optional()
    absent: list[str] = optional()
    json_: Any = optional(alias="json")
    definitions: int = optional()
    bound: int = optional()
    unbound_after_with_handler: int = optional()
    metadata_id: bool = optional()
    outcome: str = open_set("success", "error")
    usage: RunTokens = optional()
    diagnostics: bool = optional()
    error: HostCallError = optional()


Event = Annotated[
    Any,
    open_union(
        "type",
        {
            "model_request": ModelRequest,
            "model_response": ModelResponse,
            "tool_call": ToolCall,
            "delivery": Delivery,
            "delta": Delta,
            "inspection": Inspection,
            "hook": Hook,
            "compaction": Compaction,
            "summary": Summary,
            "request_messages": RequestMessages,
            "error": Error,
            "iteration": Iteration,
            "exit": Exit,
            "result": Result,
            "host_call": HostCall,
            "probe": Probe,
        },
    ),
]


class TranscriptEntry(Open):
    role: str = open_set("user", "assistant", "event", "summary")
    content: Content = None
    name: str = optional()
    payload: Any = optional()


class Final(Open):
    """The session at the end. Every field is optional: a session whose constructor refused its
    configuration never existed (a bridge to llmz then has no state to report), and ``last_speaker``
    needs the delivery tracking of llmz 1.0.2."""

    status: str = open_set("idle", "pending", "active")
    last_speaker: str = open_set("user", "assistant", "none", "unknown")
    transcript: list[TranscriptEntry] = optional()
    messages: list[Message] = optional()
    pending: int = optional()
    variables: list[str] = optional()


class LlmzRecord(Open):
    events: list[Event]
    final: Final = Field(default_factory=Final)
