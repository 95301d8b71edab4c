"""The llmz scenario vocabulary: what ``setup`` may configure and which ``steps`` exist.

Theory of operation: ``setup`` describes the host application once (its tools with declarative
behaviours, exits, chat components and handlers, model limits, session compaction controls and default
execute options). ``steps`` then drive one ``Session`` through time: append input, execute in worker or
chat mode, save and restore the session, compact it. Field names are snake_case versions of the llmz API
names (``require_chat_response`` is ``options.requireChatResponse``), so a bridge to the real runtime can
map them one to one. The record each step produces is described in ``spec/protocol/records/llmz.md``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, StrictInt, model_validator

from conformance.scenario.common import Strict
from conformance.scenario.invalid import (
    ASCII_IDENTIFIER_PATTERN,
    MAX_SAFE_INTEGER,
    Invalid,
    is_ascii_identifier,
    is_js_identifier_name,
    is_safe_integer,
    refusable,
)

JsonSchema = dict[str, Any]

TEXT_NAMES = ("text", "message")
"""llmz.components.reserved-text-names: the documented examples of names kept for assistant text."""

MaxTokens = Annotated[
    Annotated[StrictInt, Field(ge=1, le=MAX_SAFE_INTEGER)] | Invalid,
    refusable(
        "llmz.budget.max-tokens.positive-safe-integer",
        "a positive safe integer",
        lambda value: is_safe_integer(value, 1),
    ),
]
"""``options.maxTokens``: 1 to 2^53 - 1, or a marked invalid value."""

ResultBudget = Annotated[
    Annotated[StrictInt, Field(ge=0, le=2000)] | Invalid,
    refusable(
        "llmz.inspection.tool-result-range",
        "an integer from 0 to 2000",
        lambda value: is_safe_integer(value, 0, 2000),
    ),
]
"""``options.toolResultMaxTokens``: 0 to 2,000 (a nonnegative safe integer), or a marked invalid value."""

DisplayBudget = Annotated[
    Annotated[StrictInt, Field(ge=0, le=MAX_SAFE_INTEGER)] | Invalid,
    refusable(
        "llmz.inspection.budget-integers",
        "a nonnegative safe integer",
        lambda value: is_safe_integer(value, 0),
    ),
]
"""A ``truncate`` budget: 0 to 2^53 - 1, or a marked invalid value."""

ComponentName = Annotated[
    Annotated[
        str, Field(pattern=ASCII_IDENTIFIER_PATTERN, json_schema_extra={"not": {"enum": list(TEXT_NAMES)}})
    ]
    | Invalid,
    refusable(
        "llmz.components.exact-identifier, llmz.components.reserved-text-names",
        "a JavaScript identifier other than the reserved text names text and message",
        lambda value: is_ascii_identifier(value) and value not in TEXT_NAMES,
        # Unicode identifiers are valid JavaScript but not written here; they cannot be marked invalid.
        lambda value: not is_js_identifier_name(value) or value in TEXT_NAMES,
    ),
]
"""A component name: an exact identifier, not ``text`` or ``message``; or a marked invalid name."""


class ThinkSignalSpec(Strict):
    """The handler produces ``new ThinkSignal(reason, context)`` instead of plain data."""

    reason: str = Field(min_length=1)
    context: Any = Field(default=None, description="The successful result the model must inspect.")
    via: Literal["return", "throw"] = Field(
        default="return", description="Whether the handler returns the signal or throws it."
    )


class TruncateSpec(Strict):
    """The handler wraps its result in ``truncate({ value, maxTokens, preserve })``: the program still gets
    the whole value; only previews shown to the model use this budget."""

    max_tokens: DisplayBudget = Field(description="Nonnegative safe integer; 0 hides the preview.")
    preserve: Literal["top", "bottom", "both"] = "top"


class AppendMessage(Strict):
    """One input for ``session.append``. Deliberately loose: invalid input must be expressible so that
    scenarios can check it is rejected (INVALID_MESSAGE / INVALID_EVENT)."""

    role: Any
    content: Any = None
    name: Any = None
    payload: Any = None


class SessionProbe(Strict):
    """The handler uses the session while the run holds it, and resolves with what happened: for
    ``to_json`` and ``execute`` ``{ok: true}`` or ``{error: <code>}`` (the operation threw that code),
    for ``status`` the status string, for ``append`` ``{ok: true}`` or ``{error: <code>}`` after
    appending ``messages``; ``compact`` and ``summarize`` call ``session.compact()`` /
    ``session.summarize()`` and resolve like ``to_json``."""

    op: Literal["to_json", "execute", "status", "append", "compact", "summarize"]
    messages: list[AppendMessage] = Field(default_factory=list, description="For `append`: the batch.")


_BEHAVIOURS = ("returns", "returns_input", "throws", "think_signal", "hangs", "cancels", "session_probe")


class ToolBehaviour(Strict):
    """What the tool's handler does on each call. Exactly one of the main behaviours is given;
    ``fail_first`` optionally makes the first N calls throw before the main behaviour applies."""

    returns: Any = Field(default=None, description="Resolve with this value.")
    returns_input: bool | None = Field(default=None, description="Resolve with the parsed input.")
    throws: str | None = Field(default=None, description="Reject with an Error carrying this message.")
    think_signal: ThinkSignalSpec | None = None
    hangs: bool | None = Field(default=None, description="Never settle (the execute timeout then aborts).")
    cancels: str | None = Field(
        default=None, description="The host cancels the run (its abort signal fires) with this reason."
    )
    session_probe: SessionProbe | None = Field(
        default=None, description="Use the session from inside the running handler (see SessionProbe)."
    )
    truncate: TruncateSpec | None = Field(
        default=None, description="Display budget for the successful result (or the signal's context)."
    )
    fail_first: int = Field(default=0, ge=0, description="The first N calls throw `fail_message`.")
    fail_message: str = "temporary failure"

    @model_validator(mode="after")
    def _exactly_one(self) -> ToolBehaviour:
        given = [name for name in _BEHAVIOURS if name in self.model_fields_set]
        if len(given) != 1:
            raise ValueError(
                f"a tool behaviour needs exactly one of {', '.join(_BEHAVIOURS)}; got {given or 'none'}"
            )
        return self


class ToolSpec(Strict):
    """A host ``Tool``: name, JSON Schemas and a declarative handler."""

    name: str = Field(pattern=r"^[A-Za-z_$][A-Za-z0-9_$]*$")
    description: str = ""
    input: JsonSchema = Field(default_factory=lambda: {"type": "object"}, description="Input JSON Schema.")
    output: JsonSchema | None = Field(default=None, description="Output JSON Schema (documentation only).")
    behaviour: ToolBehaviour
    retries: int = Field(
        default=0, ge=0, description="Extra handler attempts after a failure (retry policy)."
    )


class ExitSpec(Strict):
    """A named completion. ``schema`` absent means any payload (or none) is accepted."""

    name: str = Field(pattern=r"^[A-Za-z_$][A-Za-z0-9_$]*$")
    description: str = ""
    schema_: JsonSchema | None = Field(default=None, alias="schema")


class ComponentSpec(Strict):
    """A chat ``Component``: exact JavaScript method name, props schema and handler behaviour."""

    name: ComponentName
    description: str = ""
    props: JsonSchema = Field(default_factory=lambda: {"type": "object"})
    handler: Literal["ok", "fail", "none"] = Field(
        default="ok", description="ok acknowledges delivery; fail throws; none means no handler is bound."
    )


class ObjectProperty(Strict):
    """One property of a registered object."""

    name: str = Field(pattern=r"^[A-Za-z_$][A-Za-z0-9_$]*$")
    value: Any = Field(default=None, description="Initial value, taken as already normalised.")
    schema_: JsonSchema | None = Field(default=None, alias="schema", description="Schema for assignments.")
    writable: bool = False


class ObjectSpec(Strict):
    """A registered object: a global whose properties are host-backed (``new ObjectInstance``)."""

    name: str = Field(pattern=r"^[A-Za-z_$][A-Za-z0-9_$]*$")
    description: str = ""
    properties: list[ObjectProperty] = Field(default_factory=list)


class ChatSpec(Strict):
    """The ``Chat`` configuration used by chat-mode executions."""

    text_handler: Literal["ok", "fail", "none"] = Field(
        default="ok", description="`response.handler` for assistant text: acknowledges, throws, or is absent."
    )
    components: list[ComponentSpec] = Field(default_factory=list)
    on_delta: Literal["none", "observe", "throw"] = Field(
        default="none",
        description="`response.onDelta`: absent, gets the script's `chunks` as previews, or throws on each.",
    )


class AfterToolHook(Strict):
    """``onAfterTool`` for one tool: replace its successful output, or reject it."""

    tool: str = Field(min_length=1)
    replace_output: Any = Field(default=None, description="The output the hook substitutes.")
    reject: str | None = Field(default=None, description="Reject the output with this message (HOOK_FAILED).")
    abort: str | None = Field(
        default=None, description="Abort the run through the hook's abort controller, with this reason."
    )

    @model_validator(mode="after")
    def _one_action(self) -> AfterToolHook:
        given = [name for name in ("replace_output", "reject", "abort") if name in self.model_fields_set]
        if len(given) != 1:
            raise ValueError(
                "an after_tool hook needs exactly one of replace_output, reject, abort; "
                f"got {given or 'none'}"
            )
        return self


class BeforeToolHook(Strict):
    """``onBeforeTool`` for one tool: the handler receives ``replace_input`` instead of the model's input."""

    tool: str = Field(min_length=1)
    replace_input: Any = Field(description="The input the hook substitutes.")


