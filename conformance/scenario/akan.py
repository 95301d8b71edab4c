"""The akan scenario vocabulary: what `setup` may configure and which `steps` exist.

An akan scenario drives one in-page chat session headlessly. ``setup`` describes the page (the tools it
publishes, with declarative results, and the screen context a turn carries), the chat's compaction settings
and the LLM adaptor's capabilities, the app's ``prompt()`` commands and the route the page opens on.
``steps`` are what a user does over time: add files at the paperclip, send a message or a slash command,
write a local note, save the transcript and reload the page, press Stop, let time pass.

A page tool can hold its turn open: one that never settles (``settles: false``) or one that asks the user
a question (``asks``). That is how a scenario puts Stop, ``/new`` or a save between a call and its result.

Sizes that would be unwieldy in YAML are generated: ``filler_chars`` appends a deterministic run of
characters (see :func:`filler`) so a scenario can put an estimate exactly on a threshold.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter, ValidationError, model_validator

from conformance.scenario.common import CaseBase, Strict
from conformance.scenario.invalid import Invalid, refusable

_FILLER_UNIT = "lorem ipsum "


def filler(chars: int) -> str:
    """The generated text every implementation must append for ``filler_chars: N``: N characters, ASCII."""
    repeats = chars // len(_FILLER_UNIT) + 1
    return (_FILLER_UNIT * repeats)[:chars]


class Compact(Strict):
    """The chat's ``compact`` setting."""

    at: int | None = Field(
        default=None, ge=0, description="Threshold in estimated tokens; 0 turns automatic compaction off; "
        "omitted means the documented default."
    )
    keep: int | None = Field(
        default=None, ge=0, description="Newest messages kept beside the summary; omitted means the "
        "implementation's default (the documents give none)."
    )


Scalar = str | int | float


class Accepts(Strict):
    """Attachment kinds the LLM adaptor declares it can read (text is always readable)."""

    image: bool = False
    document: bool = False


class AdaptorAnswer(Strict):
    """What the adaptor's ``chat`` does on one turn request instead of answering with the script."""

    turn: int = Field(ge=1, description="The turn request it answers (1-based; summaries not counted).")
    returns: Literal["null", "err"] = Field(
        description="`null`: the adaptor returns null (no model configured); `err`: it throws an `Err`."
    )
    key: str | None = Field(default=None, description="The thrown Err's dictionary key (for `err`).")
    values: dict[str, Scalar] = Field(
        default_factory=dict, description="The values that key interpolates (`{name}` in its text)."
    )

    @model_validator(mode="after")
    def _key_for_err(self) -> AdaptorAnswer:
        if (self.returns == "err") != (self.key is not None):
            raise ValueError(f"adaptor answer for turn {self.turn}: give `key` exactly when returns is err")
        return self


class LlmSettings(Strict):
    """What ``option.setLlm`` was given (the apiKey is `Provider.api_key`)."""

    model: str | None = None
    host: str | None = None


class OptionFunction(Strict):
    """``setLlm((options) => ...)``: each setting is read from the app's env object under the name given."""

    api_key: str | None = Field(default=None, description="The env name the apiKey is read from.")
    model: str | None = Field(default=None, description="The env name the model is read from.")
    host: str | None = Field(default=None, description="The env name the host is read from.")


class Provider(Strict):
    """The LLM adaptor. Omitted, it is the built-in default (DeepSeek, which accepts neither kind).

    Another `name` is an adaptor applied with ``option.applyAdaptor(LlmAdaptorRole, ...)``.
    """

    name: str | None = Field(
        default=None, min_length=1, description="Omitted: the built-in default adaptor (DeepSeek)."
    )
    settings: LlmSettings | None = Field(
        default=None, description="`setLlm`'s model and host; they reach whichever adaptor holds the role."
    )
    accepts: Accepts | None = Field(
        default=None, description="Omitted means whatever the named provider declares by default."
    )
    api_key: bool = Field(
        default=True, description="false: `setLlm` was given no apiKey (the app still boots)."
    )
    on_delta: bool = Field(
        default=True, description="false: the adaptor ignores `onDelta` and only returns the finished reply."
    )
    from_options: OptionFunction | None = Field(
        default=None, description="`setLlm` given a function of the app's options instead of an object; "
        "then `settings` and `api_key` must be left out (the function supplies them)."
    )

    @model_validator(mode="after")
    def _one_form(self) -> Provider:
        given = {"settings", "api_key"} & self.model_fields_set
        if self.from_options is not None and given:
            raise ValueError(
                f"provider: setLlm takes one form; with `from_options` leave out {sorted(given)}"
            )
        return self
    answers: list[AdaptorAnswer] = Field(
        default_factory=list, description="Turns the adaptor answers with null or a thrown Err; the model "
        "(the script) is not called for them."
    )



