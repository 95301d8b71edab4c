"""The llmz record vocabulary as models: one per event type, discriminated by ``type``, and the final state.

The prose, with what each field means, is ``spec/protocol/records/llmz.md``; the JSON Schema generated from
these models is ``spec/protocol/records/llmz.schema.json``. The models fix field names and JSON types, and
enums where the prose gives a closed set; wording, and the request shape beyond what the prose states, are
left to the implementation (a bridge maps llmz's native messages, which may carry ``null`` content).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field

from conformance.records.common import Grouped, ModelResponse, Open, optional, require_one_of
from conformance.records.llmz_probes import Probe

#: Request messages are llmz's own: role and content are fixed, the rest is the native shape.
Content = str | list[dict[str, Any]] | None


class NativeToolCall(Open):
    id: str
    name: str
    input: Any


class Message(Open):
    """One message as sent to the model (or kept in ``session.messages``)."""

    role: Literal["system", "user", "assistant"]
    content: Content
    toolCalls: list[NativeToolCall] = optional()
    type: str = optional()
    toolResultCallId: str = optional()


class ToolDeclaration(Open):
    name: str
    description: str
    input_schema: dict[str, Any]


class ToolChoice(Open):
    type: Literal["required", "auto"]
    name: str = optional()


class ModelRequest(Open):
    """One request to the model, exactly as sent."""

    type: Literal["model_request"]
    call: int
    purpose: Literal["turn", "summary", "transcription"] = Field(
        description="turn: an iteration; summary: a compaction summary; transcription: audio sent to the "
        "transcription model (llmz.configuration.transcription-model)."
    )
    model: str | list[str]
    messages: list[Message]
    tools: list[ToolDeclaration]
    tool_choice: ToolChoice | None = Field(
        default=None, description="Turn requests; absent or null on a summary or transcription request."
    )
    max_tokens: int


class ToolError(Open):
    code: str
    message: str


class Signal(Open):
    reason: str


class ToolCall(Grouped):
    """One call of a host tool by generated code, as it completed: ``output``, ``error`` or ``pending``."""

    required_groups = (("error",), ("pending",), ("output",))
    model_config = ConfigDict(json_schema_extra=require_one_of(*required_groups))

    type: Literal["tool_call"]
    iteration: int
    name: str
    input: Any
    output: Any = optional()
    error: ToolError = optional()
    pending: bool = optional()
    signal: Signal = optional()


class Delivery(Open):
    type: Literal["delivery"]
    iteration: int
    kind: Literal["text", "component"]
    content: Any
    component: str = optional()
    status: Literal["delivered", "failed", "unhandled", "skipped"]


class Delta(Open):
    """A preview (``delta``, ``content``) or a restart telling the consumer to retract (``restart: true``,
    ``attempt``, ``models``, ``reason``)."""

    type: Literal["delta"]
    iteration: int
    delta: str = optional()
    content: str = optional()
    restart: bool = optional()
    attempt: int = optional()
    models: list[Any] = optional()
    reason: str = optional()
    threw: bool = optional()


class Inspection(Open):
    type: Literal["inspection"]
    iteration: int
    kind: Literal["forced", "explicit"]
    preview: str
    tool: str = optional()
    line: int = optional()
    reason: str = optional()


HookName = Literal[
    "onExit",
    "onAfterTool",
    "onBeforeTool",
    "onBeforeRequest",
    "onBeforeExecution",
    "onIterationStart",
    "onIterationEnd",
    "onTrace",
    "onInspect",
]


class Hook(Open):
    type: Literal["hook"]
    iteration: int
    name: HookName
    exit: str = optional()
    tool: str = optional()
    threw: bool = optional()
    purpose: str | None = optional()
    identity: dict[str, Any] | None = optional()


class Compaction(Open):
    type: Literal["compaction"]
    summary: str
    retained: int
    discarded_iterations: list[str]


class Summary(Open):
    type: Literal["summary"]
    content: str


class Issue(Open):
    path: str | list[str | int]
    message: str


class Error(Open):
    type: Literal["error"]
    code: str
    class_: str = Field(alias="class")
    recoverable: bool
    message: str
    iteration: int = optional()
    step: Literal[
        "append", "save_and_restore", "summarize", "compact", "prune", "request_messages"
    ] = optional()
    tool: str = optional()
    limit: int = optional()
    tokens: int = optional()
    phase: Literal["output", "input"] = optional()
    cause: str = optional()
    status: int = optional()
    source: str = optional()
    line: int = optional()
    issues: list[Issue] = optional()
    expected: str = optional()
    identifier: str = optional()
    kind: Literal["variable", "tool", "object", "exit", "component"] = optional()
    available: list[str] = optional()
    unavailable: list[str] = optional()


class ContextTokens(Open):
    """``tokens.context``: the measured request by category; the category names are the implementation's."""

    total: int


class IterationTokens(Open):
    context: ContextTokens


class Iteration(Open):
    type: Literal["iteration"]
    execution: int
    index: int
    status: Literal["exit_success", "thinking_requested", "recoverable_error", "continued", "critical_error"]
    error_code: str = optional()
    errors: list[str] = optional()
    tokens: IterationTokens = optional()


class RequestMessages(Open):
    """What ``session.requestMessages(...)`` returned (a ``request_messages`` step)."""

    type: Literal["request_messages"]
    messages: list[Message]


class Exit(Open):
    type: Literal["exit"]
    name: str
    payload: Any


class RunTokens(Open):
    """``result.tokens``: the provider-reported usage of the run's model calls, added up."""

    input_tokens: int
    output_tokens: int


class Result(Open):
    type: Literal["result"]
    execution: int
    status: Literal["success", "error"]
    exit: str = optional()
    error_code: str = optional()
    tokens: RunTokens = optional()


class HostCallError(Open):
    code: str


class HostCall(Open):
    """What a host-API call step (conformance/scenario/llmz_host.py) or a probing handler reported."""

    type: Literal["host_call"]
    step: Literal[
        "inspect",
        "render",
        "api_surface",
        "definition_json",
        "default_components",
        "component_handler",
        "result_contents",
    ]
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
    outcome: Literal["success", "error"] = optional()
    usage: RunTokens = optional()
    diagnostics: bool = optional()
    error: HostCallError = optional()


Event = Annotated[
    ModelRequest
    | ModelResponse
    | ToolCall
    | Delivery
    | Delta
    | Inspection
    | Hook
    | Compaction
    | Summary
    | RequestMessages
    | Error
    | Iteration
    | Exit
    | Result
    | HostCall
    | Probe,
    Field(discriminator="type"),
]


class TranscriptEntry(Open):
    role: Literal["user", "assistant", "event", "summary"]
    content: Content = None
    name: str = optional()
    payload: Any = optional()


class Final(Open):
    """The session at the end. Every field is optional: a session whose constructor refused its
    configuration never existed (a bridge to llmz then has no state to report), and ``last_speaker``
    needs the delivery tracking of llmz 1.0.2."""

    status: Literal["idle", "pending", "active"] = optional()
    last_speaker: Literal["user", "assistant", "none", "unknown"] = optional()
    transcript: list[TranscriptEntry] = optional()
    messages: list[Message] = optional()
    pending: int = optional()
    variables: list[str] = optional()


class LlmzRecord(Open):
    events: list[Event]
    final: Final = Field(default_factory=Final)