class RequestMessage(Strict):
    role: Literal["user", "assistant"]
    content: str


class BeforeRequestHook(Strict):
    """``onBeforeRequest`` returns the request's messages with ``append`` added at the end."""

    append: list[RequestMessage] = Field(min_length=1)
    from_call: int = Field(
        default=1, ge=1, description="Only requests whose `call` number is at least this get the messages."
    )


class OnInspectHook(Strict):
    """``onInspect`` for every preview: ``default`` returns undefined, ``replace`` returns ``text``,
    ``throw`` throws an Error (message ``text``), ``mutate`` changes the object it was given (clears it
    and sets ``mutated: true``) and returns undefined."""

    action: Literal["default", "replace", "throw", "mutate"]
    text: str = ""


ObserverBehaviour = Literal["none", "observe", "throw"]


class HooksSpec(Strict):
    """Execution hooks the host installs. Observers (``on_iteration_start``, ``on_iteration_end``,
    ``on_trace``) are absent (``none``), record that they ran (``observe``), or throw an ordinary Error
    every time they are called (``throw``)."""

    on_exit: Literal["none", "accept", "reject"] = Field(
        default="none", description="`onExit`: absent, observes and accepts, or rejects the completion."
    )
    after_tool: list[AfterToolHook] = Field(
        default_factory=list, description="`onAfterTool` behaviour per tool; tools not listed are left alone."
    )
    before_tool: list[BeforeToolHook] = Field(
        default_factory=list, description="`onBeforeTool` input replacement per tool."
    )
    on_inspect: OnInspectHook | None = Field(default=None, description="`onInspect` for every preview.")
    before_request: BeforeRequestHook | None = Field(
        default=None, description="`onBeforeRequest`: messages added to every request (not to history)."
    )
    before_execution: str | None = Field(
        default=None, description="`onBeforeExecution` returns this code, which runs instead of the model's."
    )
    on_iteration_start: ObserverBehaviour = "none"
    on_iteration_end: ObserverBehaviour = "none"
    on_trace: ObserverBehaviour = Field(
        default="none", description="`onTrace`: called after every tool call and delivery."
    )