class ToolArg(Strict):
    """One ``.arg(name, type)`` step of an ``st.tool`` declaration."""

    name: str = Field(min_length=1)
    type: Literal["string", "integer", "number", "boolean", "enumOf", "model", "Any", "Map"] | None = Field(
        default=None, description="`enumOf` is an enum class (give `values`); `model`, `Any` and `Map` "
        "are types no schema can describe. Omitted: the reference's default type."
    )
    values: list[Scalar] | None = Field(default=None, description="The enum class's values, for enumOf.")
    one_of: list[Scalar] | None = Field(
        default=None, description="The `{ oneOf: [...] }` option: the values this argument may take."
    )
    later_one_of: list[Scalar] | None = Field(
        default=None, description="The `oneOf` list the renders after the first pass (a set that fills in "
        "after the first render, before the chat opens); omitted, every render passes `one_of`."
    )

    @model_validator(mode="after")
    def _values_for_enum(self) -> ToolArg:
        if (self.type == "enumOf") != (self.values is not None):
            raise ValueError(f"arg {self.name!r}: `values` is given exactly when type is enumOf")
        return self


class PageTool(Strict):
    """A tool the page declares (an ``st.tool``), answering every call with a fixed result."""

    name: str | None = Field(
        description="The published name; empty or null declares the tool for the person's click only."
    )
    description: str = ""
    args: list[ToolArg] = Field(default_factory=list, description="The declaration's `.arg` steps, in order.")
    zone: str | None = Field(default=None, description="The zone it is mounted inside; omitted, outside any.")
    shared: bool = Field(default=False, description="Declared with `shared: true`: repeats are one tool.")
    returns: Any = Field(default=None, description="The JSON value each call returns.")
    filler_chars: int = Field(
        default=0, ge=0, description="When > 0, the result is a string of this many generated characters."
    )
    settles: bool = Field(
        default=True, description="false: a call never returns by itself; the turn waits on it until the "
        "user presses Stop or types /new."
    )
    asks: str | None = Field(
        default=None, description="A call opens a question card with this text; the user's next message "
        "is the call's result (`{\"answer\": <text>}`)."
    )
    route: str | None = Field(
        default=None, pattern=r"^/", description="The route (a path prefix) whose page mounts it; omitted, "
        "it is mounted on every route."
    )
    html_after: str | None = Field(
        default=None, description="The page's HTML (`setup.html`) once a call's work commits, a moment "
        "after the body returns (a store action whose fetch lands a tick later); `{filler:N}` works as "
        "there. For a tool that never settles: what its work changes once Stop has left it running."
    )
    on_abort: Literal["ignore", "honour"] = Field(
        default="ignore", description="What the body does with `AgentAbort.current` when Stop ends its turn: "
        "`ignore` runs on (its work lands), `honour` cleans up (its work never lands)."
    )
    chain: Literal["render", "module"] = Field(
        default="render", description="Where `st.tool(...)` and its `.arg` steps are called: `render`, in "
        "the component's render as one statement ending in `.exec(fn)`; `module`, once at module scope "
        "outside any render, the component's render calling only `.exec(fn)` on that chain."
    )

    @model_validator(mode="after")
    def _one_behaviour(self) -> PageTool:
        if self.asks is not None and not self.settles:
            raise ValueError(f"tool {self.name!r}: `asks` and `settles: false` cannot be combined")
        return self


class ReaderResult(Strict):
    """A ``MessageAttachment`` an app reader produces."""

    kind: Literal["image", "text", "document"]
    text: str | None = Field(default=None, description="Extracted text, for kind text or document.")
    data: str | None = Field(default=None, description="Base64 content, for kind image or document.")


