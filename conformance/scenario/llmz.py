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

from conformance.scenario.common import CaseBase, Strict
from conformance.scenario.invalid import (
    ASCII_IDENTIFIER_PATTERN,
    MAX_SAFE_INTEGER,
    Invalid,
    is_ascii_identifier,
    is_js_identifier_name,
    is_safe_integer,
    refusable,
)
from conformance.scenario.llmz_host import (
    ApiSurfaceStep,
    DefaultComponentsStep,
    DefinitionJsonStep,
    InspectStep,
    LegacyChatSpec,
    LegacyExecuteSpec,
    RenderStep,
    ResponseSpec,
    ResultContentsStep,
    ToolCloneSpec,
)
from conformance.scenario.llmz_probes import ProbeStep

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

RESULT_BUDGET_MAX = 2000
"""llmz.inspection.tool-result-range: the vocabulary refuses a larger budget unless marked invalid; the
reference owns the same limit, and tests/test_defaults_agree.py checks both against the rule's params."""

ResultBudget = Annotated[
    Annotated[StrictInt, Field(ge=0, le=RESULT_BUDGET_MAX)] | Invalid,
    refusable(
        "llmz.inspection.tool-result-range",
        f"an integer from 0 to {RESULT_BUDGET_MAX}",
        lambda value: is_safe_integer(value, 0, RESULT_BUDGET_MAX),
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
    preserve: Literal["top", "bottom", "both"] | None = Field(
        default=None, description="Omitted: the runtime's default side."
    )


class AppendMessage(Strict):
    """One input for ``session.append``. Deliberately loose: invalid input must be expressible so that
    scenarios can check it is rejected (INVALID_MESSAGE / INVALID_EVENT)."""

    role: Any
    content: Any = None
    name: Any = None
    payload: Any = None
    attachments: Any = Field(
        default=None, description="Convenience attachments (`[{type: image|audio, url, id?, alt?}]`)."
    )
    modality: Any = Field(default=None, description="Convenience modality (`text` or `voice`).")


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
    ``fail_first`` optionally makes the first N calls throw, or ``cancel_first`` makes them cancel the run,
    before the main behaviour applies. A call that differs from the later ones is how a scenario sees
    whether the runtime called the handler again (a retry after a cancellation shows the later answer)."""

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
    cancel_first: int = Field(
        default=0,
        ge=0,
        description="The first N calls cancel the run as `cancels` does, with `cancel_reason`; "
        "not combined with `fail_first`.",
    )
    cancel_reason: str = "cancelled"

    @model_validator(mode="after")
    def _exactly_one(self) -> ToolBehaviour:
        given = [name for name in _BEHAVIOURS if name in self.model_fields_set]
        if len(given) != 1:
            raise ValueError(
                f"a tool behaviour needs exactly one of {', '.join(_BEHAVIOURS)}; got {given or 'none'}"
            )
        if self.fail_first and self.cancel_first:
            raise ValueError("give fail_first or cancel_first, not both: which comes first is not defined")
        return self


class RefineSpec(Strict):
    """A refinement: the value is refused (an issue at ``[field]`` with ``message``) when its property
    ``field`` equals ``forbid``."""

    field: str = Field(min_length=1)
    forbid: Any
    message: str = Field(min_length=1)


_EFFECTS = ("trim", "refine", "assign", "replace", "throws", "counts")


class SchemaEffect(Strict):
    """One JavaScript effect of a schema (zod's ``.trim()``, ``.refine()``/``.superRefine()``,
    ``.transform()``), run in order after the JSON Schema accepted the value. Exactly one kind:
    ``trim`` trims that string property of the root object; ``refine`` (see RefineSpec); ``assign`` returns
    a copy of the object with these properties set; ``replace`` returns this value instead; ``throws`` is a
    callback that throws an Error with this message (not an issue); ``counts`` sets that property to how
    many times this effect has run. ``async`` makes the callback asynchronous."""

    trim: str | None = Field(default=None, min_length=1)
    refine: RefineSpec | None = None
    assign: dict[str, Any] | None = None
    replace: Any = None
    throws: str | None = Field(default=None, min_length=1)
    counts: str | None = Field(default=None, min_length=1)
    async_: bool = Field(default=False, alias="async")

    @model_validator(mode="after")
    def _exactly_one(self) -> SchemaEffect:
        given = [name for name in _EFFECTS if name in self.model_fields_set]
        if len(given) != 1:
            raise ValueError(
                f"a schema effect needs exactly one of {', '.join(_EFFECTS)}; got {given or 'none'}"
            )
        return self


Effects = list[SchemaEffect]


class ToolSpec(Strict):
    """A host ``Tool``: name, JSON Schemas and a declarative handler."""

    name: str = Field(pattern=r"^[A-Za-z_$][A-Za-z0-9_$]*$")
    description: str = ""
    input: JsonSchema = Field(default_factory=lambda: {"type": "object"}, description="Input JSON Schema.")
    output: JsonSchema | None = Field(default=None, description="Output JSON Schema (documentation only).")
    input_effects: Effects = Field(default_factory=list, description="Effects of the input schema.")
    output_effects: Effects = Field(default_factory=list, description="Effects of the output schema.")
    behaviour: ToolBehaviour | None = Field(
        default=None, description="What the handler does; required unless `handler` is `missing`."
    )
    handler: Literal["given", "missing"] = Field(
        default="given",
        description="`missing`: the Tool is defined with no handler at all, a definition the guide makes "
        "invalid (a Tool has a name and an async handler; llmz.errors.invalid-tool). `behaviour` is then "
        "not given.",
    )
    retries: int | None = Field(
        default=None, ge=0, description="Extra handler attempts after a failure; omitted: the runtime's."
    )
    from_iteration: int = Field(
        default=1,
        ge=1,
        description="When any tool sets this above 1, the tools are given as a getter: evaluated for "
        "iteration N of an execute (N = model calls made in that execute so far, plus one), it returns the "
        "tools whose from_iteration is at most N.",
    )

    @model_validator(mode="after")
    def _behaviour_with_handler(self) -> ToolSpec:
        if self.handler == "given" and self.behaviour is None:
            raise ValueError(f"tool {self.name}: a tool with a handler needs a `behaviour`")
        if self.handler == "missing" and self.behaviour is not None:
            raise ValueError(f"tool {self.name}: `handler: missing` has no handler, so no `behaviour`")
        return self


class ExitSpec(Strict):
    """A named completion. ``schema`` absent means any payload (or none) is accepted."""

    name: str = Field(pattern=r"^[A-Za-z_$][A-Za-z0-9_$]*$")
    description: str = ""
    schema_: JsonSchema | None = Field(default=None, alias="schema")
    effects: Effects = Field(default_factory=list, description="Effects of the payload schema.")


class ComponentSpec(Strict):
    """A chat ``Component``: exact JavaScript method name, props schema and handler behaviour."""

    name: ComponentName
    description: str = ""
    props: JsonSchema = Field(default_factory=lambda: {"type": "object"})
    effects: Effects = Field(default_factory=list, description="Root effects of the props schema.")
    handler: Literal["ok", "fail", "none"] = Field(
        default="ok", description="ok acknowledges delivery; fail throws; none means no handler is bound."
    )
    bind: Literal["definition", "with_handler"] = Field(
        default="definition",
        description="`with_handler`: define the component without a handler and register "
        "`definition.withHandler(handler)` (llmz.components.with-handler); the definition stays unbound.",
    )
    report_metadata: bool = Field(
        default=False,
        description="The handler records a `probe` event saying whether its metadata carried a non-empty "
        "message id (llmz.components.handler-metadata).",
    )
    aliases: list[str] | None = Field(
        default=None,
        description="Passed as the component's `aliases` option, which the documents removed "
        "(llmz.components.no-aliases-or-metadata): the runtime may refuse it or ignore it.",
    )


class ObjectProperty(Strict):
    """One property of a registered object."""

    name: str = Field(pattern=r"^[A-Za-z_$][A-Za-z0-9_$]*$")
    value: Any = Field(default=None, description="Initial value, taken as already normalised.")
    schema_: JsonSchema | None = Field(default=None, alias="schema", description="Schema for assignments.")
    effects: Effects = Field(default_factory=list, description="Effects of the assignment schema.")
    writable: bool | None = Field(default=None, description="Omitted: the runtime's default (read-only).")


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
    on_delta: Literal["none", "observe", "throw", "throw_on_restart"] = Field(
        default="none",
        description=(
            "`response.onDelta`: absent, gets the script's `chunks` as previews, throws on each event, or "
            "throws only on a restart (retraction) event."
        ),
    )
    legacy: LegacyChatSpec | None = Field(
        default=None, description="Removed Chat options, handed over as written (see LegacyChatSpec)."
    )
    response: ResponseSpec | None = Field(
        default=None,
        description="`Chat.response` as a preset name or a preset object (llmz.components.response-options); "
        "omitted: `{handler, onDelta}` as the fields above say.",
    )


class AfterToolHook(Strict):
    """``onAfterTool`` for one tool: replace its successful output, or reject it."""

    tool: str = Field(min_length=1)
    replace_output: Any = Field(default=None, description="The output the hook substitutes.")
    reject: str | None = Field(default=None, description="Reject the output with this message (HOOK_FAILED).")
    abort: str | None = Field(
        default=None, description="Abort the run through the hook's abort controller, with this reason."
    )
    think_signal: str | None = Field(
        default=None,
        min_length=1,
        description="Throw `new ThinkSignal(reason)` from the hook, which only a tool handler may produce.",
    )

    @model_validator(mode="after")
    def _one_action(self) -> AfterToolHook:
        actions = ("replace_output", "reject", "abort", "think_signal")
        given = [name for name in actions if name in self.model_fields_set]
        if len(given) != 1:
            raise ValueError(
                "an after_tool hook needs exactly one of replace_output, reject, abort, think_signal; "
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
    """``onBeforeRequest`` returns the request's messages with ``append`` added at the end. With
    ``mutate`` it first changes, in place, the messages it was handed: every string under a ``content`` or
    ``code`` key, at any depth, becomes ``changed by onBeforeRequest``; without ``append`` it then returns
    undefined."""

    append: list[RequestMessage] = Field(default_factory=list)
    mutate: bool = False
    from_call: int = Field(
        default=1, ge=1, description="Only requests whose `call` number is at least this get the messages."
    )

    @model_validator(mode="after")
    def _does_something(self) -> BeforeRequestHook:
        if not self.append and not self.mutate:
            raise ValueError("a before_request hook needs messages to append, or mutate: true")
        return self


class OnInspectHook(Strict):
    """``onInspect`` for every preview: ``default`` returns undefined, ``replace`` returns ``text``,
    ``throw`` throws an Error (message ``text``), ``mutate`` changes the object it was given (clears it
    and sets ``mutated: true``) and returns undefined. With ``record`` each call the runtime makes is also
    recorded as a ``hook`` event with the ``purpose`` and ``identity`` it was given
    (llmz.inspection.on-inspect-context). With ``when`` the action applies only to values that contain that
    text, so a scenario can tell whose preview a hook's answer ended up on."""

    action: Literal["default", "replace", "throw", "mutate"]
    text: str = ""
    record: bool = Field(
        default=False,
        description="Record each call as a `hook` event `onInspect` with its purpose and identity.",
    )
    when: str | None = Field(
        default=None,
        min_length=1,
        description="Act only on a value whose JSON text contains this string (a plain marker: JSON writers "
        "space separators differently); any other value is left to the default formatter (undefined). "
        "Omitted: act on every value.",
    )


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
    iteration_start_returns: str | None = Field(
        default=None,
        min_length=1,
        description="`onIterationStart` (with on_iteration_start observe) returns `{instructions: <this>}`, "
        "an "
        "iteration change the previous API applied and the current one must not "
        "(llmz.migration.iteration-start-no-mutation).",
    )
    on_iteration_end: ObserverBehaviour = "none"
    on_trace: ObserverBehaviour = Field(
        default="none", description="`onTrace`: called after every tool call and delivery."
    )


class ModelSpec(Strict):
    """A model's details: its input window and maximum output, in tokens."""

    id: str = Field(min_length=1)
    input_tokens: int = Field(gt=0)
    output_tokens: int = Field(gt=0)
    audio: bool | None = Field(
        default=None,
        description="Whether the model takes audio input natively (false: audio goes to the transcription "
        "model, llmz.configuration.transcription-model); unset: what the runtime knows of the model.",
    )


class SummarizeCallback(Strict):
    """``compaction.summarize({ messages, maxTokens, signal })`` as the host writes it: it resolves with
    ``returns`` (llmz.compaction.custom-summarize)."""

    returns: str = Field(description="The summary text the callback resolves with.")


class CompactionSpec(Strict):
    """Serializable session compaction controls (``new Session({ compaction })``)."""

    trigger_ratio: float | None = Field(
        default=None, gt=0, le=1, description="Omitted: llmz.compaction.trigger-ratio."
    )
    target_ratio: float | None = Field(  # 0 is allowed so the runtime's own refusal is what is tested
        default=None, ge=0, le=1, description="Omitted: llmz.compaction.target-ratio."
    )
    keep_recent_iterations: int | None = Field(
        default=None, ge=0, description="Omitted: llmz.compaction.keep-recent-iterations."
    )
    max_summary_tokens: int | None = Field(
        default=None, gt=0, description="Omitted: llmz.compaction.max-summary-tokens."
    )
    model: str | None = None
    summarize: SummarizeCallback | None = Field(
        default=None,
        description="`compaction.summarize`: a host callback that writes the summary instead of the model "
        "(not serializable; a bridge passes it again to `fromJSON`).",
    )


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
    mid_stream_fallback: bool | None = Field(
        default=None, description="`options.midStreamFallback`: restart a broken stream on the next model."
    )
    transcription_model: str | None = Field(
        default=None,
        min_length=1,
        description="`options.transcriptionModel`: the model that transcribes audio input for a model "
        "without native audio support.",
    )
    max_time_to_first_token: int | None = Field(
        default=None,
        gt=0,
        description="`options.maxTimeToFirstToken`, passed as written: the documents give no unit "
        "(llmz.configuration.streaming-options), so scenarios pick values that hold under every reading.",
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
    models: list[ModelSpec] | None = Field(
        default=None,
        description="The configured model, or an ordered fallback list; omitted: the runtime's default.",
    )
    compaction: CompactionSpec | Literal[False] = Field(
        default_factory=CompactionSpec, description="Session compaction controls, or false to disable."
    )
    options: ExecuteOptions = Field(default_factory=ExecuteOptions, description="Defaults for every execute.")
    memory: MemorySpec = Field(default_factory=MemorySpec, description="Session memory options.")
    tool_clones: list[ToolCloneSpec] = Field(
        default_factory=list, description="Tools registered as clones of a setup tool, in its place."
    )
    record_context_tokens: bool = Field(
        default=False,
        description="The host reads each iteration's `tokens.context` (the measured request by category, "
        "with `total`) and the record carries it as the `iteration` event's `tokens.context` "
        "(llmz.budget.context-tokens.*). Off by default so records stay small.",
    )


CHANGED_TEXT = "changed after append"
"""What ``mutate_after`` and ``tamper_accessors`` write into the caller's objects."""


NonJson = Literal["cycle", "bytes"]
"""What ``append.non_json`` puts into the first message's payload."""


class AppendStep(Strict):
    """``session.append(messages)``: the whole batch is validated before any of it is queued."""

    op: Literal["append"]
    messages: list[AppendMessage] = Field(min_length=1)
    single: bool = Field(
        default=False,
        description="Pass the one message itself rather than an array of one "
        "(llmz.sessions.append-accepted-shapes); `messages` must then hold exactly one message.",
    )
    mutate_after: bool = Field(
        default=False,
        description="After append returns, change the objects that were passed (llmz.sessions.input-copied): "
        f"a string content becomes {CHANGED_TEXT!r}, so does the text of every text part, and an object "
        "payload gains `changed: true`.",
    )

    non_json: NonJson | None = Field(
        default=None,
        description="Before appending, put a value JSON cannot hold into the first message's object "
        "`payload` (llmz.persistence.plain-json-only): `cycle` makes the payload refer to itself under "
        "`self`; `bytes` sets `payload.data` to the binary value [1, 2, 3] (a `Uint8Array` in JavaScript, "
        "`bytes` in Python).",
    )

    @model_validator(mode="after")
    def _single_is_one(self) -> AppendStep:
        if self.single and len(self.messages) != 1:
            raise ValueError(f"append.single passes one message; got {len(self.messages)}")
        if self.non_json is not None and not isinstance(self.messages[0].payload, dict):
            raise ValueError("append.non_json needs an object `payload` on the first message to put it in")
        return self


class TamperAccessorsStep(Strict):
    """Read ``session.transcript``, ``session.messages`` and ``session.pendingMessages`` and change what they
    returned, the same way ``append.mutate_after`` changes input, plus one extra element pushed onto each list
    (llmz.sessions.accessors-return-copies). Records nothing itself."""

    op: Literal["tamper_accessors"]


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
    give_up_after: str | int | None = Field(
        default=None,
        description=(
            "How long a host that runs the program in real time (the llmz-node bridge) waits for this "
            "execute to return before it stops waiting and reports a hang, the case's error: milliseconds "
            "or a duration like '1s'. A scenario about a timeout sets it a little above that timeout, so a "
            "runtime that ignores the timeout costs the run that long, not the host's default. Not an llmz "
            "option; the reference plays time without waiting and has nothing to give up on. Absent: the "
            "host's own limit."
        ),
    )
    legacy: LegacyExecuteSpec | None = Field(
        default=None, description="Removed execute options, handed over as written (see LegacyExecuteSpec)."
    )
    session: Literal["given", "omitted"] = Field(
        default="given",
        description="`omitted`: call execute without a session (llmz.sessions.fresh-session-when-omitted); "
        "`result.session` then replaces the session the later steps use.",
    )


Tamper = Literal[
    "drop_tool_result",
    "duplicate_call_id",
    "reverse_iterations",
    "malformed_result",
    "malformed_property",
    "over_capacity",
]
"""How ``save_and_restore.tamper`` breaks a snapshot."""


class SaveAndRestoreStep(Strict):
    """``Session.fromJSON(JSON.parse(JSON.stringify(session.toJSON())))``, replacing the session."""

    op: Literal["save_and_restore"]
    drop_delivery_tracking: bool = Field(
        default=False, description="Remove the delivery-tracking state first, like a snapshot from before it."
    )
    unknown_version: bool = Field(
        default=False, description="Replace the snapshot's format version with one the runtime cannot know."
    )
    from_result: bool = Field(
        default=False,
        description="Restore from the last execute's `result.toJSON()` instead of `session.toJSON()` "
        "(llmz.migration.result-not-state): a saved result is not conversation state.",
    )
    older_version: bool = Field(
        default=False,
        description="Replace the snapshot's format version with the one before it (llmz.migration."
        "no-automatic-upgrade): state as an older release would have written it, if it wrote this shape.",
    )
    tamper: Tamper | None = Field(
        default=None,
        description="Break the snapshot before restoring it, in the implementation's own format "
        "(llmz.persistence.restore-checks-*): drop the result of the newest tool call; give the newest call "
        "(and its result) the id of the oldest call; swap the two oldest iterations (their messages and "
        "records); give the oldest retained iteration result an encoding the runtime never writes; or lower "
        "the snapshot's memory limit to 1 byte.",
    )


AbortedSignal = Literal["aborted", "aborts_during"]
SIGNAL_DESCRIPTION = (
    "An abort `signal` for the call (llmz.compaction.signal-cancels): `aborted` has already fired; "
    "`aborts_during` fires while the summary is being written (when the summary answer arrives, before the "
    "call returns). Absent: no signal."
)


class CompactStep(Strict):
    """``session.compact({ keepRecentIterations })``: summarize and replace older history now."""

    op: Literal["compact"]
    keep_recent_iterations: int | None = Field(default=None, ge=0)
    signal: AbortedSignal | None = Field(default=None, description=SIGNAL_DESCRIPTION)


class SummarizeStep(Strict):
    """``session.summarize()``: a read-only summary; the conversation is unchanged."""

    op: Literal["summarize"]
    signal: AbortedSignal | None = Field(default=None, description=SIGNAL_DESCRIPTION)


class IterationRef(Strict):
    """An iteration as the record names it: the ``execute`` step it ran in and its index there (both
    1-based). A bridge maps it to the runtime's own iteration id."""

    execution: int = Field(ge=1)
    index: int = Field(ge=1)


class RequestMessagesStep(Strict):
    """``session.requestMessages({ memory?, retainedIterationIds? })``: records what it returns as a
    ``request_messages`` event; the session is not changed (llmz.sessions.request-messages-*,
    llmz.compaction.request-messages-preview)."""

    op: Literal["request_messages"]
    memory: bool | None = Field(default=None, description="`memory`; absent: not passed (the default).")
    retained_iterations: list[IterationRef] | None = Field(
        default=None, description="`retainedIterationIds` (preview a pruning to these); absent: not passed."
    )


class PruneStep(Strict):
    """``session.prune(retainedIterationIds)``: keep these complete iterations and delete the rest of the
    compactable history, with no summary (llmz.compaction.prune)."""

    op: Literal["prune"]
    retained_iterations: list[IterationRef]


Step = Annotated[
    AppendStep
    | ExecuteStep
    | SaveAndRestoreStep
    | CompactStep
    | SummarizeStep
    | TamperAccessorsStep
    | InspectStep
    | RenderStep
    | ApiSurfaceStep
    | DefinitionJsonStep
    | DefaultComponentsStep
    | ResultContentsStep
    | RequestMessagesStep
    | PruneStep
    | ProbeStep,
    Field(discriminator="op"),
]


# What an implementation plays; ``conformance.scenario.model`` adds the answer key.
class LlmzCase(CaseBase):
    system: Literal["llmz"]
    setup: Setup = Field(default_factory=Setup)
    steps: list[Step] = Field(min_length=1)