class ModelSpec(Strict):
    """A model's details: its input window and maximum output, in tokens."""

    id: str = Field(min_length=1)
    input_tokens: int = Field(gt=0)
    output_tokens: int = Field(gt=0)


class CompactionSpec(Strict):
    """Serializable session compaction controls (``new Session({ compaction })``)."""

    trigger_ratio: float = Field(default=0.85, gt=0, le=1)
    target_ratio: float = Field(default=0.65, ge=0, le=1)  # 0 is given so the runtime can refuse it
    keep_recent_iterations: int = Field(default=2, ge=0)
    max_summary_tokens: int = Field(default=1024, gt=0)
    model: str | None = None


class ExecuteOptions(Strict):
    """``execute({ options })``. Unset fields fall back to the setup defaults, then the runtime's."""

    loop: int | None = Field(default=None, gt=0, description="Maximum model iterations for this execute.")
    timeout: str | int | None = Field(
        default=None, description="JavaScript execution bound: milliseconds or a duration like '30s'."
    )
    require_chat_response: bool | None = None
    max_tokens: MaxTokens | None = Field(default=None, description="`options.maxTokens`: context window cap.")
    tool_result_max_tokens: ResultBudget | None = Field(
        default=None, description="`options.toolResultMaxTokens`: the result preview budget."
    )