class ReaderRule(Strict):
    """One answer of the app's attachment reader: files whose name ends with ``suffix`` read as ``result``."""

    suffix: str = Field(min_length=1)
    result: ReaderResult | None = Field(description="The MessageAttachment returned, or null to decline.")


class File(Strict):
    """A file as the browser hands it over: name, MIME type, size in bytes and (optionally) content."""

    name: str = Field(min_length=1)
    type: str | None = Field(
        default=None, description="MIME type (image/png, text/plain); omitted: the reference's default."
    )
    size: int | None = Field(default=None, ge=0, description="Bytes; defaults to the UTF-8 length of `text`.")
    text: str | None = Field(default=None, description="Content of a text file.")
    data: str | None = Field(default=None, description="Base64 content of a binary file.")

    @model_validator(mode="after")
    def _size_known(self) -> File:
        if self.size is None and self.text is None:
            raise ValueError(f"file {self.name!r}: give `size` (bytes) or `text` (its content)")
        return self

    @property
    def byte_size(self) -> int:
        if self.size is not None:
            return self.size
        return len((self.text or "").encode("utf-8"))


class PromptMessage(Strict):
    """One message a ``prompt()`` endpoint returns: its text and the images it carries (``Msg.image``)."""

    text: str = ""
    images: list[File] = Field(default_factory=list)


class Prompt(Strict):
    """A ``prompt()`` endpoint, reachable as the slash command ``/<name>``; answers with fixed messages."""

    name: str = Field(pattern=r"^[A-Za-z][A-Za-z0-9_-]*$")
    params: list[str] = Field(
        default_factory=list, description="Parameter names, filled in order from the command's arguments; "
        "`{name}` in a message's text is replaced by that argument (empty when not given)."
    )
    messages: list[PromptMessage] = Field(min_length=1)
    allowed: bool = Field(
        default=True, description="false: the guard refuses the prompt's GET (HTTP 403) when it runs."
    )
    desc: str | None = Field(default=None, description="The prompt's dictionary `.desc()`.")


class StateKey(Strict):
    """A store key a mounted component subscribes (`st.use`, `st.sel`, `st.ref`), as its model has it."""

    value: Any = None
    agent: bool = Field(default=True, description="false: subscribed with `{ agent: false }`, kept off.")
    secret: list[str] = Field(
        default_factory=list, description="Fields the model flags `hidden` or `secret`."
    )
    mask: list[str] | None = Field(
        default=None, description="A `mask:` model is named for the key: these fields, and every secret "
        "field, are masked. Omitted: no mask model."
    )
    visual: list[str] = Field(default_factory=list, description="Fields declared with `field.visual`.")
    zone: str | None = Field(default=None, description="The zone its reader is mounted inside.")


class LocalState(Strict):
    """A value a mounted component publishes with ``st.useState(name, initial, meta)`` or ``st.expose``."""

    api: Literal["useState", "expose"]
    name: str | None = Field(description="The published name; empty or null publishes nothing.")
    value: Any = Field(default=None, description="The initial (useState) or derived (expose) value.")
    set: Literal["string", "integer", "number", "boolean", "model", "Any", "Map"] | None = Field(
        default=None, description="useState's `meta.set` type; omitted, the agent may only read it. "
        "`model`, `Any` and `Map` are types no schema can describe."
    )
    zone: str | None = Field(default=None, description="The zone its component is mounted inside.")

    @model_validator(mode="after")
    def _set_on_use_state(self) -> LocalState:
        if self.api == "expose" and self.set is not None:
            raise ValueError(f"st.expose {self.name!r}: only st.useState takes `set`")
        return self


class FormControl(Strict):
    """The control drawing a form field on this screen."""

    type: Literal[
        "text", "number", "phone", "select", "switch", "list", "draggable", "parent", "children", "parentId",
        "childrenId", "textList",
    ] = Field(
        default="text", description="`list` is Field.List; `draggable` is DraggableList (a list the person "
        "can reorder); `textList` is Field.TextList (which renders a DraggableList inside); "
        "`parent` / `children` are Field.Parent / Field.Children (relation pickers, for a "
        "`relation` field); `parentId` / `childrenId` are Field.ParentId / Field.ChildrenId (for a plain "
        "field holding ids)."
    )
    on_change: Literal["reference", "inline"] = Field(
        default="reference", description="`reference`: onChange is the generated setter itself (st.do.set"
        "<Field>On<Model>); `inline`: an arrow function wrapping it."
    )
    disabled: bool = False
    transform: Literal["none", "upper", "lower", "trim", "phone"] | None = Field(
        default=None, description="The control's `transform` prop; omitted, the control's default "
        "(`phone` for a phone field, none otherwise)."
    )


class RelationOption(Strict):
    """One document of a related slice, as a picker lists it."""

    id: str = Field(min_length=1)
    label: str = ""


class FormField(Strict):
    """One field of the form's model."""

    name: str = Field(pattern=r"^[a-z][A-Za-z0-9]*$")
    kind: Literal["plain", "rows", "composite", "relation", "base"] = Field(
        default="plain", description="rows: an array of embedded rows, drawn by its control; composite: a "
        "list, map or embedded object no control draws; base: a base document field. A plain field may hold "
        "an array of primitives."
    )
    flag: Literal["hidden", "secret"] | None = None
    value: Any = None
    control: FormControl | None = Field(default=None, description="Omitted: no control draws it here.")
    options: list[RelationOption] = Field(
        default_factory=list, description="For a relation picker: the related slice's documents, as its "
        "option list loads them."
    )




class PostSet(Strict):
    """A ``_postSet<Field>`` hook on the form's store: it appends the field's new value to an array field."""

    name: str = Field(
        pattern=r"^_postSet[A-Za-z0-9]+$", description="The method's name, e.g. `_postSetTitle`."
    )
    appends_to: str = Field(description="The array field whose generated `add` action the hook calls.")
    shape: Literal["method", "field", "getter"] = Field(
        default="method", description="How the store subclass declares it: a method, or a class field or "
        "getter holding the function."
    )


class Form(Strict):
    """A model form on this screen and its subscriptions (``st.use.<model>Form()``)."""

    model: str = Field(pattern=r"^[A-Z][A-Za-z0-9]*$")
    subscriptions: int | None = Field(
        default=None, ge=0, description="Components subscribing the form; omitted: the reference's default."
    )
    agent: bool = Field(default=True, description="false: subscribed with `{ agent: false }`.")
    fields: list[FormField] = Field(min_length=1)
    post_sets: list[PostSet] = Field(default_factory=list, description="The store's `_postSet` hooks.")


UiComponentType = Literal[
    "Model.NewWrapper", "Model.New", "Model.EditWrapper", "Model.ViewWrapper", "Model.RemoveWrapper",
    "Model.Remove", "Model.SureToRemove", "Tab", "Dialog", "Dropdown", "Model.EditModal", "Model.ViewModal",
    "Model.ViewEditModal", "Data.ListContainer", "Model.AdminPanel", "Load.Units", "Load.Pagination",
    "Data.Pagination", "Layout.Sider", "System.SelectLanguage", "Link.Back", "System.ThemeToggle",
]


class UiComponent(Strict):
    """An ``akanjs/ui`` component mounted on the screen, which publishes its own tools."""

    type: UiComponentType
    namespace: str | None = Field(default=None, pattern=r"^[A-Z][A-Za-z0-9]*$")
    type_name_to_remove: bool = Field(default=False, description="Model.SureToRemove's typeNameToRemove.")
    open: bool = Field(default=False, description="A modal or dropdown that is open when the chat starts.")
    model: str | None = Field(
        default=None, pattern=r"^[A-Z][A-Za-z0-9]*$",
        description="The model a list or pagination component shows (completes a setPageOf-style name).",
    )
    confirm_close: bool = Field(default=False, description="A Dialog whose Dialog.Modal sets confirmClose.")
    on_cancel: bool = Field(default=False, description="A Dialog whose Dialog.Modal registers onCancel.")


class Guide(Strict):
    """An ``Agent.Guide`` rendered by a layout (or page) for the routes under ``layout``, or inside a zone."""

    text: str = Field(min_length=1)
    layout: str = Field(default="/", pattern=r"^/", description="The route prefix whose layout renders it.")
    zone: str | None = Field(default=None, description="The zone it is mounted inside; omitted, outside any.")