class MemorySpec(Strict):
    """``new Session({ variables, maxBytes })``: initial named variables and the memory limit."""

    variables: dict[str, Any] = Field(default_factory=dict, description="Initial variables (JSON values).")
    max_bytes: int | None = Field(default=None, gt=0, description="`maxBytes`; absent means the default.")


class Setup(Strict):
    """System configuration for one llmz scenario."""

    tools: list[ToolSpec] = Field(default_factory=list)
    objects: list[ObjectSpec] = Field(default_factory=list, description="Registered objects.")
    exits: list[ExitSpec] = Field(default_factory=list)
    chat: ChatSpec = Field(default_factory=ChatSpec)
    hooks: HooksSpec = Field(default_factory=HooksSpec)
    models: list[ModelSpec] = Field(
        default_factory=lambda: [ModelSpec(id="scripted", input_tokens=128_000, output_tokens=16_384)],
        description="The configured model, or an ordered fallback list.",
    )
    compaction: CompactionSpec | Literal[False] = Field(
        default_factory=CompactionSpec, description="Session compaction controls, or false to disable."
    )
    options: ExecuteOptions = Field(default_factory=ExecuteOptions, description="Defaults for every execute.")
    memory: MemorySpec = Field(default_factory=MemorySpec, description="Session memory options.")


class AppendStep(Strict):
    """``session.append(messages)``: the whole batch is validated before any of it is queued."""

    op: Literal["append"]
    messages: list[AppendMessage] = Field(min_length=1)


class ExecuteStep(Strict):
    """``execute({ session, instructions, exits, chat?, options })``."""

    op: Literal["execute"]
    mode: Literal["worker", "chat"]
    instructions: str = ""
    exits: list[str] | None = Field(
        default=None,
        description="Names of setup exits to pass. Absent: every setup exit (a worker with none gets "
        "DefaultExit). An explicit empty list passes no exits.",
    )
    options: ExecuteOptions = Field(default_factory=ExecuteOptions)


class SaveAndRestoreStep(Strict):
    """``Session.fromJSON(JSON.parse(JSON.stringify(session.toJSON())))``, replacing the session."""

    op: Literal["save_and_restore"]
    drop_delivery_tracking: bool = Field(
        default=False, description="Remove the delivery-tracking state first, like a snapshot from before it."
    )
    unknown_version: bool = Field(
        default=False, description="Replace the snapshot's format version with one the runtime cannot know."
    )


class CompactStep(Strict):
    """``session.compact({ keepRecentIterations })``: summarize and replace older history now."""

    op: Literal["compact"]
    keep_recent_iterations: int | None = Field(default=None, ge=0)


class SummarizeStep(Strict):
    """``session.summarize()``: a read-only summary; the conversation is unchanged."""

    op: Literal["summarize"]


Step = Annotated[
    AppendStep | ExecuteStep | SaveAndRestoreStep | CompactStep | SummarizeStep,
    Field(discriminator="op"),
]