GuardSpec = str | list[str] | None


class Caller(Strict):
    """Who is calling the relay: what the app's guards test."""

    signed_in: bool = False
    roles: list[str] = Field(
        default_factory=list, description="Role guards (e.g. `Admin`) this caller passes."
    )


class Relay(Strict):
    """``runAgentTurn`` and ``option.setAgentAccess``.

    A guard is a class name: `Public` passes everyone, `None` no one, `SignedIn` a signed-in caller, and any
    other name a caller holding that role. A list means every guard in it must pass.
    """

    access: GuardSpec = Field(
        default=None, description="The app's `setAgentAccess` argument. Omitted: the app never calls it; "
        "null: it calls `setAgentAccess(null)`."
    )
    library_access: GuardSpec = Field(
        default=None, description="A guard a library set with `setAgentAccess` before the app's option.ts "
        "ran; omitted or null, none."
    )
    served: bool = Field(default=True, description="false: the server runs with AKAN_AGENT=false.")
    caller: Caller = Field(default_factory=Caller)
    accept: str | None = Field(
        default=None, description="The accept header the runner sends; omitted, the default runner's."
    )

    @property
    def app_called(self) -> bool:
        return "access" in self.model_fields_set


class Voice(Strict):
    """The scripted ``VoiceEngine``: what it recognises comes from `mic` steps; speaking takes time."""

    available: bool = Field(default=True, description="What `available()` answers.")
    sentence_ms: int | None = Field(
        default=None, ge=1, description="Virtual time to speak one sentence; omitted: the reference's."
    )


class StoredCall(Strict):
    """One tool call of a stored assistant message."""

    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    arguments: dict[str, Any] = Field(default_factory=dict)


class StoredMessage(Strict):
    """One message of a transcript in web storage, in the provider-neutral shape the record uses."""

    role: Literal["user", "assistant", "tool"]
    content: str = ""
    tool_calls: list[StoredCall] | None = Field(default=None, description="An assistant message's calls.")
    tool_call_id: str | None = Field(default=None, description="The call a tool message answers.")

    @model_validator(mode="after")
    def _fields_of_its_role(self) -> StoredMessage:
        if (self.role == "tool") != (self.tool_call_id is not None):
            raise ValueError("give `tool_call_id` exactly on a tool message")
        if self.tool_calls is not None and self.role != "assistant":
            raise ValueError("only an assistant message has `tool_calls`")
        return self


_STORED: TypeAdapter[list[StoredMessage]] = TypeAdapter(list[StoredMessage])


def stored_messages(value: Any) -> list[StoredMessage] | None:
    """The messages of a stored transcript as written (marked or not), or None when one is malformed."""
    try:
        return _STORED.validate_python(value.invalid if isinstance(value, Invalid) else value)
    except ValidationError:
        return None


def orphan_result(messages: list[StoredMessage]) -> int | None:
    """The index of the first tool result that does not answer a call of the assistant message opening its
    run of results (a result before its call, a result twice, a result of no call), or None."""
    open_calls: set[str] = set()
    for index, message in enumerate(messages):
        if message.role == "tool":
            if message.tool_call_id not in open_calls:
                return index
            open_calls.discard(message.tool_call_id)
        else:
            open_calls = {call.id for call in message.tool_calls or []}
    return None


def _sound(value: Any) -> bool:
    """A transcript a chat could have saved: a call may lack its result (a save taken mid-turn), but a
    result always follows the call it answers. A malformed list counts as sound here, so that the shape
    error, not the marker hint, is what its author sees."""
    messages = stored_messages(value)
    return messages is None or orphan_result(messages) is None


def _broken(value: Any) -> bool:
    messages = stored_messages(value)
    return messages is not None and orphan_result(messages) is not None


StoredTranscript = Annotated[
    list[StoredMessage] | Invalid,
    refusable(
        "akan.sanitize.runs-on-restore",
        "a transcript a chat could have saved, each tool result after the call it answers",
        _sound,
        _broken,
    ),
]
"""What web storage holds when the page opens; a transcript no chat could have saved is marked invalid."""


class Store(Strict):
    """A ``store(...)`` class the app defines; its methods and fields are not on the surface by themselves."""

    name: str = Field(pattern=r"^[a-z][A-Za-z0-9]*$")
    methods: list[str] = Field(default_factory=list, description="Action methods declared on the class.")
    fields: dict[str, Any] = Field(default_factory=dict, description="State fields and their values.")


PanelSlot = Literal[
    "AgentLauncher", "AgentBubble", "AgentComposer", "AgentApproval", "AgentQuestion", "AgentMenu",
    "AgentMarkdown", "AgentCode",
]


class SlotOverride(Strict):
    """A component registered for one slot in ``_overrides.tsx``."""

    wraps_default: bool = Field(
        default=False, description="The replacement renders the default akanjs/ui exports for this slot."
    )


class Persist(Strict):
    """The chat's ``persist`` prop: ``{}`` for ``persist``, ``{storage: local}`` for localStorage."""

    storage: Literal["local"] | None = Field(default=None, description="`local`: `{ storage: \"local\" }`.")


class Panel(Strict):
    """The chat's panel as the app mounts it. Given, the composer steps (`type`, `key`, `viewport`) can be
    played and the record's `final.panel` describes what the panel draws."""

    open: bool | None = Field(
        default=None, description="The controlled `open` prop (the app follows `onOpenChange`); omitted, "
        "the chat keeps its own open state."
    )
    initially_open: bool = Field(
        default=True, description="Uncontrolled only: whether the panel is open when the steps begin."
    )
    launcher: bool = Field(default=True, description="false: `launcher={false}`.")
    class_name: str | None = Field(default=None, description="`className`.")
    launcher_class_name: str | None = Field(default=None, description="`launcherClassName`.")
    panel_class_name: str | None = Field(default=None, description="`panelClassName`.")
    intro: str | None = Field(default=None, description="`intro`: shown while the transcript is empty.")
    header: list[str] = Field(default_factory=list, description="Names of the controls `header` adds.")
    overrides: dict[PanelSlot, SlotOverride] = Field(
        default_factory=dict, description="Slots replaced in `_overrides.tsx`."
    )
    shortcut: bool = Field(default=True, description="false: `shortcut={false}`.")
    width: int = Field(default=1280, ge=1, description="The viewport's width in CSS pixels.")
    persist: Persist | None = Field(
        default=None, description="The `persist` prop; omitted, not given (nothing survives a reload)."
    )
    agent_chat: bool = Field(
        default=False, description="`AgentChat` is overridden: the whole panel is the app's (then no `type` "
        "or `key` step can be played on it)."
    )
    session: Literal["own", "provider", "zone"] = Field(
        default="own", description="Whose session the chat uses: one it made, an AgentProvider's or an "
        "Agent.Zone's."
    )

    @model_validator(mode="after")
    def _controlled_or_not(self) -> Panel:
        if self.open is not None and "initially_open" in self.model_fields_set:
            raise ValueError("panel: `initially_open` is for an uncontrolled panel; leave it out with `open`")
        return self


class Setup(Strict):
    """System configuration for one akan scenario."""

    compact: Compact = Field(default_factory=Compact)
    provider: Provider = Field(default_factory=Provider)
    tools: list[PageTool] = Field(default_factory=list, description="Tools the page publishes.")
    screen: str = Field(
        default="", description="The screen context each turn carries; with no `html`, readScreen reads this "
        "text as written. `{filler:N}` in it stands for N generated characters."
    )
    reader: list[ReaderRule] | None = Field(
        default=None, description="The app's attachment reader; omitted means the app supplies none."
    )
    prompts: list[Prompt] = Field(default_factory=list, description="The app's prompt() slash commands.")
    route: str = Field(default="/", pattern=r"^/", description="The page's route when the chat opens.")
    html: str | None = Field(
        default=None, description="The rendered page, as HTML, that readScreen and highlight read; omitted, "
        "readScreen reads the `screen` text. `{filler:N}` in it stands for N generated characters."
    )
    state: dict[str, StateKey] = Field(
        default_factory=dict, description="The store keys a mounted component subscribes: readState reads "
        "these and no others."
    )
    guides: list[Guide] = Field(default_factory=list, description="Guides rendered on the page.")
    local_state: list[LocalState] = Field(
        default_factory=list, description="`st.useState` / `st.expose` values the mounted components publish."
    )
    zone: str | None = Field(
        default=None, description="The chat is the agent of this zone: its surface is what is mounted inside "
        "the zone, and readScreen and highlight see only the element whose data-agent-zone is this name."
    )
    form: Form | None = Field(default=None, description="A model form on this screen.")
    components: list[UiComponent] = Field(
        default_factory=list, description="akanjs/ui components mounted on the screen. A dropdown's menu "
        "content is the element of `html` whose data-agent-dropdown is the dropdown's namespace."
    )
    relay: Relay | None = Field(
        default=None, description="The relay endpoint and its guard as the app configures them; omitted, "
        "the app has named a guard this caller passes and the endpoint is served."
    )
    dictionary: dict[str, str] = Field(
        default_factory=dict, description="The browser's dictionary entries (`{name}` interpolates a "
        "value), over the chat's own; an error key is resolved against it."
    )
    voice: Voice | None = Field(default=None, description="The chat's `voice` engine; omitted, none.")
    max_turns: int | None = Field(
        default=None, ge=1, description="maxTurns: model requests one loop may post; omitted, the "
        "implementation's default (the documents give none)."
    )
    module_docs: list[str] = Field(
        default_factory=list, description="The text of the page's modules' `*.abstract.md` developer docs."
    )
    store_actions: list[str] = Field(
        default_factory=list, description="Actions the page's stores define (`st.do.<name>` in code); a "
        "tool's body may call them."
    )
    stored: StoredTranscript | None = Field(
        default=None, description="The transcript in web storage when the page opens (saved by an earlier "
        "visit); a `reload` step restores it. Omitted, storage is empty."
    )
    env: dict[str, str] = Field(
        default_factory=dict, description="Environment variables the server runs with; the app's env object "
        "(what a `setLlm` function reads) carries the same values."
    )
    panel: Panel | None = Field(
        default=None, description="The chat's panel and its props; needed by `type`, `key` and `viewport`."
    )
    stores: list[Store] = Field(
        default_factory=list, description="The app's store classes. A method reaches the agent only through "
        "an entry of `tools`; a field only through an entry of `state`."
    )
    observe: list[Literal["settle", "listen"]] = Field(
        default_factory=list, description="Extra observations the implementation reports as events in this "
        "run: `settle`, each `ScreenSettle.wait()` as it starts and ends (`settle`) and each tool's run as "
        "it starts and returns (`tool_run`); `listen`, each call of the voice engine's `listen` with the "
        "callbacks it was handed (`listen`). Omitted, neither is reported."
    )

def expand_fillers(text: str) -> str:
    """``{filler:N}`` replaced by :func:`filler` (N): how a scenario declares a page too long to write out."""
    return re.sub(r"\{filler:(\d+)\}", lambda match: filler(int(match.group(1))), text)


class AttachStep(Strict):
    """Add files at the paperclip, one after another; each is admitted or refused on its own."""

    op: Literal["attach"]
    files: list[File] = Field(min_length=1)


class SendStep(Strict):
    """Type into the composer and press Enter: a message (with the attached files) or a slash command."""

    op: Literal["send"]
    text: str = ""
    filler_chars: int = Field(default=0, ge=0, description="Generated characters appended to `text`.")


class UnmountStep(Strict):
    """Components leave the screen: the tools they declared and the store keys they read go with them."""

    op: Literal["unmount"]
    tools: list[str] = Field(default_factory=list, description="Names of the tool declarations removed.")
    state: list[str] = Field(default_factory=list, description="Keys no mounted component reads any more.")
    guides: list[str] = Field(
        default_factory=list, description="Texts of the guides whose components stop rendering."
    )


class ClickStep(Strict):
    """The person presses the control wired to the callable a tool declaration returned (its `onClick`)."""

    op: Literal["click"]
    tool: str = Field(min_length=1, description="The declaration's name, as in `setup.tools`.")
    arguments: dict[str, Any] = Field(default_factory=dict, description="What the control passes it.")


class RenderStep(Strict):
    """The mounted components render again (a state change elsewhere): every declaration statement runs
    once more, `.exec` included."""

    op: Literal["render"]


class TypeStep(Strict):
    """The user types into the composer: it now holds `text`, the caret on line `caret_line` (0-based)."""

    op: Literal["type"]
    text: str
    caret_line: int | None = Field(default=None, ge=0, description="Omitted: the last line.")


class KeyStep(Strict):
    """One key press in the composer (Cmd+L / Ctrl+L: anywhere on the page)."""

    op: Literal["key"]
    key: Literal["Enter", "Shift+Enter", "ArrowUp", "ArrowDown", "Tab", "Escape", "Cmd+L", "Ctrl+L"]


class ViewportStep(Strict):
    """The viewport changes: its width, or the height of the on-screen keyboard (0: hidden)."""

    op: Literal["viewport"]
    width: int | None = Field(default=None, ge=1)
    keyboard: int | None = Field(default=None, ge=0, description="As `visualViewport` reveals it, in px.")


class ReopenStep(Strict):
    """Close the tab and open the app again in a new one (needs `setup.panel`)."""

    op: Literal["reopen"]


class UnmountChatStep(Strict):
    """The chat component unmounts, e.g. the user navigates to a layout without it (needs `setup.panel`)."""

    op: Literal["unmount_chat"]


class OpenRowStep(Strict):
    """The user opens a settled tool row in the transcript (the row of the call with this id)."""

    op: Literal["open_row"]
    id: str = Field(min_length=1, description="The tool call's id, as the script gave it.")


class NoteStep(Strict):
    """``session.note(text)``: a local message, shown in the transcript."""

    op: Literal["note"]
    text: str = Field(min_length=1)


class ReportStep(Strict):
    """``session.report(error)``: the host reports a failure of its own to the chat."""

    op: Literal["report"]
    message: str = Field(min_length=1)


class PersistStep(Strict):
    """Save the transcript to web storage (the chat's ``persist`` option), recording what was stored."""

    op: Literal["persist"]
    cap: int | None = Field(
        default=None, ge=0, description="The store keeps only this many of the newest messages."
    )


class ReloadStep(Strict):
    """Reload the page: the running turn is gone and the chat restores the last saved transcript."""

    op: Literal["reload"]


class StopStep(Strict):
    """Press Stop: the running turn (waiting on a tool or a question card) ends at once."""

    op: Literal["stop"]


class MicStep(Strict):
    """Press the microphone: the engine reports what it heard, one result after another, in this press."""

    op: Literal["mic"]
    heard: list[str] = Field(min_length=1, description="Recognition results the engine reports.")


class SendDraftStep(Strict):
    """Press Enter on what is in the composer, after correcting it to `edit` if given."""

    op: Literal["send_draft"]
    edit: str | None = Field(default=None, description="The text the user changed the draft to.")


Duration = Annotated[
    str, Field(pattern=r"^\s*\d+(\.\d+)?\s*(ms|s|m|h|d|w)\s*$", description="e.g. '90s', '5m', '24h'.")
]


class AdvanceStep(Strict):
    """Move the virtual clock on (it starts at 2026-01-05T12:00:00Z)."""

    op: Literal["advance"]
    by: Duration


Step = Annotated[
    AttachStep | SendStep | NoteStep | PersistStep | ReloadStep | StopStep | AdvanceStep | UnmountStep
    | MicStep | SendDraftStep | ReportStep | OpenRowStep | TypeStep | KeyStep | ViewportStep
    | ReopenStep | UnmountChatStep | ClickStep | RenderStep,
    Field(discriminator="op"),
]


# What an implementation plays; ``conformance.scenario.model`` adds the answer key.
class AkanCase(CaseBase):
    system: Literal["akan"]
    # ``Setup()`` would build Setup's own validator (the case's validator holds Setup's schema inline, but
    # Setup gets none of its own while deferred): the largest build of a case without ``setup``, paid again
    # by each stdio server. Every field has a default and nothing validates the empty setup, so the
    # default is built unvalidated; it equals ``Setup()``.
    setup: Setup = Field(default_factory=Setup.model_construct)
    steps: list[Step] = Field(min_length=1)
